//! The weighting and the finished features: HiCAL's `ln(N / df)` and `(1 + ln tf)` weights in
//! its mix of single and double precision, the L2-normalised document vectors, and
//! [`TextFeatures`], the vocabulary and vectors a corpus pass leaves, with the topic vectors
//! made from them.

use std::collections::HashMap;

use super::rules::{FeaturePairs, MIN_DOCUMENT_FREQUENCY};
use super::tokens::{stemmed_terms, DROPPED};
use crate::base::error::{Error, Result};
use crate::base::ids::Interner;

/// `ln(N / df)` as HiCAL computes it: the ratio and the logarithm in single precision
/// (`log(num_docs / (float) df)` picks C++'s `float` overload).
pub(crate) fn hical_idf(document_count: u32, document_frequency: u32) -> f64 {
    f64::from((document_count as f32 / document_frequency as f32).ln())
}

/// A document's L2-normalised tf-idf vector, as HiCAL's `corpus_parser` pass 2 computes it:
/// the weight `(1 + ln tf) * idf` stored as `float`, squares summed in `double`.
pub(super) fn document_vector(
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

/// The vocabulary a corpus pass fixes: the features (stems with df >= 2 in byte order) with
/// their document frequencies and idf, and the map from the pass's stem ids to features.
#[derive(Debug)]
pub(crate) struct Vocabulary {
    /// Feature index to stem, in byte order.
    pub(crate) terms: Vec<Box<str>>,
    /// Feature index to df.
    pub(crate) document_frequencies: Vec<u32>,
    /// Feature index to `ln(N / df)`.
    pub(crate) inverse_document_frequencies: Vec<f64>,
    /// Stem id to feature index, or [`DROPPED`] for a stem with df < 2.
    pub(super) feature_of_stem: Vec<u32>,
    /// N: every document of the corpus.
    pub(crate) document_count: u32,
}

impl Vocabulary {
    /// The L2-normalised tf-idf vector of a document whose terms the pass gave as
    /// `(stem id, tf)` in first-occurrence order (the order the norm is summed in).
    pub(crate) fn document_vector(&self, terms: &[(u32, u32)]) -> FeaturePairs {
        let pairs = terms.iter().filter_map(|&(stem_id, term_frequency)| {
            let feature = self.feature_of_stem[stem_id as usize];
            (feature != DROPPED).then_some((feature, term_frequency))
        });
        document_vector(pairs, &self.inverse_document_frequencies)
    }
}

/// Text features of a corpus: the vocabulary with its document frequencies, and the vectors
/// of the documents the builder kept. Built by [`TextFeatureBuilder`].
#[derive(Debug)]
pub struct TextFeatures {
    /// Feature index to stem.
    pub(super) terms: Vec<Box<str>>,
    /// Stem to feature index.
    pub(super) feature_indices: HashMap<Box<str>, u32>,
    /// Feature index to df.
    pub(super) document_frequencies: Vec<u32>,
    /// Feature index to `ln(N / df)`.
    pub(super) inverse_document_frequencies: Vec<f64>,
    pub(super) document_count: u32,
    /// Kept document names; the id is the index into `vectors`.
    pub(super) kept_names: Interner,
    pub(super) vectors: Vec<FeaturePairs>,
}

impl TextFeatures {
    /// The features of a finished pass: its vocabulary, and the kept documents' names and
    /// vectors (the vector of name id i at index i).
    pub(super) fn new(
        vocabulary: Vocabulary,
        kept_names: Interner,
        vectors: Vec<FeaturePairs>,
    ) -> Self {
        let feature_indices = (vocabulary.terms.iter().enumerate())
            .map(|(feature, term)| (term.clone(), feature as u32))
            .collect();
        Self {
            terms: vocabulary.terms,
            feature_indices,
            document_frequencies: vocabulary.document_frequencies,
            inverse_document_frequencies: vocabulary.inverse_document_frequencies,
            document_count: vocabulary.document_count,
            kept_names,
            vectors,
        }
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

    /// HiCAL's seed vector for a topic: `text` tokenised and stemmed as the documents were,
    /// weighted `(1 + ln tf) * ln(N / df)` with the corpus df, stems outside the vocabulary
    /// dropped, then divided by `max(1, norm)` (HiCAL's `get_features` with `max_norm = 1`).
    /// `topic_id` only names the topic in the error.
    ///
    /// # Errors
    /// [`Error::Invalid`] when no stem of `text` is in the vocabulary with a non-zero weight.
    pub fn topic_vector(&self, topic_id: &str, text: &str) -> Result<FeaturePairs> {
        topic_vector(
            topic_id,
            text,
            |stem| self.feature_index(stem),
            |feature| self.inverse_document_frequencies[feature as usize],
        )
    }
}

/// HiCAL's seed vector for a topic over any vocabulary: `feature_index` gives a stem's feature
/// and `idf` a feature's `ln(N / df)` (see [`TextFeatures::topic_vector`]).
///
/// # Errors
/// [`Error::Invalid`] when no stem of `text` is in the vocabulary with a non-zero weight.
pub(crate) fn topic_vector(
    topic_id: &str,
    text: &str,
    feature_index: impl Fn(&str) -> Option<u32>,
    idf: impl Fn(u32) -> f64,
) -> Result<FeaturePairs> {
    let mut term_frequencies: HashMap<u32, u32> = HashMap::new();
    for stem in stemmed_terms(text) {
        if let Some(feature) = feature_index(&stem) {
            *term_frequencies.entry(feature).or_insert(0) += 1;
        }
    }
    // HiCAL keeps these weights in double precision and casts after dividing.
    let mut weights: Vec<(u32, f64)> = term_frequencies
        .into_iter()
        .map(|(feature, term_frequency)| {
            (
                feature,
                (1.0 + f64::from(term_frequency).ln()) * idf(feature),
            )
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
