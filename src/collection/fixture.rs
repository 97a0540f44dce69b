//! The collection of the hand-made task of [`crate::io::fixture`], for the unit tests that need
//! only the collection (test builds only).

use std::path::Path;

use super::Collection;
use crate::io::fixture::hand_task;

/// The collection of [`hand_task`] written into `dir`, with run features.
pub(crate) fn hand_collection(dir: &Path) -> Collection {
    let task = hand_task(dir, false);
    Collection::prepare(&task, &task.qrels, false).unwrap()
}
