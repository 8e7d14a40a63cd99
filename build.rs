//! Stitches `rules/*.dl` (crepe syntax) into one `crepe!` program in `OUT_DIR/rules.rs`.

use std::fs;
use std::path::Path;

fn main() {
    println!("cargo:rerun-if-changed=rules");
    let mut files: Vec<_> = fs::read_dir("rules")
        .expect("rules/ directory")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "dl"))
        .collect();
    files.sort();
    // facts.dl declares the inputs; keep it first so the program reads top-down.
    files.sort_by_key(|p| p.file_name().is_none_or(|n| n != "facts.dl"));
    let mut program = String::from("crepe::crepe! {\n");
    for f in &files {
        println!("cargo:rerun-if-changed={}", f.display());
        let text = fs::read_to_string(f).expect("readable rule file");
        program.push_str(&format!("// ---- {} ----\n", f.display()));
        program.push_str(&text);
        program.push('\n');
    }
    program.push_str("}\n");
    let out = std::env::var("OUT_DIR").expect("OUT_DIR");
    fs::write(Path::new(&out).join("rules.rs"), program).expect("write rules.rs");
}
