//! A package entry as the catalog cache stores and reads it, for benchmarks that weigh its
//! format (the `testing` feature; not part of the API).

use crate::catalog::model::{Bundle, Package};

/// A package entry and its bundles as the catalog cache stores them: one unit of a stored
/// set's body.
pub fn encode_entry(package: &Package, bundles: &[Bundle]) -> Result<Vec<u8>, String> {
    super::encode_unit(package, bundles).map_err(|e| e.to_string())
}

/// A unit's bytes decoded as a warm load decodes them (its hash check aside).
pub fn decode_entry(bytes: &[u8]) -> Result<(Package, Vec<Bundle>), String> {
    super::decode_unit(bytes).map(|u| (u.package, u.bundles))
}
