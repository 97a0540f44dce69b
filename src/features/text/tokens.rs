//! HiCAL's tokenizer and the stemming cache: maximal ASCII alphanumeric runs, all-alphabetic
//! tokens of 2 or more bytes, lower-cased, stemmed with Porter's original algorithm; and the
//! table that numbers every stem seen, with a bounded cache from token to stem id so that a
//! frequent token is stemmed once.

use rustc_hash::FxHashMap;

use super::MIN_STEM_LENGTH;
use crate::features::porter::stem_in_place;

/// Tokens shorter than this are dropped before stemming (they could not give a long enough
/// stem anyway: Porter leaves short words unchanged).
const MIN_TOKEN_LENGTH: usize = 2;

/// At most this many distinct tokens are remembered with their stem; later new tokens are
/// stemmed every time they occur. Frequent tokens appear early, so a bounded cache keeps
/// nearly all of its benefit while a huge corpus's long tail of rare tokens cannot grow it.
pub const STEM_CACHE_CAPACITY: usize = 1 << 20;

/// The marker in the stem cache for a token whose stem is too short.
pub(super) const DROPPED: u32 = u32::MAX;

/// The marker, in a document's cached stem ids, of a token the cache did not hold.
pub(super) const UNKNOWN: u32 = u32::MAX - 1;

/// Calls `visit` with every token of `text` that is all-alphabetic ASCII and at least two
/// bytes long, lower-cased into `buffer` (reused, so tokenising allocates nothing).
pub(super) fn for_each_token(text: &str, buffer: &mut Vec<u8>, mut visit: impl FnMut(&[u8])) {
    let bytes = text.as_bytes();
    let mut pos = 0;
    while pos < bytes.len() {
        if !bytes[pos].is_ascii_alphanumeric() {
            pos += 1;
            continue;
        }
        let start = pos;
        let mut is_alphabetic = true;
        while pos < bytes.len() && bytes[pos].is_ascii_alphanumeric() {
            is_alphabetic &= bytes[pos].is_ascii_alphabetic();
            pos += 1;
        }
        if is_alphabetic && pos - start >= MIN_TOKEN_LENGTH {
            buffer.clear();
            buffer.extend(bytes[start..pos].iter().map(u8::to_ascii_lowercase));
            visit(buffer);
        }
    }
}

/// The stems HiCAL's tokenizer makes of `text`, in text order, repeats included.
///
/// ```
/// use reusesim::features::text::stemmed_terms;
/// assert_eq!(stemmed_terms("Running COVID-19 ponies, a covid19 café"), ["run", "covid", "poni", "caf"]);
/// ```
pub fn stemmed_terms(text: &str) -> Vec<String> {
    let mut terms = Vec::new();
    let mut buffer = Vec::new();
    for_each_token(text, &mut buffer, |token| {
        let mut stem = token.to_vec();
        stem_in_place(&mut stem);
        if stem.len() >= MIN_STEM_LENGTH {
            terms.push(String::from_utf8(stem).expect("stems of ASCII tokens are ASCII"));
        }
    });
    terms
}

/// Every stem seen so far with a dense id, and a bounded cache from token to stem id.
#[derive(Debug, Default)]
pub(super) struct StemTable {
    /// Stem to stem id (ids dense from 0 in first-seen order).
    pub(super) ids: FxHashMap<Box<[u8]>, u32>,
    /// Lower-cased token to stem id, or [`DROPPED`].
    token_cache: TokenCache,
    /// Scratch space for stemming.
    scratch: Vec<u8>,
}

/// The token-to-stem cache. Tokens of up to 16 bytes (nearly all) are keys packed into a
/// `u128` (zero-padded: tokens hold no zero byte, so packing is one-to-one), so that a lookup
/// touches one table slot rather than a slot and a separately allocated key.
#[derive(Debug, Default)]
struct TokenCache {
    short: FxHashMap<u128, u32>,
    long: FxHashMap<Box<[u8]>, u32>,
}

impl TokenCache {
    const SHORT_BYTES: usize = 16;

    fn pack(token: &[u8]) -> u128 {
        let mut bytes = [0_u8; Self::SHORT_BYTES];
        bytes[..token.len()].copy_from_slice(token);
        u128::from_le_bytes(bytes)
    }

    fn get(&self, token: &[u8]) -> Option<u32> {
        if token.len() <= Self::SHORT_BYTES {
            self.short.get(&Self::pack(token)).copied()
        } else {
            self.long.get(token).copied()
        }
    }

    fn len(&self) -> usize {
        self.short.len() + self.long.len()
    }

    fn insert(&mut self, token: &[u8], id: u32) {
        if token.len() <= Self::SHORT_BYTES {
            self.short.insert(Self::pack(token), id);
        } else {
            self.long.insert(token.into(), id);
        }
    }
}

impl StemTable {
    /// The stem id of a lower-cased token, or `None` when its stem is too short; a new stem
    /// gets the next id, and `on_new_stem` is called so per-stem tables can grow.
    pub(super) fn stem_id(&mut self, token: &[u8], on_new_stem: impl FnOnce()) -> Option<u32> {
        if let Some(id) = self.token_cache.get(token) {
            return (id != DROPPED).then_some(id);
        }
        self.scratch.clear();
        self.scratch.extend_from_slice(token);
        stem_in_place(&mut self.scratch);
        let id = if self.scratch.len() < MIN_STEM_LENGTH {
            DROPPED
        } else if let Some(&id) = self.ids.get(self.scratch.as_slice()) {
            id
        } else {
            let id = u32::try_from(self.ids.len())
                .ok()
                .filter(|&id| id < UNKNOWN)
                .expect("fewer than 2^32 - 2 distinct stems");
            self.ids.insert(self.scratch.as_slice().into(), id);
            on_new_stem();
            id
        };
        if self.token_cache.len() < STEM_CACHE_CAPACITY {
            self.token_cache.insert(token, id);
        }
        (id != DROPPED).then_some(id)
    }

    /// The cached stem id (or [`DROPPED`]) of every token of `text`, in text order, with
    /// [`UNKNOWN`] for tokens the cache does not hold; reads the table only, so documents
    /// can be looked up in parallel.
    pub(super) fn cached_ids(&self, text: &str) -> Vec<u32> {
        let mut ids = Vec::new();
        for_each_token(text, &mut Vec::new(), |token| {
            ids.push(self.token_cache.get(token).unwrap_or(UNKNOWN));
        });
        ids
    }
}
