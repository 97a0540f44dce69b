//! Relevance grades and the one rule that turns a grade into "relevant", used by the evaluation,
//! the judge, the study's statistics and the audit alike.

use rustc_hash::FxHashMap;

use crate::base::error::{Error, Result};
use crate::base::ids::DocId;

/// A relevance grade. Negative grades mean "judged, unusable" and are never relevant.
pub type Grade = i32;

/// One topic's judgments: the grade of each judged document.
pub type DocumentGrades = FxHashMap<DocId, Grade>;

/// The lowest relevance level allowed: a level below 1 would make grade-0 ("judged
/// non-relevant") documents relevant.
pub const MIN_RELEVANCE_LEVEL: Grade = 1;

/// Whether `grade` counts as relevant at `relevance_level` (a grade >= the level, as trec_eval's
/// `-l`). Levels are checked to be >= [`MIN_RELEVANCE_LEVEL`] where they are read, so negative
/// grades are never relevant.
#[inline]
pub fn is_relevant(grade: Grade, relevance_level: Grade) -> bool {
    debug_assert!(relevance_level >= MIN_RELEVANCE_LEVEL);
    grade >= relevance_level
}

/// Checks a relevance level.
///
/// # Errors
/// [`Error::Invalid`] for a level below [`MIN_RELEVANCE_LEVEL`].
pub fn check_relevance_level(relevance_level: Grade) -> Result<Grade> {
    if relevance_level < MIN_RELEVANCE_LEVEL {
        return Err(Error::Invalid(format!(
            "the relevance level must be at least {MIN_RELEVANCE_LEVEL}, found {relevance_level}"
        )));
    }
    Ok(relevance_level)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_grade_at_or_above_the_level_is_relevant() {
        assert!(is_relevant(1, 1));
        assert!(is_relevant(3, 2));
        assert!(!is_relevant(1, 2));
        assert!(!is_relevant(0, 1));
        assert!(!is_relevant(-1, 1));
    }

    #[test]
    fn levels_below_one_are_rejected() {
        assert!(check_relevance_level(0).is_err());
        assert!(check_relevance_level(-2).is_err());
        assert_eq!(check_relevance_level(2).unwrap(), 2);
    }
}
