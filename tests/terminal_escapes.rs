//! Terminal escape injection: names that hold control characters (`ESC [2J` clears the
//! screen, `ESC ]0;…BEL` sets the window title) are shown escaped in text output and in
//! messages on stderr, never sent raw to the terminal; JSON escapes them as JSON does.

#[path = "support/cli.rs"]
mod cli;

use cli::deppy;

const EVIL: &str = "evil\u{1b}[2J\u{1b}]0;pwned\u{07}";

fn catalog() -> String {
    let name = serde_json::to_string(EVIL).expect("json");
    let bundle = serde_json::to_string(&format!("{EVIL}.v1.0.0")).expect("json");
    format!(
        r#"{{"schema":"olm.package","name":{name},"defaultChannel":"stable"}}
{{"schema":"olm.channel","package":{name},"name":"stable","entries":[{{"name":{bundle},"skips":["gone\u001b[31m"]}}]}}
{{"schema":"olm.bundle","name":{bundle},"package":{name},"image":"img","properties":[{{"type":"olm.package","value":{{"packageName":{name},"version":"1.0.0"}}}}]}}
"#
    )
}

#[test]
fn control_characters_are_escaped_in_text_and_messages() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let file = tmp.path().join("c.json");
    std::fs::write(&file, catalog()).expect("write");
    let f = file.to_str().expect("utf8");
    for args in [
        vec!["resolve", "--catalog", f, "--require", EVIL],
        vec!["plan", "--catalog", f, "--require", EVIL],
        vec!["why", EVIL, "--catalog", f, "--require", EVIL],
        vec!["catalog", "inspect", f],
        vec!["catalog", "validate", f],
        vec!["graph", "--catalog", f, "--package", EVIL],
    ] {
        let ran = deppy(&args).run();
        assert!(!ran.stdout.contains('\u{1b}'), "{args:?}: {:?}", ran.stdout);
        assert!(!ran.stdout.contains('\u{07}'), "{args:?}: {:?}", ran.stdout);
        assert!(!ran.stderr.contains('\u{1b}'), "{args:?}: {:?}", ran.stderr);
        assert!(
            args[0] == "graph" || ran.stdout.contains("evil\\x1b[2J\\x1b]0;pwned\\x07"),
            "{args:?}: {}",
            ran.stdout
        );
    }
    // An error message that quotes the name.
    let ran = deppy(&["why", "other\u{1b}[2J", "--catalog", f, "--require", EVIL]).run();
    assert!(!ran.stderr.contains('\u{1b}'), "{:?}", ran.stderr);
    // JSON carries the name exactly, escaped as JSON escapes it.
    let ran = deppy(&["resolve", "--catalog", f, "--require", EVIL, "-o", "json"]).run();
    ran.expect(0);
    let v: serde_json::Value = serde_json::from_str(&ran.stdout).expect("json");
    assert_eq!(v["selected"][0]["package"], EVIL);
}
