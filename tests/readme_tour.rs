//! Every command the README's tour shows (a fenced block whose first line is `$ deppy ...`)
//! prints what the README says it prints. Lines of the block must appear in the command's
//! standard output in order; a line `...` stands for any number of lines the README leaves out.

use std::process::Command;

/// A command of the tour and the output the README shows for it.
struct Example {
    line: usize,
    args: Vec<String>,
    shown: Vec<String>,
}

fn examples(readme: &str) -> Vec<Example> {
    let mut out = Vec::new();
    let lines: Vec<&str> = readme.lines().collect();
    let mut i = 0;
    while i < lines.len() {
        let is_fence = lines[i] == "```";
        if !(is_fence && lines.get(i + 1).is_some_and(|l| l.starts_with("$ deppy "))) {
            i += 1;
            continue;
        }
        let start = i + 1;
        let mut command = String::new();
        let mut j = start;
        loop {
            let l = lines[j].trim_start_matches("$ ");
            match l.strip_suffix('\\') {
                Some(head) => command.push_str(head),
                None => {
                    command.push_str(l);
                    break;
                }
            }
            j += 1;
        }
        let end = (j + 1..lines.len())
            .find(|k| lines[*k] == "```")
            .expect("closed block");
        out.push(Example {
            line: start + 1,
            args: command
                .split_whitespace()
                .skip(1)
                .map(String::from)
                .collect(),
            shown: lines[j + 1..end].iter().map(|l| l.to_string()).collect(),
        });
        i = end + 1;
    }
    out
}

/// Whether `shown` appears in `actual` in order, `...` matching any run of lines.
fn appears(shown: &[String], actual: &[&str]) -> Result<(), String> {
    let mut at = 0;
    let mut gap = false;
    for s in shown {
        if s == "..." {
            gap = true;
            continue;
        }
        let found = if gap {
            actual[at..].iter().position(|a| a == s).map(|p| at + p)
        } else {
            (actual.get(at) == Some(&s.as_str())).then_some(at)
        };
        match found {
            Some(p) => at = p + 1,
            None => return Err(format!("line not printed where shown: {s:?}")),
        }
        gap = false;
    }
    if !gap && at != actual.len() {
        return Err(format!("more output than shown after {at} lines"));
    }
    Ok(())
}

#[test]
fn the_tour_prints_what_the_readme_shows() {
    let root = env!("CARGO_MANIFEST_DIR");
    let readme = std::fs::read_to_string(format!("{root}/README.md")).expect("README.md");
    let examples = examples(&readme);
    let mut failures = Vec::new();
    for e in &examples {
        let out = Command::new(env!("CARGO_BIN_EXE_deppy"))
            .args(&e.args)
            .current_dir(root)
            .env("NO_COLOR", "1")
            .output()
            .expect("deppy runs");
        let stdout = String::from_utf8_lossy(&out.stdout);
        let actual: Vec<&str> = stdout.lines().collect();
        if let Err(why) = appears(&e.shown, &actual) {
            failures.push(format!(
                "README.md:{} `deppy {}`: {why}\n--- printed:\n{stdout}",
                e.line,
                e.args.join(" ")
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(
        examples
            .iter()
            .any(|e| e.args.first().is_some_and(|a| a == "cluster")),
        "the tour has a cluster example"
    );
}

#[test]
fn the_matcher_can_fail() {
    let shown = |s: &[&str]| s.iter().map(|l| l.to_string()).collect::<Vec<_>>();
    assert!(appears(&shown(&["a", "...", "c"]), &["a", "b", "c"]).is_ok());
    assert!(appears(&shown(&["a", "c"]), &["a", "b", "c"]).is_err());
    assert!(appears(&shown(&["a"]), &["a", "b"]).is_err());
    assert!(appears(&shown(&["a", "..."]), &["a", "b"]).is_ok());
    assert!(appears(&shown(&["x"]), &["a"]).is_err());
}
