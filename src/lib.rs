//! deppy: an embeddable, explainable dependency resolver for Operator Lifecycle Manager (OLM)
//! catalogs.

#![warn(missing_docs)]

pub mod catalog;
pub mod explain;
pub mod generic;
pub mod solver;
pub mod range;
pub mod report;
pub mod request;
pub mod resolve;
pub mod version;
