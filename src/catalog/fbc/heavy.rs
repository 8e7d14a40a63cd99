//! What a parse does with heavy property values (`olm.csv.metadata`, `olm.bundle.object`):
//! drop them, keep them, keep only the manifests, or stream them to a sink
//! ([`super::heavy_store`] keeps them in the catalog cache).

/// Which heavy values a load keeps in memory, as its options say.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Keep {
    /// None.
    None,
    /// Every one (`LoadOptions::keep_heavy_properties`).
    All,
    /// `olm.bundle.object` only (`LoadOptions::keep_bundle_objects`).
    Objects,
}

impl Keep {
    /// Its part of a cache key.
    pub(crate) fn tag(self) -> u8 {
        match self {
            Keep::None => 0,
            Keep::All => 1,
            Keep::Objects => 2,
        }
    }

    /// How a parse that keeps these handles heavy values.
    pub(crate) fn heavy(self) -> Heavy<'static> {
        match self {
            Keep::None => Heavy::Drop,
            Keep::All => Heavy::Keep,
            Keep::Objects => Heavy::KeepObjects,
        }
    }
}

/// What a parse does with heavy property values.
pub(crate) enum Heavy<'s> {
    /// Skips them (YAML: cuts them from the text before parsing).
    Drop,
    /// Keeps them in the bundle's properties.
    Keep,
    /// Keeps `olm.bundle.object` values, skips the others.
    KeepObjects,
    /// Hands each to a sink, keeping none (YAML values are parsed to be handed over).
    Stream(&'s mut dyn HeavySink),
}

/// The heavy property type that holds a bundle's manifests.
pub(crate) const BUNDLE_OBJECT: &str = "olm.bundle.object";

/// Where a parse streams heavy values.
pub(crate) trait HeavySink {
    /// One heavy value of the bundle of `document`, the `position`th of its opaque
    /// properties counting the heavy ones before it.
    fn value(&mut self, document: usize, position: usize, kind: &str, json: &str);
}
