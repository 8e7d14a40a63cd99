//! FBC documents of one package: the `olm.package` document, its channels built in replaces
//! mode, and its bundles.

use std::cmp::Ordering;
use std::collections::{BTreeSet, HashMap, HashSet};

use super::props::Property;
use super::read::BundleDir;

/// An `olm.package` document.
#[derive(Debug, serde::Serialize)]
pub(super) struct PackageDoc {
    schema: &'static str,
    name: String,
    #[serde(rename = "defaultChannel", skip_serializing_if = "Option::is_none")]
    default_channel: Option<String>,
}

/// An `olm.channel` document.
#[derive(Debug, serde::Serialize)]
pub(super) struct ChannelDoc {
    schema: &'static str,
    package: String,
    name: String,
    entries: Vec<EntryDoc>,
}

/// One channel entry.
#[derive(Debug, serde::Serialize)]
struct EntryDoc {
    name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    replaces: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    skips: Vec<String>,
    #[serde(rename = "skipRange", skip_serializing_if = "Option::is_none")]
    skip_range: Option<String>,
}

/// An `olm.bundle` document (no image: a bundle directory has none).
#[derive(Debug, serde::Serialize)]
pub(super) struct BundleDoc {
    schema: &'static str,
    name: String,
    package: String,
    properties: Vec<Property>,
}

/// Higher version first; equal precedence broken by build metadata, then by name.
fn newer(a: &BundleDir, b: &BundleDir) -> Ordering {
    a.version
        .cmp_precedence(&b.version)
        .then_with(|| a.version.cmp(&b.version))
        .then_with(|| a.name.cmp(&b.name))
}

fn entry(b: &BundleDir) -> EntryDoc {
    EntryDoc {
        name: b.name.clone(),
        replaces: b.replaces.clone(),
        skips: b.skips.clone(),
        skip_range: b.skip_range.clone(),
    }
}

/// One channel in replaces mode: the head is the highest version among the bundles that
/// list the channel; entries follow `spec.replaces` from it through the package's bundles
/// (whatever channels those list) until a name no bundle has, or a bundle already seen;
/// bundles of the package that those entries skip are entries too. Entries are written
/// oldest first along the chain, then the skipped ones.
fn channel(
    package: &str,
    name: &str,
    bundles: &[&BundleDir],
    warnings: &mut Vec<String>,
) -> ChannelDoc {
    let by_name: HashMap<&str, &BundleDir> =
        bundles.iter().map(|b| (b.name.as_str(), *b)).collect();
    let members: Vec<&BundleDir> = bundles
        .iter()
        .copied()
        .filter(|b| b.channels.iter().any(|c| c == name))
        .collect();
    let head = members.iter().copied().max_by(|a, b| newer(a, b));
    let mut chain: Vec<&BundleDir> = Vec::new();
    let mut seen: HashSet<&str> = HashSet::new();
    let mut next = head;
    while let Some(b) = next.filter(|b| seen.insert(b.name.as_str())) {
        chain.push(b);
        next = b.replaces.as_deref().and_then(|r| by_name.get(r).copied());
    }
    if let Some(h) = head {
        let ties = members
            .iter()
            .filter(|b| b.name != h.name && b.version.cmp_precedence(&h.version).is_eq());
        for t in ties {
            warnings.push(format!(
                "package {package}, channel {name}: {} and {} both have the highest version {}; {} is the head (name order)",
                t.name, h.name, h.version, h.name
            ));
        }
    }
    let mut skipped: Vec<&BundleDir> = chain
        .iter()
        .flat_map(|b| b.skips.iter())
        .filter_map(|s| by_name.get(s.as_str()).copied())
        .filter(|b| seen.insert(b.name.as_str()))
        .collect();
    skipped.sort_by(|a, b| newer(a, b));
    for b in members.iter().filter(|b| !seen.contains(b.name.as_str())) {
        let head_name = head.map_or("", |h| h.name.as_str());
        warnings.push(format!(
            "package {package}, channel {name}: {} ({}) is not on the replaces chain from the head {head_name}; it is left out of the channel",
            b.name,
            b.dir.display()
        ));
    }
    ChannelDoc {
        schema: "olm.channel",
        package: package.to_string(),
        name: name.to_string(),
        entries: chain
            .iter()
            .rev()
            .chain(&skipped)
            .map(|b| entry(b))
            .collect(),
    }
}

/// The default channel: the annotation of the newest bundle that has one; else the only
/// channel; else none (the loader then warns).
fn default_channel(
    package: &str,
    bundles: &[&BundleDir],
    channels: &BTreeSet<&str>,
    warnings: &mut Vec<String>,
) -> Option<String> {
    let annotated = bundles
        .iter()
        .filter(|b| b.default_channel.is_some())
        .max_by(|a, b| newer(a, b));
    if let Some(c) = annotated.and_then(|b| b.default_channel.clone()) {
        return Some(c);
    }
    if let [only] = channels.iter().collect::<Vec<_>>().as_slice() {
        return Some((*only).to_string());
    }
    warnings.push(format!(
        "package {package}: no bundle names a default channel and there are {} channels",
        channels.len()
    ));
    None
}

/// The documents of one package, given its bundles (names unique): the package, its
/// channels by name, its bundles by name.
pub(super) fn package_docs(
    package: &str,
    bundles: &[&BundleDir],
    warnings: &mut Vec<String>,
) -> (PackageDoc, Vec<ChannelDoc>, Vec<BundleDoc>) {
    let channels: BTreeSet<&str> = bundles
        .iter()
        .flat_map(|b| b.channels.iter().map(String::as_str))
        .collect();
    let pkg = PackageDoc {
        schema: "olm.package",
        name: package.to_string(),
        default_channel: default_channel(package, bundles, &channels, warnings),
    };
    let channel_docs = channels
        .iter()
        .map(|c| channel(package, c, bundles, warnings))
        .collect();
    let mut sorted: Vec<&BundleDir> = bundles.to_vec();
    sorted.sort_by(|a, b| a.name.cmp(&b.name));
    let bundle_docs = sorted
        .iter()
        .map(|b| BundleDoc {
            schema: "olm.bundle",
            name: b.name.clone(),
            package: package.to_string(),
            properties: b.properties.clone(),
        })
        .collect();
    (pkg, channel_docs, bundle_docs)
}
