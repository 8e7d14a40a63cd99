//! Unit tests of version ranges. The case tables are data under `tests/ranges/` (their
//! formats are in `tests/ranges/README.md`); each file is compiled in, so every case runs
//! with `cargo test --lib range`.

use std::cmp::Ordering;

use proptest::prelude::*;

use super::parse::MAX_WARNINGS;
use super::*;

const VERSIONS: &str = include_str!("../../tests/ranges/versions.txt");
const STRICT_MATCH: &str = include_str!("../../tests/ranges/strict-match.txt");
const STRICT_EQUIVALENT: &str = include_str!("../../tests/ranges/strict-equivalent.txt");
const STRICT_ERRORS: &str = include_str!("../../tests/ranges/strict-errors.txt");
const TOLERANT: &str = include_str!("../../tests/ranges/tolerant.txt");
const TOLERANT_ERRORS: &str = include_str!("../../tests/ranges/tolerant-errors.txt");

fn v(s: &str) -> Version {
    match Version::parse(s) {
        Ok(v) => v,
        Err(e) => panic!("{e}"),
    }
}

fn r(s: &str) -> VersionRange {
    match VersionRange::parse(s) {
        Ok(r) => r,
        Err(e) => panic!("{e}"),
    }
}

fn tolerant(s: &str) -> (VersionRange, Vec<String>) {
    match VersionRange::parse_tolerant(s) {
        Ok(x) => x,
        Err(e) => panic!("{e}"),
    }
}

/// One field of a case line: a JSON string, or a bare word.
#[derive(Clone, Debug, PartialEq)]
enum Field {
    Text(String),
    Word(String),
}

/// The case lines of a data file (blank lines and `#` comments skipped), each with its
/// line number and its fields.
fn cases(file: &str, data: &str) -> Vec<(usize, Vec<Field>)> {
    data.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|(i, l)| (i + 1, fields(file, i + 1, l)))
        .collect()
}

/// Splits a line into fields separated by spaces: a field that starts with `"` is a JSON
/// string, anything else a word.
fn fields(file: &str, line: usize, text: &str) -> Vec<Field> {
    let mut out = Vec::new();
    let mut rest = text.trim_start();
    while !rest.is_empty() {
        if rest.starts_with('"') {
            let mut stream = serde_json::Deserializer::from_str(rest).into_iter::<String>();
            match stream.next() {
                Some(Ok(s)) => out.push(Field::Text(s)),
                other => panic!("{file}:{line}: bad JSON string: {other:?}"),
            }
            rest = &rest[stream.byte_offset()..];
        } else {
            let end = rest.find(' ').unwrap_or(rest.len());
            out.push(Field::Word(rest[..end].to_string()));
            rest = &rest[end..];
        }
        rest = rest.trim_start();
    }
    out
}

fn text(file: &str, line: usize, f: Option<&Field>) -> String {
    match f {
        Some(Field::Text(s)) => s.clone(),
        other => panic!("{file}:{line}: expected a JSON string, found {other:?}"),
    }
}

fn word(file: &str, line: usize, f: Option<&Field>, want: &str) {
    assert_eq!(
        f,
        Some(&Field::Word(want.to_string())),
        "{file}:{line}: expected {want:?}"
    );
}

/// The versions every match case is checked against.
fn universe() -> Vec<&'static str> {
    VERSIONS
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect()
}

fn check(range: &VersionRange, label: &str, expected: &[&str]) {
    let universe = universe();
    for e in expected {
        assert!(universe.contains(e), "{label}: {e} is not in versions.txt");
    }
    let got: Vec<&str> = universe
        .iter()
        .copied()
        .filter(|s| range.matches(&v(s)))
        .collect();
    let want: Vec<&str> = universe
        .iter()
        .copied()
        .filter(|s| expected.contains(s))
        .collect();
    assert_eq!(got, want, "range {label:?}");
}

/// The number of case lines of each data file: a guard against a file that silently stops
/// being read (an empty or truncated table would otherwise pass).
#[test]
fn every_table_is_read() {
    let counts = [
        (
            "strict-match.txt",
            cases("strict-match.txt", STRICT_MATCH).len(),
        ),
        (
            "strict-equivalent.txt",
            cases("strict-equivalent.txt", STRICT_EQUIVALENT).len(),
        ),
        (
            "strict-errors.txt",
            cases("strict-errors.txt", STRICT_ERRORS).len(),
        ),
        ("tolerant.txt", cases("tolerant.txt", TOLERANT).len()),
        (
            "tolerant-errors.txt",
            cases("tolerant-errors.txt", TOLERANT_ERRORS).len(),
        ),
        ("versions.txt", universe().len()),
    ];
    assert_eq!(
        counts,
        [
            ("strict-match.txt", 46),
            ("strict-equivalent.txt", 27),
            ("strict-errors.txt", 52),
            ("tolerant.txt", 24),
            ("tolerant-errors.txt", 16),
            ("versions.txt", 31),
        ]
    );
}

#[test]
fn strict_match_table() {
    let file = "strict-match.txt";
    let all = universe();
    for (line, f) in cases(file, STRICT_MATCH) {
        let input = text(file, line, f.first());
        word(file, line, f.get(1), "=>");
        let words: Vec<&str> = f
            .iter()
            .skip(2)
            .map(|x| match x {
                Field::Word(w) => w.as_str(),
                Field::Text(t) => panic!("{file}:{line}: unexpected string {t:?}"),
            })
            .collect();
        let expected: Vec<&str> = match words.as_slice() {
            ["all"] => all.clone(),
            ["all", "but", skip @ ..] => {
                all.iter().copied().filter(|s| !skip.contains(s)).collect()
            }
            listed => listed.to_vec(),
        };
        check(&r(&input), &format!("{file}:{line}: {input}"), &expected);
    }
}

#[test]
fn strict_equivalent_table() {
    let file = "strict-equivalent.txt";
    for (line, f) in cases(file, STRICT_EQUIVALENT) {
        let input = text(file, line, f.first());
        word(file, line, f.get(1), "==");
        let equivalent = text(file, line, f.get(2));
        assert_eq!(f.len(), 3, "{file}:{line}: trailing fields");
        let got = r(&input);
        assert_eq!(got.sets, r(&equivalent).sets, "{file}:{line}: {input:?}");
        assert_eq!(got.raw(), input, "{file}:{line}: raw text");
    }
}

#[test]
fn strict_errors() {
    let file = "strict-errors.txt";
    for (line, f) in cases(file, STRICT_ERRORS) {
        let input = text(file, line, f.first());
        assert_eq!(f.len(), 1, "{file}:{line}: trailing fields");
        match VersionRange::parse(&input) {
            Ok(range) => panic!("{file}:{line}: {input:?} parsed as {range:?}"),
            Err(e) => {
                assert_eq!(e.input, input);
                assert!(!e.reason.is_empty(), "{input:?}");
                assert!(e.to_string().starts_with("invalid version range "));
            }
        }
    }
    // Large components that do not overflow when incremented are fine.
    assert!(VersionRange::parse("18446744073709551614.x").is_ok());
    assert!(VersionRange::parse(">=18446744073709551615.x").is_ok());
}

#[test]
fn tolerant_table() {
    let file = "tolerant.txt";
    for (line, f) in cases(file, TOLERANT) {
        let at = format!("{file}:{line}");
        let input = text(file, line, f.first());
        word(file, line, f.get(1), "=>");
        let raw = match f.get(2) {
            Some(Field::Word(w)) if w == "unchanged" => input.clone(),
            other => text(file, line, other),
        };
        word(file, line, f.get(3), "means");
        let equivalent = text(file, line, f.get(4));
        let warnings: Vec<String> = match f.get(5) {
            None => Vec::new(),
            Some(_) => {
                word(file, line, f.get(5), "warns");
                (6..f.len()).map(|i| text(file, line, f.get(i))).collect()
            }
        };
        let (range, got_warnings) = tolerant(&input);
        assert_eq!(range.raw(), raw, "{at}: raw for {input:?}");
        assert_eq!(
            range.sets,
            r(&equivalent).sets,
            "{at}: meaning of {input:?}"
        );
        for w in &warnings {
            assert!(
                got_warnings.iter().any(|g| g.contains(w.as_str())),
                "{at}: {input:?}: no warning containing {w:?} in {got_warnings:?}"
            );
        }
        if warnings.is_empty() {
            assert!(got_warnings.is_empty(), "{at}: {input:?}: {got_warnings:?}");
        }
        // The repaired text parses strictly to the same range.
        assert_eq!(
            r(range.raw()).sets,
            range.sets,
            "{at}: reparse of {input:?}"
        );
    }
}

#[test]
fn tolerant_errors() {
    let file = "tolerant-errors.txt";
    for (line, f) in cases(file, TOLERANT_ERRORS) {
        let input = text(file, line, f.first());
        assert_eq!(f.len(), 1, "{file}:{line}: trailing fields");
        assert!(
            VersionRange::parse_tolerant(&input).is_err(),
            "{file}:{line}: {input:?} should fail"
        );
    }
}

#[test]
fn case_lines_split_into_fields() {
    assert_eq!(
        fields("t", 1, r#""a \"b\" || c" => 1.0.0 "d""#),
        [
            Field::Text("a \"b\" || c".into()),
            Field::Word("=>".into()),
            Field::Word("1.0.0".into()),
            Field::Text("d".into()),
        ]
    );
    assert_eq!(fields("t", 1, r#"" * ""#), [Field::Text(" * ".into())]);
}

#[test]
fn warnings_are_capped() {
    let input = format!(">=1.0.0 {}", "- ".repeat(1000));
    let (range, warnings) = tolerant(&input);
    assert_eq!(range.raw(), ">=1.0.0");
    assert_eq!(warnings.len(), MAX_WARNINGS + 1);
    assert!(warnings.last().is_some_and(|w| w.contains("968 more")));
}

#[test]
fn any_and_exact() {
    let any = VersionRange::any();
    assert_eq!(any.raw(), "*");
    check(&any, "any", &universe());
    assert_eq!(r(any.raw()), any);

    let exact = VersionRange::exact(&v("1.2.3"));
    assert_eq!(exact.to_string(), "=1.2.3");
    check(&exact, "exact", &["1.2.3", "1.2.3+meta"]);
    assert_eq!(r(exact.raw()), exact);
    let with_build = VersionRange::exact(&v("1.2.3+meta"));
    assert_eq!(with_build.raw(), "=1.2.3+meta");
    check(&with_build, "exact+build", &["1.2.3", "1.2.3+meta"]);
}

#[test]
fn display_fromstr_serde() {
    let input = ">= 1.18.0 < 1.28.0 || 2.x";
    let range: VersionRange = input.parse().expect("parse");
    assert_eq!(range.to_string(), input);
    let json = serde_json::to_string(&range).expect("serialize");
    assert_eq!(json, serde_json::to_string(input).expect("json string"));
    let back: VersionRange = serde_json::from_str(&json).expect("deserialize");
    assert_eq!(back, range);
    // Deserialize is strict.
    assert!(serde_json::from_str::<VersionRange>("\">=1.2\"").is_err());
    assert!(serde_json::from_str::<VersionRange>("\"\"").is_err());
    assert!(serde_json::from_str::<VersionRange>("3").is_err());
    // Ranges repaired by parse_tolerant serialize to text that strict Deserialize accepts.
    let (repaired, _) = tolerant("\u{201c}>=1.2\u{201d}");
    let json = serde_json::to_string(&repaired).expect("serialize");
    let back: VersionRange = serde_json::from_str(&json).expect("deserialize repaired");
    assert_eq!(back, repaired);
}

#[test]
fn error_display() {
    let err = VersionRange::parse(">>1.0.0").expect_err(">>");
    assert_eq!(err.input, ">>1.0.0");
    assert!(
        err.to_string()
            .starts_with("invalid version range \">>1.0.0\": "),
        "{err}"
    );
    assert!(err.reason.contains("operator"), "{err}");
}

/// Megabyte inputs parse, or fail with an error, and are repaired with a bounded list of
/// warnings. How long they take is a benchmark's business, not this test's: a wall-clock bound
/// here failed on a loaded machine without telling anything about the parser.
#[test]
fn huge_inputs_are_handled() {
    let mb = 1 << 20;
    // Many valid comparators.
    let many = ">=1.0.0 <2.0.0 || ".repeat(mb / 18) + "3.0.0";
    let range = r(&many);
    assert!(range.matches(&v("1.5.0")));
    assert!(!range.matches(&v("2.5.0")));
    let (_, warnings) = tolerant(&many);
    assert!(warnings.is_empty());
    // Pathological ones.
    for bad in [
        "1".repeat(mb),
        ">".repeat(mb),
        ">= ".repeat(mb / 3),
        "|| ".repeat(mb / 3),
        "x.".repeat(mb / 2),
        "\u{201c}".repeat(mb / 3),
        " ".repeat(mb),
        format!("1.0.0-{}", "a.".repeat(mb / 2)),
        "- ".repeat(mb / 2),
    ] {
        assert!(VersionRange::parse(&bad).is_err());
        let _ = VersionRange::parse_tolerant(&bad);
    }
    let (ok, warnings) = tolerant(&format!("{}>=1.0.0", "- ".repeat(mb / 2)));
    assert_eq!(ok.raw(), ">=1.0.0");
    assert_eq!(warnings.len(), MAX_WARNINGS + 1);
}

fn arb_version() -> impl Strategy<Value = Version> {
    let pre = prop_oneof![
        Just(""),
        Just("-alpha"),
        Just("-alpha.1"),
        Just("-beta"),
        Just("-rc.1"),
        Just("-0"),
        Just("-1"),
    ];
    let build = prop_oneof![Just(""), Just("+b1"), Just("+001")];
    (0u64..3, 0u64..3, 0u64..3, pre, build)
        .prop_map(|(a, b, c, pre, build)| v(&format!("{a}.{b}.{c}{pre}{build}")))
}

fn arb_range_text() -> impl Strategy<Value = String> {
    let atom = prop_oneof![
        Just(">=1.0.0"),
        Just("<2.0.0"),
        Just("1.2.x"),
        Just("!=1.0.1"),
        Just("v1.0.0"),
        Just(">= 1.2"),
        Just("||"),
        Just("-"),
        Just("*"),
        Just("\u{201c}"),
        Just("'"),
        Just("1.x.x"),
        Just(">"),
        Just("\t"),
        Just("01.2.3"),
    ];
    proptest::collection::vec(atom, 0..8).prop_map(|atoms| atoms.join(" "))
}

proptest! {
    #[test]
    fn ge_matches_iff_not_less(a in arb_version(), b in arb_version()) {
        let range = r(&format!(">={a}"));
        prop_assert_eq!(range.matches(&b), b.cmp_precedence(&a) != Ordering::Less);
        let range = r(&format!("<{a}"));
        prop_assert_eq!(range.matches(&b), b.cmp_precedence(&a) == Ordering::Less);
        let range = r(&format!("{a}"));
        prop_assert_eq!(range.matches(&b), b.cmp_precedence(&a) == Ordering::Equal);
    }

    #[test]
    fn never_panics(s in "\\PC{0,60}") {
        let _ = VersionRange::parse(&s);
        let _ = VersionRange::parse_tolerant(&s);
    }

    #[test]
    fn tolerant_raw_reparses_strictly(s in arb_range_text()) {
        if let Ok(range) = VersionRange::parse(&s) {
            let (t, _) = tolerant(&s);
            prop_assert_eq!(&t.sets, &range.sets);
        }
        if let Ok((range, _)) = VersionRange::parse_tolerant(&s) {
            let strict = VersionRange::parse(range.raw());
            prop_assert!(strict.is_ok(), "{:?} -> {:?}", s, range.raw());
            if let Ok(strict) = strict {
                prop_assert_eq!(strict.sets, range.sets);
            }
        }
    }
}

#[test]
fn binary_form_keeps_text_and_meaning_and_text_form_is_the_string() {
    for text in [
        ">=1.0.0 <2.0.0",
        ">1.2.3-rc.1 || =0.1.x",
        "!=1.2.3",
        "*",
        "1.x",
    ] {
        let range = r(text);
        let bytes = postcard::to_allocvec(&range).unwrap();
        let back: VersionRange = postcard::from_bytes(&bytes).unwrap();
        assert_eq!(back, range);
        assert_eq!(back.raw(), text);
        assert_eq!(serde_json::to_string(&range).unwrap(), format!("{text:?}"));
    }
    let no_sets = postcard::to_allocvec(&("x", Vec::<Vec<(u8, Version)>>::new())).unwrap();
    assert!(postcard::from_bytes::<VersionRange>(&no_sets).is_err());
    let bad_op = postcard::to_allocvec(&("x", vec![vec![(9u8, v("1.0.0"))]])).unwrap();
    assert!(postcard::from_bytes::<VersionRange>(&bad_op).is_err());
}
