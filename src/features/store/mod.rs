//! The feature store: every document's HiCAL vector, written once by `reusesim index` and
//! memory-mapped by every command that judges, as HiCAL's corpus parser writes its binary
//! feature file once for every session to load (see docs/store.md).
//!
//! A store is one file:
//!
//! | bytes | content |
//! |---|---|
//! | 0..8 | magic `RSIMFST\0` |
//! | 8..12 | format version (`u32`, [`STORE_FORMAT_VERSION`]) |
//! | 12..16 | reserved (0) |
//! | 16..24, 24..32 | the header's offset and length (`u64`) |
//! | ... | the sections ([`format::Sections`]), each at a multiple of 8 bytes |
//! | header | JSON ([`format::Header`]): versions, counts, the corpus files with their sha256, the layout they were read with, each section's place |
//!
//! Every number is little-endian. Documents are numbered by their position in the corpus (the
//! order [`crate::io::corpus::for_each_document`] reads them), which is also the order HiCAL
//! breaks score ties in. A document's vector is exactly what the in-memory features give it
//! ([`crate::features::text`]), bit for bit: both come from the same corpus pass and weighting.
//! Ids are found through an open-addressing hash table ([`table`]).
//!
//! Opening reads the preamble and the header only, so it takes the same time whatever the
//! corpus size; each access checks the offsets it reads, so a damaged store gives an error,
//! never a panic or a read outside the file.

mod build;
mod files;
mod format;
mod reader;
mod spill;
mod table;

#[cfg(test)]
mod tests;

pub use build::{build_store, BuildOutcome};
pub use format::{CorpusFile, Header, LayoutRecord, STORE_FORMAT_VERSION};
pub use reader::FeatureStore;
