//! How far two assessors agree on the grades of the same (topic, document) pairs: the table of
//! grade against grade, Cohen's kappa (plain, with linear and with quadratic weights), the
//! binary kappa at a relevance level, Krippendorff's alpha (ordinal and interval) and each
//! assessor's share of relevant grades.
//!
//! The definitions are those of the reference implementations, so that the figures match them
//! to rounding:
//! - Cohen's kappa as scikit-learn's `cohen_kappa_score`: the classes are the grades either
//!   side uses, in ascending order, and the linear and quadratic weights are `|i − j|` and
//!   `(i − j)²` of their *positions* in that order, not of the grades' values (grades 0, 1, 3
//!   weigh 1 → 3 as one step). kappa = 1 − Σ w·observed / Σ w·expected, where expected is the
//!   product of the two sides' marginals over the number of pairs.
//! - Krippendorff's alpha as the `krippendorff` package with two coders and no missing value:
//!   the coincidence matrix is the table plus its transpose, alpha = 1 − D_o / D_e with
//!   D_e over the random coincidences n_c·n_k / (n − 1); the interval distance is the squared
//!   difference of the grades' values, the ordinal distance
//!   (Σ_{g between c and k} n_g − (n_c + n_k) / 2)² over the grades used.
//!
//! A statistic whose expected disagreement is 0 (both sides give every pair one and the same
//! grade, or only one grade occurs) is undefined, `None`: scikit-learn returns NaN there, and
//! the `krippendorff` package refuses a domain of one value.
//!
//! Worked example used by the tests, 10 pairs (A's grade, B's grade):
//! (0,0) ×3, (0,1), (1,1) ×2, (1,2), (2,2) ×2, (2,0). The table (rows A, columns B) is
//! `[[3,1,0],[0,2,1],[1,0,2]]`, marginals A = (4,3,3), B = (4,3,3). Observed agreement 7/10,
//! expected (16 + 9 + 9)/100 = 0.34, plain kappa = (0.7 − 0.34)/(1 − 0.34) = 0.36/0.66 =
//! 0.545454…. Linear weights: observed Σ w·n = 1 + 1 + 2 = 4; expected Σ w·m_i·m_j/10 =
//! (2·(4·3·1 + 3·3·1) + 2·(4·3·2))/10 = (42 + 48)/10 = 9, kappa = 1 − 4/9 = 0.5555….
//! Quadratic: observed 1 + 1 + 4 = 6, expected (42 + 2·4·3·4)/10 = 13.8, kappa = 1 − 6/13.8 =
//! 0.565217…. At level 1, A's relevant share is 6/10 and B's 6/10; binary table
//! [[3,1],[1,5]]: (0.8 − 0.52)/(1 − 0.52) = 0.583333….

use serde::Serialize;

use crate::base::relevance::{is_relevant, Grade};

/// Two assessors' grades of the same pairs compared (see the module docs for the definitions).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GradeAgreement {
    /// The number of pairs both assessors grade.
    pub pairs: usize,
    /// The relevance level of the binary kappa and the relevant shares.
    pub relevance_level: Grade,
    /// The grades either side uses, ascending: the rows and columns of `table`.
    pub grades: Vec<Grade>,
    /// `table[row][column]`: the pairs A grades `grades[row]` and B grades `grades[column]`.
    pub table: Vec<Vec<usize>>,
    /// Cohen's kappa (unweighted); `None` when undefined.
    pub kappa: Option<f64>,
    /// Cohen's kappa with linear weights; `None` when undefined.
    pub kappa_linear: Option<f64>,
    /// Cohen's kappa with quadratic weights; `None` when undefined.
    pub kappa_quadratic: Option<f64>,
    /// Cohen's kappa of relevant against not relevant at `relevance_level`; `None` when
    /// undefined.
    pub binary_kappa: Option<f64>,
    /// Krippendorff's alpha with the ordinal distance; `None` when undefined.
    pub alpha_ordinal: Option<f64>,
    /// Krippendorff's alpha with the interval distance; `None` when undefined.
    pub alpha_interval: Option<f64>,
    /// The share of the pairs A grades relevant; `None` without pairs.
    pub relevant_share_a: Option<f64>,
    /// The share of the pairs B grades relevant; `None` without pairs.
    pub relevant_share_b: Option<f64>,
}

/// The weights of Cohen's kappa.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KappaWeights {
    /// 1 for a disagreement, 0 for an agreement.
    Plain,
    /// `|i − j|` of the grades' positions.
    Linear,
    /// `(i − j)²` of the grades' positions.
    Quadratic,
}

impl KappaWeights {
    /// The weight of the cell (row, column).
    fn weight(self, row: usize, column: usize) -> f64 {
        let distance = row.abs_diff(column) as f64;
        match self {
            Self::Plain => f64::from(u8::from(row != column)),
            Self::Linear => distance,
            Self::Quadratic => distance * distance,
        }
    }
}

/// The table of grade against grade of `pairs`: the grades either side uses, ascending, and
/// the counts `table[row: A's grade][column: B's grade]`.
pub fn grade_table(pairs: &[(Grade, Grade)]) -> (Vec<Grade>, Vec<Vec<usize>>) {
    let mut grades: Vec<Grade> = pairs.iter().flat_map(|&(a, b)| [a, b]).collect();
    grades.sort_unstable();
    grades.dedup();
    let mut table = vec![vec![0usize; grades.len()]; grades.len()];
    let position = |grade: Grade| {
        grades
            .binary_search(&grade)
            .expect("every grade of the pairs is among the grades")
    };
    for &(a, b) in pairs {
        table[position(a)][position(b)] += 1;
    }
    (grades, table)
}

/// Cohen's kappa of a square table of counts with `weights` (as scikit-learn's
/// `cohen_kappa_score`); `None` when the expected disagreement is 0.
pub fn cohen_kappa(table: &[Vec<usize>], weights: KappaWeights) -> Option<f64> {
    let size = table.len();
    let row_sums: Vec<f64> = (table.iter())
        .map(|row| row.iter().sum::<usize>() as f64)
        .collect();
    let column_sums: Vec<f64> = (0..size)
        .map(|column| table.iter().map(|row| row[column]).sum::<usize>() as f64)
        .collect();
    let total: f64 = row_sums.iter().sum();
    let (mut observed, mut expected) = (0.0, 0.0);
    for (row, counts) in table.iter().enumerate() {
        for (column, &count) in counts.iter().enumerate() {
            let weight = weights.weight(row, column);
            observed += weight * count as f64;
            expected += weight * row_sums[row] * column_sums[column] / total;
        }
    }
    (expected > 0.0).then(|| 1.0 - observed / expected)
}

/// Cohen's kappa (unweighted) of `pairs`; `None` when undefined.
pub fn kappa(pairs: &[(Grade, Grade)]) -> Option<f64> {
    cohen_kappa(&grade_table(pairs).1, KappaWeights::Plain)
}

/// The distance of Krippendorff's alpha.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum AlphaDistance {
    /// Ranks: the coincidences between two grades.
    Ordinal,
    /// The squared difference of the grades' values.
    Interval,
}

/// Krippendorff's alpha of two coders' grades tabulated in `table` over `grades` (no missing
/// value); `None` when the expected disagreement is 0.
fn krippendorff_alpha(
    grades: &[Grade],
    table: &[Vec<usize>],
    distance: AlphaDistance,
) -> Option<f64> {
    let size = grades.len();
    // Coincidences: each pair (a, b) counts once as (a, b) and once as (b, a).
    let coincidence = |row: usize, column: usize| (table[row][column] + table[column][row]) as f64;
    let value_counts: Vec<f64> = (0..size)
        .map(|row| (0..size).map(|column| coincidence(row, column)).sum())
        .collect();
    let total: f64 = value_counts.iter().sum();
    let delta = |row: usize, column: usize| match distance {
        AlphaDistance::Interval => {
            let difference = f64::from(grades[row]) - f64::from(grades[column]);
            difference * difference
        }
        AlphaDistance::Ordinal => {
            let (low, high) = (row.min(column), row.max(column));
            let between: f64 = value_counts[low..=high].iter().sum();
            let spread = between - (value_counts[low] + value_counts[high]) / 2.0;
            spread * spread
        }
    };
    let (mut observed, mut expected) = (0.0, 0.0);
    for row in 0..size {
        for column in 0..size {
            let delta = delta(row, column);
            observed += coincidence(row, column) * delta;
            let random = if row == column {
                value_counts[row] * (value_counts[row] - 1.0)
            } else {
                value_counts[row] * value_counts[column]
            };
            expected += random / (total - 1.0) * delta;
        }
    }
    (expected > 0.0).then(|| 1.0 - observed / expected)
}

/// How far two assessors agree on `pairs` of (A's grade, B's grade) of the same documents, a
/// grade >= `relevance_level` counting as relevant. Without pairs every statistic is `None`.
pub fn grade_agreement(pairs: &[(Grade, Grade)], relevance_level: Grade) -> GradeAgreement {
    let (grades, table) = grade_table(pairs);
    let binary: Vec<(Grade, Grade)> = (pairs.iter())
        .map(|&(a, b)| {
            let relevant = |grade| Grade::from(is_relevant(grade, relevance_level));
            (relevant(a), relevant(b))
        })
        .collect();
    let share = |relevant: usize| (!pairs.is_empty()).then(|| relevant as f64 / pairs.len() as f64);
    let relevant_a = binary.iter().filter(|&&(a, _)| a == 1).count();
    let relevant_b = binary.iter().filter(|&&(_, b)| b == 1).count();
    GradeAgreement {
        pairs: pairs.len(),
        relevance_level,
        kappa: cohen_kappa(&table, KappaWeights::Plain),
        kappa_linear: cohen_kappa(&table, KappaWeights::Linear),
        kappa_quadratic: cohen_kappa(&table, KappaWeights::Quadratic),
        binary_kappa: kappa(&binary),
        alpha_ordinal: krippendorff_alpha(&grades, &table, AlphaDistance::Ordinal),
        alpha_interval: krippendorff_alpha(&grades, &table, AlphaDistance::Interval),
        relevant_share_a: share(relevant_a),
        relevant_share_b: share(relevant_b),
        grades,
        table,
    }
}

#[cfg(test)]
#[path = "agreement_tests.rs"]
mod tests;
