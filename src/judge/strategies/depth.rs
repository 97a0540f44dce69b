//! `depth`: the depth-k pool of the trial's pooled runs, deepened one depth at a time until
//! the budget is met. Depth d judges each run's document at rank d (in NIST's pooling order,
//! ties by docno ascending) that no shallower depth or earlier run judged, runs in the task's
//! run order; a budget met within a depth cuts that depth there.

use super::run_chooser::{OpenRun, RunChooser};

/// Depth first: the run whose next unjudged document is shallowest, the first such run in run
/// order on a tie. Judging each run's next unjudged document this way is judging the pool
/// depth by depth, since no run's next document is shallower than the depth being judged.
#[derive(Debug, Clone, Copy, Default)]
pub struct DepthFirst;

impl RunChooser for DepthFirst {
    fn choose(&self, open: &[OpenRun]) -> usize {
        open.iter()
            .enumerate()
            .min_by_key(|(_, run)| (run.next_rank, run.arm))
            .map(|(pos, _)| pos)
            .expect("a run to choose from")
    }

    fn observe(&mut self, _arm: usize, _is_relevant: bool) {}
}
