//! Reading and writing TREC data: runs, qrels, topics, team files, the task manifest, confusion
//! tables, and atomic output files. Strings live here; the rest of the library works on parsed
//! values.

pub mod atomic;
pub mod confusion;
pub mod corpus;
pub mod gz;
pub mod names;
pub mod qrels;
pub mod run;
pub mod task;
pub mod teams;
pub mod topics;
pub mod zscores;

#[cfg(test)]
pub(crate) mod fixture;
