//! The store's file layout: a 32-byte preamble, sections of little-endian arrays, and a JSON
//! header that names every section's place (see the module documentation of
//! [`super`] for the whole layout).

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::base::error::{Error, Result};
use crate::io::corpus::{corpus_files, CorpusFormat, CorpusLayout};

/// The first bytes of every store file.
pub(super) const MAGIC: &[u8; 8] = b"RSIMFST\0";

/// The version of the file layout; a store of another version must be rebuilt.
pub const STORE_FORMAT_VERSION: u32 = 1;

/// The preamble: magic, format version, a reserved word, the header's offset and length.
pub(super) const PREAMBLE_BYTES: u64 = 32;

/// Every section starts at a multiple of this many bytes.
pub(super) const SECTION_ALIGNMENT: u64 = 8;

/// The bytes of one vector entry: a `u32` feature index and an `f32` weight.
pub(super) const ENTRY_BYTES: usize = 8;

/// Where a section lies in the file.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Span {
    /// Its first byte.
    pub offset: u64,
    /// Its length in bytes.
    pub length: u64,
}

/// The sections of a store.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sections {
    /// Every document id's bytes, in corpus order, concatenated.
    pub names: Span,
    /// `u64` × (documents + 1): where each id starts in `names`, and the end.
    pub name_offsets: Span,
    /// Every document's vector, in corpus order: entries of a `u32` feature and an `f32`
    /// weight, features increasing within a document.
    pub vectors: Span,
    /// `u64` × (documents + 1): where each vector starts in `vectors`, in entries, and the end.
    pub vector_offsets: Span,
    /// Every feature's stem, in feature order (byte order), concatenated.
    pub terms: Span,
    /// `u64` × (features + 1): where each stem starts in `terms`, and the end.
    pub term_offsets: Span,
    /// `u32` × features: each feature's document frequency.
    pub document_frequencies: Span,
    /// `u32` slots of the id table: 0 for an empty slot, else the document's position + 1.
    pub id_table: Span,
}

/// One corpus file the store was built from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CorpusFile {
    /// Its role, as a study's fingerprint names corpus files: `corpus` for a corpus that is one
    /// file, `corpus/<file name>` for each file of a folder.
    pub role: String,
    /// Its length in bytes, as stored.
    pub bytes: u64,
    /// The sha256 (lower-case hex) of its bytes, as stored.
    pub sha256: String,
}

/// How the corpus was read, as recorded in the store.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LayoutRecord {
    /// `tsv`, `jsonl` or `auto`.
    pub format: String,
    /// The JSONL id fields.
    pub id_fields: Vec<String>,
    /// The JSONL text parts, each a list of alternative fields.
    pub text_fields: Vec<Vec<String>>,
}

impl LayoutRecord {
    /// The record of `layout`.
    pub fn of(layout: &CorpusLayout) -> Self {
        use crate::base::choice::Choice;
        Self {
            format: layout.format.name().to_string(),
            id_fields: layout.id_fields.clone(),
            text_fields: layout.text_fields.clone(),
        }
    }

    /// The record of `layout` with what cannot change a TSV corpus's documents left out: the
    /// JSONL fields when every file is TSV. Used to compare layouts.
    pub(super) fn matches(&self, layout: &CorpusLayout) -> bool {
        let other = Self::of(layout);
        let is_tsv = |record: &Self| record.format == CorpusFormat::Tsv.to_string();
        *self == other || (is_tsv(self) && is_tsv(&other))
    }
}

/// What a store holds and where: written as JSON after the sections.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Header {
    /// [`STORE_FORMAT_VERSION`] of the build.
    pub format_version: u32,
    /// [`crate::features::text::FEATURE_RULES_VERSION`] of the build.
    pub feature_rules: u32,
    /// The reusesim version that built it (information only).
    pub reusesim: String,
    /// Documents, in corpus order.
    pub document_count: u64,
    /// Features (stems with df >= 2).
    pub feature_count: u64,
    /// Vector entries of all documents together.
    pub entry_count: u64,
    /// The id table's home slots are the top `id_table_bits` bits of a name's hash.
    pub id_table_bits: u32,
    /// The corpus files, in reading order.
    pub corpus: Vec<CorpusFile>,
    /// How they were read.
    pub layout: LayoutRecord,
    /// Where each section is.
    pub sections: Sections,
}

/// The first multiple of [`SECTION_ALIGNMENT`] at or after `offset`.
pub(super) fn aligned(offset: u64) -> u64 {
    offset.div_ceil(SECTION_ALIGNMENT) * SECTION_ALIGNMENT
}

/// The preamble for a header at `header_offset` of `header_length` bytes.
pub(super) fn preamble(header_offset: u64, header_length: u64) -> [u8; PREAMBLE_BYTES as usize] {
    let mut bytes = [0_u8; PREAMBLE_BYTES as usize];
    bytes[..8].copy_from_slice(MAGIC);
    bytes[8..12].copy_from_slice(&STORE_FORMAT_VERSION.to_le_bytes());
    bytes[16..24].copy_from_slice(&header_offset.to_le_bytes());
    bytes[24..32].copy_from_slice(&header_length.to_le_bytes());
    bytes
}

/// The `u64` at index `index` of a little-endian `u64` array.
#[inline]
pub(super) fn u64_at(array: &[u8], index: usize) -> Option<u64> {
    let bytes = array.get(index * 8..index * 8 + 8)?;
    Some(u64::from_le_bytes(bytes.try_into().expect("8 bytes")))
}

/// The `u32` at index `index` of a little-endian `u32` array.
#[inline]
pub(super) fn u32_at(array: &[u8], index: usize) -> Option<u32> {
    let bytes = array.get(index * 4..index * 4 + 4)?;
    Some(u32::from_le_bytes(bytes.try_into().expect("4 bytes")))
}

/// Each corpus file of `inputs` with its role (see [`CorpusFile::role`]): `corpus` for a single
/// input that is a file, else `corpus/<file name>`.
///
/// # Errors
/// As [`corpus_files`], and [`Error::Invalid`] for two files of the same name.
pub(super) fn corpus_roles(inputs: &[PathBuf]) -> Result<Vec<(String, PathBuf)>> {
    if let [single] = inputs {
        if !single.is_dir() {
            return Ok(vec![("corpus".to_string(), single.clone())]);
        }
    }
    let mut roles: Vec<(String, PathBuf)> = Vec::new();
    for input in inputs {
        for file in corpus_files(input)? {
            let name = match file.strip_prefix(input) {
                Ok(inside) if input.is_dir() => inside.display().to_string(),
                _ => file
                    .file_name()
                    .unwrap_or_default()
                    .to_string_lossy()
                    .into_owned(),
            };
            let role = format!("corpus/{name}");
            if let Some((_, first)) = roles.iter().find(|(known, _)| *known == role) {
                return Err(Error::Invalid(format!(
                    "expected corpus files of distinct names, found {name:?} twice: {} and {}",
                    first.display(),
                    file.display()
                )));
            }
            roles.push((role, file));
        }
    }
    Ok(roles)
}
