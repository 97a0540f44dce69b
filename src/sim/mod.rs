//! Simulation plumbing shared by the judge and the leave-team-out study.

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
