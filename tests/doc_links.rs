//! Every relative link in README.md and docs/*.md points to a file of the repository, and the
//! docs speak of the project, not of the sittings it was written in.

use std::path::{Path, PathBuf};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// README.md and every Markdown file under docs/, sorted.
fn documents() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .expect("docs/")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    files.sort();
    files.insert(0, root().join("README.md"));
    files
}

/// The targets of the Markdown links `[text](target)` and `![alt](target)` outside fenced
/// code blocks and inline code.
fn link_targets(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        let prose: String = line.split('`').step_by(2).collect::<Vec<_>>().join(" ");
        let mut rest = prose.as_str();
        while let Some(i) = rest.find("](") {
            let after = &rest[i + 2..];
            let Some(end) = after.find(')') else { break };
            out.push(after[..end].to_string());
            rest = &after[end..];
        }
    }
    out
}

#[test]
fn link_targets_are_found() {
    let text = "see [a](docs/a.md) and ![b](b.svg#x)\n```\n[c](no.md)\n```\n`[d](no.md)` [e](#top)";
    assert_eq!(link_targets(text), ["docs/a.md", "b.svg#x", "#top"]);
}

#[test]
fn relative_links_resolve() {
    let mut broken = Vec::new();
    for doc in documents() {
        let text = std::fs::read_to_string(&doc).expect("readable doc");
        let dir = doc.parent().expect("a parent directory");
        for target in link_targets(&text) {
            if target.contains("://") || target.starts_with("mailto:") || target.starts_with('#') {
                continue;
            }
            let file = target.split('#').next().unwrap_or_default();
            if !dir.join(file).exists() {
                broken.push(format!("{}: {target}", doc.display()));
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn docs_speak_of_the_project() {
    let mut hits = Vec::new();
    for doc in documents() {
        let text = std::fs::read_to_string(&doc).expect("readable doc");
        for (n, line) in text.lines().enumerate() {
            let words = line.split(|c: char| !c.is_alphanumeric());
            if words
                .map(str::to_lowercase)
                .any(|w| w == "session" || w == "sessions")
            {
                hits.push(format!("{}:{}: {line}", doc.display(), n + 1));
            }
        }
    }
    assert!(hits.is_empty(), "{}", hits.join("\n"));
}
