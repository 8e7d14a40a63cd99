//! Catalog loading benchmark.
fn main() {}
