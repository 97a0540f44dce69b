//! The integration tests: one binary, modules by theme. They run the built `reusesim` binary.
//! Tests that need the real TREC data read it from `$REUSESIM_DATA`; they are skipped with a
//! message when the variable is unset and fail when it is set but a file is missing.

mod util;

mod audit;
mod eval;
mod judge;
mod plot;
mod simulate;
mod synth;
