//! Compiles `rules/*.dl` twice from the one text (`build_support/`): into one `crepe!`
//! program, the whole program's evaluator, with the typed view of its outputs; and into the
//! on-demand evaluator, which derives what a search asks for through the input lookups of
//! `src/resolve/lookups.rs`. Both go to `OUT_DIR/rules.rs`. A rule the on-demand evaluator
//! cannot express fails the build, naming the rule and its line (docs/rules.md, Limits).
//!
//! Two more programs are generated for tests only: the generator's own rule set
//! (`tests/rules/`, checked against crepe by `tests/rule_generator.rs`) and the shipped
//! rules with the lines docs/rules.md's walk-through adds (`src/resolve/walkthrough.rs`).

use std::fs;
use std::path::Path;

#[path = "build_support/mod.rs"]
mod build_support;

use build_support::{Config, RuleFile};

/// What the on-demand driver (`src/resolve/demand.rs`) asks of the shipped rules: the
/// relation it expands one bundle at a time, and its queries of demanded relations (one
/// letter per argument: `b` bound, `f` free).
const SHIPPED: Config<'static> = Config {
    expanded: Some("Reached"),
    queries: &[
        ("RequirementMatch", "ff"),
        ("RequirementMismatch", "fff"),
        ("InstalledFits", "ff"),
        ("UpgradeCandidate", "fff"),
        ("Successor", "ffff"),
        ("Excluded", "bf"),
    ],
    lookups: &[],
    lookups_type: "Lookups",
};

/// The same for the generator's test rule set (`tests/rules/`).
const GENERATOR_TEST: Config<'static> = Config {
    expanded: Some("Reached"),
    queries: &[("Bad", "bf"), ("Bad", "ff"), ("Kin", "ff")],
    lookups: &[],
    lookups_type: "Lookups",
};

/// The `.dl` files of `dir`, `facts.dl` first, then by name.
fn rule_files(dir: &str) -> Vec<RuleFile> {
    let mut paths: Vec<_> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{dir}: {e}"))
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "dl"))
        .collect();
    paths.sort();
    // facts.dl declares the inputs; keep it first so the program reads top-down.
    paths.sort_by_key(|p| p.file_name().is_none_or(|n| n != "facts.dl"));
    paths
        .iter()
        .map(|p| {
            println!("cargo:rerun-if-changed={}", p.display());
            RuleFile {
                name: p.display().to_string(),
                text: fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display())),
            }
        })
        .collect()
}

fn read(path: &str) -> String {
    println!("cargo:rerun-if-changed={path}");
    fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The walk-through's additions (docs/rules.md): each fenced block whose info string is
/// `datalog rules/NAME.dl` is appended to that rule file; the block tagged
/// `rust Exclusion` is the variant added to `Exclusion`.
fn walkthrough(shipped: &[RuleFile], doc: &str) -> (Vec<RuleFile>, String) {
    let mut files: Vec<RuleFile> = shipped
        .iter()
        .map(|f| RuleFile {
            name: f.name.clone(),
            text: f.text.clone(),
        })
        .collect();
    let mut variant = String::new();
    let mut lines = doc.lines();
    while let Some(line) = lines.next() {
        let Some(info) = line.trim().strip_prefix("```") else {
            continue;
        };
        let block: Vec<&str> = lines.by_ref().take_while(|l| l.trim() != "```").collect();
        if let Some(file) = info.strip_prefix("datalog ") {
            if let Some(f) = files.iter_mut().find(|f| f.name == file.trim()) {
                f.text.push('\n');
                f.text.push_str(&block.join("\n"));
                f.text.push('\n');
            }
        } else if info.trim() == "rust Exclusion" {
            variant = block.join("\n");
        }
    }
    (files, variant)
}

/// On Linux the `deppy` binary is linked position-dependent (`-no-pie`): a position-
/// independent executable applies about 68,000 relocations at every start, which took 2–4 ms
/// of each process (docs/performance.md, 2026-11-27 07:26). The price is that the binary's
/// own code and data are not placed at a random address (libraries, heap and stack still
/// are). Building with `DEPPY_PIE=1` keeps the toolchain's default.
fn link_position_dependent() {
    println!("cargo:rerun-if-env-changed=DEPPY_PIE");
    let linux = std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux");
    let keep_pie = std::env::var_os("DEPPY_PIE").is_some_and(|v| !v.is_empty());
    if linux && !keep_pie {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
}

fn main() {
    link_position_dependent();
    println!("cargo:rerun-if-changed=rules");
    println!("cargo:rerun-if-changed=build_support");
    let out = std::env::var("OUT_DIR").expect("OUT_DIR");
    let out = Path::new(&out);
    let vis = "pub(in crate::resolve)";
    let lookups = read("src/resolve/lookups.rs");
    let shipped = rule_files("rules");
    match build_support::generate(&shipped, vis, &lookups, &SHIPPED) {
        Ok(code) => fs::write(out.join("rules.rs"), code).expect("write rules.rs"),
        Err(e) => {
            eprintln!("error: the rules cannot be compiled into the on-demand evaluator:\n{e}");
            std::process::exit(1);
        }
    }
    // Test programs: an error becomes a compile error of the test that includes it.
    let test_only = |name: &str, r: Result<String, String>| {
        let code = r.unwrap_or_else(|e| format!("compile_error!({e:?});"));
        fs::write(out.join(name), code).expect("write a test program");
    };
    let generator = rule_files("tests/rules");
    let test_lookups = read("tests/rule_generator.rs");
    test_only(
        "generator_test.rs",
        build_support::generate(&generator, "pub", &test_lookups, &GENERATOR_TEST),
    );
    let (files, variant) = walkthrough(&shipped, &read("docs/rules.md"));
    let exclusion = exclusion_with(&read("src/resolve/derive.rs"), &variant);
    test_only(
        "walkthrough.rs",
        build_support::generate(&files, vis, &lookups, &SHIPPED)
            .map(|c| format!("{exclusion}\n{c}")),
    );
}

/// The `Exclusion` enum of `derive` with `variant` added, for the walk-through's program.
fn exclusion_with(derive: &str, variant: &str) -> String {
    let Some(start) = derive.find("pub enum Exclusion {") else {
        return "compile_error!(\"src/resolve/derive.rs declares no `pub enum Exclusion`\");"
            .into();
    };
    let Some(len) = derive[start..].find("\n}") else {
        return "compile_error!(\"`Exclusion` does not end\");".into();
    };
    let body = &derive[start..start + len];
    format!(
        "#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]\n{body}\n{variant}\n}}\n"
    )
}
