//! The calibration's random effects: how far a group of rows (a topic, a run) strays from the
//! fit, and the spread of such effects beyond counting noise, by the method of moments.

/// The pseudo-count of a topic's correction: the relevant documents (observed and expected
/// alike) added to a topic's calibration rows before their ratio is taken, so that a topic with
/// few rows keeps nearly the collection-wide fit and one with many follows its own rate.
pub const TOPIC_PRIOR_RELEVANT: f64 = 1.0;

/// The log-odds correction of a topic whose calibration rows held `observed` relevant
/// documents where the collection-wide fit expected `expected`: the log of their ratio, each
/// with [`TOPIC_PRIOR_RELEVANT`] added. For the small probabilities of unjudged documents a
/// shift of the log-odds scales the probabilities by about that ratio, so the topic's expected
/// count moves toward its observed one; a topic where leaving a team out lost nothing gets
/// lower probabilities than the collection's average, one that lost much higher ones.
pub fn topic_offset(observed: usize, expected: f64) -> f64 {
    ((observed as f64 + TOPIC_PRIOR_RELEVANT) / (expected + TOPIC_PRIOR_RELEVANT)).ln()
}

/// One calibration run's relevant rows: how many were relevant, how many the fit expected (the
/// sum of the rows' probabilities), and the variance counting alone gives that number (the
/// sum of p(1 − p), the rows being independent Bernoulli draws given the fit).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct RunCount {
    /// The run's relevant rows.
    pub observed: usize,
    /// The fit's expected number of relevant rows.
    pub expected: f64,
    /// The variance of the relevant count given the fit.
    pub variance: f64,
}

/// The standard deviation of a run effect on the log-odds, by the method of moments: the mean
/// squared log-ratio of each run's observed to expected relevant rows (each plus
/// [`TOPIC_PRIOR_RELEVANT`]) less what counting noise alone gives that log-ratio, by the delta
/// method the count's variance over (expected + prior)². The count is a sum of Bernoulli rows,
/// so its variance is below its mean; taking the mean instead (a Poisson count) would
/// subtract more noise than there is and hide a real run effect.
pub fn run_effect_sd(counts: &[RunCount]) -> f64 {
    if counts.is_empty() {
        return 0.0;
    }
    let n = counts.len() as f64;
    let spread: f64 = counts
        .iter()
        .map(|c| topic_offset(c.observed, c.expected).powi(2))
        .sum::<f64>()
        / n;
    let noise: f64 = counts
        .iter()
        .map(|c| c.variance / (c.expected + TOPIC_PRIOR_RELEVANT).powi(2))
        .sum::<f64>()
        / n;
    (spread - noise).max(0.0).sqrt()
}

/// A run's score for a slope of its own in ln(rank), and the score's variance under counting
/// noise alone: with ln(rank) centred on the run's own (variance-weighted) mean, the sum of
/// (relevant − p) · ln(rank), and the sum of p(1 − p) · ln(rank)².
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SlopeScore {
    /// Σ (y − p) · (ln rank − the run's centre).
    pub score: f64,
    /// Σ p(1 − p) · (ln rank − the run's centre)².
    pub variance: f64,
}

/// The standard deviation of a run slope effect in ln(rank), by the method of moments: a run
/// whose slope is off by b has a score of about b times its variance on average, so the
/// scores' squares exceed their variances by about b² times the variance squared;
/// Σ (score² − variance) / Σ variance² estimates the slopes' variance.
pub fn run_slope_sd(scores: &[SlopeScore]) -> f64 {
    let excess: f64 = scores.iter().map(|s| s.score * s.score - s.variance).sum();
    let scale: f64 = scores.iter().map(|s| s.variance * s.variance).sum();
    if scale > 0.0 {
        (excess / scale).max(0.0).sqrt()
    } else {
        0.0
    }
}

/// Running sums of one calibration run's rows, for its intercept and slope effects.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct RunResiduals {
    observed: usize,
    expected: f64,
    /// Σ p(1 − p).
    weight: f64,
    /// Σ p(1 − p) · ln rank.
    weighted_log_rank: f64,
    /// Σ p(1 − p) · ln² rank.
    weighted_log_rank_squared: f64,
    /// Σ (y − p) · ln rank, so far over the rows' −p.
    residual_log_rank: f64,
}

impl RunResiduals {
    /// Adds a row of probability `p` at ln(rank) `log_rank`, as not relevant.
    pub(super) fn add(&mut self, p: f64, log_rank: f64) {
        let weight = p * (1.0 - p);
        self.expected += p;
        self.weight += weight;
        self.weighted_log_rank += weight * log_rank;
        self.weighted_log_rank_squared += weight * log_rank * log_rank;
        self.residual_log_rank -= p * log_rank;
    }

    /// Marks an added row at `log_rank` relevant.
    pub(super) fn observe(&mut self, log_rank: f64) {
        self.observed += 1;
        self.residual_log_rank += log_rank;
    }

    pub(super) fn count(&self) -> RunCount {
        RunCount {
            observed: self.observed,
            expected: self.expected,
            variance: self.weight,
        }
    }

    pub(super) fn slope_score(&self) -> SlopeScore {
        if self.weight <= 0.0 {
            return SlopeScore {
                score: 0.0,
                variance: 0.0,
            };
        }
        let centre = self.weighted_log_rank / self.weight;
        SlopeScore {
            score: self.residual_log_rank - centre * (self.observed as f64 - self.expected),
            variance: (self.weighted_log_rank_squared - centre * self.weighted_log_rank).max(0.0),
        }
    }
}

/// The variance-weighted mean ln(rank) over every run's rows.
pub(super) fn weighted_log_rank_center(runs: &[RunResiduals]) -> f64 {
    let weight: f64 = runs.iter().map(|r| r.weight).sum();
    if weight > 0.0 {
        runs.iter().map(|r| r.weighted_log_rank).sum::<f64>() / weight
    } else {
        0.0
    }
}
