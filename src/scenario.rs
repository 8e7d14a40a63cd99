//! Scenario directories, as `deppy test` runs them and the project's own suite does: a
//! folder with `request.yaml` (its catalogs by relative path) or `problem.yaml` (the generic
//! model), and `expected.txt`, the expected answer: exit status, the JSON report, the text
//! view (with verified hints after a failure) and, on failure, the `--explain full` text.
//! Paths in messages are written relative to the scenario folder. A folder with
//! `cluster.yaml` is a cluster scenario ([`cluster`]).

pub mod cluster;

use std::path::{Path, PathBuf};

use crate::catalog::CatalogSource;
use crate::explain::Detail;
use crate::generic::GenericFile;
use crate::pipeline::trace::TraceWriter;
use crate::pipeline::{Pipeline, PipelineConfig, Run, Sources};
use crate::report::Report;
use crate::request::Request;
use crate::resolve::Outcome;
use crate::resolve::hints::hints;

/// Name of the expected-answer file in a scenario folder.
pub const EXPECTED: &str = "expected.txt";

/// What one run of a scenario produced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answer {
    /// 0 resolved, 1 unsatisfiable, 2 bad input (as the CLI).
    pub exit: u8,
    /// The JSON report, or the error text for bad input.
    pub json: String,
    /// The text view (warnings aside: the CLI logs them).
    pub text: String,
    /// `--explain full` text, for unsatisfiable requests only.
    pub full: Option<String>,
    /// Number of warnings.
    pub warnings: usize,
}

impl Answer {
    pub(crate) fn bad_input(message: String) -> Answer {
        Answer {
            exit: 2,
            json: message,
            text: String::new(),
            full: None,
            warnings: 0,
        }
    }

    /// The `expected.txt` form.
    pub fn render(&self) -> String {
        let mut out = format!("exit: {}\n", self.exit);
        if self.exit == 2 {
            out.push_str(&format!("--- error ---\n{}\n", self.json));
            return out;
        }
        out.push_str(&format!(
            "--- json ---\n{}\n--- text ---\n{}",
            self.json, self.text
        ));
        if let Some(full) = &self.full {
            out.push_str(&format!("--- text, --explain full ---\n{full}"));
        }
        out
    }
}

/// The request's catalogs as the CLI names them (the last path component, without a
/// `.json`/`.yaml`/`.yml` extension).
pub fn catalog_sources(request: &Request) -> Result<Vec<CatalogSource>, String> {
    let mut sources: Vec<CatalogSource> = Vec::new();
    for c in &request.catalogs {
        if let Some(image) = &c.image {
            return Err(format!(
                "catalog image {image}: a scenario's catalogs are files or directories (pull the image with `deppy catalog pull` and name its directory)"
            ));
        }
        let name = c.name.clone().unwrap_or_else(|| {
            let file = matches!(
                c.path.extension().and_then(|e| e.to_str()),
                Some("json" | "yaml" | "yml")
            );
            let n = if file {
                c.path.file_stem()
            } else {
                c.path.file_name()
            };
            n.map_or_else(String::new, |s| s.to_string_lossy().into_owned())
        });
        if sources.iter().any(|s| s.name == name) {
            return Err(format!(
                "two catalogs are named {name:?}; give one a name in the request file"
            ));
        }
        sources.push(CatalogSource {
            name,
            path: c.path.clone(),
            priority: c.priority,
        });
    }
    Ok(sources)
}

/// The answer of a pipeline run, as `deppy resolve -o json` prints it (with verified hints
/// after a failure); `strip` is removed from messages.
pub fn answer_of(run: Run, request: &Request, catalogs: &[CatalogSource], strip: &str) -> Answer {
    let rel = |s: &str| {
        if strip.is_empty() {
            s.to_string()
        } else {
            s.replace(strip, "")
        }
    };
    let r = match run.result {
        Ok(r) => r,
        Err(f) => return Answer::bad_input(rel(&f.error.to_string())),
    };
    let (u, seen, outcome) = (r.universe(), r.request(), &r.outcome);
    let warnings: Vec<String> = r.warnings().iter().map(|w| rel(w)).collect();
    let count = warnings.len();
    let mut report = Report::new(u, seen, outcome, Detail::Summary, warnings);
    report.warnings = report.warnings.iter().map(|w| rel(w)).collect();
    if !report.is_resolved() {
        let found = hints(&u.set, catalogs, request, &[]);
        report = report.with_hints(u, request, found);
    }
    let json = serde_json::to_string_pretty(&report).unwrap_or_default();
    let text = Report {
        warnings: Vec::new(),
        ..report.clone()
    }
    .to_text();
    let full = matches!(outcome, Outcome::Unsatisfiable(_))
        .then(|| Report::new(u, seen, outcome, Detail::Full, Vec::new()).to_text());
    Answer {
        exit: if report.is_resolved() { 0 } else { 1 },
        json,
        text: rel(&text),
        full: full.map(|f| rel(&f)),
        warnings: count,
    }
}

/// Resolves `request` through the default pipeline (with `trace`, recording it there).
pub fn resolve(request: &Request, trace: Option<&Path>, strip: &str) -> Answer {
    let catalogs = match catalog_sources(request) {
        Ok(c) => c,
        Err(e) => return Answer::bad_input(e),
    };
    let mut pipeline = match Pipeline::new(PipelineConfig::default_config()) {
        Ok(p) => p,
        Err(e) => return Answer::bad_input(e.to_string()),
    };
    let writer = match trace
        .map(|t| TraceWriter::attach(&mut pipeline, t))
        .transpose()
    {
        Ok(w) => w,
        Err(e) => return Answer::bad_input(e.to_string()),
    };
    let sources = Sources {
        catalogs,
        request: request.clone(),
    };
    let run = pipeline.run(&sources);
    if let Some(Err(e)) = writer.map(|w| w.finish(&run)) {
        return Answer::bad_input(e.to_string());
    }
    answer_of(run, request, &sources.catalogs, strip)
}

/// Solves a generic-model file as `deppy solve -o json` does.
pub fn solve(problem: &Path) -> Answer {
    let text = match std::fs::read_to_string(problem) {
        Ok(t) => t,
        Err(e) => return Answer::bad_input(format!("{}: {e}", problem.display())),
    };
    let answer = match GenericFile::parse(&text).and_then(|f| f.solve(&Default::default())) {
        Ok(a) => a,
        Err(e) => return Answer::bad_input(e.to_string()),
    };
    let text = match answer.status {
        "resolved" => format!("Selected: {}\n", answer.selected.join(", ")),
        _ => answer.explanation.clone(),
    };
    Answer {
        exit: if answer.status == "resolved" { 0 } else { 1 },
        json: serde_json::to_string_pretty(&answer).unwrap_or_default(),
        text,
        full: None,
        warnings: 0,
    }
}

/// The prefix stripped from a scenario's messages: its folder, absolute, with a slash.
pub fn folder_prefix(dir: &Path) -> String {
    let abs = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    format!("{}/", abs.display())
}

/// Runs the scenario in `dir` (its `problem.yaml`, else its `request.yaml`).
pub fn run_dir(dir: &Path) -> Answer {
    let abs = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    let strip = folder_prefix(dir);
    let problem = abs.join("problem.yaml");
    if problem.exists() {
        return solve(&problem);
    }
    if abs.join(cluster::CLUSTER_FILE).exists() {
        return cluster::run(&abs, &strip);
    }
    match Request::from_file(&abs.join("request.yaml")) {
        Ok(r) => resolve(&r, None, &strip),
        Err(e) => Answer::bad_input(e.to_string().replace(&strip, "")),
    }
}

/// True when `dir` is a scenario folder.
pub(crate) fn is_scenario(dir: &Path) -> bool {
    dir.join("request.yaml").is_file()
        || dir.join("problem.yaml").is_file()
        || dir.join(cluster::CLUSTER_FILE).is_file()
}

/// Scenario folders: each argument that is one, else its subfolders that are (sorted;
/// folders starting with `_` hold shared data and are skipped).
pub fn find(dirs: &[PathBuf]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for d in dirs {
        if is_scenario(d) {
            out.push(d.clone());
            continue;
        }
        let mut subs: Vec<PathBuf> = std::fs::read_dir(d)
            .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
            .unwrap_or_default();
        subs.sort();
        out.extend(subs.into_iter().filter(|p| {
            let hidden = p
                .file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with('_') || n.starts_with('.'));
            !hidden && is_scenario(p)
        }));
    }
    out
}

/// A line diff of `expected` and `actual` (`-` expected, `+` actual), empty when equal.
// Invariant for indexing: `i < a.len()` and `j < b.len()` wherever `a[i]`/`b[j]` are read,
// and the table has `a.len() + 1` rows of `b.len() + 1` cells.
#[allow(clippy::indexing_slicing)]
pub fn diff(expected: &str, actual: &str) -> String {
    if expected == actual {
        return String::new();
    }
    let (a, b): (Vec<&str>, Vec<&str>) = (expected.lines().collect(), actual.lines().collect());
    // Longest common subsequence table, bounded: long files fall back to a full listing.
    if a.len() * b.len() > 4_000_000 {
        return format!("--- expected\n{expected}\n+++ actual\n{actual}\n");
    }
    let mut lcs = vec![vec![0u32; b.len() + 1]; a.len() + 1];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            lcs[i][j] = if a[i] == b[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let (mut i, mut j, mut out) = (0, 0, String::new());
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            i += 1;
            j += 1;
        } else if i < a.len() && (j == b.len() || lcs[i + 1][j] >= lcs[i][j + 1]) {
            out.push_str(&format!("-{}\n", a[i]));
            i += 1;
        } else {
            out.push_str(&format!("+{}\n", b[j]));
            j += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diffs() {
        assert_eq!(diff("a\nb\n", "a\nb\n"), "");
        assert_eq!(diff("a\nb\nc\n", "a\nx\nc\n"), "-b\n+x\n");
        assert_eq!(diff("a\n", "a\nb\n"), "+b\n");
    }
}
