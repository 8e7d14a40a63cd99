//! The words of a catalog diff: per package, what NEW strands or breaks, then the cluster's
//! Subscriptions, then a one-line summary. Packages with nothing to say are left out.

use std::fmt::Write;

use super::{
    BundleRef, CatalogDiff, ChannelDiff, Dependency, DiffStatus, PackageDiff, Rescue, Stranded,
    SubscriptionImpact, SubscriptionReason, SubscriptionStatus,
};

/// The diff as text.
pub fn to_text(d: &CatalogDiff) -> String {
    let mut out = String::new();
    for p in &d.packages {
        package(&mut out, p);
    }
    if !d.subscriptions.is_empty() {
        out.push_str("subscriptions:\n");
        for s in &d.subscriptions {
            subscription(&mut out, s);
        }
    }
    out.push_str(&summary(d));
    out.push('\n');
    out
}

fn bundle(b: &BundleRef) -> String {
    format!("{} ({})", b.bundle, b.version)
}

/// A rescue as an instruction.
pub(crate) fn rescue_text(r: &Rescue) -> String {
    match r {
        Rescue::KeepEntries { entries } if entries.len() == 1 => {
            format!("keep entry {} (and its bundle)", entries.join(""))
        }
        Rescue::KeepEntries { entries } => {
            format!("keep entries {} (and their bundles)", entries.join(", "))
        }
        Rescue::SetSkipRange {
            head,
            before: None,
            after,
        } => format!("add `skipRange: '{after}'` to the head {head}"),
        Rescue::SetSkipRange {
            head,
            before: Some(before),
            after,
        } => format!("change the skipRange of the head {head} from '{before}' to '{after}'"),
        Rescue::AddSkips { head, bundle } => {
            format!("add {bundle} to the skips of the head {head}")
        }
    }
}

/// Stranded bundles, one a line; each run of bundles with the same rescue is followed by it.
fn stranded(out: &mut String, indent: &str, head: &str, list: &[Stranded]) {
    if list.is_empty() {
        return;
    }
    let _ = writeln!(out, "{indent}stranded, with no upgrade path to {head}:");
    let mut run = 0;
    for (i, s) in list.iter().enumerate() {
        let _ = writeln!(out, "{indent}  {} ({})", s.bundle, s.version);
        run += 1;
        if list.get(i + 1).is_some_and(|next| next.rescue == s.rescue) {
            continue;
        }
        let of = if run > 1 {
            format!(" of each of these {run}")
        } else {
            String::new()
        };
        let _ = match &s.rescue {
            Some(r) => writeln!(out, "{indent}    rescue{of} (verified): {}", rescue_text(r)),
            None => writeln!(out, "{indent}    no single change tried rescues it"),
        };
        run = 0;
    }
}

/// The default channel's move, or NEW's default channel without a head.
fn default_channel(out: &mut String, p: &PackageDiff, moved: bool) {
    let d = &p.default_channel;
    let name = |c: &Option<String>| c.clone().unwrap_or_else(|| "(none)".into());
    if moved {
        let _ = writeln!(
            out,
            "  default channel: {} → {}",
            name(&d.before),
            name(&d.after)
        );
    } else if d.unusable_after {
        let _ = writeln!(out, "  default channel: {}", name(&d.after));
    }
    if d.unusable_after {
        let _ = writeln!(
            out,
            "    NEW's default channel has no head to upgrade to: Subscriptions without a channel cannot resolve"
        );
    }
    if !d.stranded.is_empty() {
        let _ = writeln!(
            out,
            "    Subscriptions without a channel move to {}; bundles of {} stranded by the move:",
            name(&d.after),
            name(&d.before)
        );
        stranded(out, "    ", "its head", &d.stranded);
    }
}

fn says_something(c: &ChannelDiff) -> bool {
    !c.stranded.is_empty()
        || c.removed
        || c.head_went_back
        || c.broken_after.is_some()
        || !c.already_stranded.is_empty()
}

fn channel(out: &mut String, c: &ChannelDiff) {
    let heads = match (&c.head_before, &c.head_after) {
        (Some(a), Some(b)) if a == b => format!("head {a}"),
        (Some(a), Some(b)) => format!("head {a} → {b}"),
        (None, Some(b)) => format!("head → {b}"),
        (Some(a), None) => format!("head {a}"),
        (None, None) => "no head".to_string(),
    };
    let _ = writeln!(out, "  channel {} ({heads}):", c.channel);
    if c.removed {
        let _ = match &c.renamed_to {
            Some(to) => writeln!(
                out,
                "    removed: NEW has no channel {}; its bundles are in channel {to} now, and Subscriptions to {} must move there",
                c.channel, c.channel
            ),
            None => writeln!(
                out,
                "    removed: NEW has no channel {}; Subscriptions to it cannot resolve",
                c.channel
            ),
        };
    }
    if let Some(why) = &c.broken_after {
        let _ = writeln!(out, "    NEW's channel has no head to upgrade to: {why}");
    }
    if c.head_went_back {
        let _ = writeln!(
            out,
            "    the head went backwards: NEW's head has a lower version than OLD's"
        );
    }
    let head = c.head_after.as_deref().unwrap_or("the head");
    stranded(out, "    ", head, &c.stranded);
    for a in &c.already_stranded {
        let _ = writeln!(
            out,
            "    already stranded in OLD (not counted): {}",
            bundle(a)
        );
    }
    if !c.stranded.is_empty() {
        let _ = match &c.last_reaching {
            Some(b) => writeln!(
                out,
                "    the last version that still reaches the head: {}",
                bundle(b)
            ),
            None => writeln!(out, "    OLD's highest version does not reach the head"),
        };
    }
}

fn dependency(d: &Dependency) -> String {
    match d {
        Dependency::Package { package, range } => format!("package {package} at {range}"),
        Dependency::Api {
            group,
            version,
            kind,
        } => format!("an API {kind} ({group}/{version})"),
    }
}

fn package(out: &mut String, p: &PackageDiff) {
    let d = &p.default_channel;
    let moved = d.before != d.after && !p.removed;
    let says = p.removed
        || p.channels.iter().any(says_something)
        || moved
        || d.unusable_after
        || !p.installability.is_empty()
        || !p.lost_providers.is_empty()
        || !p.deprecations.is_empty();
    if !says {
        return;
    }
    let _ = writeln!(out, "package {}:", p.package);
    if p.removed {
        let _ = writeln!(
            out,
            "  removed: NEW has no package {}; its Subscriptions cannot resolve",
            p.package
        );
    }
    for c in p.channels.iter().filter(|c| says_something(c)) {
        channel(out, c);
    }
    default_channel(out, p, moved);
    for i in &p.installability {
        let what = if i.gave_up {
            "could not be checked within the budget"
        } else {
            "installs on OLD and not on NEW"
        };
        let _ = writeln!(out, "  head {} of channel {}: {what}", i.bundle, i.channel);
        for line in i.explanation.lines() {
            let _ = writeln!(out, "    {line}");
        }
    }
    for l in &p.lost_providers {
        let _ = writeln!(
            out,
            "  lost provider: {} requires {}; OLD provided it ({}), NEW does not",
            l.bundle,
            dependency(&l.dependency),
            l.providers_before.join(", ")
        );
    }
    for n in &p.deprecations {
        let what = match n.kind.as_str() {
            "package" => format!("package {}", p.package),
            kind => format!("{kind} {}", n.name),
        };
        let _ = writeln!(
            out,
            "  newly deprecated (information only): {what}: {}",
            n.message
        );
    }
}

fn subscription(out: &mut String, s: &SubscriptionImpact) {
    let channel = match (&s.channel, &s.follows) {
        (Some(c), _) => format!("channel {c}"),
        (None, Some(f)) => format!("no channel: follows the default, {f}"),
        (None, None) => "no channel".to_string(),
    };
    let installed = s.installed.as_ref().map_or_else(
        || "nothing installed".to_string(),
        |b| format!("installed {}", bundle(b)),
    );
    let status = match (s.status, s.reason) {
        (SubscriptionStatus::Ok, _) => "ok".to_string(),
        (SubscriptionStatus::Stranded, _) => format!(
            "STRANDED: its CSV has no upgrade path to the head of {}",
            s.follows.as_deref().unwrap_or("its channel")
        ),
        (SubscriptionStatus::AlreadyStranded, _) => {
            "already stranded on OLD (not counted)".to_string()
        }
        (SubscriptionStatus::Stuck, reason) => format!(
            "STUCK: {}",
            match reason {
                Some(SubscriptionReason::PackageRemoved) => "NEW has no such package",
                Some(SubscriptionReason::ChannelRemoved) => "NEW has no such channel",
                Some(SubscriptionReason::ChannelBroken) => "NEW's channel has no head",
                Some(SubscriptionReason::HeadNotInstallable) =>
                    "the channel's head does not install on NEW",
                Some(SubscriptionReason::NoPathToHead) | None => "it cannot resolve",
            }
        ),
    };
    let _ = writeln!(
        out,
        "  {}/{} (package {}, {channel}, {installed}): {status}",
        s.namespace, s.name, s.package
    );
    if let Some(r) = &s.rescue {
        let _ = writeln!(out, "    rescue (verified): {}", rescue_text(r));
    }
}

fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// What was found, counted: "3 bundles stranded", ... (what is zero is left out).
fn findings(d: &CatalogDiff) -> Vec<String> {
    let ps = &d.packages;
    let chans = || ps.iter().flat_map(|p| &p.channels);
    let subs = |st: SubscriptionStatus| d.subscriptions.iter().filter(|s| s.status == st).count();
    let moves = |p: &&PackageDiff| {
        !p.default_channel.stranded.is_empty() || p.default_channel.unusable_after
    };
    let counted = [
        (
            chans().map(|c| c.stranded.len()).sum(),
            "bundle stranded",
            "bundles stranded",
        ),
        (
            ps.iter().filter(|p| p.removed).count(),
            "package removed",
            "packages removed",
        ),
        (
            chans().filter(|c| c.removed).count(),
            "channel removed",
            "channels removed",
        ),
        (
            chans().filter(|c| c.broken_after.is_some()).count(),
            "channel without a head",
            "channels without a head",
        ),
        (
            chans().filter(|c| c.head_went_back).count(),
            "head gone backwards",
            "heads gone backwards",
        ),
        (
            ps.iter().filter(moves).count(),
            "default channel move that strands",
            "default channel moves that strand",
        ),
        (
            ps.iter().flat_map(|p| &p.installability).count(),
            "head no longer installable",
            "heads no longer installable",
        ),
        (
            ps.iter().map(|p| p.lost_providers.len()).sum(),
            "dependency without a provider",
            "dependencies without a provider",
        ),
        (
            subs(SubscriptionStatus::Stranded),
            "Subscription stranded",
            "Subscriptions stranded",
        ),
        (
            subs(SubscriptionStatus::Stuck),
            "Subscription stuck",
            "Subscriptions stuck",
        ),
    ];
    (counted.into_iter())
        .filter(|(n, _, _)| *n > 0)
        .map(|(n, one, many)| count(n, one, many))
        .collect()
}

/// The last line: what was compared and what was found.
fn summary(d: &CatalogDiff) -> String {
    let ps = &d.packages;
    let channels: usize = ps.iter().map(|p| p.channels.len()).sum();
    let found = findings(d).join(", ");
    let compared = format!(
        "{} and {} compared",
        count(ps.len(), "package", "packages"),
        count(channels, "channel", "channels")
    );
    let info = match ps.iter().map(|p| p.deprecations.len()).sum() {
        0 => String::new(),
        n => format!(
            "; {} (information only)",
            count(n, "new deprecation", "new deprecations")
        ),
    };
    match d.status {
        DiffStatus::Ok => format!("Nothing stranded or broken ({compared}){info}."),
        DiffStatus::Broken => format!("Broken: {found} ({compared}){info}."),
        DiffStatus::GaveUp => {
            let what = match d.not_judged.len() {
                0 => "before every head was checked".to_string(),
                n => format!(
                    "before {} could be judged ({})",
                    count(n, "package", "packages"),
                    d.not_judged.join(", ")
                ),
            };
            let found = if found.is_empty() {
                "nothing else found".to_string()
            } else {
                found
            };
            format!("Gave up: a budget ran out {what}; {found} ({compared}){info}.")
        }
    }
}
