//! Sums of paired differences under sign flips, Σ sᵢdᵢ with sᵢ = −1 where bit i of the sign
//! mask is set, by table look-up: the randomization tests' inner loop.

/// Topics whose signs one byte of the mask holds.
const BYTE: usize = 8;
/// Topics whose signs one 64-bit word of the mask holds.
const WORD: usize = 64;

/// The sign-flipped sums of one pair's differences: for each byte of the mask, the change to
/// Σ dᵢ of each of its 256 flips, so that a sum costs one look-up per 8 topics.
pub(crate) struct SignFlipSums {
    unflipped: f64,
    byte_tables: Vec<[f64; 256]>,
}

impl SignFlipSums {
    /// The tables of `differences`, in topic order.
    pub(crate) fn new(differences: &[f64]) -> Self {
        let byte_tables = (differences.chunks(BYTE))
            .map(|topics| {
                let mut table = [0.0; 256];
                for mask in 1..table.len() {
                    // Bits past the last topic flip nothing.
                    let lowest = topics.get(mask.trailing_zeros() as usize).unwrap_or(&0.0);
                    table[mask] = table[mask & (mask - 1)] - 2.0 * lowest;
                }
                table
            })
            .collect();
        Self {
            unflipped: differences.iter().sum(),
            byte_tables,
        }
    }

    /// Σ dᵢ, no sign flipped.
    pub(crate) fn unflipped(&self) -> f64 {
        self.unflipped
    }

    /// Σ sᵢdᵢ for the signs that `next_word` yields, 64 topics a word in topic order.
    pub(crate) fn sum(&self, mut next_word: impl FnMut() -> u64) -> f64 {
        let mut sum = self.unflipped;
        for tables in self.byte_tables.chunks(WORD / BYTE) {
            let signs = next_word();
            for (byte, table) in tables.iter().enumerate() {
                sum += table[(signs >> (BYTE * byte)) as usize & 0xff];
            }
        }
        sum
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(crate::base::fuzz::property_config(256))]
        #[test]
        fn a_flipped_sum_is_the_sum_of_the_signed_differences(
            differences in prop::collection::vec(-1.0f64..1.0, 1..140),
            words in prop::collection::vec(any::<u64>(), 3),
        ) {
            let sums = SignFlipSums::new(&differences);
            let mut next = words.iter().copied();
            let found = sums.sum(|| next.next().unwrap());
            let expected: f64 = (differences.iter().enumerate())
                .map(|(topic, d)| if words[topic / 64] >> (topic % 64) & 1 == 1 { -d } else { *d })
                .sum();
            prop_assert!((found - expected).abs() <= 1e-12 * differences.len() as f64);
            prop_assert_eq!(sums.unflipped(), differences.iter().sum::<f64>());
            prop_assert_eq!(sums.sum(|| 0), sums.unflipped());
        }
    }
}
