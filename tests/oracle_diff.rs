//! `deppy catalog diff`'s stranding (docs/semantics.md §13) against an oracle that shares no
//! code with it: `tests/support/checker/stranding.rs`, a brute-force walk of OLM's upgrade
//! rules over the raw catalog documents, with the checker's own channel order, versions and
//! ranges. For every channel of OLD the two must agree on: the package or channel removed,
//! NEW's channel without a head, NEW's head, the stranded bundles, the bundles already
//! stranded in OLD, and the last version that still reaches the head. Every rescue deppy
//! offers is applied to NEW's documents and checked by the oracle (in a channel with more
//! than six stranded bundles, the first and last three): the bundle then reaches the head,
//! the head is the same, and nothing that reached it stops reaching it.
//!
//! Two sources of cases:
//! * random channel graphs (proptest; `DEPPY_ORACLE_DIFF_CASES`, default 300): OLD is one or
//!   two channels of up to 9 entries (replaces chains with redirects, skips, skipRanges,
//!   entries without bundles); NEW deletes entries and bundles, redirects `replaces`, gives
//!   the head a new `skipRange`, adds a new head, or drops a channel;
//! * every package of the shipped catalogs (`catalogs/community-v4.22`, `certified-v4.22`,
//!   `odf-dev`) against a NEW made by deleting bundles at random (each with its channel
//!   entries, or leaving the entries without a bundle): one full round with seed 0, then
//!   further rounds (seed 1, 2, ...) while `DEPPY_ORACLE_DIFF_SECONDS` (default 2) last.

#[path = "support/checker/mod.rs"]
mod checker;
#[path = "support/oracle.rs"]
mod oracle;

use std::collections::BTreeSet;
use std::path::Path;
use std::time::{Duration, Instant};

use deppy::advanced::catalog::{CatalogSet, CatalogSource, LoadOptions, SourceFile};
use deppy::advanced::diff::{CatalogDiff, DiffOptions, Rescue, diff};
use proptest::prelude::*;
use serde_json::{Value, json};

use checker::catalog::Catalog;
use checker::stranding::{self, Verdict};
use checker::version::Version;
use checker::{CatalogInput, documents};

fn load(name: &str, docs: &[Value]) -> CatalogSet {
    let text: String = docs.iter().map(|d| format!("{d}\n")).collect();
    let source = CatalogSource {
        name: name.into(),
        path: name.into(),
        priority: 0,
    };
    let file = SourceFile {
        path: format!("{name}/catalog.json"),
        text,
    };
    CatalogSet::load_files(&[(source, vec![file])], &LoadOptions::default())
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn read(name: &str, docs: &[Value]) -> Catalog {
    Catalog::read(&CatalogInput {
        name: name.into(),
        priority: 0,
        docs: docs.to_vec(),
    })
    .expect("the checker reads it")
}

fn names(list: impl IntoIterator<Item = String>) -> BTreeSet<String> {
    list.into_iter().collect()
}

/// NEW with a rescue applied, as documents.
fn rescued(old: &[Value], new: &[Value], package: &str, channel: &str, r: &Rescue) -> Vec<Value> {
    let mut out = new.to_vec();
    let is_channel =
        |d: &Value| d["schema"] == "olm.channel" && d["package"] == package && d["name"] == channel;
    let ch = out
        .iter_mut()
        .find(|d| is_channel(d))
        .expect("NEW's channel");
    match r {
        Rescue::KeepEntries { entries } => {
            let old_ch = old.iter().find(|d| is_channel(d)).expect("OLD's channel");
            for name in entries {
                let e = (old_ch["entries"].as_array().expect("entries").iter())
                    .find(|e| e["name"] == name.as_str())
                    .expect("an entry of OLD")
                    .clone();
                ch["entries"].as_array_mut().expect("entries").push(e);
            }
            for name in entries {
                let bundle = (old.iter())
                    .find(|d| d["schema"] == "olm.bundle" && d["name"] == name.as_str())
                    .expect("OLD's bundle")
                    .clone();
                out.push(bundle);
            }
        }
        Rescue::SetSkipRange { head, after, .. } => {
            let e = (ch["entries"].as_array_mut().expect("entries").iter_mut())
                .find(|e| e["name"] == head.as_str())
                .expect("the head");
            e["skipRange"] = json!(after);
        }
        Rescue::AddSkips { head, bundle } => {
            let e = (ch["entries"].as_array_mut().expect("entries").iter_mut())
                .find(|e| e["name"] == head.as_str())
                .expect("the head");
            match e["skips"].as_array_mut() {
                Some(list) => list.push(json!(bundle)),
                None => e["skips"] = json!([bundle]),
            }
        }
    }
    out
}

/// Compares deppy's diff of OLD and NEW with the oracle's; a description of the first
/// disagreement.
fn compare(old: &[Value], new: &[Value]) -> Result<(), String> {
    // Installability is not what the oracle judges.
    let options = DiffOptions {
        skip_installability: true,
        ..DiffOptions::default()
    };
    let d: CatalogDiff = diff(load("old", old), load("new", new), &options);
    let (o, n) = (read("old", old), read("new", new));
    let verdicts = stranding::judge(&o, &n);
    let judged: usize = d.packages.iter().map(|p| p.channels.len()).sum();
    if judged != verdicts.len() {
        return Err(format!(
            "deppy judged {judged} channels, the oracle {}",
            verdicts.len()
        ));
    }
    for ((package, channel), verdict) in &verdicts {
        let at = format!("{package}/{channel}");
        let p = (d.packages.iter())
            .find(|p| &p.package == package)
            .ok_or(format!("{at}: no package in deppy's answer"))?;
        let c = (p.channels.iter())
            .find(|c| &c.channel == channel)
            .ok_or(format!("{at}: no channel in deppy's answer"))?;
        let stranded = names(c.stranded.iter().map(|s| s.bundle.clone()));
        let already = names(c.already_stranded.iter().map(|s| s.bundle.clone()));
        let plain = stranded.is_empty() && already.is_empty() && c.last_reaching.is_none();
        let ok = match verdict {
            Verdict::PackageRemoved => p.removed && plain,
            Verdict::ChannelRemoved => !p.removed && c.removed && plain,
            Verdict::NoHead { old_usable } => {
                !c.removed && c.head_after.is_none() && c.broken_after.is_some() == *old_usable
            }
            Verdict::Judged(j) => {
                c.head_after.as_deref() == Some(j.head.as_str())
                    && stranded == j.stranded
                    && already == j.already
                    && c.last_reaching.as_ref().map(|b| &b.bundle) == j.last_reaching.as_ref()
            }
        };
        if !ok {
            return Err(format!(
                "{at}: the oracle says {verdict:?}, deppy {}",
                serde_json::to_string(c).unwrap_or_default()
            ));
        }
        let Verdict::Judged(j) = verdict else {
            continue;
        };
        // Every rescue of a small channel; of a large one, the first and last few.
        let n = c.stranded.len();
        let sample = c
            .stranded
            .iter()
            .enumerate()
            .filter(|(i, _)| n <= 6 || *i < 3 || *i + 3 >= n)
            .map(|(_, s)| s);
        for s in sample {
            if let Some(r) = &s.rescue {
                check_rescue(old, new, (package, channel), &o, j, s, r)
                    .map_err(|e| format!("{at}: {e}"))?;
            }
        }
    }
    Ok(())
}

/// The oracle's check of one rescue: NEW with it applied gets `bundle` to the same head, and
/// strands nothing that NEW alone did not.
fn check_rescue(
    old: &[Value],
    new: &[Value],
    (package, channel): (&str, &str),
    o: &Catalog,
    j: &stranding::Judged,
    s: &deppy::advanced::diff::Stranded,
    r: &Rescue,
) -> Result<(), String> {
    let after = rescued(old, new, package, channel, r);
    let n2 = read("new", &after);
    let v = Version::parse(&s.version).expect("a version");
    let fixed = stranding::reaches(&n2, package, channel, &s.bundle, &v) == Some(true);
    let same_head = stranding::head(&n2, package, channel).as_ref() == Some(&j.head);
    let find =
        |c: &Catalog| (c.channels.iter()).position(|x| x.package == package && x.name == channel);
    let still = match (find(o), find(&n2)) {
        (Some(oi), Some(ni)) => {
            let (oc, nc) = (&o.channels[oi], &n2.channels[ni]);
            match stranding::judge_channel(oc, &versions(o), nc, &versions(&n2)) {
                Verdict::Judged(j2) => j2.stranded.is_subset(&j.stranded),
                _ => false,
            }
        }
        _ => false,
    };
    if fixed && same_head && still {
        return Ok(());
    }
    Err(format!(
        "rescue {r:?} of {}: reaches the head {fixed}, same head {same_head}, nothing newly stranded {still}",
        s.bundle
    ))
}

/// Each bundle's version, by package and name, as the oracle reads it.
fn versions(c: &Catalog) -> std::collections::HashMap<(String, String), Version> {
    let mut m = std::collections::HashMap::new();
    for b in &c.bundles {
        let v = b.properties.iter().find_map(|(t, v)| {
            (t == "olm.package").then(|| v["version"].as_str().and_then(Version::parse))?
        });
        if let Some(v) = v {
            m.entry((b.package.clone(), b.name.clone())).or_insert(v);
        }
    }
    m
}

// ---------------------------------------------------------------------------------------
// Random channel graphs.

/// The dice of one entry of OLD and what NEW does to it.
#[derive(Clone, Debug)]
struct Dice {
    replaces: (u8, u8),
    skip: (u8, u8),
    range: (u8, u8, u8),
    bundle: u8,
    delete: u8,
    redirect: (u8, u8),
}

#[derive(Clone, Debug)]
struct Case {
    stable: Vec<Dice>,
    fast: Vec<Dice>,
    /// NEW: a new head, a new skipRange on the head, the fast channel dropped.
    new_head: u8,
    head_range: (u8, u8, u8),
    drop_fast: u8,
}

fn dice() -> impl Strategy<Value = Dice> {
    (
        (any::<u8>(), any::<u8>()),
        (any::<u8>(), any::<u8>()),
        (any::<u8>(), any::<u8>(), any::<u8>()),
        any::<u8>(),
        any::<u8>(),
        (any::<u8>(), any::<u8>()),
    )
        .prop_map(|(replaces, skip, range, bundle, delete, redirect)| Dice {
            replaces,
            skip,
            range,
            bundle,
            delete,
            redirect,
        })
}

fn case() -> impl Strategy<Value = Case> {
    (
        prop::collection::vec(dice(), 1..10),
        prop::collection::vec(dice(), 0..5),
        any::<u8>(),
        (any::<u8>(), any::<u8>(), any::<u8>()),
        any::<u8>(),
    )
        .prop_map(|(stable, fast, new_head, head_range, drop_fast)| Case {
            stable,
            fast,
            new_head,
            head_range,
            drop_fast,
        })
}

/// `percent` out of 100 by a die.
fn roll(die: u8, percent: u32) -> bool {
    u32::from(die) * 100 < percent * 256
}

fn name(i: usize) -> String {
    format!("p.v1.{i}.0")
}

fn bundle(i: usize) -> Value {
    json!({"schema": "olm.bundle", "package": "p", "name": name(i), "image": "img",
           "properties": [{"type": "olm.package", "value": {"packageName": "p", "version": format!("1.{i}.0")}}]})
}

/// A range `>=1.a.0 <1.b.0` within the first `n` versions.
fn range(n: usize, (roll_, a, b): (u8, u8, u8), percent: u32) -> Option<String> {
    if !roll(roll_, percent) {
        return None;
    }
    let (a, b) = (usize::from(a) % (n + 1), usize::from(b) % (n + 1));
    Some(format!(">=1.{}.0 <1.{}.0", a.min(b), a.max(b) + 1))
}

/// Channel entries over versions `first..first + dice.len()`: each replaces the one before
/// (or another earlier one, or none), may skip an earlier one and carry a skipRange.
fn entries(first: usize, dice: &[Dice]) -> Vec<Value> {
    let mut out = Vec::new();
    for (k, d) in dice.iter().enumerate() {
        let i = first + k;
        let mut e = json!({"name": name(i)});
        if k > 0 {
            if roll(d.replaces.0, 85) {
                e["replaces"] = json!(name(i - 1));
            } else if roll(d.replaces.0, 97) {
                e["replaces"] = json!(name(first + usize::from(d.replaces.1) % k));
            }
            if roll(d.skip.0, 20) {
                e["skips"] = json!([name(first + usize::from(d.skip.1) % k)]);
            }
        }
        if let Some(r) = range(i, d.range, 20) {
            e["skipRange"] = json!(r);
        }
        out.push(e);
    }
    out
}

fn channel(name: &str, entries: Vec<Value>) -> Value {
    json!({"schema": "olm.channel", "package": "p", "name": name, "entries": entries})
}

/// Points an entry's `replaces` past deleted entries (`gone` by version index) to the first
/// one kept.
fn repoint(e: &mut Value, list: &[Value], gone: impl Fn(usize) -> bool) {
    let index = |n: &str| {
        n.strip_prefix("p.v1.")?
            .strip_suffix(".0")?
            .parse::<usize>()
            .ok()
    };
    let mut target = e["replaces"].as_str().map(str::to_string);
    for _ in 0..list.len() {
        let Some(t) = target.clone().filter(|t| index(t).is_some_and(&gone)) else {
            break;
        };
        let replaced = list.iter().find(|x| x["name"] == t.as_str());
        target = replaced.and_then(|x| x["replaces"].as_str().map(str::to_string));
    }
    match target {
        Some(t) => e["replaces"] = json!(t),
        None => {
            if let Some(o) = e.as_object_mut() {
                o.remove("replaces");
            }
        }
    }
}

/// OLD and NEW of a case.
fn catalogs(c: &Case) -> (Vec<Value>, Vec<Value>) {
    let n = c.stable.len();
    let stable = entries(0, &c.stable);
    let fast = entries(n, &c.fast);
    let all: Vec<&Dice> = c.stable.iter().chain(&c.fast).collect();
    let mut old = vec![json!({"schema": "olm.package", "name": "p", "defaultChannel": "stable"})];
    old.push(channel("stable", stable.clone()));
    if !fast.is_empty() {
        old.push(channel("fast", fast.clone()));
    }
    old.extend(
        (0..all.len())
            .filter(|i| !roll(all[*i].bundle, 5))
            .map(bundle),
    );
    // NEW: delete entries (with their bundles) or bundles alone, redirect replaces.
    let deleted = |i: usize| roll(all[i].delete, 30);
    let bundle_gone = |i: usize| roll(all[i].delete, 40);
    let cut = |list: &[Value], first: usize| -> Vec<Value> {
        let mut out = Vec::new();
        for (k, e) in list.iter().enumerate() {
            let i = first + k;
            if deleted(i) {
                continue;
            }
            let mut e = e.clone();
            let d = all[i];
            if k > 0 && roll(d.redirect.0, 5) {
                e["replaces"] = json!(name(first + usize::from(d.redirect.1) % k));
            } else if roll(d.redirect.0, 75) {
                // As a maintainer does: past the deleted entries to the one they replaced.
                repoint(&mut e, list, deleted);
            }
            out.push(e);
        }
        out
    };
    let mut new_stable = cut(&stable, 0);
    let total = all.len();
    if roll(c.new_head, 30) {
        let mut e = json!({"name": name(total), "replaces": name(n - 1)});
        if let Some(r) = range(total, c.head_range, 50) {
            e["skipRange"] = json!(r);
        }
        new_stable.push(e);
    } else if let (Some(r), Some(last)) = (range(n, c.head_range, 30), new_stable.last_mut()) {
        last["skipRange"] = json!(r);
    }
    let mut new = vec![old[0].clone(), channel("stable", new_stable)];
    if !fast.is_empty() && !roll(c.drop_fast, 15) {
        new.push(channel("fast", cut(&fast, n)));
    }
    new.extend(
        (0..=total)
            .filter(|i| *i == total || (!bundle_gone(*i) && !roll(all[*i].bundle, 5)))
            .map(bundle),
    );
    (old, new)
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: oracle::env_usize("DEPPY_ORACLE_DIFF_CASES", 300) as u32,
        ..ProptestConfig::default()
    })]

    #[test]
    fn random_channel_graphs_match_the_oracle(c in case()) {
        let (old, new) = catalogs(&c);
        if let Err(e) = compare(&old, &new) {
            return Err(TestCaseError::fail(format!(
                "{e}\nOLD: {}\nNEW: {}",
                Value::Array(old.clone()),
                Value::Array(new.clone())
            )));
        }
    }
}

// ---------------------------------------------------------------------------------------
// The shipped catalogs.

/// Every package file of the shipped catalogs, with its documents.
fn package_files() -> Vec<(String, Vec<Value>)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("catalogs");
    let mut out = Vec::new();
    for dir in ["community-v4.22", "certified-v4.22", "odf-dev"] {
        let mut stack = vec![root.join(dir)];
        let mut files = Vec::new();
        while let Some(p) = stack.pop() {
            if p.is_dir() {
                stack.extend(
                    std::fs::read_dir(&p)
                        .expect("dir")
                        .map(|e| e.expect("e").path()),
                );
            } else if matches!(
                p.extension().and_then(|e| e.to_str()),
                Some("yaml" | "json")
            ) {
                files.push(p);
            }
        }
        files.sort();
        for f in files {
            let text = std::fs::read_to_string(&f).expect("text");
            let docs = documents(&text).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
            out.push((f.display().to_string(), docs));
        }
    }
    out
}

/// OLD with a random set of bundles deleted: each bundle with 25%; its channel entries go
/// too (and three times in four an entry that replaced one is pointed past it), or (one time
/// in three) stay without a bundle.
fn delete_at_random(docs: &[Value], rng: &mut oracle::Rng) -> Vec<Value> {
    let mut gone: BTreeSet<String> = BTreeSet::new();
    let mut entries_stay: BTreeSet<String> = BTreeSet::new();
    for d in docs.iter().filter(|d| d["schema"] == "olm.bundle") {
        if rng.chance(25) {
            let n = d["name"].as_str().unwrap_or_default().to_string();
            if rng.chance(33) {
                entries_stay.insert(n.clone());
            }
            gone.insert(n);
        }
    }
    let mut out = Vec::new();
    for d in docs {
        let mut d = d.clone();
        if d["schema"] == "olm.bundle" && gone.contains(d["name"].as_str().unwrap_or_default()) {
            continue;
        }
        if d["schema"] == "olm.channel"
            && let Some(list) = d["entries"].as_array_mut()
        {
            let removed = |n: &str| gone.contains(n) && !entries_stay.contains(n);
            let replaces: Vec<(String, String)> = (list.iter())
                .filter_map(|e| Some((e["name"].as_str()?.into(), e["replaces"].as_str()?.into())))
                .collect();
            list.retain(|e| !removed(e["name"].as_str().unwrap_or_default()));
            // Three times in four, as a maintainer does: past the removed entries to the one
            // they replaced.
            for e in list.iter_mut() {
                if !rng.chance(75) {
                    continue;
                }
                let mut target = e["replaces"].as_str().map(str::to_string);
                let mut hops = 0;
                while let Some(t) = target.clone().filter(|t| removed(t) && hops < 10_000) {
                    target = replaces
                        .iter()
                        .find(|(n, _)| *n == t)
                        .map(|(_, r)| r.clone());
                    hops += 1;
                }
                match target {
                    Some(t) => e["replaces"] = json!(t),
                    None => {
                        if let Some(o) = e.as_object_mut() {
                            o.remove("replaces");
                        }
                    }
                }
            }
        }
        out.push(d);
    }
    out
}

#[test]
fn shipped_packages_with_bundles_deleted_match_the_oracle() {
    let budget = Duration::from_secs(oracle::env_usize("DEPPY_ORACLE_DIFF_SECONDS", 2) as u64);
    let files = package_files();
    assert!(files.len() >= 29 + 48, "only {} package files", files.len());
    let start = Instant::now();
    let mut checked = 0;
    for round in 0u64.. {
        if round > 0 && start.elapsed() > budget {
            break;
        }
        for (k, (path, docs)) in files.iter().enumerate() {
            let mut rng = oracle::Rng(round * 1_000_003 + k as u64);
            let new = delete_at_random(docs, &mut rng);
            if let Err(e) = compare(docs, &new) {
                panic!("{path}, round {round}: {e}");
            }
            checked += 1;
        }
    }
    eprintln!(
        "{checked} package diffs checked against the oracle in {:.1?}",
        start.elapsed()
    );
}
