//! Batch schedules: when the CAL engine retrains and how many documents each retrain proposes.
//!
//! HiCAL's engine (`CALEngine/src/bmi.cc`, the version with `record_judgment_batch`) keeps a
//! target T and a batch size B, starting at T = 0 and B = 1. An *iteration* retrains and ranks
//! the B highest-scoring unjudged candidates as the list to judge, then sets T += B and
//! B += ceil(B/10). Iteration 0 runs on the seed alone, before any judgment. The pool is
//! recorded as one batch and every later judgment one at a time; after each recording an
//! iteration runs when the number judged is >= T. So after a pool of P documents the engine
//! retrains after each of the next few judgments until T catches up, then resumes large
//! batches: iterations run at 0, 10, 11, 12, 13, 15, 21, 28, ... documents judged for P = 10.

use crate::base::choice::choice_enum;

choice_enum! {
    /// A batch schedule.
    pub enum Schedule {
        /// HiCAL's BMI / AutoTAR schedule as its engine keeps it (the module docs): HiCAL's
        /// command-line simulation default.
        Bmi = "bmi",
        /// Retrain after every judgment: HiCALWeb's asynchronous retraining, which NIST's
        /// assessors used, made synchronous; closest to NIST's judging.
        One = "one",
    }
}

/// The engine's state: when the next iteration is due and how long its list is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BatchPlanner {
    schedule: Schedule,
    /// T: the number of judged documents at which the next iteration runs.
    target: usize,
    /// B: the length of the next iteration's list.
    batch_size: usize,
}

impl BatchPlanner {
    /// The state before iteration 0 (T = 0, B = 1).
    pub fn new(schedule: Schedule) -> Self {
        Self {
            schedule,
            target: 0,
            batch_size: 1,
        }
    }

    /// Whether an iteration runs now that `judged` documents are judged.
    pub fn is_due(&self, judged: usize) -> bool {
        judged >= self.target
    }

    /// Starts an iteration: returns the length of its list and moves T and B on.
    pub fn start_iteration(&mut self) -> usize {
        let size = self.batch_size;
        self.target += size;
        self.batch_size = match self.schedule {
            Schedule::Bmi => size + size.div_ceil(10),
            Schedule::One => 1,
        };
        size
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The numbers of judged documents at which iterations run, for a pool of `pool` documents
    /// and `judgments` judgments in all, judging every list in order.
    fn iteration_points(schedule: Schedule, pool: usize, judgments: usize) -> Vec<usize> {
        let mut planner = BatchPlanner::new(schedule);
        let mut points = vec![0];
        planner.start_iteration(); // iteration 0, on the seed alone
        let mut judged = pool;
        let mut list = if pool > 0 { 0 } else { 1 };
        loop {
            if planner.is_due(judged) {
                points.push(judged);
                list = planner.start_iteration();
            }
            if judged >= judgments {
                return points;
            }
            assert!(list > 0, "a list ran out before the next iteration was due");
            list -= 1;
            judged += 1;
        }
    }

    #[test]
    fn bmi_without_a_pool_grows_batches_by_a_tenth() {
        assert_eq!(
            iteration_points(Schedule::Bmi, 0, 28),
            vec![0, 1, 3, 6, 10, 15, 21, 28]
        );
    }

    #[test]
    fn bmi_after_a_pool_of_10_retrains_after_each_judgment_until_t_catches_up() {
        assert_eq!(
            iteration_points(Schedule::Bmi, 10, 28),
            vec![0, 10, 11, 12, 13, 15, 21, 28]
        );
    }

    #[test]
    fn bmi_after_a_pool_of_150_catches_up_at_165() {
        let mut expected = vec![0];
        expected.extend(150..=165);
        expected.extend([175, 202, 232, 265, 302]);
        assert_eq!(iteration_points(Schedule::Bmi, 150, 302), expected);
    }

    #[test]
    fn one_retrains_after_every_judgment() {
        assert_eq!(
            iteration_points(Schedule::One, 3, 7),
            vec![0, 3, 4, 5, 6, 7]
        );
    }
}
