//! The pair each Pegasos step draws: a positive position, then a negative one, from the rng
//! passed in, so that every implementation produces the same iterates.

use rand::Rng;

/// Draws the pair of step `i`: a positive position, then a negative position.
#[inline(always)]
pub(super) fn draw_pair(positives: usize, negatives: usize, rng: &mut impl Rng) -> (usize, usize) {
    let positive = draw_below(positives, rng);
    let negative = draw_below(negatives, rng);
    (positive, negative)
}

/// A uniform draw from `0..count` (`count` at least 1: a checked training set has both
/// classes), the same as `rng.random_range(0..count)`: for ranges that fit in `u32`, rand's
/// single-sample method (Canon's: the high half of a 64-bit product, with one more draw when the
/// low half is in the biased zone) written here so that it inlines into the step loop; a test
/// holds the two equal.
#[inline(always)]
fn draw_below(count: usize, rng: &mut impl Rng) -> usize {
    debug_assert!(count > 0);
    if count > u32::MAX as usize {
        return rng.random_range(0..count);
    }
    let range = count as u32 as u64;
    let product = u64::from(rng.next_u32()) * range;
    let (mut result, low_order) = ((product >> 32) as u32, product as u32);
    if low_order > (range as u32).wrapping_neg() {
        let next_high_order = ((u64::from(rng.next_u32()) * range) >> 32) as u32;
        result += u32::from(low_order.checked_add(next_high_order).is_none());
    }
    result as usize
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::{any, prop_assert_eq, proptest};
    use rand::{RngCore, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// `draw_below` and `random_range(0..count)` draw the same values from the same stream, on
    /// counts whose biased zone is empty, small or half of all draws.
    #[test]
    fn draw_below_equals_random_range() {
        let counts = [
            1,
            2,
            3,
            7,
            156,
            348,
            1 << 20,
            (1 << 31) + 1,
            u32::MAX as usize,
        ];
        for (seed, &count) in counts.iter().enumerate() {
            let mut ours = ChaCha8Rng::seed_from_u64(seed as u64);
            let mut rands = ours.clone();
            for _ in 0..20_000 {
                assert_eq!(
                    draw_below(count, &mut ours),
                    rands.random_range(0..count),
                    "{count}"
                );
            }
            assert_eq!(
                ours.next_u32(),
                rands.next_u32(),
                "streams in step, {count}"
            );
        }
    }

    proptest! {
        #![proptest_config(crate::base::fuzz::property_config(64))]
        #[test]
        fn draw_below_equals_random_range_for_any_count(count in 1..=u32::MAX as usize, seed in any::<u64>()) {
            let mut ours = ChaCha8Rng::seed_from_u64(seed);
            let mut rands = ours.clone();
            for _ in 0..64 {
                prop_assert_eq!(draw_below(count, &mut ours), rands.random_range(0..count));
            }
            prop_assert_eq!(ours.next_u32(), rands.next_u32());
        }
    }
}
