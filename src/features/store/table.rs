//! The id table: an open-addressing hash table from a document id to its position, stored as
//! `u32` slots (0 empty, else position + 1) and probed linearly from a home slot, without
//! wrapping around: entries that overflow the last slot go into slots appended after it.
//!
//! The hash is 64-bit FNV-1a of the id's bytes passed through SplitMix64's mixer; a name's home
//! slot is the hash's top `bits` bits, so the slots of a range of homes are contiguous and the
//! table can be built one range (region) at a time with bounded memory, from the names' hashes
//! alone. Capacity is the power of two at or above 4/3 of the documents, so at most three slots
//! in four are full.

use crate::base::seed::{fnv1a, splitmix64};

/// The hash of a document id (see the module documentation).
#[inline]
pub(super) fn name_hash(name: &[u8]) -> u64 {
    splitmix64(fnv1a(name))
}

/// The number of home bits for `document_count` documents (the table has `2^bits` home slots).
pub(super) fn home_bits(document_count: u64) -> u32 {
    let wanted = document_count.saturating_mul(4).div_ceil(3).max(1);
    wanted.next_power_of_two().trailing_zeros()
}

/// The home slot of `hash` in a table of `2^bits` home slots.
#[inline]
pub(super) fn home_slot(hash: u64, bits: u32) -> u64 {
    if bits == 0 {
        0
    } else {
        hash >> (64 - bits)
    }
}

/// The slots a region holds at most while the table is built: 16M slots of 12 bytes (the slot
/// and its occupant's hash) keep a build's memory near 200 MB whatever the corpus size.
pub(super) const REGION_SLOTS: u64 = 1 << 24;

/// One region of the table being filled: its slots and their occupants' hashes.
pub(super) struct Region {
    /// The first slot of the region in the table.
    pub(super) first_slot: u64,
    /// Position + 1, or 0.
    pub(super) slots: Vec<u32>,
    hashes: Vec<u64>,
}

/// Where an inserted document went.
pub(super) enum Placed {
    /// Into the region.
    Here,
    /// Past the region's end: it goes on into the next region (or the slots after the last).
    Overflow,
    /// A document of the same hash is already there: `position`, whose id the caller compares.
    SameHash(u32),
}

impl Region {
    /// An empty region of `length` slots starting at `first_slot`.
    pub(super) fn new(first_slot: u64, length: u64) -> Self {
        let length = usize::try_from(length).expect("a region fits in memory");
        Self {
            first_slot,
            slots: vec![0; length],
            hashes: vec![0; length],
        }
    }

    /// Inserts the document at `position` with `hash`, probing from slot `from` (a slot of this
    /// region, or its first for documents carried over from the region before). A document
    /// whose hash equals an occupant's is reported and not inserted until the caller
    /// [forces](Self::insert_distinct) it.
    pub(super) fn insert(&mut self, from: u64, position: u32, hash: u64) -> Placed {
        self.probe(from, position, hash, true)
    }

    /// Inserts a document known to differ from every occupant of its hash.
    pub(super) fn insert_distinct(&mut self, from: u64, position: u32, hash: u64) -> Placed {
        self.probe(from, position, hash, false)
    }

    fn probe(&mut self, from: u64, position: u32, hash: u64, stop_at_same_hash: bool) -> Placed {
        let start = usize::try_from(from - self.first_slot).expect("a region fits in memory");
        for slot in start..self.slots.len() {
            match self.slots[slot] {
                0 => {
                    self.slots[slot] = position + 1;
                    self.hashes[slot] = hash;
                    return Placed::Here;
                }
                occupant if stop_at_same_hash && self.hashes[slot] == hash => {
                    return Placed::SameHash(occupant - 1);
                }
                _ => {}
            }
        }
        Placed::Overflow
    }
}

/// The position of the document whose id is `name`, probing `slots` (the table's bytes) from
/// the name's home; `name_of` gives the id at a position (`None` when the store is damaged).
pub(super) fn find<'s>(
    slots: &[u8],
    bits: u32,
    name: &str,
    name_of: impl Fn(u32) -> Option<&'s str>,
) -> Option<u32> {
    let mut slot = usize::try_from(home_slot(name_hash(name.as_bytes()), bits)).ok()?;
    loop {
        match super::format::u32_at(slots, slot)? {
            0 => return None,
            occupant => {
                let position = occupant - 1;
                if name_of(position)? == name {
                    return Some(position);
                }
            }
        }
        slot += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capacity_keeps_at_least_one_slot_in_four_empty() {
        for (documents, bits) in [(0, 0), (1, 1), (3, 2), (4, 3), (6, 3), (7, 4), (1000, 11)] {
            assert_eq!(home_bits(documents), bits, "{documents} documents");
            assert!(documents * 4 <= 3 << bits || documents == 0);
        }
    }

    #[test]
    fn a_full_region_overflows_and_equal_hashes_are_reported() {
        let mut region = Region::new(4, 2);
        assert!(matches!(region.insert(5, 0, 11), Placed::Here));
        assert!(matches!(region.insert(5, 1, 11), Placed::SameHash(0)));
        assert!(matches!(region.insert_distinct(5, 1, 11), Placed::Overflow));
        assert!(matches!(region.insert(4, 2, 12), Placed::Here));
        assert_eq!(region.slots, [3, 1]);
    }
}
