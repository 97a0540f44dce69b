//! The base layer: what every other module may use and nothing here imports from above.
//!
//! - [`choice`]: settings with a fixed list of names, spelled once for CLI, JSON and reports;
//! - [`error`]: the crate's error types (file and line for bad input, learner errors, warnings);
//! - [`ids`]: interned names and the document id;
//! - [`relevance`]: grades and the one rule that decides relevance;
//! - [`sparse`]: the sparse document vector the features build and the learners read;
//! - [`seed`]: the fixed mixing functions that seed every random stream.
//!
//! Layers above: io → eval, features → collection → judge → sim → report → audit → cli (the
//! table in docs/architecture.md, which a test checks every import against).

pub mod choice;
pub mod error;
#[cfg(test)]
pub(crate) mod fuzz;
pub mod ids;
pub mod relevance;
pub mod seed;
pub mod sparse;

pub use ids::DocId;
pub use relevance::{is_relevant, Grade};
