//! Seeding: every random stream comes from a `ChaCha8Rng` whose seed is mixed from (trial seed,
//! key) by a fixed function, so results never depend on the number of threads or on scheduling,
//! and never on std's randomly keyed hasher. The key names the stream: a topic id, a run tag, a
//! bootstrap replicate's index.
//!
//! The mixing function: the key's bytes are hashed with 64-bit FNV-1a, then
//! `splitmix64(splitmix64(trial_seed) ^ key_hash)` is the 64-bit seed given to
//! `ChaCha8Rng::seed_from_u64`; retrain i of the judge uses the topic's generator's stream i
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

/// The seed of the (trial seed, key) stream: `splitmix64(splitmix64(trial_seed) ^ fnv1a(key))`.
pub fn keyed_seed(trial_seed: u64, key: &str) -> u64 {
    splitmix64(splitmix64(trial_seed) ^ fnv1a(key.as_bytes()))
}

/// The random stream keyed by (trial seed, key): a `ChaCha8Rng` seeded from
/// [`keyed_seed`]`(trial_seed, key)` by `seed_from_u64`. Keys are topic ids, run tags, replicate
/// indexes or fixed stream names; equal keys give equal streams.
pub fn keyed_rng(trial_seed: u64, key: &str) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(keyed_seed(trial_seed, key))
}

/// The random stream of retrain number `retrain` of one (trial seed, topic): stream `retrain`
/// of the generator keyed by (trial seed, topic id) ([`keyed_rng`]). Two trials of one seed
/// draw the same numbers at the same retrain, however differently their earlier retrains
/// consumed theirs.
pub fn iteration_rng(trial_seed: u64, topic: &str, retrain: usize) -> ChaCha8Rng {
    let mut rng = keyed_rng(trial_seed, topic);
    rng.set_stream(retrain as u64);
    rng
}

/// The random stream keyed by `seed` and the parts of `key` (a measure and two run tags, say):
/// `splitmix64` of the seed, then for each part `splitmix64(state ^ fnv1a(part))`, seeds
/// `ChaCha8Rng::seed_from_u64`. The same key gives the same stream in any process or thread.
pub fn parts_keyed_rng(seed: u64, key: &[&str]) -> ChaCha8Rng {
    let state = (key.iter()).fold(splitmix64(seed), |state, part| {
        splitmix64(state ^ fnv1a(part.as_bytes()))
    });
    ChaCha8Rng::seed_from_u64(state)
}

/// Two uniforms in [0, 1) keyed by (trial seed, topic id, document id): the first 53 bits of
/// `h = splitmix64(keyed_seed(trial_seed, topic) ^ fnv1a(document))`, then of `splitmix64(h)`.
/// Any process, trial or strategy asking for the same key gets the same numbers (the completed
/// assessor's draws).
pub fn document_uniforms(trial_seed: u64, topic: &str, document: &str) -> [f64; 2] {
    let first = splitmix64(keyed_seed(trial_seed, topic) ^ fnv1a(document.as_bytes()));
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
        assert_ne!(keyed_seed(1, "301"), keyed_seed(2, "301"));
        assert_ne!(keyed_seed(1, "301"), keyed_seed(1, "302"));
    }

    #[test]
    fn a_documents_uniforms_under_two_topics_are_independent() {
        // Drawn relevant with probability 1/2 under topics 301 and 302 of one seed: keyed
        // without the topic, every document's two draws would agree; independent, about half
        // of 10,000 do (standard deviation 50).
        let documents: Vec<String> = (0..10_000).map(|d| format!("d{d}")).collect();
        let relevant = |topic: &str, doc: &str| document_uniforms(7, topic, doc)[0] < 0.5;
        let agree = (documents.iter())
            .filter(|doc| relevant("301", doc) == relevant("302", doc))
            .count();
        assert!((4_500..=5_500).contains(&agree), "{agree} of 10,000 agree");
        let grade_uniform = |topic: &str, doc: &str| document_uniforms(7, topic, doc)[1];
        assert!(documents
            .iter()
            .all(|doc| grade_uniform("301", doc) != grade_uniform("302", doc)));
    }

    #[test]
    fn keyed_streams_depend_on_every_part_and_its_place() {
        use rand::Rng;
        let draw = |seed, key: &[&str]| parts_keyed_rng(seed, key).random::<u64>();
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
        assert_ne!(draw(1), keyed_rng(3, "301").random::<u64>());
    }
}
