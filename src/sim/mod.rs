//! Simulation plumbing shared by the judge and the leave-team-out study.

pub mod analysis;
pub mod scoring;
pub mod study;
