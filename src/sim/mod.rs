//! The leave-team-out study: its trials and their distinct judging units, the judging (in
//! shards, journaled so a study resumes), the simulated assessor, scoring every run on every
//! trial, and the study's results (statistics, result rows and their files). The files' order
//! is in docs/architecture.md.

pub mod agreement;
pub mod analysis;
pub mod assessor;
pub mod budget;
pub mod fingerprint;
#[cfg(test)]
pub(crate) mod fixture;
pub mod journal;
pub mod lock;
pub mod runner;
pub mod scoring;
pub mod settings;
pub mod shard;
pub mod study;
pub mod trials;
pub mod unit;
