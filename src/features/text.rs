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
//! Floating point follows HiCAL's mix of `float` and `double` (its `N / (float) df` and
//! `log(float)` are single precision; document weights are stored as `float`), so weights
//! agree with HiCAL's to the last bit in the common case.
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

use crate::error::{Error, ParseError, ParseErrorKind, Result};
use crate::features::porter::stem_in_place;
use crate::ids::Interner;
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
    ids: HashMap<Box<[u8]>, u32>,
    /// Lower-cased token to stem id, or [`DROPPED`].
    token_cache: HashMap<Box<[u8]>, u32>,
    /// Scratch space for stemming.
    scratch: Vec<u8>,
}

impl StemTable {
    /// The stem id of a lower-cased token, or `None` when its stem is too short; a new stem
    /// gets the next id, and `on_new_stem` is called so per-stem tables can grow.
    fn stem_id(&mut self, token: &[u8], on_new_stem: impl FnOnce()) -> Option<u32> {
        if let Some(&id) = self.token_cache.get(token) {
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
                .filter(|&id| id != DROPPED)
                .expect("fewer than 2^32 - 1 distinct stems");
            self.ids.insert(self.scratch.as_slice().into(), id);
            on_new_stem();
            id
        };
        if self.token_cache.len() < STEM_CACHE_CAPACITY {
            self.token_cache.insert(token.into(), id);
        }
        (id != DROPPED).then_some(id)
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
        for_each_document(path, |line_number, name, text| {
            self.add(name, text)
                .map_err(|refusal| ParseError::new(path, line_number, refusal.kind(name)).into())
        })
    }

    /// Adds one document.
    ///
    /// # Errors
    /// [`Error::Invalid`] for a document id seen twice (detected among kept documents, and
    /// among all when names are recorded), or when the corpus exceeds 2^32 - 1 documents.
    pub fn add_document(&mut self, name: &str, text: &str) -> Result<()> {
        self.add(name, text)
            .map_err(|refusal| Error::Invalid(refusal.kind(name).to_string()))
    }

    fn add(&mut self, name: &str, text: &str) -> std::result::Result<(), Refusal> {
        self.document_count = self
            .document_count
            .checked_add(1)
            .ok_or(Refusal::TooManyDocuments)?;
        if let Some(all_names) = &mut self.all_names {
            if all_names.get(name).is_some() {
                return Err(Refusal::DuplicateDocument);
            }
            all_names.intern(name);
        }
        let is_kept = (self.keep)(name);
        if is_kept && self.kept_names.get(name).is_some() {
            return Err(Refusal::DuplicateDocument);
        }

        let Self {
            stems,
            document_frequencies,
            term_counts,
            touched,
            token_buffer,
            ..
        } = self;
        for_each_token(text, token_buffer, |token| {
            let on_new_stem = || {
                document_frequencies.push(0);
                term_counts.push(0);
            };
            if let Some(id) = stems.stem_id(token, on_new_stem) {
                let count = &mut term_counts[id as usize];
                if *count == 0 {
                    touched.push(id);
                }
                *count += 1;
            }
        });
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
