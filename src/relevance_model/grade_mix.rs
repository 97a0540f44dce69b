//! The grade a relevant unjudged document gets: drawn from the topic's relevant grades in
//! their proportions, each scaled by the calibration's grade factor (how much more or less
//! often a relevant document beyond the other teams' reach has that grade than a judged one;
//! [`super::calibration::Calibration::grade_factors`]). The audit's samples and the completed
//! assessor draw with the same chances.

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
}
