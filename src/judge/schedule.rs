//! Batch schedules: how many documents each CAL batch judges before the model is retrained.

use crate::base::choice::choice_enum;

choice_enum! {
    /// A batch schedule.
    pub enum Schedule {
        /// BMI / AutoTAR (Cormack and Grossman): B starts at 1 and grows by ceil(B/10) after each
        /// batch, so retrains thin out as judging goes on.
        Bmi = "bmi",
        /// Retrain after every judgment (the web mode NIST assessors used).
        One = "one",
    }
}

impl Schedule {
    /// The successive batch sizes, without end.
    pub fn batch_sizes(self) -> impl Iterator<Item = usize> {
        std::iter::successors(Some(1usize), move |&size| {
            Some(match self {
                Schedule::Bmi => size + size.div_ceil(10),
                Schedule::One => 1,
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bmi_batch_sizes_follow_autotar() {
        let sizes: Vec<usize> = Schedule::Bmi.batch_sizes().take(18).collect();
        assert_eq!(
            sizes,
            vec![1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 21, 24, 27]
        );
        let more: Vec<usize> = Schedule::Bmi.batch_sizes().skip(18).take(6).collect();
        assert_eq!(more, vec![30, 33, 37, 41, 46, 51]);
        assert!(Schedule::One.batch_sizes().take(50).all(|size| size == 1));
    }
}
