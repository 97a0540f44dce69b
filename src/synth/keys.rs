//! The world's randomness: every part draws from its own stream, keyed on the seed, the part
//! and an index, so that the output depends only on the seed.

pub use crate::base::seed::splitmix64;

/// The independent random parts of a world; each gets its own stream via [`sub_seed`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u64)]
pub enum Part {
    /// The vocabulary.
    Vocabulary = 1,
    /// Topic ids, topical words and relevant counts.
    Topics = 2,
    /// Which documents are written for which topic.
    Assignment = 3,
    /// One document's words (index: the document position).
    Documents = 4,
    /// Team and run parameters.
    Teams = 5,
    /// Noise shared by a team's runs (index: the team position).
    TeamNoise = 6,
    /// Noise of one run (index: the run position).
    RunNoise = 7,
    /// Judgment budgets (index: the topic position).
    Budgets = 8,
}

/// Combines a key with a value: `splitmix64(key ^ splitmix64(value))`.
pub fn mix(key: u64, value: u64) -> u64 {
    splitmix64(key ^ splitmix64(value))
}

/// The seed of one part of the world: `mix(mix(seed, part), index)`.
pub fn sub_seed(seed: u64, part: Part, index: u64) -> u64 {
    mix(mix(seed, part as u64), index)
}

/// A standard normal variate that is a pure function of `key` (Box-Muller on two uniforms
/// hashed from the key).
pub fn gaussian(key: u64) -> f64 {
    const UNIT: f64 = 1.0 / (1u64 << 53) as f64;
    let first = ((splitmix64(key) >> 11) + 1) as f64 * UNIT; // in (0, 1]: ln is finite
    let second = (splitmix64(key ^ 0xD1B5_4A32_D192_ED03) >> 11) as f64 * UNIT;
    (-2.0 * first.ln()).sqrt() * (std::f64::consts::TAU * second).cos()
}
