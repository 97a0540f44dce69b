//! `mtf`: move-to-front pooling (Cormack, Palmer & Clarke, "Efficient construction of large
//! test collections", SIGIR 1998), its local form. Every run starts with the same priority,
//! 0. The run with the highest priority is judged next (its next unjudged document); the
//! first such run in run order on a tie. A relevant document leaves the run's priority as it
//! is, so the run keeps being judged while it keeps finding relevant documents; a non-relevant
//! one lowers its priority by one, which sends it behind every run that has failed less often.

use super::run_chooser::{OpenRun, RunChooser};

/// Per run, its priority: minus the number of non-relevant documents judged from it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MoveToFront {
    /// `priority[arm]`
    pub priority: Vec<i64>,
}

impl MoveToFront {
    /// Every one of `arms` runs at priority 0.
    pub fn new(arms: usize) -> Self {
        Self {
            priority: vec![0; arms],
        }
    }
}

impl RunChooser for MoveToFront {
    fn choose(&self, open: &[OpenRun]) -> usize {
        open.iter()
            .enumerate()
            .max_by_key(|(_, run)| (self.priority[run.arm], std::cmp::Reverse(run.arm)))
            .map(|(pos, _)| pos)
            .expect("a run to choose from")
    }

    fn observe(&mut self, arm: usize, is_relevant: bool) {
        if !is_relevant {
            self.priority[arm] -= 1;
        }
    }
}
