//! Simulation plumbing shared by the judge and the leave-team-out study.

pub mod analysis;
#[cfg(test)]
pub(crate) mod fixture;
pub mod scoring;
pub mod study;
