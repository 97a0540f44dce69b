//! A store opened for reading: memory-mapped, its preamble, header and sections checked, each
//! document's id, vector and place read from the mapped bytes.

use std::path::{Path, PathBuf};

use super::format::{
    corpus_roles, u32_at, u64_at, Header, LayoutRecord, Span, ENTRY_BYTES, MAGIC, PREAMBLE_BYTES,
    STORE_FORMAT_VERSION,
};
use crate::base::error::{Error, ParseError, ParseErrorKind, Result};
use crate::features::text::{hical_idf, FeaturePairs, FEATURE_RULES_VERSION};
use crate::io::corpus::CorpusLayout;

/// A feature store, memory-mapped.
#[derive(Debug)]
pub struct FeatureStore {
    path: PathBuf,
    map: memmap2::Mmap,
    header: Header,
}

impl FeatureStore {
    /// Opens the store at `path` and checks its preamble, header and section bounds.
    ///
    /// # Errors
    /// A [`ParseError`] naming the file when it cannot be read, is not a store, is of another
    /// format version or feature rules (it must then be rebuilt), or its header is damaged.
    pub fn open(path: &Path) -> Result<Self> {
        let invalid = |message: String| ParseError::file(path, ParseErrorKind::Invalid(message));
        let file = std::fs::File::open(path)
            .map_err(|error| ParseError::file(path, ParseErrorKind::Io(error)))?;
        // SAFETY: a store is never written in place: `reusesim index` writes a new file and
        // renames it over the old one, so the mapped bytes do not change while mapped.
        let map = unsafe { memmap2::Mmap::map(&file) }
            .map_err(|error| ParseError::file(path, ParseErrorKind::Io(error)))?;
        if map.len() < PREAMBLE_BYTES as usize || &map[..8] != MAGIC {
            return Err(invalid(
                "expected a reusesim feature store (written by `reusesim index`), found other data"
                    .into(),
            )
            .into());
        }
        let version = u32_at(&map[8..12], 0).expect("4 bytes");
        if version != STORE_FORMAT_VERSION {
            return Err(invalid(format!(
                "expected feature store format {STORE_FORMAT_VERSION}, found {version}: rebuild \
                 the store with `reusesim index`"
            ))
            .into());
        }
        let header_span = Span {
            offset: u64_at(&map[16..24], 0).expect("8 bytes"),
            length: u64_at(&map[24..32], 0).expect("8 bytes"),
        };
        let header_bytes = slice(&map, header_span)
            .ok_or_else(|| invalid("expected a header inside the file: it is cut short".into()))?;
        let header: Header = serde_json::from_slice(header_bytes)
            .map_err(|error| invalid(format!("expected a store header: {error}")))?;
        if header.feature_rules != FEATURE_RULES_VERSION {
            return Err(invalid(format!(
                "expected features made under rules {FEATURE_RULES_VERSION}, found rules {}: \
                 rebuild the store with `reusesim index`",
                header.feature_rules
            ))
            .into());
        }
        check_sections(&map, &header).map_err(invalid)?;
        Ok(Self {
            path: path.to_path_buf(),
            map,
            header,
        })
    }

    /// The file the store was opened from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// What the store holds.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// N: how many documents the corpus has.
    pub fn document_count(&self) -> usize {
        self.header.document_count as usize
    }

    /// How many features there are (stems with df >= 2).
    pub fn feature_count(&self) -> usize {
        self.header.feature_count as usize
    }

    fn section(&self, span: Span) -> &[u8] {
        slice(&self.map, span).expect("sections were checked at opening")
    }

    fn damaged(&self, what: &str) -> Error {
        Error::Invalid(format!(
            "{}: the feature store is damaged ({what}); rebuild it with `reusesim index`",
            self.path.display()
        ))
    }

    /// The byte range of item `index` of a section whose `u64` offsets are `offsets`, checked
    /// against the section's `length`.
    fn range(&self, offsets: Span, index: usize, length: usize) -> Option<std::ops::Range<usize>> {
        let offsets = self.section(offsets);
        let start = usize::try_from(u64_at(offsets, index)?).ok()?;
        let end = usize::try_from(u64_at(offsets, index + 1)?).ok()?;
        (start <= end && end <= length).then_some(start..end)
    }

    /// The id of the document at `position`.
    ///
    /// # Errors
    /// [`Error::Invalid`] when the store is damaged there (or `position` is not below
    /// [`Self::document_count`]).
    pub fn name(&self, position: u32) -> Result<&str> {
        self.try_name(position)
            .ok_or_else(|| self.damaged(&format!("document {position}'s id")))
    }

    fn try_name(&self, position: u32) -> Option<&str> {
        let sections = &self.header.sections;
        let names = self.section(sections.names);
        let range = self.range(sections.name_offsets, position as usize, names.len())?;
        std::str::from_utf8(&names[range]).ok()
    }

    /// The position of the document whose id is `name`, if the corpus has it.
    pub fn position(&self, name: &str) -> Option<u32> {
        let slots = self.section(self.header.sections.id_table);
        super::table::find(slots, self.header.id_table_bits, name, |position| {
            self.try_name(position)
        })
    }

    /// The vector of the document at `position`, into `out` (cleared first): `(feature,
    /// weight)` pairs in increasing feature order.
    ///
    /// # Errors
    /// [`Error::Invalid`] when the store is damaged there (or `position` is not below
    /// [`Self::document_count`]).
    pub fn vector_into(&self, position: u32, out: &mut FeaturePairs) -> Result<()> {
        out.clear();
        let sections = &self.header.sections;
        let vectors = self.section(sections.vectors);
        let range = self
            .range(
                sections.vector_offsets,
                position as usize,
                vectors.len() / ENTRY_BYTES,
            )
            .ok_or_else(|| self.damaged(&format!("document {position}'s vector")))?;
        let bytes = &vectors[range.start * ENTRY_BYTES..range.end * ENTRY_BYTES];
        out.extend(bytes.chunks_exact(ENTRY_BYTES).map(|entry| {
            let feature = u32::from_le_bytes(entry[..4].try_into().expect("4 bytes"));
            let weight = f32::from_le_bytes(entry[4..].try_into().expect("4 bytes"));
            (feature, weight)
        }));
        Ok(())
    }

    /// The stem of a feature, if `feature` is below [`Self::feature_count`].
    pub fn term(&self, feature: u32) -> Option<&str> {
        let sections = &self.header.sections;
        let terms = self.section(sections.terms);
        let range = self.range(sections.term_offsets, feature as usize, terms.len())?;
        std::str::from_utf8(&terms[range]).ok()
    }

    /// The feature index of a stem, if it is in the vocabulary (terms are in byte order, so
    /// this is a binary search).
    pub fn feature_index(&self, stem: &str) -> Option<u32> {
        let (mut low, mut high) = (0_usize, self.feature_count());
        while low < high {
            let middle = low + (high - low) / 2;
            let term = self.term(middle as u32)?;
            match term.as_bytes().cmp(stem.as_bytes()) {
                std::cmp::Ordering::Less => low = middle + 1,
                std::cmp::Ordering::Greater => high = middle,
                std::cmp::Ordering::Equal => return Some(middle as u32),
            }
        }
        None
    }

    /// The number of documents containing a feature's stem.
    pub fn document_frequency(&self, feature: u32) -> Option<u32> {
        u32_at(
            self.section(self.header.sections.document_frequencies),
            feature as usize,
        )
    }

    /// HiCAL's seed vector for a topic, as [`crate::features::text::TextFeatures::topic_vector`]
    /// gives it for the same corpus.
    ///
    /// # Errors
    /// As [`crate::features::text::TextFeatures::topic_vector`].
    pub fn topic_vector(&self, topic_id: &str, text: &str) -> Result<FeaturePairs> {
        let document_count = self.header.document_count as u32;
        crate::features::text::topic_vector(
            topic_id,
            text,
            |stem| self.feature_index(stem),
            |feature| {
                let document_frequency = self.document_frequency(feature).unwrap_or(0);
                hical_idf(document_count, document_frequency)
            },
        )
    }

    /// Checks that the corpus at `corpus`, read as `layout`, is the one the store was built
    /// from: the same files (by role and length; the sha256 was taken when the store was
    /// built) read the same way.
    ///
    /// # Errors
    /// [`Error::Invalid`] naming the store and the corpus, and how they differ.
    pub fn check_corpus(&self, corpus: &Path, layout: &CorpusLayout) -> Result<()> {
        let roles = corpus_roles(&[corpus.to_path_buf()])?;
        let mut found = Vec::with_capacity(roles.len());
        for (role, file) in &roles {
            let bytes = std::fs::metadata(file)
                .map_err(|error| ParseError::file(file, ParseErrorKind::Io(error)))?
                .len();
            found.push(format!("{role} ({bytes} bytes)"));
        }
        let recorded: Vec<String> = (self.header.corpus.iter())
            .map(|file| format!("{} ({} bytes)", file.role, file.bytes))
            .collect();
        let mismatch = if found != recorded {
            Some(format!(
                "the store was built from {}, the corpus has {}",
                recorded.join(", "),
                found.join(", ")
            ))
        } else if !self.header.layout.matches(layout) {
            Some(format!(
                "the store read its corpus as {:?}, the task reads it as {:?}",
                self.header.layout,
                LayoutRecord::of(layout)
            ))
        } else {
            None
        };
        match mismatch {
            None => Ok(()),
            Some(difference) => Err(Error::Invalid(format!(
                "feature store {} does not match corpus {}: {difference}; rebuild it with \
                 `reusesim index --corpus {} --out {}`",
                self.path.display(),
                corpus.display(),
                corpus.display(),
                self.path.display()
            ))),
        }
    }
}

/// The bytes of `span` in `map`, if it lies inside.
fn slice(map: &[u8], span: Span) -> Option<&[u8]> {
    let start = usize::try_from(span.offset).ok()?;
    let end = start.checked_add(usize::try_from(span.length).ok()?)?;
    map.get(start..end)
}

/// Checks that every section lies inside the file and has the length the counts give it.
fn check_sections(map: &[u8], header: &Header) -> std::result::Result<(), String> {
    let sections = &header.sections;
    let (documents, features) = (header.document_count, header.feature_count);
    if documents >= u64::from(u32::MAX) || header.id_table_bits > 32 {
        return Err(format!(
            "expected fewer than 2^32 - 1 documents and an id table of at most 2^32 slots, \
             found {documents} documents and 2^{} slots",
            header.id_table_bits
        ));
    }
    // The counts are checked above or bounded by the file's length below before they are
    // multiplied, so no product overflows.
    let array = |count: u64, width: u64| count.checked_add(1).and_then(|n| n.checked_mul(width));
    let expected = [
        ("name_offsets", sections.name_offsets, array(documents, 8)),
        (
            "vector_offsets",
            sections.vector_offsets,
            array(documents, 8),
        ),
        (
            "vectors",
            sections.vectors,
            header.entry_count.checked_mul(ENTRY_BYTES as u64),
        ),
        ("term_offsets", sections.term_offsets, array(features, 8)),
        (
            "document_frequencies",
            sections.document_frequencies,
            features.checked_mul(4),
        ),
        ("id_table", sections.id_table, None),
        ("names", sections.names, None),
        ("terms", sections.terms, None),
    ];
    for (name, span, length) in expected {
        let is_inside = slice(map, span).is_some();
        let has_length = match (name, length) {
            ("id_table", _) => span.length >= ((1_u64 << header.id_table_bits) + 1) * 4,
            ("names" | "terms", _) => true,
            (_, Some(length)) => span.length == length,
            (_, None) => false,
        };
        if !is_inside || !has_length {
            return Err(format!(
                "expected section {name} of {} bytes inside the file, found {} bytes at {}",
                length.map_or("its".to_string(), |length| length.to_string()),
                span.length,
                span.offset
            ));
        }
    }
    Ok(())
}
