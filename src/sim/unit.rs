//! The identity of a distinct (trial, topic) judging unit, [`UnitId`], which the study's plan,
//! its shards and its journal share. Digests on disk are spelled in lower-case hex, the
//! `{:x}` format of sha2's digest output.
//!
//! A unit's id is a sha256 over what makes its judging what it is: the topic's id, the trial
//! seed, the pool's and the withheld documents' names (sorted), and the held-out team when run
//! features depend on it. It does not depend on thread counts, on the order units are found
//! in, or on the study's other trials, so any process planning the same study agrees on it.
//! A unit judged by a strategy without learning ([`UnitId::for_strategy`]) has no features and
//! no seed of its own: its id names the strategy, the topic, the pooled runs it draws from and
//! the withheld documents, so the trials of every seed share it, unless the assessor's grades
//! depend on the seed (the completed assessor's), when it names the seed too.

use sha2::{Digest, Sha256};

use crate::base::DocId;
use crate::collection::Collection;

/// The identity of a distinct judging unit: a sha256 of its inputs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct UnitId(pub [u8; 32]);

impl UnitId {
    /// The id of judging topic `topic` of `collection` with trial seed `seed`, the given pool
    /// and withheld documents, and `feature_variant` (the held-out team, when run features
    /// change with it).
    pub fn new(
        collection: &Collection,
        topic: usize,
        seed: u64,
        pool: &[DocId],
        withheld: &[DocId],
        feature_variant: Option<&str>,
    ) -> Self {
        let mut hasher = UnitHasher(Sha256::new());
        hasher.text(b"reusesim unit 1");
        hasher.text(collection.topics[topic].id.as_bytes());
        hasher.text(&seed.to_le_bytes());
        for docs in [pool, withheld] {
            hasher.names(docs.iter().map(|&doc| collection.docs.name(doc)).collect());
        }
        match feature_variant {
            None => hasher.text(b"-"),
            Some(team) => hasher.text(format!("+{team}").as_bytes()),
        }
        hasher.finish()
    }

    /// The id of judging topic `topic` of `collection` with the strategy called `strategy`
    /// (one without learning), from the pooled runs tagged `drawn_runs` and without the
    /// `withheld` documents; with `seed` when the assessor's grades depend on it.
    pub fn for_strategy(
        collection: &Collection,
        (topic, seed): (usize, Option<u64>),
        strategy: &str,
        drawn_runs: &[&str],
        withheld: &[DocId],
    ) -> Self {
        let mut hasher = UnitHasher(Sha256::new());
        hasher.text(b"reusesim strategy unit 1");
        hasher.text(strategy.as_bytes());
        hasher.text(collection.topics[topic].id.as_bytes());
        hasher.names(drawn_runs.to_vec());
        hasher.names(
            withheld
                .iter()
                .map(|&doc| collection.docs.name(doc))
                .collect(),
        );
        if let Some(seed) = seed {
            hasher.text(&seed.to_le_bytes());
        }
        hasher.finish()
    }

    /// The shard of `count` that judges this unit: the id's first 8 bytes (big-endian) mod
    /// `count`.
    pub fn home_shard(&self, count: usize) -> usize {
        let mut head = [0u8; 8];
        head.copy_from_slice(&self.0[..8]);
        (u64::from_be_bytes(head) % count as u64) as usize
    }

    /// Parses 64 hex digits.
    pub fn from_hex(text: &str) -> Option<Self> {
        if text.len() != 64 || !text.is_ascii() {
            return None;
        }
        let mut bytes = [0u8; 32];
        for (byte, pair) in bytes.iter_mut().zip(text.as_bytes().chunks(2)) {
            let pair = std::str::from_utf8(pair).ok()?;
            *byte = u8::from_str_radix(pair, 16).ok()?;
        }
        Some(Self(bytes))
    }
}

/// The sha256 of a unit's parts, each preceded by its length so that no two lists of parts
/// hash alike.
struct UnitHasher(Sha256);

impl UnitHasher {
    /// Hashes one part.
    fn text(&mut self, bytes: &[u8]) {
        self.0.update((bytes.len() as u64).to_le_bytes());
        self.0.update(bytes);
    }

    /// Hashes a set of names: their count, then each in sorted order.
    fn names(&mut self, mut names: Vec<&str>) {
        names.sort_unstable();
        self.text(&(names.len() as u64).to_le_bytes());
        names.iter().for_each(|name| self.text(name.as_bytes()));
    }

    fn finish(self) -> UnitId {
        UnitId(self.0.finalize().into())
    }
}

impl std::fmt::Display for UnitId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:x}", sha2::digest::Output::<Sha256>::from(self.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unit_ids_round_trip_through_hex() {
        let id = UnitId([0xab; 32]);
        assert_eq!(UnitId::from_hex(&id.to_string()), Some(id));
        assert_eq!(UnitId::from_hex("ab"), None);
        assert_eq!(UnitId([0; 32]).home_shard(3), 0);
    }
}
