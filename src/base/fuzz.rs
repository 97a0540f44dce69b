//! Test support shared by the property tests (test builds only): their configuration (fixed
//! seeds), how many cases the long fuzz run of the journal and shard manifest readers takes,
//! the byte mutations, and the macro that runs fuzz properties in the suite and the long run.

use proptest::sample::Index;
use proptest::test_runner::{Config, RngSeed};

/// The seed every property test in `src` starts from, unless `PROPTEST_RNG_SEED` gives another.
const PROPERTY_SEED: u64 = 0x7265_7573_6573_696d;

/// The configuration of a property test: `cases` cases from a fixed seed, so that every run
/// of the suite checks the same inputs and a failure replays. To explore more, set
/// `PROPTEST_RNG_SEED` (another seed) and `PROPTEST_CASES` (another number of cases).
pub(crate) fn property_config(cases: u32) -> Config {
    // `Config::default()` holds proptest's reading of its environment variables.
    let from_environment = Config::default();
    let is_set = |name: &str| std::env::var_os(name).is_some();
    Config {
        cases: if is_set("PROPTEST_CASES") {
            from_environment.cases
        } else {
            cases
        },
        rng_seed: if is_set("PROPTEST_RNG_SEED") {
            from_environment.rng_seed
        } else {
            RngSeed::Fixed(PROPERTY_SEED)
        },
        ..from_environment
    }
}

/// Cases per property in the long run: `REUSESIM_FUZZ_CASES`, default 20,000 (CI runs the
/// long run too, so the default stays moderate).
pub(crate) fn long_fuzz_cases() -> u32 {
    std::env::var("REUSESIM_FUZZ_CASES")
        .ok()
        .and_then(|cases| cases.parse().ok())
        .unwrap_or(20_000)
}

/// Applies `edits` to `bytes`: kind 0 changes a byte (`flip`: xor with the odd byte, else
/// replace it), kind 1 inserts one, any other kind truncates there.
pub(crate) fn mutate(bytes: &mut Vec<u8>, edits: Vec<(Index, u8, u8)>, flip: bool) {
    for (at, byte, kind) in edits {
        let pos = at.index(bytes.len().max(1)).min(bytes.len());
        match kind {
            0 if pos < bytes.len() && flip => bytes[pos] ^= byte | 1,
            0 if pos < bytes.len() => bytes[pos] = byte,
            1 => bytes.insert(pos, byte),
            _ => bytes.truncate(pos),
        }
    }
}

/// Fuzz properties, each written `fn name(input in strategy, ...) { ... }` as in `proptest!`,
/// run twice: `$cases` cases each in module `suite`, and [`long_fuzz_cases`] each in module
/// `long`, ignored but in the long run (`--ignored`).
macro_rules! fuzz_suites {
    (@module $name:ident, $cases:expr, $([$($attr:meta)?] fn $test:ident($($input:tt)*) $body:block)*) => {
        mod $name {
            use super::*;

            proptest::proptest! {
                #![proptest_config(crate::base::fuzz::property_config($cases))]
                $(
                    #[test]
                    $(#[$attr])?
                    fn $test($($input)*) $body
                )*
            }
        }
    };
    ($cases:expr, $(fn $test:ident($($input:tt)*) $body:block)*) => {
        crate::base::fuzz::fuzz_suites!(@module suite, $cases, $([] fn $test($($input)*) $body)*);
        crate::base::fuzz::fuzz_suites!(
            @module long,
            crate::base::fuzz::long_fuzz_cases(),
            $([ignore = "long fuzz run"] fn $test($($input)*) $body)*
        );
    };
}
pub(crate) use fuzz_suites;
