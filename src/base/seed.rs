//! Seeding: every random stream of a simulation comes from a `ChaCha8Rng` whose seed is mixed
//! from (trial seed, topic id) by a fixed function, so results never depend on the number of
//! threads or on scheduling, and never on std's randomly keyed hasher.
//!
//! The mixing function: the topic id's bytes are hashed with 64-bit FNV-1a, then
//! `splitmix64(splitmix64(trial_seed) ^ topic_hash)` is the 64-bit seed given to
//! `ChaCha8Rng::seed_from_u64`; retrain i of the judge uses that generator's stream i
//! ([`iteration_rng`]). It is part of the output format: changing it changes every simulated
//! qrels.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// 64-bit FNV-1a of `bytes` (offset basis 0xcbf29ce484222325, prime 0x100000001b3).
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// SplitMix64's output function (Steele, Lea and Flood 2014): a bijective 64-bit mixer.
pub fn splitmix64(value: u64) -> u64 {
    let mut z = value.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The seed of one (trial seed, topic) stream.
pub fn topic_seed(trial_seed: u64, topic: &str) -> u64 {
    splitmix64(splitmix64(trial_seed) ^ fnv1a(topic.as_bytes()))
}

/// The random stream of one (trial seed, topic).
pub fn topic_rng(trial_seed: u64, topic: &str) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(topic_seed(trial_seed, topic))
}

/// The random stream of retrain number `retrain` of one (trial seed, topic): stream `retrain`
/// of the ChaCha8 generator keyed by [`topic_seed`]. Two trials of one seed draw the same
/// numbers at the same retrain, however differently their earlier retrains consumed theirs.
pub fn iteration_rng(trial_seed: u64, topic: &str, retrain: usize) -> ChaCha8Rng {
    let mut rng = topic_rng(trial_seed, topic);
    rng.set_stream(retrain as u64);
    rng
}

/// The random stream keyed by `seed` and the parts of `key` (a measure and two run tags, say):
/// `splitmix64` of the seed, then for each part `splitmix64(state ^ fnv1a(part))`, seeds
/// `ChaCha8Rng::seed_from_u64`. The same key gives the same stream in any process or thread.
pub fn keyed_rng(seed: u64, key: &[&str]) -> ChaCha8Rng {
    let state = (key.iter()).fold(splitmix64(seed), |state, part| {
        splitmix64(state ^ fnv1a(part.as_bytes()))
    });
    ChaCha8Rng::seed_from_u64(state)
}

/// Two uniforms in [0, 1) keyed by (trial seed, topic id, document id): the first 53 bits of
/// `h = splitmix64(topic_seed(trial_seed, topic) ^ fnv1a(document))`, then of `splitmix64(h)`.
/// Any process, trial or strategy asking for the same key gets the same numbers (the completed
/// assessor's draws).
pub fn document_uniforms(trial_seed: u64, topic: &str, document: &str) -> [f64; 2] {
    let first = splitmix64(topic_seed(trial_seed, topic) ^ fnv1a(document.as_bytes()));
    let second = splitmix64(first);
    [first, second].map(|bits| (bits >> 11) as f64 / (1u64 << 53) as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mixing_is_fixed_and_separates_inputs() {
        // FNV-1a test vector: "a" -> 0xaf63dc4c8601ec8c.
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
        // SplitMix64 from state 0: the first output is 0xe220a8397b1dcdaf.
        assert_eq!(splitmix64(0), 0xe220_a839_7b1d_cdaf);
        assert_ne!(topic_seed(1, "301"), topic_seed(2, "301"));
        assert_ne!(topic_seed(1, "301"), topic_seed(1, "302"));
    }

    #[test]
    fn keyed_streams_depend_on_every_part_and_its_place() {
        use rand::Rng;
        let draw = |seed, key: &[&str]| keyed_rng(seed, key).random::<u64>();
        assert_eq!(draw(1, &["map", "a", "b"]), draw(1, &["map", "a", "b"]));
        assert_ne!(draw(1, &["map", "a", "b"]), draw(1, &["map", "b", "a"]));
        assert_ne!(draw(1, &["map", "a", "b"]), draw(2, &["map", "a", "b"]));
    }

    #[test]
    fn retrains_draw_from_their_own_streams() {
        use rand::Rng;
        let draw = |retrain| iteration_rng(3, "301", retrain).random::<u64>();
        assert_eq!(draw(4), draw(4));
        assert_ne!(draw(4), draw(5));
        assert_ne!(draw(1), topic_rng(3, "301").random::<u64>());
    }
}
