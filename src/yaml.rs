//! YAML as deppy reads it everywhere (catalogs, bundle directories, requests, cluster files,
//! pipelines, models): serde-saphyr's options with safety budgets, and its errors in words.

/// Events a YAML document may replay through aliases (and record under anchors), per byte
/// of the document...
pub const ALIAS_EVENTS_PER_BYTE: usize = 16;
/// ...plus this many.
pub const ALIAS_EVENTS_BASE: usize = 1024;

/// `1234567` as `1,234,567`.
pub(crate) fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The serde-saphyr options every catalog YAML (FBC files and bundle directories) is read
/// with: catalog-scale event, node and scalar budgets and a depth limit.
pub(crate) fn yaml_options() -> serde_saphyr::Options {
    let mut budget = serde_saphyr::Budget::default();
    // Catalog scale: one document at a time, but a bundle with its CSV can be large. The
    // alias/anchor budgets (billion laughs) are set per document, from its size
    // (`limits::yaml_document_options`).
    budget.max_documents = 1_000_000;
    budget.max_events = 20_000_000;
    budget.max_nodes = 5_000_000;
    budget.max_total_scalar_bytes = 1 << 30;
    // serde-saphyr's default. The deepest real document (a CRD schema) nests 32 levels;
    // 128 overflowed a 2 MiB thread stack (loader worker, test thread) in unoptimized builds.
    budget.max_depth = 64;
    let mut options = serde_saphyr::Options::default();
    options.budget = Some(budget);
    options.with_snippet = false;
    options.emit_comments = false;
    options
}

/// serde-saphyr options for one YAML document of `len` bytes: the file-wide `base`, with
/// alias replay and anchor recording bounded by the document's size.
pub(crate) fn yaml_document_options(
    base: &serde_saphyr::Options,
    len: usize,
) -> serde_saphyr::Options {
    let alias_events = len
        .saturating_mul(ALIAS_EVENTS_PER_BYTE)
        .saturating_add(ALIAS_EVENTS_BASE);
    let mut options = base.clone();
    options.alias_limits.max_total_replayed_events = options
        .alias_limits
        .max_total_replayed_events
        .min(alias_events);
    if let Some(budget) = options.budget.as_mut() {
        budget.max_recorded_anchor_events = budget.max_recorded_anchor_events.min(alias_events);
    }
    options
}

/// serde-saphyr's message: first line, without its position (relative to the document).
pub(crate) fn saphyr_message(e: &serde_saphyr::Error) -> String {
    let s = e.to_string();
    let s = s.lines().next().unwrap_or_default().trim();
    let s = s.find(" at line ").and_then(|i| s.get(..i)).unwrap_or(s);
    s.to_string()
}

/// A safety budget's breach in words, e.g. for an alias bomb: `YAML safety limit: aliases
/// expand to more than 9,728 events in this document (an alias bomb?)`.
pub(crate) fn budget_message(mut e: &serde_saphyr::Error) -> String {
    use serde_saphyr::Error as E;
    use serde_saphyr::budget::BudgetBreach as B;
    while let E::AliasError { error, .. } | E::WithSnippet { error, .. } = e {
        e = error;
    }
    let n = |x: usize| thousands(x as u64);
    let what = match e {
        E::AliasReplayLimitExceeded {
            max_total_replayed_events,
            ..
        } => format!(
            "aliases expand to more than {} events in this document (an alias bomb?)",
            n(*max_total_replayed_events)
        ),
        E::AliasExpansionLimitExceeded { expansions, .. } => {
            format!(
                "one anchor is expanded {} times (an alias bomb?)",
                n(*expansions)
            )
        }
        E::AliasReplayStackDepthExceeded { max_depth, .. } => {
            format!("aliases nest deeper than {max_depth} levels")
        }
        E::AliasReplayCounterOverflow { .. } => "alias replay overflowed its counter".into(),
        E::Budget { breach, .. } => match breach {
            B::RecordedAnchorEvents {
                recorded_anchor_events,
            } => format!(
                "anchors record more than {} events in this document (an alias bomb?)",
                n(recorded_anchor_events.saturating_sub(1))
            ),
            B::RecordedAnchorBytes { .. } => {
                "anchors record too many bytes in this document (an alias bomb?)".into()
            }
            B::Aliases { aliases } => format!(
                "more than {} aliases in this document",
                n(aliases.saturating_sub(1))
            ),
            B::Anchors { anchors } => format!(
                "more than {} anchors in this document",
                n(anchors.saturating_sub(1))
            ),
            B::AliasAnchorRatio { aliases, anchors } => format!(
                "{} aliases for {} anchors in this document (an alias bomb?)",
                n(*aliases),
                n(*anchors)
            ),
            B::Depth { depth } => format!("nesting {depth} levels deep"),
            B::Events { events } => format!("more than {} parser events", n(*events)),
            B::Nodes { nodes } => format!("more than {} nodes", n(*nodes)),
            B::ScalarBytes { total_scalar_bytes } => {
                format!("{} bytes of scalars", n(*total_scalar_bytes))
            }
            B::Documents { documents } => format!("more than {} documents", n(*documents)),
            B::MergeKeys { merge_keys } => format!("more than {} merge keys", n(*merge_keys)),
            B::CommentBytes {
                total_comment_bytes,
            } => format!("{} bytes of comments", n(*total_comment_bytes)),
            _ => "a parser budget".to_string(),
        },
        other => return saphyr_message(other),
    };
    format!("YAML safety limit exceeded: {what}")
}

/// serde-saphyr's error in words: a safety budget's breach as [`budget_message`] says it,
/// else the parser's first line without its position.
pub(crate) fn yaml_message(e: &serde_saphyr::Error) -> String {
    if is_budget_breach(e) {
        budget_message(e)
    } else {
        saphyr_message(e)
    }
}

/// A safety budget (size, alias expansion) was exceeded: re-reading would exceed it again.
pub(crate) fn is_budget_breach(mut e: &serde_saphyr::Error) -> bool {
    use serde_saphyr::Error as E;
    while let E::AliasError { error, .. } | E::WithSnippet { error, .. } = e {
        e = error;
    }
    matches!(
        e,
        E::Budget { .. }
            | E::AliasReplayCounterOverflow { .. }
            | E::AliasReplayLimitExceeded { .. }
            | E::AliasExpansionLimitExceeded { .. }
            | E::AliasReplayStackDepthExceeded { .. }
    )
}
