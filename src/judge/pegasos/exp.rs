//! `exp` for the loss, in Rust (so that a trial does not depend on the platform's maths library)
//! and with half the latency of the `libm` crate's, whose rational approximation ends in a
//! division: the loss is on every Pegasos step's critical chain.
//!
//! The method is the table-driven one of current C libraries: `x = k ln2 / 128 + r` with
//! `|r| <= ln2 / 256`, `exp(x) = 2^(k / 128) · exp(r)`, the 128 values `2^(j / 128)` from a table
//! (computed once by `libm::exp2`) and `exp(r)` from its Taylor polynomial of degree 5, whose
//! truncation error (`r^6 / 720 < 6e-19`) is far below an `f64` unit. Results are within a few
//! units in the last place of `libm::exp` (a test); arguments beyond ±700 go to `libm::exp`.

use std::sync::LazyLock;

/// `log2` of the table's size.
const TABLE_BITS: u32 = 7;

/// `2^(j / 128)` for `j` in `0..128`.
static POWERS_OF_TWO: LazyLock<[f64; 1 << TABLE_BITS]> = LazyLock::new(|| {
    let size = f64::from(1_u32 << TABLE_BITS);
    std::array::from_fn(|j| libm::exp2(j as f64 / size))
});

/// `128 / ln 2`.
const SCALE_OVER_LN2: f64 = f64::from_bits(0x4067_1547_652b_82fe);
/// `ln 2 / 128` to 32 significant bits, so that `k · LN2_HI` is exact for `|k| < 2^21`.
const LN2_HI: f64 = f64::from_bits(0x3f76_2e42_fee0_0000);
/// `ln 2 / 128 − LN2_HI`.
const LN2_LO: f64 = f64::from_bits(0x3d7a_39ef_3579_3c76);
/// `1.5 · 2^52`: adding it rounds to an integer held in the low bits of the sum.
const ROUNDING_SHIFT: f64 = f64::from_bits(0x4338_0000_0000_0000);
/// Beyond this magnitude the result leaves the normal range soon; `libm::exp` handles it.
const FAST_LIMIT: f64 = 700.0;

/// `e^x`.
#[inline(always)]
pub(super) fn exp(x: f64) -> f64 {
    if x.is_nan() || x.abs() >= FAST_LIMIT {
        return libm::exp(x);
    }
    let shifted = x * SCALE_OVER_LN2 + ROUNDING_SHIFT;
    let k = shifted.to_bits() as i64 as i32; // the low bits hold round(x · 128 / ln 2)
    let kd = shifted - ROUNDING_SHIFT;
    let r = (x - kd * LN2_HI) - kd * LN2_LO;
    // exp(r) − 1 = r + r²/2 + r³/6 + r⁴/24 + r⁵/120, evaluated in two halves.
    let r2 = r * r;
    let low = r + r2 * 0.5;
    let high = r2 * r * ((1.0 / 6.0) + r * ((1.0 / 24.0) + r * (1.0 / 120.0)));
    let index = (k & ((1 << TABLE_BITS) - 1)) as usize;
    let exponent = i64::from(k >> TABLE_BITS);
    let power = POWERS_OF_TWO[index];
    // 2^(k / 128) by adding the integer part to the table entry's exponent; |x| < 700 keeps the
    // result normal.
    let scale = f64::from_bits((power.to_bits() as i64 + (exponent << 52)) as u64);
    scale + scale * (low + high)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The distance between two finite positive doubles in units in the last place.
    fn ulps(a: f64, b: f64) -> u64 {
        (a.to_bits() as i64 - b.to_bits() as i64).unsigned_abs()
    }

    #[test]
    fn special_values_follow_libm() {
        for x in [
            0.0, -0.0, 1.0, -1.0, 700.0, -700.0, 709.0, 710.0, -745.0, -746.0,
        ] {
            assert!(ulps(exp(x), libm::exp(x)) <= 2, "{x}");
        }
        assert_eq!(exp(0.0), 1.0);
        assert_eq!(exp(f64::INFINITY), f64::INFINITY);
        assert_eq!(exp(f64::NEG_INFINITY), 0.0);
        assert!(exp(f64::NAN).is_nan());
        assert_eq!(exp(1000.0), f64::INFINITY);
    }

    #[test]
    fn a_grid_of_arguments_is_within_two_units_of_libm() {
        // Every 1/1024 from −700 to 700, and near 0 where the loss's margins mostly fall.
        let grid = (-716_800..=716_800).map(|i| f64::from(i) / 1024.0);
        let near_zero = (1..2000).flat_map(|i| [f64::from(i) * 1e-9, -f64::from(i) * 1e-9]);
        for x in grid.chain(near_zero) {
            assert!(
                ulps(exp(x), libm::exp(x)) <= 2,
                "{x}: {} vs {}",
                exp(x),
                libm::exp(x)
            );
        }
    }

    proptest! {
        #![proptest_config(crate::base::fuzz::property_config(256))]
        #[test]
        fn random_arguments_are_within_two_units_of_libm(x in -700.0_f64..700.0) {
            prop_assert!(ulps(exp(x), libm::exp(x)) <= 2, "{}: {} vs {}", x, exp(x), libm::exp(x));
        }
    }
}
