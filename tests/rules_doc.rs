//! The relation table of docs/rules.md lists every relation of `rules/*.dl`, and every
//! relation carries a comment line in its file.

use std::path::Path;

#[test]
fn every_relation_is_commented_and_in_the_rules_doc() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let doc = std::fs::read_to_string(root.join("docs/rules.md")).expect("docs/rules.md");
    let mut missing = Vec::new();
    let mut files: Vec<_> = std::fs::read_dir(root.join("rules"))
        .expect("rules/")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "dl"))
        .collect();
    files.sort();
    for file in files {
        let text = std::fs::read_to_string(&file).expect("rule file");
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let Some(rest) = line.strip_prefix("struct ") else {
                continue;
            };
            let name: String = rest.chars().take_while(|c| c.is_alphanumeric()).collect();
            let commented = lines[..i]
                .iter()
                .rev()
                .find(|l| !l.starts_with('@'))
                .is_some_and(|l| l.starts_with("// "));
            if !commented {
                missing.push(format!("{}: {name} has no comment line", file.display()));
            }
            if !doc.contains(&format!("| `{name}` |")) {
                missing.push(format!("docs/rules.md: no row for {name}"));
            }
        }
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}
