//! Document features for the CAL judge. `text` holds HiCAL's tf-idf features over Porter stems
//! (with `porter`, the stemmer), and `store` the memory-mapped file of every document's text
//! vector (`reusesim index`); `runs` holds the run-based features for tasks without a corpus.

pub mod porter;
pub mod runs;
pub mod store;
pub mod text;
