//! The words of a failure: an API may have one provider in the answer (catalog bundles are
//! not "installed"), and the closing sentence states one conclusion, not every intermediate
//! one joined by "and".

#[path = "support/cli.rs"]
mod cli;

use cli::{deppy, pigeonhole_catalog, require_all};

fn explain(pigeons: usize, holes: usize) -> String {
    let tmp = tempfile::tempdir().expect("tempdir");
    let catalog = tmp.path().join("pigeons.json");
    std::fs::write(&catalog, pigeonhole_catalog(pigeons, holes)).expect("write");
    let mut args = vec!["resolve".to_string(), "--catalog".to_string()];
    args.push(catalog.display().to_string());
    args.extend(require_all(pigeons));
    let ran = deppy(&args).run();
    ran.expect(1);
    ran.stdout
}

#[test]
fn one_provider_per_api_is_said_of_the_answer() {
    let text = explain(3, 2);
    assert!(
        text.contains("only one bundle in the answer may provide an API"),
        "{text}"
    );
    assert!(!text.contains("installed bundle may provide"), "{text}");
}

#[test]
fn the_closing_sentence_states_one_conclusion() {
    for (pigeons, holes) in [(3, 2), (5, 4)] {
        let text = explain(pigeons, holes);
        let last: Vec<&str> = text.lines().filter(|l| l.starts_with("So ")).collect();
        assert_eq!(last.len(), 1, "{text}");
        let so = last[0];
        assert_eq!(so.matches("cannot").count(), 1, "{so}");
        let packages = (0..pigeons).map(|i| format!("p{i}")).collect::<Vec<_>>();
        assert!(so.starts_with("So the requirements of package"), "{so}");
        assert!(
            so.ends_with("cannot all be met; therefore no resolution exists."),
            "{so}"
        );
        assert!(
            packages.iter().all(|p| so.contains(p.as_str())) || so.contains("more"),
            "{so}"
        );
    }
}
