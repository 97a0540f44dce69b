//! The rules' constants shared by the tokenizer, the corpus pass and the weighting: the
//! thresholds on stems, the version the rules go by, and the sparse vector they make (the rules
//! themselves are described in the module documentation of [`super`]).

/// A sparse feature vector as `(feature index, weight)` pairs, sorted by index, indices
/// unique, no zero weights.
pub type FeaturePairs = Vec<(u32, f32)>;

/// The version of the rules (tokens, stems, vocabulary, weights): a feature store records
/// the rules it was built under and is refused under others. It changes whenever any rule
/// changes a document's vector.
pub const FEATURE_RULES_VERSION: u32 = 1;

/// Stems shorter than this many bytes are dropped (HiCAL's `MinLengthFilter(2)`).
pub const MIN_STEM_LENGTH: usize = 2;

/// Stems with a document frequency below this are not features (HiCAL drops df < 2).
pub const MIN_DOCUMENT_FREQUENCY: u32 = 2;
