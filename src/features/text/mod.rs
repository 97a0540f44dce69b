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
//! nothing behind but their contribution to df. (The feature store keeps every document's
//! terms on disk instead: [`crate::features::store`].) A cache from lower-cased token to stem
//! speeds stemming; it stops growing at [`STEM_CACHE_CAPACITY`] entries.

mod builder;
pub(crate) mod pass;
mod rules;
mod tokens;
pub(crate) mod weighting;

#[cfg(test)]
mod tests;

pub use builder::TextFeatureBuilder;
pub use rules::{FeaturePairs, FEATURE_RULES_VERSION, MIN_DOCUMENT_FREQUENCY, MIN_STEM_LENGTH};
pub use tokens::{stemmed_terms, STEM_CACHE_CAPACITY};
pub use weighting::TextFeatures;
pub(crate) use weighting::{hical_idf, topic_vector};
