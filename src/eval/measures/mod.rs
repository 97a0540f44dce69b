//! The measures, one file per measure family or group of kindred ones, over their shared
//! contract and the gain lookup. Each is a pure function of a [`JudgedRanking`] and its
//! [`MeasureArgs`], so every caller shares one implementation. Sums fold from +0.0: Rust's
//! `sum` of nothing is -0.0, which would print as `-0.0000` where trec_eval prints `0.0000`.
//!
//! [`JudgedRanking`]: crate::eval::ranking::JudgedRanking
//! [`MeasureArgs`]: crate::eval::measures::contract::MeasureArgs

pub mod ap;
pub mod bpref;
pub mod contract;
pub mod counts;
pub mod err;
pub mod f1;
pub mod gain_lookup;
pub mod infap;
pub mod interpolated;
pub mod judged;
pub mod ncg;
pub mod ndcg;
pub mod other_gain_measures;
pub mod precision;
pub mod ranx_dcg;
pub mod rbp;
pub mod recall;
pub mod rr;
pub mod set;

#[cfg(test)]
mod tests;
