//! HiCAL's text features: tf-idf vectors over Porter stems, built from a corpus in one
//! streaming pass with memory bounded by the vocabulary and the documents the caller keeps.
//!
//! What HiCAL does (CALEngine's `BMITokenizer`, `corpus_parser.cc` and `features.cc`), and so
//! what this module does:
//! - **Tokens** are maximal runs of alphanumeric bytes, tested with C's `isalnum` in the C
//!   locale: ASCII only. Any other byte, including every byte of a non-ASCII UTF-8 character,
//!   separates tokens, so `café` gives the token `caf`. A token containing a digit is dropped
//!   whole (`covid19`; `COVID-19` keeps `covid` and drops `19`).
//! - Tokens are lower-cased (ASCII), stemmed with Martin Porter's original algorithm
//!   ([`super::porter`]), and kept when the stem has at least 2 letters. (Porter leaves one- and
//!   two-letter words unchanged, so one-letter tokens never survive.)
//! - **Vocabulary**: stems with document frequency df >= 2 over the whole corpus.
//! - **Document weight** of a stem: `(1 + ln tf) * ln(N / df)`, where N counts every document
//!   of the corpus; then the vector is L2-normalised.
//! - **Topic vector** (HiCAL's seed "document" made from the query text,
//!   `features::get_features(text, dataset, max_norm = 1)`): the same tokens and weights with
//!   the corpus df, stems outside the vocabulary dropped, divided by `max(1, norm)`: a topic
//!   vector with a norm below 1 keeps its length.
//!
//! Floating point follows HiCAL's mix of `float` and `double` as read in its source (its
//! `N / (float) df` and `log(float)` are single precision; document weights are stored as
//! `float` before normalising), so weights round as HiCAL's do; this has not been compared
//! with a HiCAL build.
//!
//! Deliberate differences from HiCAL:
//! - a stem that occurs in every document has idf 0; HiCAL stores the zero weight (and a
//!   document made only of such stems gets NaN weights from a division by a zero norm); here
//!   zero weights are dropped, so such a document has an empty vector. Dot products are
//!   unchanged.
//! - feature indices are dense from 0 in byte order of the stems (HiCAL numbers from 1, in
//!   first-seen order, then swaps rare terms to the end); the order has no effect on learning.
//!
//! **Memory.** The corpus is read once. Document frequencies are counted for every document
//! over a temporary table of every stem seen (including those that will turn out to have
//! df = 1); weights need the final df, so for the documents the caller keeps (candidates and
//! random negatives, a small part of a large corpus) only `(stem id, tf)` pairs are stored
//! during the pass, and they are mapped to the df >= 2 feature indices and weighted at the
//! end. Memory is thus the vocabulary plus the kept documents' terms; other documents leave
//! nothing behind but their contribution to df (and their name, when
//! [`TextFeatureBuilder::record_all_document_names`] asks for it). A cache from lower-cased
//! token to stem speeds stemming; it stops growing at [`STEM_CACHE_CAPACITY`] entries.

use std::collections::HashMap;
use std::path::Path;

use rayon::prelude::*;
use rustc_hash::FxHashMap;

use crate::base::error::{Error, ParseError, ParseErrorKind, Result};
use crate::base::ids::Interner;
use crate::features::porter::stem_in_place;
use crate::io::corpus::for_each_document;

/// A sparse feature vector as `(feature index, weight)` pairs, sorted by index, indices
/// unique, no zero weights.
pub type FeaturePairs = Vec<(u32, f32)>;

/// Stems shorter than this many bytes are dropped (HiCAL's `MinLengthFilter(2)`).
pub const MIN_STEM_LENGTH: usize = 2;

/// Tokens shorter than this are dropped before stemming (they could not give a long enough
/// stem anyway: Porter leaves short words unchanged).
const MIN_TOKEN_LENGTH: usize = 2;

/// Stems with a document frequency below this are not features (HiCAL drops df < 2).
pub const MIN_DOCUMENT_FREQUENCY: u32 = 2;

/// At most this many distinct tokens are remembered with their stem; later new tokens are
/// stemmed every time they occur. Frequent tokens appear early, so a bounded cache keeps
/// nearly all of its benefit while a huge corpus's long tail of rare tokens cannot grow it.
pub const STEM_CACHE_CAPACITY: usize = 1 << 20;

/// The marker in the stem cache for a token whose stem is too short.
const DROPPED: u32 = u32::MAX;

/// The marker, in a document's cached stem ids, of a token the cache did not hold.
const UNKNOWN: u32 = u32::MAX - 1;

/// The corpus is read in batches of this many documents: each batch's tokens are looked up in
/// the stem cache in parallel, then the documents are added in corpus order.
const BATCH_DOCUMENTS: usize = 4096;

/// Calls `visit` with every token of `text` that is all-alphabetic ASCII and at least two
/// bytes long, lower-cased into `buffer` (reused, so tokenising allocates nothing).
fn for_each_token(text: &str, buffer: &mut Vec<u8>, mut visit: impl FnMut(&[u8])) {
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
struct StemTable {
    /// Stem to stem id (ids dense from 0 in first-seen order).
    ids: FxHashMap<Box<[u8]>, u32>,
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
    fn stem_id(&mut self, token: &[u8], on_new_stem: impl FnOnce()) -> Option<u32> {
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
    fn cached_ids(&self, text: &str) -> Vec<u32> {
        let mut ids = Vec::new();
        for_each_token(text, &mut Vec::new(), |token| {
            ids.push(self.token_cache.get(token).unwrap_or(UNKNOWN));
        });
        ids
    }
}

/// Documents read but not yet added: their names and texts in one buffer.
#[derive(Debug, Default)]
struct DocumentBatch {
    text: String,
    /// Per document: its line number, and the ends of its name and its text in `text`.
    documents: Vec<(usize, usize, usize)>,
}

impl DocumentBatch {
    fn push(&mut self, line_number: usize, name: &str, text: &str) {
        self.text.push_str(name);
        let name_end = self.text.len();
        self.text.push_str(text);
        self.documents
            .push((line_number, name_end, self.text.len()));
    }

    fn len(&self) -> usize {
        self.documents.len()
    }

    /// Document `index`'s line number, name and text.
    fn document(&self, index: usize) -> (usize, &str, &str) {
        let start = index
            .checked_sub(1)
            .map_or(0, |previous| self.documents[previous].2);
        let (line_number, name_end, end) = self.documents[index];
        (
            line_number,
            &self.text[start..name_end],
            &self.text[name_end..end],
        )
    }

    fn clear(&mut self) {
        self.text.clear();
        self.documents.clear();
    }
}

/// Why a document was refused.
enum Refusal {
    /// Its id was seen before (where duplicates can be detected).
    DuplicateDocument,
    /// The corpus has more documents than the `u32` frequencies can count.
    TooManyDocuments,
}

impl Refusal {
    fn kind(&self, name: &str) -> ParseErrorKind {
        ParseErrorKind::Invalid(match self {
            Self::DuplicateDocument => {
                format!("expected each document id once, found {name:?} again")
            }
            Self::TooManyDocuments => format!(
                "expected at most {} documents, found more at {name:?}",
                u32::MAX
            ),
        })
    }
}

/// Builds [`TextFeatures`] from a stream of documents: every document counts towards the
/// document frequencies, and only documents accepted by the `keep` predicate get a vector.
///
/// ```
/// use reusesim::features::text::TextFeatureBuilder;
/// let mut builder = TextFeatureBuilder::new(|name: &str| name == "d1");
/// builder.add_document("d1", "cats chase mice")?;
/// builder.add_document("d2", "cats sleep")?;
/// builder.add_document("d3", "dogs chase cats")?;
/// let features = builder.finish()?;
/// assert_eq!(features.document_count(), 3);
/// assert!(features.vector("d1").is_some());
/// assert!(features.vector("d2").is_none());
/// # Ok::<(), reusesim::Error>(())
/// ```
pub struct TextFeatureBuilder<K> {
    keep: K,
    stems: StemTable,
    /// Per stem id: how many documents contain it.
    document_frequencies: Vec<u32>,
    /// Per stem id: its count in the current document (all zero between documents).
    term_counts: Vec<u32>,
    /// The stem ids counted in the current document.
    touched: Vec<u32>,
    /// Scratch space for the tokenizer.
    token_buffer: Vec<u8>,
    document_count: u32,
    kept_names: Interner,
    /// `(stem id, tf)` of every kept document, concatenated; document i owns
    /// `kept_terms[kept_offsets[i]..kept_offsets[i + 1]]`.
    kept_terms: Vec<(u32, u32)>,
    kept_offsets: Vec<usize>,
    all_names: Option<Interner>,
}

impl<K: FnMut(&str) -> bool> TextFeatureBuilder<K> {
    /// A builder that keeps the vector of every document whose id satisfies `keep`.
    pub fn new(keep: K) -> Self {
        Self {
            keep,
            stems: StemTable::default(),
            document_frequencies: Vec::new(),
            term_counts: Vec::new(),
            touched: Vec::new(),
            token_buffer: Vec::new(),
            document_count: 0,
            kept_names: Interner::new(),
            kept_terms: Vec::new(),
            kept_offsets: vec![0],
            all_names: None,
        }
    }

    /// Also records the id of every document (for drawing random negatives from the whole
    /// corpus), and rejects any id seen twice. This costs memory in proportion to the corpus's
    /// number of documents.
    pub fn record_all_document_names(mut self) -> Self {
        self.all_names = Some(Interner::new());
        self
    }

    /// Reads the corpus at `path` with [`for_each_document`] (plain or gzip; the column rules
    /// are there), keeps the documents accepted by `keep`, and returns the features.
    ///
    /// # Errors
    /// As [`Self::add_corpus`] and [`Self::finish`].
    pub fn from_corpus(path: &Path, keep: K) -> Result<TextFeatures> {
        let mut builder = Self::new(keep);
        builder.add_corpus(path)?;
        builder.finish()
    }

    /// Adds every document of the corpus at `path`.
    ///
    /// # Errors
    /// The corpus reader's errors (missing file, truncated gzip, binary data, a line without a
    /// tab, naming path and line), and a [`ParseError`] naming path and line for a document id
    /// seen twice (detected among kept documents, and among all when names are recorded).
    pub fn add_corpus(&mut self, path: &Path) -> Result<()> {
        let mut batch = DocumentBatch::default();
        let read = for_each_document(path, |line_number, name, text| {
            batch.push(line_number, name, text);
            if batch.len() < BATCH_DOCUMENTS {
                return Ok(());
            }
            let added = self.add_batch(&batch, path);
            batch.clear();
            added
        });
        // The documents read before a reading error come first in the file, and so does any
        // error of theirs (after an error of adding, the batch is empty).
        self.add_batch(&batch, path)?;
        read
    }

    /// Adds a batch of documents: their tokens are looked up in the stem cache in parallel,
    /// then each document is added in corpus order, with what the cache lacked stemmed then,
    /// so the result is the same as adding them one by one.
    fn add_batch(&mut self, batch: &DocumentBatch, path: &Path) -> Result<()> {
        let stems = &self.stems;
        let cached: Vec<Vec<u32>> = (0..batch.len())
            .into_par_iter()
            .map(|index| stems.cached_ids(batch.document(index).2))
            .collect();
        for (index, cached) in cached.iter().enumerate() {
            let (line_number, name, text) = batch.document(index);
            self.add_looked_up(name, text, cached)
                .map_err(|refusal| ParseError::new(path, line_number, refusal.kind(name)))?;
        }
        Ok(())
    }

    /// Adds one document.
    ///
    /// # Errors
    /// [`Error::Invalid`] for a document id seen twice (detected among kept documents, and
    /// among all when names are recorded), or when the corpus exceeds 2^32 - 1 documents.
    pub fn add_document(&mut self, name: &str, text: &str) -> Result<()> {
        let cached = self.stems.cached_ids(text);
        self.add_looked_up(name, text, &cached)
            .map_err(|refusal| Error::Invalid(refusal.kind(name).to_string()))
    }

    /// Adds one document whose tokens' cached stem ids are `cached` (see
    /// [`StemTable::cached_ids`]; the cache may have grown since, never shrunk).
    fn add_looked_up(
        &mut self,
        name: &str,
        text: &str,
        cached: &[u32],
    ) -> std::result::Result<(), Refusal> {
        // Every check comes before any change, so a refused document leaves no trace.
        let document_count = self
            .document_count
            .checked_add(1)
            .ok_or(Refusal::TooManyDocuments)?;
        if let Some(all_names) = &self.all_names {
            if all_names.get(name).is_some() {
                return Err(Refusal::DuplicateDocument);
            }
        }
        let is_kept = (self.keep)(name);
        if is_kept && self.kept_names.get(name).is_some() {
            return Err(Refusal::DuplicateDocument);
        }
        self.document_count = document_count;
        if let Some(all_names) = &mut self.all_names {
            all_names.intern(name);
        }

        let Self {
            stems,
            document_frequencies,
            term_counts,
            touched,
            token_buffer,
            ..
        } = self;
        let mut count = |id: u32, term_counts: &mut Vec<u32>| {
            let count = &mut term_counts[id as usize];
            if *count == 0 {
                touched.push(id);
            }
            *count += 1;
        };
        if cached.contains(&UNKNOWN) {
            // Stem what the cache lacked, token by token in text order, as a sequential pass.
            let mut position = 0;
            for_each_token(text, token_buffer, |token| {
                let id = match cached[position] {
                    UNKNOWN => stems.stem_id(token, || {
                        document_frequencies.push(0);
                        term_counts.push(0);
                    }),
                    DROPPED => None,
                    id => Some(id),
                };
                position += 1;
                if let Some(id) = id {
                    count(id, term_counts);
                }
            });
        } else {
            for &id in cached.iter().filter(|&&id| id != DROPPED) {
                count(id, term_counts);
            }
        }
        for &id in touched.iter() {
            document_frequencies[id as usize] += 1;
            if is_kept {
                self.kept_terms.push((id, term_counts[id as usize]));
            }
            term_counts[id as usize] = 0;
        }
        touched.clear();
        if is_kept {
            self.kept_names.intern(name);
            self.kept_offsets.push(self.kept_terms.len());
        }
        Ok(())
    }

    /// Fixes the vocabulary (stems with df >= 2, numbered in byte order) and weights the kept
    /// documents.
    ///
    /// # Errors
    /// [`Error::Invalid`] when no document was added.
    pub fn finish(self) -> Result<TextFeatures> {
        if self.document_count == 0 {
            return Err(Error::Invalid(
                "the corpus has no documents; text features need at least one".to_string(),
            ));
        }
        let mut vocabulary: Vec<(Box<[u8]>, u32)> = self
            .stems
            .ids
            .into_iter()
            .filter(|&(_, id)| self.document_frequencies[id as usize] >= MIN_DOCUMENT_FREQUENCY)
            .collect();
        vocabulary.sort_unstable();
        let mut feature_of_stem = vec![DROPPED; self.document_frequencies.len()];
        let mut terms = Vec::with_capacity(vocabulary.len());
        let mut feature_indices = HashMap::with_capacity(vocabulary.len());
        let mut document_frequencies = Vec::with_capacity(vocabulary.len());
        let mut inverse_document_frequencies = Vec::with_capacity(vocabulary.len());
        for (feature, (stem, stem_id)) in vocabulary.into_iter().enumerate() {
            let feature = u32::try_from(feature).expect("fewer features than stems");
            let term: Box<str> = String::from_utf8(stem.into_vec())
                .expect("stems of ASCII tokens are ASCII")
                .into_boxed_str();
            let document_frequency = self.document_frequencies[stem_id as usize];
            feature_of_stem[stem_id as usize] = feature;
            feature_indices.insert(term.clone(), feature);
            terms.push(term);
            document_frequencies.push(document_frequency);
            inverse_document_frequencies.push(hical_idf(self.document_count, document_frequency));
        }

        let vectors = self
            .kept_offsets
            .windows(2)
            .map(|bounds| {
                let pairs = self.kept_terms[bounds[0]..bounds[1]].iter().filter_map(
                    |&(stem_id, term_frequency)| {
                        let feature = feature_of_stem[stem_id as usize];
                        (feature != DROPPED).then_some((feature, term_frequency))
                    },
                );
                document_vector(pairs, &inverse_document_frequencies)
            })
            .collect();

        Ok(TextFeatures {
            terms,
            feature_indices,
            document_frequencies,
            inverse_document_frequencies,
            document_count: self.document_count,
            kept_names: self.kept_names,
            vectors,
            all_names: self.all_names,
        })
    }
}

/// `ln(N / df)` as HiCAL computes it: the ratio and the logarithm in single precision
/// (`log(num_docs / (float) df)` picks C++'s `float` overload).
fn hical_idf(document_count: u32, document_frequency: u32) -> f64 {
    f64::from((document_count as f32 / document_frequency as f32).ln())
}

/// A document's L2-normalised tf-idf vector, as HiCAL's `corpus_parser` pass 2 computes it:
/// the weight `(1 + ln tf) * idf` stored as `float`, squares summed in `double`.
fn document_vector(
    pairs: impl Iterator<Item = (u32, u32)>,
    inverse_document_frequencies: &[f64],
) -> FeaturePairs {
    let mut vector: FeaturePairs = pairs
        .map(|(feature, term_frequency)| {
            let tf_weight = 1.0 + (term_frequency as f32).ln();
            let weight =
                (f64::from(tf_weight) * inverse_document_frequencies[feature as usize]) as f32;
            (feature, weight)
        })
        .filter(|&(_, weight)| weight != 0.0)
        .collect();
    let norm = vector
        .iter()
        .map(|&(_, weight)| f64::from(weight * weight))
        .sum::<f64>()
        .sqrt();
    for (_, weight) in &mut vector {
        *weight = (f64::from(*weight) / norm) as f32;
    }
    vector.sort_unstable_by_key(|&(feature, _)| feature);
    vector
}

/// Text features of a corpus: the vocabulary with its document frequencies, and the vectors
/// of the documents the builder kept. Built by [`TextFeatureBuilder`].
#[derive(Debug)]
pub struct TextFeatures {
    /// Feature index to stem.
    terms: Vec<Box<str>>,
    /// Stem to feature index.
    feature_indices: HashMap<Box<str>, u32>,
    /// Feature index to df.
    document_frequencies: Vec<u32>,
    /// Feature index to `ln(N / df)`.
    inverse_document_frequencies: Vec<f64>,
    document_count: u32,
    /// Kept document names; the id is the index into `vectors`.
    kept_names: Interner,
    vectors: Vec<FeaturePairs>,
    all_names: Option<Interner>,
}

impl TextFeatures {
    /// Reads the corpus at `path` (see [`TextFeatureBuilder::from_corpus`]).
    ///
    /// # Errors
    /// As [`TextFeatureBuilder::from_corpus`].
    pub fn from_corpus(path: &Path, keep: impl FnMut(&str) -> bool) -> Result<Self> {
        TextFeatureBuilder::from_corpus(path, keep)
    }

    /// N: how many documents the corpus has (kept or not).
    pub fn document_count(&self) -> usize {
        self.document_count as usize
    }

    /// How many features there are: the stems with df >= 2. Feature indices are
    /// `0..feature_count()`.
    pub fn feature_count(&self) -> usize {
        self.terms.len()
    }

    /// The stem of a feature, if `feature` is below [`Self::feature_count`].
    pub fn term(&self, feature: u32) -> Option<&str> {
        self.terms.get(feature as usize).map(|term| &**term)
    }

    /// The feature index of a stem, if it is in the vocabulary.
    pub fn feature_index(&self, stem: &str) -> Option<u32> {
        self.feature_indices.get(stem).copied()
    }

    /// The number of documents containing a feature's stem.
    pub fn document_frequency(&self, feature: u32) -> Option<u32> {
        self.document_frequencies.get(feature as usize).copied()
    }

    /// How many documents were kept (have a vector).
    pub fn kept_document_count(&self) -> usize {
        self.vectors.len()
    }

    /// The vector of a kept document; `None` for a document that was not kept or not in the
    /// corpus. A kept document without any vocabulary term has an empty vector.
    pub fn vector(&self, name: &str) -> Option<&[(u32, f32)]> {
        let id = self.kept_names.get(name)?;
        Some(&self.vectors[id as usize])
    }

    /// The kept documents with their vectors, in corpus order.
    pub fn documents(&self) -> impl Iterator<Item = (&str, &[(u32, f32)])> + '_ {
        self.vectors.iter().enumerate().map(|(id, vector)| {
            let id = u32::try_from(id).expect("kept ids come from the interner");
            (self.kept_names.name(id), vector.as_slice())
        })
    }

    /// Every document id of the corpus, in corpus order, when the builder was asked to
    /// [record them](TextFeatureBuilder::record_all_document_names).
    pub fn all_document_names(&self) -> Option<&Interner> {
        self.all_names.as_ref()
    }

    /// HiCAL's seed vector for a topic: `text` tokenised and stemmed as the documents were,
    /// weighted `(1 + ln tf) * ln(N / df)` with the corpus df, stems outside the vocabulary
    /// dropped, then divided by `max(1, norm)` (HiCAL's `get_features` with `max_norm = 1`).
    /// `topic_id` only names the topic in the error.
    ///
    /// # Errors
    /// [`Error::Invalid`] when no stem of `text` is in the vocabulary with a non-zero weight.
    pub fn topic_vector(&self, topic_id: &str, text: &str) -> Result<FeaturePairs> {
        let mut term_frequencies: HashMap<u32, u32> = HashMap::new();
        for stem in stemmed_terms(text) {
            if let Some(feature) = self.feature_index(&stem) {
                *term_frequencies.entry(feature).or_insert(0) += 1;
            }
        }
        // HiCAL keeps these weights in double precision and casts after dividing.
        let mut weights: Vec<(u32, f64)> = term_frequencies
            .into_iter()
            .map(|(feature, term_frequency)| {
                let idf = self.inverse_document_frequencies[feature as usize];
                (feature, (1.0 + f64::from(term_frequency).ln()) * idf)
            })
            .filter(|&(_, weight)| weight != 0.0)
            .collect();
        if weights.is_empty() {
            return Err(Error::Invalid(format!(
                "topic {topic_id} has no text usable as a seed: none of its terms occurs in \
                 at least {MIN_DOCUMENT_FREQUENCY} (and not all) documents of the corpus"
            )));
        }
        weights.sort_unstable_by_key(|&(feature, _)| feature);
        let norm = weights
            .iter()
            .map(|&(_, weight)| weight * weight)
            .sum::<f64>()
            .sqrt();
        let divisor = norm.max(1.0);
        Ok(weights
            .into_iter()
            .map(|(feature, weight)| (feature, (weight / divisor) as f32))
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use approx::assert_abs_diff_eq;
    use proptest::prelude::*;

    use super::*;

    fn write_file(dir: &tempfile::TempDir, name: &str, bytes: &[u8]) -> PathBuf {
        crate::io::gz::test_files::write_file(dir.path(), name, bytes)
    }

    fn build(documents: &[(&str, &str)], keep: impl FnMut(&str) -> bool) -> TextFeatures {
        let mut builder = TextFeatureBuilder::new(keep);
        for (name, text) in documents {
            builder.add_document(name, text).unwrap();
        }
        builder.finish().unwrap()
    }

    fn keep_all(_: &str) -> bool {
        true
    }

    fn norm(vector: &[(u32, f32)]) -> f64 {
        vector
            .iter()
            .map(|&(_, weight)| f64::from(weight).powi(2))
            .sum::<f64>()
            .sqrt()
    }

    fn assert_sorted_unique(vector: &[(u32, f32)]) {
        assert!(
            vector.windows(2).all(|pair| pair[0].0 < pair[1].0),
            "{vector:?}"
        );
    }

    /// A deterministic corpus with a Zipf-like vocabulary: `documents` lines of
    /// `words_per_document` words, from a xorshift generator seeded with `seed`.
    fn synthetic_corpus(documents: usize, words_per_document: usize, seed: u64) -> String {
        const SYLLABLES: [&str; 16] = [
            "ka", "lo", "mi", "ne", "tar", "pu", "ser", "vi", "dro", "gen", "al", "ist", "ion",
            "ing", "ed", "ous",
        ];
        let mut state = seed | 1;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let vocabulary: Vec<String> = (0..20_000)
            .map(|_| {
                let syllable_count = 1 + next() % 4;
                (0..syllable_count)
                    .map(|_| SYLLABLES[(next() % 16) as usize])
                    .collect()
            })
            .collect();
        let mut corpus = String::new();
        for document in 0..documents {
            corpus.push_str(&format!("doc{document}\t"));
            for word in 0..words_per_document {
                // Log-uniform rank: frequent words at low ranks.
                let unit = (next() % 1_000_000) as f64 / 1_000_000.0;
                let rank = (vocabulary.len() as f64).powf(unit) as usize - 1;
                if word > 0 {
                    corpus.push(' ');
                }
                corpus.push_str(&vocabulary[rank.min(vocabulary.len() - 1)]);
            }
            corpus.push('\n');
        }
        corpus
    }

    #[test]
    fn tokens_are_ascii_alphabetic_runs_of_two_or_more() {
        assert_eq!(stemmed_terms("COVID-19 covid19 a I x1 B2B"), ["covid"]);
        assert_eq!(
            stemmed_terms("cats,dogs;birds/fish (owls)"),
            ["cat", "dog", "bird", "fish", "owl"]
        );
        // Non-ASCII bytes split tokens, as C's isalnum does in the C locale.
        assert_eq!(stemmed_terms("café naïve"), ["caf", "na", "ve"]);
        assert_eq!(
            stemmed_terms("Running RUNS runner"),
            ["run", "run", "runner"]
        );
        // A three-letter token whose stem is one letter is dropped.
        assert_eq!(stemmed_terms("ies ties"), ["ti"]);
        assert!(stemmed_terms("").is_empty());
        assert!(stemmed_terms("12 345 -- !!").is_empty());
    }

    #[test]
    fn weights_a_three_document_corpus_by_hand() {
        let features = build(
            &[
                ("d1", "cat dog cat fish"),
                ("d2", "cat dog bird"),
                ("d3", "bird owl"),
            ],
            keep_all,
        );
        assert_eq!(features.document_count(), 3);
        // fish and owl have df 1; the rest are numbered in byte order.
        assert_eq!(features.feature_count(), 3);
        let [bird, cat, dog] = ["bird", "cat", "dog"].map(|stem| features.feature_index(stem));
        assert_eq!((bird, cat, dog), (Some(0), Some(1), Some(2)));
        assert_eq!(features.feature_index("fish"), None);
        assert_eq!(features.term(1), Some("cat"));
        assert_eq!(features.term(3), None);
        assert_eq!(features.document_frequency(2), Some(2));

        // d1: cat tf 2, dog tf 1, both idf ln(3/2): weights (1 + ln 2) idf and idf.
        let tf_two = 1.0 + 2f64.ln();
        let length = (tf_two * tf_two + 1.0).sqrt();
        let d1 = features.vector("d1").unwrap();
        assert_eq!(d1.len(), 2);
        assert_eq!((d1[0].0, d1[1].0), (1, 2));
        assert_abs_diff_eq!(f64::from(d1[0].1), tf_two / length, epsilon = 1e-6);
        assert_abs_diff_eq!(f64::from(d1[1].1), 1.0 / length, epsilon = 1e-6);
        assert_abs_diff_eq!(f64::from(d1[0].1), 0.861_037, epsilon = 1e-6);

        // d3: only bird is a feature.
        assert_eq!(features.vector("d3").unwrap(), [(0, 1.0)]);
    }

    #[test]
    fn terms_in_one_document_or_in_every_document_carry_no_weight() {
        let features = build(
            &[
                ("d1", "common rare"),
                ("d2", "common shared"),
                ("d3", "common shared"),
            ],
            keep_all,
        );
        assert_eq!(features.feature_index("rare"), None);
        // "common" is in every document: a feature, but with idf 0 its weight is dropped.
        assert_eq!(features.feature_index("common"), Some(0));
        assert_eq!(features.vector("d1").unwrap(), []);
        assert_eq!(features.vector("d2").unwrap(), [(1, 1.0)]);
    }

    #[test]
    fn only_kept_documents_have_vectors() {
        let features = build(
            &[("d1", "cat dog"), ("d2", "cat dog"), ("d3", "dog owl")],
            |name| name != "d2",
        );
        assert_eq!(features.document_count(), 3);
        assert_eq!(features.kept_document_count(), 2);
        assert!(features.vector("d2").is_none());
        assert!(features.vector("d9").is_none());
        // d2 still counts towards df: cat has df 2 and is a feature.
        assert!(features.feature_index("cat").is_some());
        let names: Vec<&str> = features.documents().map(|(name, _)| name).collect();
        assert_eq!(names, ["d1", "d3"]);
        assert!(features.all_document_names().is_none());
    }

    #[test]
    fn records_all_document_names_when_asked() {
        let mut builder = TextFeatureBuilder::new(|_: &str| false).record_all_document_names();
        for name in ["b", "a", "c"] {
            builder.add_document(name, "some text").unwrap();
        }
        let features = builder.finish().unwrap();
        let names = features.all_document_names().unwrap();
        assert_eq!(names.len(), 3);
        assert_eq!(names.name(0), "b");
        assert_eq!(features.kept_document_count(), 0);
    }

    #[test]
    fn a_duplicate_document_id_is_an_error() {
        let mut builder = TextFeatureBuilder::new(keep_all);
        builder.add_document("d1", "text").unwrap();
        let error = builder.add_document("d1", "again").unwrap_err();
        assert!(error.to_string().contains("\"d1\""), "{error}");
        builder.add_document("d2", "text").unwrap();
        assert_eq!(builder.finish().unwrap().document_count(), 2);

        let dir = tempfile::tempdir().unwrap();
        let path = write_file(&dir, "corpus.tsv", b"d1\tcat\nd2\tcat\nd1\tdog\n");
        let error = TextFeatures::from_corpus(&path, keep_all).unwrap_err();
        assert!(
            error.to_string().starts_with(&format!(
                "{}:3: expected each document id once",
                path.display()
            )),
            "{error}"
        );
    }

    #[test]
    fn an_empty_corpus_is_an_error() {
        let builder = TextFeatureBuilder::new(keep_all);
        assert!(matches!(builder.finish(), Err(Error::Invalid(_))));
    }

    #[test]
    fn plain_and_gzip_corpora_give_identical_features() {
        let dir = tempfile::tempdir().unwrap();
        let corpus = synthetic_corpus(500, 30, 7);
        let plain = write_file(&dir, "corpus.tsv", corpus.as_bytes());
        let compressed_bytes = crate::io::gz::test_files::gzip(corpus.as_bytes());
        let compressed = write_file(&dir, "corpus.tsv.gz", &compressed_bytes);
        let keep = |name: &str| name.ends_with('7');
        let from_plain = TextFeatures::from_corpus(&plain, keep).unwrap();
        let from_gzip = TextFeatures::from_corpus(&compressed, keep).unwrap();
        assert_eq!(from_plain.document_count(), 500);
        assert_eq!(from_plain.kept_document_count(), 50);
        assert_eq!(from_plain.feature_count(), from_gzip.feature_count());
        assert!(from_plain.documents().eq(from_gzip.documents()));
    }

    /// A corpus read in parallel batches gives exactly the features of adding its
    /// documents one by one: same vocabulary, frequencies and vectors, bit for bit.
    #[test]
    fn batched_corpus_equals_documents_added_one_by_one() {
        let dir = tempfile::tempdir().unwrap();
        let documents = 2 * BATCH_DOCUMENTS + 123;
        let corpus = synthetic_corpus(documents, 25, 11);
        let path = write_file(&dir, "corpus.tsv", corpus.as_bytes());
        let keep = |name: &str| name.ends_with('3');
        let batched = TextFeatures::from_corpus(&path, keep).unwrap();
        let mut builder = TextFeatureBuilder::new(keep);
        for line in corpus.lines() {
            let (name, text) = line.split_once('\t').unwrap();
            builder.add_document(name, text).unwrap();
        }
        let one_by_one = builder.finish().unwrap();
        assert_eq!(batched.document_count(), documents);
        assert_eq!(batched.terms, one_by_one.terms);
        assert_eq!(
            batched.document_frequencies,
            one_by_one.document_frequencies
        );
        let bits = |features: &TextFeatures| -> Vec<(String, Vec<(u32, u32)>)> {
            (features.documents())
                .map(|(name, vector)| {
                    let vector = vector.iter().map(|&(f, w)| (f, w.to_bits())).collect();
                    (name.to_string(), vector)
                })
                .collect()
        };
        assert_eq!(bits(&batched), bits(&one_by_one));
    }

    /// The first error in the file is the one reported, whether it is found while reading (a
    /// line without a tab) or while adding (a duplicate id) a batch read before it.
    #[test]
    fn the_first_error_in_the_file_is_reported() {
        let dir = tempfile::tempdir().unwrap();
        let path = write_file(
            &dir,
            "corpus.tsv",
            b"d1\tcats sleep\nd1\tdogs bark\nno tab here\n",
        );
        let error = TextFeatures::from_corpus(&path, keep_all)
            .unwrap_err()
            .to_string();
        let expected = format!("{}:2: expected each document id once", path.display());
        assert!(error.starts_with(&expected), "{error}");
        let path = write_file(
            &dir,
            "other.tsv",
            b"d1\tcats sleep\nno tab here\nd1\tdogs\n",
        );
        let error = TextFeatures::from_corpus(&path, keep_all)
            .unwrap_err()
            .to_string();
        let expected = format!("{}:2: expected doc_id<TAB>text", path.display());
        assert!(error.starts_with(&expected), "{error}");
    }

    #[test]
    fn document_vectors_have_unit_norm_and_sorted_unique_indices() {
        let features = build(
            &[
                ("d1", "the quick brown fox jumps over the lazy dog"),
                ("d2", "the lazy dog sleeps; the quick fox runs"),
                ("d3", "a brown dog and a brown fox"),
                ("d4", "nothing in common here"),
            ],
            keep_all,
        );
        for (name, vector) in features.documents() {
            assert_sorted_unique(vector);
            if name == "d4" {
                assert!(vector.is_empty());
            } else {
                assert_abs_diff_eq!(norm(vector), 1.0, epsilon = 1e-6);
            }
        }
    }

    #[test]
    fn ms_marco_lines_use_title_and_body_not_url() {
        let dir = tempfile::tempdir().unwrap();
        let path = write_file(
            &dir,
            "msmarco-docs.tsv",
            b"D1\thttp://zebra.example/\tCats\tcats purr\n\
              D2\thttp://zebra.example/\tDogs\tdogs bark\n\
              D3\thttp://other.example/\tCats and dogs\tpets\n",
        );
        let features = TextFeatures::from_corpus(&path, keep_all).unwrap();
        assert_eq!(features.feature_index("zebra"), None);
        assert_eq!(features.feature_index("http"), None);
        assert!(features.feature_index("cat").is_some());
        assert!(features.feature_index("dog").is_some());
        assert_eq!(features.vector("D1").unwrap().len(), 1);
    }

    #[test]
    fn corpus_errors_name_path_and_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = write_file(&dir, "corpus.tsv", b"d1\tcat\nd2 cat\n");
        let error = TextFeatures::from_corpus(&path, keep_all).unwrap_err();
        assert!(
            error
                .to_string()
                .starts_with(&format!("{}:2: expected doc_id<TAB>text", path.display())),
            "{error}"
        );
        let path = write_file(&dir, "binary.tsv", b"d1\tcat\nd2\t\xff\xfe\n");
        let error = TextFeatures::from_corpus(&path, keep_all).unwrap_err();
        assert!(
            error
                .to_string()
                .starts_with(&format!("{}:2: ", path.display())),
            "{error}"
        );
        let missing = dir.path().join("missing.tsv");
        let error = TextFeatures::from_corpus(&missing, keep_all).unwrap_err();
        assert!(
            error
                .to_string()
                .starts_with(&missing.display().to_string()),
            "{error}"
        );
    }

    #[test]
    fn a_short_topic_vector_keeps_its_length_below_one() {
        let features = build(
            &[
                ("d1", "cat dog cat fish"),
                ("d2", "cat dog bird"),
                ("d3", "bird owl"),
            ],
            keep_all,
        );
        // cats: tf 1, dogs: tf 2, both idf ln(3/2); "and", "more" are not features.
        let vector = features
            .topic_vector("t1", "Cats and dogs, and more dogs")
            .unwrap();
        let idf = 1.5f64.ln();
        assert_eq!((vector[0].0, vector[1].0), (1, 2));
        assert_abs_diff_eq!(f64::from(vector[0].1), idf, epsilon = 1e-6);
        assert_abs_diff_eq!(
            f64::from(vector[1].1),
            (1.0 + 2f64.ln()) * idf,
            epsilon = 1e-6
        );
        assert!(norm(&vector) < 1.0);
    }

    #[test]
    fn a_long_topic_vector_is_normalised_to_one() {
        let features = build(
            &[
                ("d1", "cat dog"),
                ("d2", "cat bird"),
                ("d3", "owl"),
                ("d4", "owl"),
            ],
            keep_all,
        );
        let text = "cat ".repeat(50) + &"dog ".repeat(30);
        let vector = features.topic_vector("t2", &text).unwrap();
        assert_sorted_unique(&vector);
        assert_abs_diff_eq!(norm(&vector), 1.0, epsilon = 1e-6);
    }

    #[test]
    fn a_topic_without_vocabulary_terms_is_an_error() {
        let features = build(&[("d1", "cat dog"), ("d2", "cat dog")], keep_all);
        for text in ["", "zebra 42", "cat dog"] {
            let error = features.topic_vector("401", text).unwrap_err();
            assert!(matches!(&error, Error::Invalid(_)));
            assert!(
                error
                    .to_string()
                    .starts_with("topic 401 has no text usable as a seed"),
                "{error}"
            );
        }
    }

    #[test]
    fn the_builder_is_send_and_the_features_are_send_and_sync() {
        fn is_send<T: Send>() {}
        fn is_sync<T: Sync>() {}
        is_send::<TextFeatures>();
        is_sync::<TextFeatures>();
        is_send::<TextFeatureBuilder<fn(&str) -> bool>>();
    }

    proptest! {
        #[test]
        fn vectors_are_sorted_unique_finite_and_unit_or_empty(
            texts in proptest::collection::vec("[a-zA-Z0-9 ,.\u{e9}-]{0,60}", 1..12)
        ) {
            let documents: Vec<(String, String)> = texts
                .iter()
                .enumerate()
                .map(|(pos, text)| (format!("d{pos}"), text.clone()))
                .collect();
            let mut builder = TextFeatureBuilder::new(keep_all);
            for (name, text) in &documents {
                builder.add_document(name, text).unwrap();
            }
            let features = builder.finish().unwrap();
            prop_assert_eq!(features.kept_document_count(), documents.len());
            for (_, vector) in features.documents() {
                prop_assert!(vector.windows(2).all(|pair| pair[0].0 < pair[1].0));
                let feature_count = features.feature_count();
                let is_valid = |&(feature, weight): &(u32, f32)| {
                    weight.is_finite() && weight > 0.0 && (feature as usize) < feature_count
                };
                prop_assert!(vector.iter().all(is_valid));
                prop_assert!(vector.is_empty() || (norm(vector) - 1.0).abs() < 1e-5);
            }
        }
    }
}
