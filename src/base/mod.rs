//! The base layer: what every other module may use and nothing here imports from above.
//!
//! - [`choice`]: settings with a fixed list of names, spelled once for CLI, JSON and reports;
//! - [`error`]: the crate's error types (file and line for bad input, learner errors, warnings);
//! - [`ids`]: interned names and the document id;
//! - [`relevance`]: grades, a topic's grades by document, and the one rule that decides
//!   relevance;
//! - [`sparse`]: the sparse document vector the features build and the learners read;
//! - [`seed`]: the fixed mixing functions that seed every random stream;
//! - [`progress`]: the shape of a progress callback;
//! - [`recycle_refs`]: a buffer of references reused across borrows.
//!
//! The layers above, and what each may import, are the table in docs/architecture.md, which a
//! test checks every import against.

pub mod choice;
pub mod error;
#[cfg(test)]
pub(crate) mod fuzz;
pub mod ids;
pub mod progress;
pub mod relevance;
pub mod seed;
pub mod sparse;

pub use ids::DocId;
pub use relevance::{is_relevant, DocumentGrades, Grade};

/// `buffer` emptied, as a buffer of references of another lifetime, keeping its allocation: the
/// loops that build a list of borrowed vectors at every retrain keep one buffer for all of them.
pub fn recycle_refs<'b, T: ?Sized>(mut buffer: Vec<&T>) -> Vec<&'b T> {
    buffer.clear();
    // An in-place collect: the element types have the same layout, so the allocation is kept
    // (a test counts the allocations of a retrain).
    buffer
        .into_iter()
        .map(|_| unreachable!("the buffer is empty"))
        .collect()
}
