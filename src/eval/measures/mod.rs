//! The measures, one family per file. Each is a pure function of a [`JudgedRanking`] and its
//! [`MeasureArgs`], so every caller shares one implementation. Sums fold from +0.0: Rust's
//! `sum` of nothing is -0.0, which would print as `-0.0000` where trec_eval prints `0.0000`.
//!
//! [`JudgedRanking`]: crate::eval::ranking::JudgedRanking
//! [`MeasureArgs`]: crate::eval::registry::MeasureArgs

pub mod ap;
pub mod bpref;
pub mod counts;
pub mod err;
pub mod gain_measures;
pub mod gains;
pub mod infap;
pub mod interpolated;
pub mod judged;
pub mod ncg;
pub mod ndcg;
pub mod precision;
pub mod rbp;
pub mod recall;
pub mod rr;
pub mod set;
