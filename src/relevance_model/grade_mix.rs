//! The grade a relevant unjudged document gets: drawn from the topic's relevant grades in
//! their proportions, each scaled by the calibration's grade factor (how much more or less
//! often a relevant document beyond the other teams' reach has that grade than a judged one;
//! [`grade_factors`], kept as [`super::calibration::Calibration::grade_factors`]). The audit's
//! samples and the completed assessor draw with the same chances.

use std::collections::BTreeMap;

use crate::base::{is_relevant, Grade};

/// The grades a relevant unjudged document may get and their chances: the relevant grades
/// among `judged_grades` (a topic's judgments, sorted) in their proportions, each scaled by its
/// factor in `factors` (1 for a grade it lacks) and renormalised; the relevance level alone
/// when the topic has no relevant judgment.
pub fn relevant_grade_chances(
    judged_grades: &[Grade],
    relevance_level: Grade,
    factors: &[(Grade, f64)],
) -> Vec<(Grade, f64)> {
    let relevant: Vec<Grade> = judged_grades
        .iter()
        .copied()
        .filter(|&g| is_relevant(g, relevance_level))
        .collect();
    if relevant.is_empty() {
        return vec![(relevance_level, 1.0)];
    }
    // judged_grades is sorted, so equal grades are adjacent.
    let share = 1.0 / relevant.len() as f64;
    let mut chances: Vec<(Grade, f64)> = Vec::new();
    for grade in relevant {
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

/// The index of the grade that the uniform draw `u` (in [0, 1)) picks by the chances of
/// `grades`.
pub fn pick_grade(grades: &[(Grade, f64)], u: f64) -> usize {
    let mut cumulative = 0.0;
    for (index, &(_, chance)) in grades.iter().enumerate() {
        cumulative += chance;
        if u < cumulative {
            return index;
        }
    }
    grades.len() - 1
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
        assert_eq!(pick_grade(&grades, 0.0), 0);
        assert_eq!(pick_grade(&grades, 0.2499), 0);
        assert_eq!(pick_grade(&grades, 0.25), 1);
        assert_eq!(pick_grade(&grades, 0.9999), 1);
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
}
