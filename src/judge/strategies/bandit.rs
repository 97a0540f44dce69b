//! `bandit`: MM-NS, the non-stationary MaxMean bandit of Losada, Parapar & Barreiro
//! ("Multi-armed bandits for adjudicating documents in pooling-based evaluation of information
//! retrieval systems", IP&M 2017; SIGIR/SAC 2016). Each run is an arm; pulling it judges its
//! next unjudged document, a reward of 1 when relevant. MaxMean pulls the arm whose posterior
//! mean relevance under a uniform Beta(1, 1) prior, (relevant + 1) / (judged + 2), is highest.
//! The non-stationary form lets an arm's old outcomes fade, because a run's relevance rate
//! falls as its ranking is read deeper: before each new outcome of an arm its relevant and
//! non-relevant counts are multiplied by [`DISCOUNT`]. Ties go to the first arm in run order.

use super::run_chooser::{OpenRun, RunChooser};

/// The factor an arm's counts are multiplied by before each of its new outcomes.
pub const DISCOUNT: f64 = 0.9;

/// Per arm, its discounted counts of relevant and non-relevant documents.
#[derive(Debug, Clone, PartialEq)]
pub struct MaxMeanNonStationary {
    /// `relevant[arm]`: the discounted number of relevant documents judged from the arm.
    pub relevant: Vec<f64>,
    /// `non_relevant[arm]`: the discounted number of non-relevant ones.
    pub non_relevant: Vec<f64>,
}

impl MaxMeanNonStationary {
    /// `arms` arms with no outcome yet (each at mean 1/2).
    pub fn new(arms: usize) -> Self {
        Self {
            relevant: vec![0.0; arms],
            non_relevant: vec![0.0; arms],
        }
    }

    /// The arm's posterior mean relevance: (relevant + 1) / (relevant + non-relevant + 2).
    pub fn mean(&self, arm: usize) -> f64 {
        (self.relevant[arm] + 1.0) / (self.relevant[arm] + self.non_relevant[arm] + 2.0)
    }
}

impl RunChooser for MaxMeanNonStationary {
    fn choose(&self, open: &[OpenRun]) -> usize {
        let mut best = 0;
        for (pos, run) in open.iter().enumerate().skip(1) {
            // Strictly greater: on a tie the earlier arm stays.
            if self.mean(run.arm) > self.mean(open[best].arm) {
                best = pos;
            }
        }
        best
    }

    fn observe(&mut self, arm: usize, is_relevant: bool) {
        self.relevant[arm] = DISCOUNT * self.relevant[arm] + f64::from(u8::from(is_relevant));
        self.non_relevant[arm] =
            DISCOUNT * self.non_relevant[arm] + f64::from(u8::from(!is_relevant));
    }
}
