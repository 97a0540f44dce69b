//! Corrections of the p-values of a family of tests for multiplicity: Bonferroni, Holm's
//! step-down and Benjamini–Hochberg's step-up. Each gives adjusted p-values, as statsmodels'
//! `multipletests` returns them: a test is rejected at level α when its adjusted p-value is
//! below α, the adjusted values keep the order of the raw ones, and none exceeds 1.

use crate::base::choice::choice_enum;

choice_enum! {
    /// How the p-values of one measure's pairs are corrected for testing many pairs.
    pub enum Correction {
        /// No correction: each pair's own p-value.
        None = "none",
        /// Bonferroni: p·m, the family-wise error rate.
        Bonferroni = "bonferroni",
        /// Holm's step-down: the family-wise error rate, uniformly more powerful than Bonferroni.
        Holm = "holm",
        /// Benjamini–Hochberg's step-up: the false discovery rate.
        BenjaminiHochberg = "bh",
    }
}

impl Correction {
    /// The adjusted p-values of `p_values`, one family, in their order.
    pub fn adjust(self, p_values: &[f64]) -> Vec<f64> {
        let count = p_values.len() as f64;
        match self {
            Self::None => p_values.to_vec(),
            Self::Bonferroni => (p_values.iter()).map(|&p| (p * count).min(1.0)).collect(),
            Self::Holm => {
                // The i-th smallest (from 0) is multiplied by m − i; the running maximum keeps
                // the step-down's order.
                let order = ascending_order(p_values);
                let mut adjusted = vec![0.0; p_values.len()];
                let mut running_max: f64 = 0.0;
                for (rank, &index) in order.iter().enumerate() {
                    running_max = running_max.max((count - rank as f64) * p_values[index]);
                    adjusted[index] = running_max.min(1.0);
                }
                adjusted
            }
            Self::BenjaminiHochberg => {
                // The i-th smallest (from 1) is divided by i/m; the running minimum from the
                // largest down keeps the step-up's order.
                let order = ascending_order(p_values);
                let mut adjusted = vec![0.0; p_values.len()];
                let mut running_min = f64::INFINITY;
                for (rank, &index) in order.iter().enumerate().rev() {
                    let share = (rank + 1) as f64 / count;
                    running_min = running_min.min(p_values[index] / share);
                    adjusted[index] = running_min.min(1.0);
                }
                adjusted
            }
        }
    }
}

/// The positions of `values`, smallest value first (ties in their order).
fn ascending_order(values: &[f64]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by(|&left, &right| values[left].total_cmp(&values[right]));
    order
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_abs_diff_eq;

    fn assert_all_close(found: &[f64], expected: &[f64]) {
        assert_eq!(found.len(), expected.len());
        for (found, expected) in found.iter().zip(expected) {
            assert_abs_diff_eq!(found, expected, epsilon = 1e-15);
        }
    }

    #[test]
    fn holm_steps_down_until_a_test_is_kept() {
        // m = 4, sorted p = 0.01, 0.02, 0.03, 0.2. Holm multiplies by 4, 3, 2, 1: 0.04, 0.06,
        // 0.06, 0.2. At α = 0.05 the first is rejected (0.04 < 0.05), the second is not (0.06):
        // the step-down stops there, so the third is kept although 0.03 · 2 = 0.06 alone
        // would also be kept, and the running maximum lifts nothing here. Given out of order.
        let adjusted = Correction::Holm.adjust(&[0.03, 0.2, 0.01, 0.02]);
        assert_all_close(&adjusted, &[0.06, 0.2, 0.04, 0.06]);
        let rejected: Vec<bool> = adjusted.iter().map(|&p| p < 0.05).collect();
        assert_eq!(rejected, [false, false, true, false]);
        // A smaller p later in the step-down is lifted to its predecessor's adjusted value:
        // sorted 0.01, 0.04, 0.045 → 0.03, 0.08, max(0.08, 0.045) = 0.08.
        assert_all_close(
            &Correction::Holm.adjust(&[0.045, 0.01, 0.04]),
            &[0.08, 0.03, 0.08],
        );
    }

    #[test]
    fn corrections_match_statsmodels() {
        // statsmodels 0.14 multipletests([0.01, 0.04, 0.03, 0.005, 0.5], method=...)[1].
        let p_values = [0.01, 0.04, 0.03, 0.005, 0.5];
        assert_all_close(
            &Correction::Bonferroni.adjust(&p_values),
            &[0.05, 0.2, 0.15, 0.025, 1.0],
        );
        assert_all_close(
            &Correction::Holm.adjust(&p_values),
            &[0.04, 0.09, 0.09, 0.025, 0.5],
        );
        assert_all_close(
            &Correction::BenjaminiHochberg.adjust(&p_values),
            &[0.025, 0.05, 0.05, 0.025, 0.5],
        );
        assert_eq!(Correction::None.adjust(&p_values), p_values);
        assert!(Correction::Holm.adjust(&[]).is_empty());
    }
}
