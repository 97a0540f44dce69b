//! Document features for the CAL judge. `text` holds HiCAL's tf-idf features over Porter stems
//! (with `porter`, the stemmer); the run-based features live elsewhere.

pub mod porter;
pub mod text;
