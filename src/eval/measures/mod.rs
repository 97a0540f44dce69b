//! The measures, one family per file. Each is a pure function of a [`JudgedRanking`], an
//! optional cutoff and the relevance level, so every caller shares one implementation.
//!
//! [`JudgedRanking`]: crate::eval::ranking::JudgedRanking

pub mod ap;
pub mod bpref;
pub mod counts;
pub mod err;
pub mod judged;
pub mod ncg;
pub mod ndcg;
pub mod precision;
pub mod rbp;
pub mod recall;
pub mod rr;
