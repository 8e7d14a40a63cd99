//! CRD patterns are Go's regular expressions: deppy's `GoRegex` against Go's own test tables
//! (`tests/gore/cases.jsonl`, taken from golang/go's `src/regexp` tests): every pattern Go
//! compiles compiles, every one it refuses is refused, and each first match is Go's.

use deppy::advanced::crd::GoRegex;

const CASES: &str = include_str!("gore/cases.jsonl");

#[test]
fn go_regexp_test_cases_give_gos_answers() {
    let mut failures = Vec::new();
    let mut checked = 0;
    for line in CASES
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let case: serde_json::Value = serde_json::from_str(line).expect("a JSON case");
        let pattern = case["pattern"].as_str().expect("pattern");
        let compiled = GoRegex::new(pattern);
        checked += 1;
        if let Some(valid) = case["valid"].as_bool() {
            if compiled.is_ok() != valid {
                let short: String = pattern.chars().take(60).collect();
                failures.push(format!(
                    "{short:?}: Go says valid={valid}, deppy: {compiled:?}"
                ));
            }
            continue;
        }
        let text = case["text"].as_str().expect("text");
        let want = case["match"].as_array().map(|m| {
            let n = |i: usize| m[i].as_u64().expect("offset") as usize;
            (n(0), n(1))
        });
        match compiled {
            Ok(re) if re.find(text) == want => {}
            Ok(re) => failures.push(format!(
                "{pattern:?} on {text:?}: Go finds {want:?}, deppy {:?}",
                re.find(text)
            )),
            Err(e) => failures.push(format!("{pattern:?}: Go compiles it, deppy: {e}")),
        }
    }
    assert!(checked > 250, "only {checked} cases");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
