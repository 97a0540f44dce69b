//! Document features for the CAL judge. `text` holds HiCAL's tf-idf features over Porter stems
//! (with `porter`, the stemmer); `runs` holds the run-based features for tasks without a corpus.

pub mod porter;
pub mod runs;
pub mod text;
