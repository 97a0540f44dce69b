//! The calibration's random effects: how far a group of rows (a topic, a run) strays from the
//! fit, and the spread of such effects beyond counting noise, by the method of moments.

use rustc_hash::FxHashMap;

use crate::stats::log_odds::sigmoid;

/// `(16 √3 / (15 π))²`: in the normal approximation of the logistic curve, a random intercept
/// of variance σ² flattens a logistic model's log-odds by about `sqrt(1 + c² σ²)` (Zeger, Liang
/// & Albert, Biometrics 1988).
const LOGISTIC_ATTENUATION: f64 = 0.345_843;

/// The log-odds a document should have before a normal random effect of variance
/// `effect_variance` is added, given its `marginal` log-odds from a fit that saw the effect only
/// on average. The fit matches the sample's counts with the effects averaged out; adding a
/// spread to its log-odds would raise the mean of small probabilities (and lower that of large
/// ones), so the log-odds move away from 0 by the lesser of two corrections: the attenuation's
/// inverse, close near the middle, and σ²/2, exact in the tails, where the probability is
/// about `exp(log-odds)` and a normal effect multiplies its mean by `exp(σ²/2)`. Averaged over
/// the effect, the probability stays within 6% of the fit's (of `1 − p` above one half) for
/// σ up to 1 (a test; the worst case, 5.5%, is at σ = 1 where the two corrections meet, near
/// log-odds ±3.1, and the bound is 1.3% for σ up to 0.5).
pub fn conditional_log_odds(marginal: f64, effect_variance: f64) -> f64 {
    let stretch = marginal.abs() * ((1.0 + LOGISTIC_ATTENUATION * effect_variance).sqrt() - 1.0);
    marginal + stretch.min(effect_variance / 2.0).copysign(marginal)
}

/// A run's own log-odds effect in one Monte-Carlo sample (or one seed's completion), shared by
/// all its topics: a shift, and a slope in ln(rank) about the calibration's `log_rank_center`.
#[derive(Debug, Clone, Copy)]
pub struct RunEffect {
    shift: f64,
    slope: f64,
    /// The standard deviations `shift` and `slope` were drawn with.
    shift_sd: f64,
    slope_sd: f64,
}

impl RunEffect {
    /// A run effect with the given standard deviations, drawn from `standard_normal`: the
    /// shift first, then the slope.
    pub fn draw(shift_sd: f64, slope_sd: f64, standard_normal: &mut impl FnMut() -> f64) -> Self {
        let shift = shift_sd * standard_normal();
        let slope = slope_sd * standard_normal();
        Self {
            shift,
            slope,
            shift_sd,
            slope_sd,
        }
    }

    /// The log-odds of a document whose calibrated (marginal) log-odds are `marginal`, at
    /// `tilt` from the slope's centre, with this effect added. The document's mean probability
    /// is kept at the fit's over the run's effects and its effect on the topic (standard
    /// deviation `run_topic_sd`, drawn with the topic's effect by the caller).
    pub fn log_odds(&self, marginal: f64, tilt: f64, run_topic_sd: f64) -> f64 {
        let variance =
            self.shift_sd.powi(2) + (self.slope_sd * tilt).powi(2) + run_topic_sd.powi(2);
        conditional_log_odds(marginal, variance) + self.shift + self.slope * tilt
    }
}

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

/// The standard deviation of a run's effect on one topic beyond its effect on all (`run_sd`),
/// by the method of moments on each calibration (run, topic) cell's relevant count: a cell whose
/// log-odds are off by u has about u times its variance more relevant rows than the fit
/// expects, so Σ ((observed − expected)² − variance) / Σ variance² estimates the cells' total
/// variance, of which the run effect's is taken out.
pub fn cell_effect_sd(cells: &[RunCount], run_sd: f64) -> f64 {
    let excess: f64 = cells
        .iter()
        .map(|c| (c.observed as f64 - c.expected).powi(2) - c.variance)
        .sum();
    let scale: f64 = cells.iter().map(|c| c.variance * c.variance).sum();
    if scale > 0.0 {
        (excess / scale - run_sd * run_sd).max(0.0).sqrt()
    } else {
        0.0
    }
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

/// One calibration row as the effects see it.
#[derive(Debug, Clone, Copy)]
pub(super) struct EffectRow {
    /// The row's topic and run, numbered as the collection's.
    pub(super) topic: usize,
    pub(super) run: usize,
    /// ln(rank) of the document in the run.
    pub(super) log_rank: f64,
    /// The fit's log-odds and probability, before the topic's correction.
    pub(super) log_odds: f64,
    pub(super) probability: f64,
    pub(super) is_relevant: bool,
    /// How often the row counts (its team's draws in a bootstrap replicate; 1 for the sample).
    pub(super) copies: usize,
}

/// What a fit leaves unexplained in the calibration sample: per topic, the correction toward
/// the topic's own rate and its relevant rows; and the runs' effects beyond counting noise.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct SampleEffects {
    pub(super) topic_offsets: Vec<f64>,
    pub(super) topic_relevant: Vec<usize>,
    pub(super) run_sd: f64,
    pub(super) run_log_rank_sd: f64,
    pub(super) run_topic_sd: f64,
    pub(super) log_rank_center: f64,
}

/// The effects (see [`SampleEffects`]) of a fit on `rows`, each counted `copies` times. A
/// bootstrap replicate's effects are measured on its own rows against its own fit, as the
/// point fit's are on the sample, so that their spread across replicates is the uncertainty of
/// the estimated effects themselves: a sample of few teams that shows no run effect may still
/// hide one.
pub(super) fn sample_effects(
    rows: &[EffectRow],
    topic_count: usize,
    run_count: usize,
) -> SampleEffects {
    let rows = || rows.iter().filter(|row| row.copies > 0);
    let mut observed = vec![0usize; topic_count];
    let mut expected = vec![0.0f64; topic_count];
    for row in rows() {
        observed[row.topic] += usize::from(row.is_relevant) * row.copies;
        expected[row.topic] += row.copies as f64 * row.probability;
    }
    let topic_offsets: Vec<f64> = (observed.iter().zip(&expected))
        .map(|(&o, &e)| topic_offset(o, e))
        .collect();
    // Each run's and each (run, topic) cell's relevant rows against what the fit, topic
    // corrections included, expects; a run counts as often as its team was drawn.
    let mut runs: Vec<Option<(RunResiduals, usize)>> = vec![None; run_count];
    let mut cells: FxHashMap<(usize, usize), (RunCount, usize)> = FxHashMap::default();
    for row in rows() {
        let probability = sigmoid(topic_offsets[row.topic] + row.log_odds);
        let (run, _) = runs[row.run].get_or_insert((RunResiduals::default(), row.copies));
        run.add(probability, row.log_rank);
        let (cell, _) =
            (cells.entry((row.run, row.topic))).or_insert((RunCount::default(), row.copies));
        cell.expected += probability;
        cell.variance += probability * (1.0 - probability);
        if row.is_relevant {
            run.observe(row.log_rank);
            cell.observed += 1;
        }
    }
    let runs: Vec<RunResiduals> = (runs.into_iter().flatten())
        .flat_map(|(run, copies)| std::iter::repeat_n(run, copies))
        .collect();
    let cells: Vec<RunCount> = (cells.into_values())
        .flat_map(|(cell, copies)| std::iter::repeat_n(cell, copies))
        .collect();
    let counts: Vec<RunCount> = runs.iter().map(RunResiduals::count).collect();
    let slopes: Vec<SlopeScore> = runs.iter().map(RunResiduals::slope_score).collect();
    let run_sd = run_effect_sd(&counts);
    SampleEffects {
        topic_offsets,
        topic_relevant: observed,
        run_sd,
        run_log_rank_sd: run_slope_sd(&slopes),
        run_topic_sd: cell_effect_sd(&cells, run_sd),
        log_rank_center: weighted_log_rank_center(&runs),
    }
}
