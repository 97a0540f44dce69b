//! The integration tests: one binary, modules by theme. They run the built `reusesim` binary.
//! Tests that need the real TREC data read it from `$REUSESIM_DATA` and are marked
//! `#[ignore = "needs REUSESIM_DATA"]`: run them with `-- --include-ignored`; they fail when the
//! variable is unset or a file is missing.

mod util;

mod agree;
mod assessor;
mod assessors;
mod audit;
mod backtest;
mod beyond_trec;
mod budget;
mod claims;
mod compare;
mod corpus;
mod eval;
mod ir_measures;
mod judge;
mod labels;
mod page;
mod plot;
mod ranx;
mod settle;
mod shard;
mod simulate;
mod store;
mod strategies;
mod synth;
mod trec_eval;
