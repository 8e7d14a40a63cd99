//! A ClusterExtension's catalog selector checked as Kubernetes' `LabelSelectorAsSelector`
//! checks it (operator-controller fails the extension when it refuses): keys are qualified
//! names, values are label values, `In` and `NotIn` need a value, `Exists` and
//! `DoesNotExist` take none, and no other operator exists.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;

/// Why a selector is refused, naming its part (`matchExpressions[0].values`).
pub(super) fn validate(s: &LabelSelector) -> Result<(), String> {
    for (k, v) in s.match_labels.iter().flatten() {
        let at = format!("matchLabels[{k:?}]");
        qualified_name(k).map_err(|e| format!("{at}: key {k:?} {e}"))?;
        label_value(v).map_err(|e| format!("{at}: value {v:?} {e}"))?;
    }
    for (i, e) in s.match_expressions.iter().flatten().enumerate() {
        let at = format!("matchExpressions[{i}]");
        qualified_name(&e.key).map_err(|m| format!("{at}.key: {:?} {m}", e.key))?;
        let values = e.values.as_deref().unwrap_or_default();
        match e.operator.as_str() {
            "In" | "NotIn" if values.is_empty() => {
                return Err(format!(
                    "{at}.values: operator {} needs at least one value",
                    e.operator
                ));
            }
            "In" | "NotIn" => {}
            "Exists" | "DoesNotExist" if !values.is_empty() => {
                return Err(format!(
                    "{at}.values: operator {} takes no values",
                    e.operator
                ));
            }
            "Exists" | "DoesNotExist" => {}
            other => {
                return Err(format!(
                    "{at}.operator: {other:?} is not In, NotIn, Exists or DoesNotExist"
                ));
            }
        }
        for (j, v) in values.iter().enumerate() {
            label_value(v).map_err(|m| format!("{at}.values[{j}]: {v:?} {m}"))?;
        }
    }
    Ok(())
}

/// `[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?`, at most 63 characters (empty allowed when
/// `empty`).
fn name_part(s: &str, empty: bool) -> Result<(), String> {
    if s.is_empty() {
        return if empty {
            Ok(())
        } else {
            Err("is empty".into())
        };
    }
    if s.len() > 63 {
        return Err("is longer than 63 characters".into());
    }
    let ends = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric());
    let inner = s
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if !inner || !ends(s.chars().next()) || !ends(s.chars().last()) {
        return Err(
            "must be alphanumeric characters, '-', '_' or '.', starting and ending with an alphanumeric character".into(),
        );
    }
    Ok(())
}

/// A label value: empty, or a name part.
fn label_value(s: &str) -> Result<(), String> {
    name_part(s, true)
}

/// A label key: `[prefix/]name`, the prefix a DNS subdomain.
fn qualified_name(s: &str) -> Result<(), String> {
    let (prefix, name) = match s.split_once('/') {
        Some((p, n)) => (Some(p), n),
        None => (None, s),
    };
    if let Some(p) = prefix {
        let subdomain = !p.is_empty()
            && p.len() <= 253
            && p.split('.').all(|l| {
                !l.is_empty()
                    && l.chars()
                        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
                    && !l.starts_with('-')
                    && !l.ends_with('-')
            });
        if !subdomain {
            return Err("has a prefix that is not a DNS subdomain".into());
        }
    }
    name_part(name, false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelectorRequirement;

    fn expr(key: &str, op: &str, values: Option<Vec<&str>>) -> LabelSelector {
        LabelSelector {
            match_expressions: Some(vec![LabelSelectorRequirement {
                key: key.into(),
                operator: op.into(),
                values: values.map(|v| v.into_iter().map(String::from).collect()),
            }]),
            match_labels: None,
        }
    }

    #[test]
    fn selectors_kubernetes_refuses_are_refused() {
        assert!(validate(&expr("team", "In", Some(vec!["a"]))).is_ok());
        assert!(validate(&expr("example.com/team", "Exists", None)).is_ok());
        assert!(validate(&expr("team", "Exists", Some(vec![]))).is_ok());
        let e = validate(&expr("team", "NotIn", Some(vec![]))).unwrap_err();
        assert!(e.contains("needs at least one value"), "{e}");
        let e = validate(&expr("team", "In", None)).unwrap_err();
        assert!(e.contains("needs at least one value"), "{e}");
        let e = validate(&expr("team", "Exists", Some(vec!["a"]))).unwrap_err();
        assert!(e.contains("takes no values"), "{e}");
        let e = validate(&expr("", "Exists", None)).unwrap_err();
        assert!(e.contains("key: \"\" is empty"), "{e}");
        let e = validate(&expr("team", "Gt", Some(vec!["1"]))).unwrap_err();
        assert!(e.contains("is not In, NotIn"), "{e}");
        let e = validate(&expr("Bad_/x", "Exists", None)).unwrap_err();
        assert!(e.contains("prefix"), "{e}");
        let labels = LabelSelector {
            match_labels: Some([("team".to_string(), "-x".to_string())].into()),
            match_expressions: None,
        };
        assert!(
            validate(&labels)
                .unwrap_err()
                .contains("matchLabels[\"team\"]")
        );
    }
}
