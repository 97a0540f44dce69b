//! HiCAL's tokenizer and the stemming cache: maximal ASCII alphanumeric runs, all-alphabetic
//! tokens of 2 or more bytes, lower-cased, stemmed with Porter's original algorithm; and the
//! table that numbers every stem seen, with a bounded cache from token to stem id so that a
//! frequent token is stemmed once.

use rustc_hash::FxHashMap;

use super::rules::MIN_STEM_LENGTH;
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
/// bytes long, as it is in the text: lower-casing is the caller's, so that the cache can fold
/// it into packing a token and tokenising copies nothing.
pub(super) fn for_each_token(text: &str, mut visit: impl FnMut(&[u8])) {
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
            visit(&bytes[start..pos]);
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
    for_each_token(text, |token| {
        let mut stem = token.to_ascii_lowercase();
        stem_in_place(&mut stem);
        if stem.len() >= MIN_STEM_LENGTH {
            terms.push(String::from_utf8(stem).expect("stems of ASCII tokens are ASCII"));
        }
    });
    terms
}

/// Every distinct stem seen, numbered from 0 in first-seen order: the stems' bytes in one
/// buffer and a hash table of ids, about 25 bytes a stem, so that a corpus with tens of
/// millions of distinct stems (typos, names, foreign words) stays within memory.
#[derive(Debug, Default)]
pub(crate) struct Stems {
    /// Every stem's bytes, concatenated in id order.
    bytes: Vec<u8>,
    /// Where each stem ends in `bytes`.
    ends: Vec<u32>,
    /// The ids, hashed by their stem's bytes.
    table: hashbrown::HashTable<u32>,
}

impl Stems {
    fn hash(stem: &[u8]) -> u64 {
        use std::hash::BuildHasher;
        rustc_hash::FxBuildHasher.hash_one(stem)
    }

    /// The stem of id `id` (an id [`Self::insert`] returned).
    pub(crate) fn stem(&self, id: u32) -> &[u8] {
        stem_of(&self.bytes, &self.ends, id)
    }

    /// How many stems there are.
    pub(crate) fn len(&self) -> usize {
        self.ends.len()
    }

    /// The id of `stem`, if it was inserted.
    fn id(&self, stem: &[u8]) -> Option<u32> {
        let (bytes, ends) = (&self.bytes, &self.ends);
        self.table
            .find(Self::hash(stem), |&id| stem_of(bytes, ends, id) == stem)
            .copied()
    }

    /// Inserts a new stem and returns its id.
    fn insert(&mut self, stem: &[u8]) -> u32 {
        let id = u32::try_from(self.ends.len())
            .ok()
            .filter(|&id| id < UNKNOWN)
            .expect("fewer than 2^32 - 2 distinct stems");
        self.bytes.extend_from_slice(stem);
        self.ends
            .push(u32::try_from(self.bytes.len()).expect("under 4 GiB of distinct stems"));
        let (bytes, ends) = (&self.bytes, &self.ends);
        self.table.insert_unique(Self::hash(stem), id, |&id| {
            Self::hash(stem_of(bytes, ends, id))
        });
        id
    }
}

/// The stem `id` of a [`Stems`]' buffers.
fn stem_of<'b>(bytes: &'b [u8], ends: &[u32], id: u32) -> &'b [u8] {
    let start = id
        .checked_sub(1)
        .map_or(0, |previous| ends[previous as usize]);
    &bytes[start as usize..ends[id as usize] as usize]
}

/// Every stem seen so far with a dense id, and a bounded cache from token to stem id.
#[derive(Debug, Default)]
pub(super) struct StemTable {
    /// Every stem seen, with its id (dense from 0 in first-seen order).
    pub(super) stems: Stems,
    /// Token (case ignored) to stem id, or [`DROPPED`].
    token_cache: TokenCache,
    /// Scratch space for stemming.
    scratch: Vec<u8>,
}

/// The token-to-stem cache. A token of up to [`Self::PACKED_LETTERS`] letters (nearly all) is
/// a key packed into a `u64`, held in a [`PackedTable`], so that a lookup touches one slot of
/// 16 bytes; longer tokens are in a hash map of their bytes.
#[derive(Debug, Default)]
struct TokenCache {
    short: PackedTable,
    long: FxHashMap<Box<[u8]>, u32>,
}

impl TokenCache {
    /// 5 bits a letter fill at most 60 bits of a `u64`.
    const PACKED_LETTERS: usize = 12;

    /// The bit that marks a key as holding the answer of the long tokens' map rather than a
    /// packed token (packed tokens use 60 bits).
    const ANSWERED: u64 = 1 << 63;

    /// An alphabetic token's key, case ignored: of a short token, its letters as base-32
    /// digits, `a` = 1 to `z` = 26 (no letter is 0, so no key is 0, the empty slot's mark, and
    /// tokens of different lengths differ); of a long one, [`Self::ANSWERED`] with its cached
    /// id or [`UNKNOWN`].
    #[inline]
    fn key(&self, token: &[u8]) -> u64 {
        if token.len() <= Self::PACKED_LETTERS {
            // `| 0x20` lower-cases an ASCII letter.
            (token.iter()).fold(0, |key, &letter| {
                key << 5 | u64::from((letter | 0x20) - b'a' + 1)
            })
        } else {
            let id = self.long.get(&*token.to_ascii_lowercase()).copied();
            Self::ANSWERED | u64::from(id.unwrap_or(UNKNOWN))
        }
    }

    /// The cached id (or [`DROPPED`]) of the token whose key is `key`, or [`UNKNOWN`].
    #[inline]
    fn id(&self, key: u64) -> u32 {
        if key & Self::ANSWERED == 0 {
            self.short.get(key).unwrap_or(UNKNOWN)
        } else {
            key as u32
        }
    }

    fn len(&self) -> usize {
        self.short.len + self.long.len()
    }

    fn insert(&mut self, token: &[u8], id: u32) {
        if token.len() <= Self::PACKED_LETTERS {
            self.short.insert(self.key(token), id);
        } else {
            self.long.insert(token.to_ascii_lowercase().into(), id);
        }
    }
}

/// A hash table from non-zero `u64` keys to `u32` values: open addressing with linear
/// probing, at most half full, key 0 marking an empty slot. Key and value share a slot, so a
/// lookup that hits at once (nearly all) costs one cache miss, where a general hash map's
/// control bytes and entries cost two.
#[derive(Debug, Default)]
struct PackedTable {
    /// `(key, value)`, a power of two of them (or none).
    slots: Vec<(u64, u32)>,
    len: usize,
}

impl PackedTable {
    /// Where the search for `key` starts: Fibonacci hashing, the top bits of the key times
    /// 2^64 / φ, which spreads keys that differ in their last letters.
    #[inline]
    fn home(&self, key: u64) -> usize {
        let bits = self.slots.len().trailing_zeros();
        (key.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - bits)) as usize
    }

    /// The slot holding `key`, or the empty slot where it would go.
    #[inline]
    fn find(&self, key: u64) -> usize {
        let mask = self.slots.len() - 1;
        let mut index = self.home(key);
        while self.slots[index].0 != key && self.slots[index].0 != 0 {
            index = (index + 1) & mask;
        }
        index
    }

    #[inline]
    fn get(&self, key: u64) -> Option<u32> {
        if self.slots.is_empty() {
            return None;
        }
        let (found, value) = self.slots[self.find(key)];
        (found == key).then_some(value)
    }

    fn insert(&mut self, key: u64, value: u32) {
        if 2 * (self.len + 1) > self.slots.len() {
            self.grow();
        }
        let index = self.find(key);
        if self.slots[index].0 == 0 {
            self.len += 1;
        }
        self.slots[index] = (key, value);
    }

    /// Doubles the slots (from 1,024) and places every entry again.
    fn grow(&mut self) {
        let capacity = (2 * self.slots.len()).max(1024);
        let old = std::mem::replace(&mut self.slots, vec![(0, 0); capacity]);
        for (key, value) in old.into_iter().filter(|&(key, _)| key != 0) {
            let index = self.find(key);
            self.slots[index] = (key, value);
        }
    }
}

impl StemTable {
    /// The stem id of a token, or `None` when its stem is too short; a new stem
    /// gets the next id, and `on_new_stem` is called so per-stem tables can grow.
    pub(super) fn stem_id(&mut self, token: &[u8], on_new_stem: impl FnOnce()) -> Option<u32> {
        match self.token_cache.id(self.token_cache.key(token)) {
            UNKNOWN => {}
            DROPPED => return None,
            id => return Some(id),
        }
        self.scratch.clear();
        self.scratch
            .extend(token.iter().map(u8::to_ascii_lowercase));
        stem_in_place(&mut self.scratch);
        let id = if self.scratch.len() < MIN_STEM_LENGTH {
            DROPPED
        } else if let Some(id) = self.stems.id(&self.scratch) {
            id
        } else {
            let id = self.stems.insert(&self.scratch);
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
        let mut keys = Vec::new();
        for_each_token(text, |token| {
            keys.push(self.token_cache.key(token));
        });
        // The lookups come apart from the tokenising, in a loop of their own, so that the
        // processor overlaps their cache misses (the table outgrows the cache).
        keys.iter().map(|&key| self.token_cache.id(key)).collect()
    }
}
