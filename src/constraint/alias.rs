//! Typed requirement properties: `olm.constraint`, the simple `olm.*.required` types, and the
//! compound alias form proposed in the Deppy design:
//!
//! ```yaml
//! - type: olm.any.required          # any
//!   value:
//!     description: Required for Baz because...   # read as failureMessage
//!     constraints:
//!       - type: olm.all.required    # all
//!         value: {constraints: [{type: olm.package.required, value: {packageName: foo, versionRange: '>=1.0.0'}}]}
//!       - type: olm.none.required   # not (none of them)
//!         value: {constraints: [{type: olm.gvk.required, value: {group: g, version: v1, kind: K}}]}
//! ```

use serde_json::Value;

use super::error::{index_path, join_path};
use super::parse::{
    OLM_CONSTRAINT, Parser, compound_of, gvk, object, only_keys, optional_string, package,
    required_list, required_string,
};
use super::{Constraint, ConstraintError, Predicate};

const ALL: &str = "olm.all.required";
const ANY: &str = "olm.any.required";
const NONE: &str = "olm.none.required";
const PACKAGE: &str = "olm.package.required";
const GVK: &str = "olm.gvk.required";
const LABEL: &str = "olm.label.required";

/// True for the property types [`Parser::typed`] understands.
pub(crate) fn is_known_type(kind: &str) -> bool {
    [OLM_CONSTRAINT, ALL, ANY, NONE, PACKAGE, GVK, LABEL].contains(&kind)
}

impl Parser<'_> {
    /// The value of a property of type `kind` (see [`is_known_type`]).
    pub(crate) fn typed(
        &mut self,
        kind: &str,
        value: &Value,
        path: &str,
        depth: usize,
    ) -> Result<Constraint, ConstraintError> {
        self.check_level(path, depth)?;
        let predicate = match kind {
            OLM_CONSTRAINT => return self.constraint(value, path, depth, &[]),
            ALL | ANY | NONE => return self.alias_compound(kind, value, path, depth),
            PACKAGE => package(value, path)?,
            GVK => Predicate::Gvk(gvk(value, path)?),
            LABEL => {
                let map = object(value, path)?;
                only_keys(map, path, &["label"])?;
                Predicate::Label(required_string(map, "label", path)?.to_string())
            }
            _ => {
                return Err(ConstraintError::UnknownType {
                    path: path.to_string(),
                    kind: kind.to_string(),
                });
            }
        };
        Ok(Constraint::new(predicate))
    }

    /// `{constraints: [{type, value}, ...], description?, failureMessage?}`.
    fn alias_compound(
        &mut self,
        kind: &str,
        value: &Value,
        path: &str,
        depth: usize,
    ) -> Result<Constraint, ConstraintError> {
        let map = object(value, path)?;
        only_keys(map, path, &["constraints", "description", "failureMessage"])?;
        let failure_message = match optional_string(map, "failureMessage", path)? {
            Some(m) => Some(m),
            None => optional_string(map, "description", path)?,
        };
        let list_path = join_path(path, "constraints");
        let items = required_list(map, "constraints", path)?;
        let mut children = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            let item_path = index_path(&list_path, i);
            let entry = object(item, &item_path)?;
            only_keys(entry, &item_path, &["type", "value"])?;
            let child_kind = required_string(entry, "type", &item_path)?;
            let child_value = entry.get("value").unwrap_or(&Value::Null);
            let value_path = join_path(&item_path, "value");
            children.push(self.typed(child_kind, child_value, &value_path, depth + 1)?);
        }
        let key = match kind {
            ALL => "all",
            ANY => "any",
            _ => "not",
        };
        Ok(Constraint {
            predicate: compound_of(key, children, &list_path)?,
            failure_message,
        })
    }
}
