//! The corpus pass of a build and its scratch files: every document's id goes into the store,
//! its terms (in LEB128), name hash and line into scratch files beside it, read back a chunk
//! of documents at a time to be weighted once the vocabulary is complete.

use std::io::Read;
use std::path::PathBuf;

use rayon::prelude::*;

use super::files::{read_values, Scratch, ScratchReader, SectionWriter, Workspace};
use super::format::{Span, ENTRY_BYTES};
use super::table::name_hash;
use crate::base::error::{Error, Result};
use crate::features::text::pass::{DocumentSink, Refusal};
use crate::features::text::weighting::Vocabulary;
use crate::io::corpus::Place;

/// The corpus pass's sink: every document's id goes into the store's `names` section, its
/// terms, hash and line into scratch files.
pub(super) struct SpillSink<'w> {
    store: &'w mut SectionWriter,
    names_start: u64,
    name_ends: Scratch,
    term_bytes: Scratch,
    terms: Scratch,
    hashes: Scratch,
    lines: Scratch,
    /// The first document of each corpus file, with the file.
    files: Vec<(u64, PathBuf)>,
    documents: u64,
    /// The current document's terms, encoded for `terms`.
    encoded: Vec<u8>,
    /// Told how many documents have been read, every [`PROGRESS_EVERY`] and at the end.
    documents_read: &'w (dyn Fn(u64) + Sync),
}

/// What the pass left: the scratch files, read back.
pub(super) struct Spilled {
    /// The store's `names` section.
    pub(super) names: Span,
    /// Each document's name end within `names`.
    pub(super) name_ends: ScratchReader,
    /// The length of each document's encoded terms.
    pub(super) term_bytes: ScratchReader,
    /// Every document's terms, encoded (see [`push_varint`]).
    pub(super) terms: ScratchReader,
    /// Each document's name hash.
    pub(super) hashes: ScratchReader,
    /// Each document's line in its corpus file.
    pub(super) lines: ScratchReader,
    /// The first document of each corpus file, with the file.
    pub(super) files: Vec<(u64, PathBuf)>,
    /// How many documents were read.
    pub(super) documents: u64,
}

/// How often, in documents, the pass reports its progress.
const PROGRESS_EVERY: u64 = 1 << 16;

impl<'w> SpillSink<'w> {
    pub(super) fn create(
        workspace: &Workspace,
        store: &'w mut SectionWriter,
        documents_read: &'w (dyn Fn(u64) + Sync),
    ) -> Result<Self> {
        let names_start = store.begin_section()?;
        Ok(Self {
            names_start,
            store,
            name_ends: Scratch::create(workspace.scratch("name-ends"))?,
            term_bytes: Scratch::create(workspace.scratch("term-bytes"))?,
            terms: Scratch::create(workspace.scratch("terms"))?,
            hashes: Scratch::create(workspace.scratch("hashes"))?,
            lines: Scratch::create(workspace.scratch("lines"))?,
            files: Vec::new(),
            documents: 0,
            encoded: Vec::new(),
            documents_read,
        })
    }

    pub(super) fn finish(self) -> Result<Spilled> {
        (self.documents_read)(self.documents);
        Ok(Spilled {
            names: self.store.span_from(self.names_start),
            name_ends: self.name_ends.into_reader()?,
            term_bytes: self.term_bytes.into_reader()?,
            terms: self.terms.into_reader()?,
            hashes: self.hashes.into_reader()?,
            lines: self.lines.into_reader()?,
            files: self.files,
            documents: self.documents,
        })
    }
}

impl DocumentSink for SpillSink<'_> {
    fn admit(&mut self, _: &str) -> std::result::Result<bool, Refusal> {
        // Duplicates are found when the id table is filled: holding every id to check them
        // here would not fit in memory at scale.
        Ok(true)
    }

    fn keep(&mut self, place: Option<Place<'_>>, name: &str, terms: &[(u32, u32)]) -> Result<()> {
        let place = place.expect("a store is built from corpus files");
        if self.files.last().is_none_or(|(_, file)| file != place.path) {
            self.files.push((self.documents, place.path.to_path_buf()));
        }
        self.store.write(name.as_bytes())?;
        let name_end = self.store.offset() - self.names_start;
        self.name_ends.write(&name_end.to_le_bytes())?;
        self.encoded.clear();
        for &(stem, term_frequency) in terms {
            push_varint(&mut self.encoded, stem);
            push_varint(&mut self.encoded, term_frequency);
        }
        let length = u32::try_from(self.encoded.len()).expect("a document's terms under 4 GiB");
        self.term_bytes.write(&length.to_le_bytes())?;
        self.terms.write(&self.encoded)?;
        self.hashes
            .write(&name_hash(name.as_bytes()).to_le_bytes())?;
        self.lines.write(&(place.line as u64).to_le_bytes())?;
        self.documents += 1;
        if self.documents % PROGRESS_EVERY == 0 {
            (self.documents_read)(self.documents);
        }
        Ok(())
    }
}

/// One chunk of spilled documents: the length of each one's encoded terms, and the terms as
/// stored (see [`push_varint`]).
pub(super) struct SpilledChunk {
    lengths: Vec<u64>,
    terms: Vec<u8>,
}

impl SpilledChunk {
    /// Reads the next `documents` documents' terms.
    pub(super) fn read(
        spilled: &Spilled,
        lengths: &mut impl Read,
        terms: &mut impl Read,
        documents: usize,
    ) -> Result<Self> {
        let lengths = read_values(lengths, documents, 4, &spilled.term_bytes.path)?;
        let mut encoded = vec![0_u8; lengths.iter().sum::<u64>() as usize];
        terms
            .read_exact(&mut encoded)
            .map_err(Error::reading(&spilled.terms.path))?;
        Ok(Self {
            lengths,
            terms: encoded,
        })
    }

    /// Every document's vector as the store holds it, weighted in parallel.
    pub(super) fn weighted(&self, vocabulary: &Vocabulary) -> Vec<Vec<u8>> {
        let mut starts = Vec::with_capacity(self.lengths.len() + 1);
        starts.push(0_usize);
        for &length in &self.lengths {
            starts.push(starts.last().expect("starts holds 0") + length as usize);
        }
        starts
            .par_windows(2)
            .map(|bounds| {
                let vector =
                    vocabulary.document_vector(&decode_terms(&self.terms[bounds[0]..bounds[1]]));
                let mut bytes = Vec::with_capacity(vector.len() * ENTRY_BYTES);
                for (feature, weight) in vector {
                    bytes.extend_from_slice(&feature.to_le_bytes());
                    bytes.extend_from_slice(&weight.to_le_bytes());
                }
                bytes
            })
            .collect()
    }
}

/// Appends `value` in LEB128: 7 bits a byte, low bits first, the high bit set on every byte
/// but the last. Stem ids and term frequencies are mostly small, so a document's spilled terms
/// take about 3 bytes a term instead of 8: fewer bytes to write and read back.
fn push_varint(bytes: &mut Vec<u8>, mut value: u32) {
    while value >= 0x80 {
        bytes.push((value as u8) | 0x80);
        value >>= 7;
    }
    bytes.push(value as u8);
}

/// The `(stem id, tf)` pairs [`push_varint`] encoded into `bytes`.
fn decode_terms(bytes: &[u8]) -> Vec<(u32, u32)> {
    let mut values = Vec::with_capacity(bytes.len());
    let (mut value, mut shift) = (0_u32, 0);
    for &byte in bytes {
        value |= u32::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            values.push(value);
            (value, shift) = (0, 0);
        } else {
            shift += 7;
        }
    }
    values
        .chunks_exact(2)
        .map(|pair| (pair[0], pair[1]))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(crate::base::fuzz::property_config(256))]
        /// Spilled terms read back as they were written, whatever their values.
        #[test]
        fn spilled_terms_decode_to_what_was_encoded(
            terms in proptest::collection::vec((any::<u32>(), any::<u32>()), 0..50),
        ) {
            let mut bytes = Vec::new();
            for &(stem, term_frequency) in &terms {
                push_varint(&mut bytes, stem);
                push_varint(&mut bytes, term_frequency);
            }
            prop_assert_eq!(decode_terms(&bytes), terms);
        }
    }
}
