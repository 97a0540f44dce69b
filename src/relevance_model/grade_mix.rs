//! The grade an unjudged document gets: drawn from the topic's judged grades on its side of the
//! relevance level in their proportions; a relevant one's each scaled by the calibration's grade
//! factor (how much more or less often a relevant document beyond the other teams' reach has
//! that grade than a judged one; [`grade_factors`], kept as
//! [`super::calibration::Calibration::grade_factors`]). The audit's samples and the completed
//! assessor draw relevant grades with the same chances; whether a document that is not relevant
//! has a grade above 0 is [`super::below_level`]'s.

use std::collections::BTreeMap;

use crate::base::{is_relevant, Grade};

/// Which side of the relevance level a grade mix is of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// Grades at or above the relevance level.
    Relevant,
    /// Grades below it (0 among them).
    NotRelevant,
}

impl Side {
    /// Whether `grade` is on this side of `level`.
    fn holds(self, grade: Grade, level: Grade) -> bool {
        is_relevant(grade, level) == (self == Self::Relevant)
    }

    /// The grade of a document on this side when the judgments have none there.
    fn default_grade(self, level: Grade) -> Grade {
        match self {
            Self::Relevant => level,
            Self::NotRelevant => 0,
        }
    }
}

/// The grades an unjudged document on `side` of `relevance_level` may get and their chances:
/// the grades of that side among `judged_grades` (a topic's judgments, sorted) in their
/// proportions, each scaled by its factor in `factors` (1 for a grade it lacks) and
/// renormalised; the side's default grade alone (the relevance level, or 0) when the topic has
/// no judgment on that side.
pub fn grade_chances(
    judged_grades: &[Grade],
    relevance_level: Grade,
    side: Side,
    factors: &[(Grade, f64)],
) -> Vec<(Grade, f64)> {
    let on_side: Vec<Grade> = judged_grades
        .iter()
        .copied()
        .filter(|&g| side.holds(g, relevance_level))
        .collect();
    if on_side.is_empty() {
        return vec![(side.default_grade(relevance_level), 1.0)];
    }
    // judged_grades is sorted, so equal grades are adjacent.
    let share = 1.0 / on_side.len() as f64;
    let mut chances: Vec<(Grade, f64)> = Vec::new();
    for grade in on_side {
        match chances.last_mut() {
            Some((last, chance)) if *last == grade => *chance += share,
            _ => chances.push((grade, share)),
        }
    }
    for (grade, chance) in &mut chances {
        *chance *= factors
            .iter()
            .find(|(g, _)| g == grade)
            .map_or(1.0, |&(_, factor)| factor);
    }
    let total: f64 = chances.iter().map(|&(_, chance)| chance).sum();
    for (_, chance) in &mut chances {
        *chance /= total;
    }
    chances
}

/// The index of the grade that the uniform draw `u` (in [0, 1)) picks by `chances` (each
/// grade's, summing to 1).
pub fn pick_grade(chances: impl ExactSizeIterator<Item = f64>, u: f64) -> usize {
    let last = chances.len() - 1;
    let mut cumulative = 0.0;
    for (index, chance) in chances.enumerate() {
        cumulative += chance;
        if u < cumulative {
            return index;
        }
    }
    last
}

/// Per relevant grade of `judged` (ascending), its share among `rows` (the sample's relevant
/// rows' grades) over its share among the relevant grades of `judged`, with one relevant row
/// in the judgments' own mix added to the rows so that a small sample stays near 1.
pub fn grade_factors(
    judged: impl Iterator<Item = Grade>,
    rows: &[Grade],
    relevance_level: Grade,
) -> Vec<(Grade, f64)> {
    let mut counts: BTreeMap<Grade, usize> = BTreeMap::new();
    for grade in judged.filter(|&g| is_relevant(g, relevance_level)) {
        *counts.entry(grade).or_default() += 1;
    }
    let judged_total = counts.values().sum::<usize>() as f64;
    counts
        .iter()
        .map(|(&grade, &count)| {
            let judged_share = count as f64 / judged_total;
            let in_rows = rows.iter().filter(|&&g| g == grade).count() as f64;
            let row_share = (in_rows + judged_share) / (rows.len() as f64 + 1.0);
            (grade, row_share / judged_share)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_draw_picks_the_grade_whose_share_it_falls_in() {
        let grades = [(1, 0.25), (2, 0.75)];
        assert_eq!(pick_grade(grades.iter().map(|g| g.1), 0.0), 0);
        assert_eq!(pick_grade(grades.iter().map(|g| g.1), 0.2499), 0);
        assert_eq!(pick_grade(grades.iter().map(|g| g.1), 0.25), 1);
        assert_eq!(pick_grade(grades.iter().map(|g| g.1), 0.9999), 1);
    }

    #[test]
    fn grade_factors_compare_the_rows_grade_mix_with_the_judgments() {
        // Judged relevant: 6 of grade 1 and 4 of grade 2 (grade 0 is not relevant). The relevant
        // rows are 7 of grade 1 and 2 of grade 2; with one row in the judgments' mix added, the
        // shares are 7.6 / 10 and 2.4 / 10, against 0.6 and 0.4.
        let judged = [0, 0, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2];
        let rows = [1, 1, 1, 1, 1, 1, 1, 2, 2];
        let factors = grade_factors(judged.into_iter(), &rows, 1);
        assert_eq!(factors.len(), 2);
        assert_eq!(factors[0].0, 1);
        assert!((factors[0].1 - 0.76 / 0.6).abs() < 1e-12, "{factors:?}");
        assert_eq!(factors[1].0, 2);
        assert!((factors[1].1 - 0.24 / 0.4).abs() < 1e-12, "{factors:?}");
        // No relevant row: every factor is 1.
        for (_, factor) in grade_factors(judged.into_iter(), &[], 1) {
            assert!((factor - 1.0).abs() < 1e-12);
        }
    }

    #[test]
    fn the_side_below_the_level_mixes_the_grades_below_it() {
        // At level 2, the judgments below it are three of grade 0 and one of grade 1.
        let judged = [0, 0, 0, 1, 2, 3];
        let chances = grade_chances(&judged, 2, Side::NotRelevant, &[]);
        assert_eq!(chances, vec![(0, 0.75), (1, 0.25)]);
        // No judgment below the level: grade 0.
        assert_eq!(
            grade_chances(&[2, 3], 2, Side::NotRelevant, &[]),
            vec![(0, 1.0)]
        );
    }
}
