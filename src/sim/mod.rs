//! Simulation plumbing shared by the judge and the leave-team-out study.

pub mod scoring;
pub mod study;
