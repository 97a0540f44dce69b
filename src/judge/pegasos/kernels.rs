//! The dual solver's row kernel, `recent += step * (row_a − row_b)` (in the Gram entries' type),
//! optionally folding the result into the `f64` scores, and [`VectorLevel`], which compiles the
//! whole step loop for the widest vector instructions the processor has (detected at run time),
//! so that the row pass, the draws and `exp` inline into one loop with no call between them.
//! This is the only place in the learner that calls `unsafe` code for speed; every level performs
//! the same operations lane by lane ([`update_lane`]), so the result does not depend on the
//! processor.

/// A Gram matrix entry: `f32` (half the memory traffic, twice the lanes per instruction) or
/// `f64`.
pub(super) trait GramEntry: Copy + Default + Send + Sync + 'static {
    /// The entry nearest to `value`.
    fn from_f64(value: f64) -> Self;
    /// The entry as an `f64`, exactly.
    fn widen(self) -> f64;
    /// `self + step * (a − b)` in this type, a separate subtraction, multiply and add (Rust never
    /// fuses them), so that every kernel rounds alike.
    fn updated(self, a: Self, b: Self, step: Self) -> Self;
}

impl GramEntry for f32 {
    #[inline(always)]
    fn from_f64(value: f64) -> Self {
        value as f32
    }

    #[inline(always)]
    fn widen(self) -> f64 {
        f64::from(self)
    }

    #[inline(always)]
    fn updated(self, a: Self, b: Self, step: Self) -> Self {
        self + step * (a - b)
    }
}

impl GramEntry for f64 {
    #[inline(always)]
    fn from_f64(value: f64) -> Self {
        value
    }

    #[inline(always)]
    fn widen(self) -> f64 {
        self
    }

    #[inline(always)]
    fn updated(self, a: Self, b: Self, step: Self) -> Self {
        self + step * (a - b)
    }
}

/// One lane of the kernel: the recent update `recent + step * (a − b)`; when folding, it is
/// added to the `f64` score and the recent update restarts from zero.
#[inline(always)]
fn update_lane<T: GramEntry, const FOLD: bool>(
    score: &mut f64,
    recent: &mut T,
    a: T,
    b: T,
    step: T,
) {
    let updated = recent.updated(a, b, step);
    if FOLD {
        *score += updated.widen();
        *recent = T::default();
    } else {
        *recent = updated;
    }
}

/// [`update_lane`] over the shortest of the four slices (`scores` is not read unless `FOLD`).
#[inline(always)]
pub(super) fn update_rows<T: GramEntry, const FOLD: bool>(
    scores: &mut [f64],
    recent: &mut [T],
    row_a: &[T],
    row_b: &[T],
    step: T,
) {
    // One flat pass, so the compiler vectorises along the row.
    if FOLD {
        let lanes = scores.iter_mut().zip(recent).zip(row_a).zip(row_b);
        for (((score, recent), &a), &b) in lanes {
            update_lane::<T, true>(score, recent, a, b, step);
        }
    } else {
        for ((recent, &a), &b) in recent.iter_mut().zip(row_a).zip(row_b) {
            update_lane::<T, false>(&mut 0.0, recent, a, b, step);
        }
    }
}

/// An instruction set that a loop can be compiled for, one this processor has: a value exists
/// only once the processor has been asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct VectorLevel(Level);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Level {
    Portable,
    #[cfg(target_arch = "x86_64")]
    Avx2,
    #[cfg(target_arch = "x86_64")]
    Avx512,
}

impl Level {
    /// The levels beyond the portable one, narrowest first.
    #[cfg(target_arch = "x86_64")]
    const VECTOR: [Self; 2] = [Self::Avx2, Self::Avx512];
    #[cfg(not(target_arch = "x86_64"))]
    const VECTOR: [Self; 0] = [];

    /// Whether this processor has the level's instructions.
    fn runs_here(self) -> bool {
        match self {
            Self::Portable => true,
            #[cfg(target_arch = "x86_64")]
            Self::Avx2 => std::arch::is_x86_feature_detected!("avx2"),
            #[cfg(target_arch = "x86_64")]
            Self::Avx512 => std::arch::is_x86_feature_detected!("avx512f"),
        }
    }
}

impl VectorLevel {
    /// The widest instruction set this processor runs, detected at run time, so that a portable
    /// build still uses AVX2 or AVX-512 where they exist.
    pub(super) fn widest() -> Self {
        let mut widest_first = Level::VECTOR.into_iter().rev();
        Self(
            widest_first
                .find(|&level| level.runs_here())
                .unwrap_or(Level::Portable),
        )
    }

    /// Every level this processor runs, the portable one first.
    #[cfg(test)]
    pub(super) fn available() -> Vec<Self> {
        let vector = Level::VECTOR.into_iter().filter(|level| level.runs_here());
        std::iter::once(Level::Portable)
            .chain(vector)
            .map(Self)
            .collect()
    }

    /// Runs `body` compiled for this level: `body` is inlined into a function that enables the
    /// level's instructions, and so are the `#[inline(always)]` functions it calls (the step
    /// loop, its row passes, draws and `exp`), with no call between them. No level enables fused
    /// multiply-add, so every level rounds alike.
    #[inline(always)]
    pub(super) fn run<R>(self, body: impl FnOnce() -> R) -> R {
        match self.0 {
            Level::Portable => body(),
            // SAFETY: a level other than the portable one exists only when detected above.
            #[cfg(target_arch = "x86_64")]
            Level::Avx2 => unsafe { run_avx2(body) },
            // SAFETY: as above.
            #[cfg(target_arch = "x86_64")]
            Level::Avx512 => unsafe { run_avx512(body) },
        }
    }
}

/// `body` compiled with AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn run_avx2<R>(body: impl FnOnce() -> R) -> R {
    body()
}

/// `body` compiled with AVX-512.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn run_avx512<R>(body: impl FnOnce() -> R) -> R {
    body()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// Runs 50 steps, folding every third, at every level on the same random rows (values
    /// spanning many binades, so that a fused multiply-add or a reordering would show) and
    /// asserts bit-identical scores and recent updates, equal to the scalar lane
    /// [`update_lane`].
    fn assert_kernels_agree<T: GramEntry>(length: usize, seed: u64) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut value =
            || T::from_f64(rng.random_range(-1.0..1.0) * 10_f64.powi(rng.random_range(-8..3)));
        let rows: Vec<Vec<T>> = (0..8)
            .map(|_| (0..length).map(|_| value()).collect())
            .collect();
        let steps: Vec<(usize, usize, T, bool)> = (0..50)
            .map(|step| {
                let size = T::from_f64(1e4 / (step as f64 + 1.0));
                (step % 8, (step * 3 + 1) % 8, size, step % 3 == 2)
            })
            .collect();
        let mut expected = (vec![0.0_f64; length], vec![T::default(); length]);
        for &(a, b, step, fold) in &steps {
            let lanes = expected.0.iter_mut().zip(&mut expected.1);
            for (((score, recent), &x), &y) in lanes.zip(&rows[a]).zip(&rows[b]) {
                match fold {
                    true => update_lane::<T, true>(score, recent, x, y, step),
                    false => update_lane::<T, false>(score, recent, x, y, step),
                }
            }
        }
        let bits = |values: &[f64]| values.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
        let widened = |values: &[T]| values.iter().map(|v| v.widen()).collect::<Vec<_>>();
        for level in VectorLevel::available() {
            let (mut scores, mut recent) = (vec![0.0_f64; length], vec![T::default(); length]);
            level.run(|| {
                for &(a, b, step, fold) in &steps {
                    let (row_a, row_b) = (&rows[a], &rows[b]);
                    match fold {
                        true => {
                            update_rows::<T, true>(&mut scores, &mut recent, row_a, row_b, step)
                        }
                        false => {
                            update_rows::<T, false>(&mut scores, &mut recent, row_a, row_b, step)
                        }
                    }
                }
            });
            assert_eq!(
                bits(&scores),
                bits(&expected.0),
                "{level:?}, length {length}"
            );
            assert_eq!(
                bits(&widened(&recent)),
                bits(&widened(&expected.1)),
                "{level:?}, length {length}"
            );
        }
    }

    #[test]
    fn every_kernel_gives_bit_identical_scores() {
        for length in [1, 7, 16, 33, 450, 1000] {
            assert_kernels_agree::<f32>(length, length as u64);
            assert_kernels_agree::<f64>(length, length as u64);
        }
    }
}
