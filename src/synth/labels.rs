//! An LLM-like labeller whose quality is known (see docs/synth.md#the-labeller): labels drawn
//! from the truth through a stated confusion table, with a leniency and a per-topic effect on
//! an ordinal latent scale.
//!
//! **The model.** A confusion table gives, for each true grade `g` (0 to 3), the probability
//! `P(label = k | g)` of each label grade `k` (0 to 3). With `C_gk` the row's cumulative share
//! `P(label <= k | g)`, the label is ordinal on a logistic latent scale (the proportional-odds
//! model): `P(label <= k | g, shift) = logistic(logit(C_gk) - shift)`, where `shift` is the
//! labeller's leniency plus the topic's effect. A shift of 0 gives the table exactly; a shift of
//! +1 multiplies the odds of "label > k" by e for every true grade and every k, so the whole
//! table moves towards higher labels together. The topic's effect is normal, mean 0, with the
//! labeller's `topic_sd`, drawn once per topic.
//!
//! **The draw.** A document's label is the number of thresholds `k` in 0..=2 with
//! `u >= P(label <= k | g, shift)`, where `u` is its first uniform keyed by (the labels' seed,
//! topic, document) ([`crate::base::seed::document_uniforms`]): a document's label depends on
//! the seed, its topic, its own true grade and the topic's effect, never on which other
//! documents are labelled, on their order, or on threads. A document the truth does not grade
//! has true grade 0; grades above 3 count as 3, below 0 as 0.

use std::collections::{BTreeMap, BTreeSet};

use crate::base::error::{Error, Result};
use crate::base::seed::{document_uniforms, keyed_seed};
use crate::base::Grade;
use crate::io::confusion::{ConfusionWeights, CONFUSION_GRADES};
use crate::io::qrels::{Qrels, TopicQrels};
use crate::io::run::Run;
use crate::relevance_model::model::MODEL_DEPTH;
use crate::synth::keys::gaussian;

/// How deep into each run the labels go by default: the audit's reach (its `AUDIT_DEPTH`, the
/// relevance model's depth), so that every document an audit of the runs weighs has a label.
pub const LABEL_DEPTH: usize = MODEL_DEPTH;

/// UMBRELA's GPT-4 grades (columns, 0 to 3) against NIST's (rows, 0 to 3) on TREC DL 2019,
/// 2020 and 2021 (passages), counted over the 31,474 pairs both graded
/// (`scripts/umbrela-confusion.py`). Row shares:
///
/// | NIST | pairs | UMBRELA 0 | 1 | 2 | 3 |
/// |---|---:|---:|---:|---:|---:|
/// | 0 | 17,276 | 0.654 | 0.238 | 0.088 | 0.020 |
/// | 1 | 6,604 | 0.146 | 0.421 | 0.311 | 0.121 |
/// | 2 | 5,165 | 0.039 | 0.245 | 0.456 | 0.260 |
/// | 3 | 2,429 | 0.080 | 0.103 | 0.325 | 0.492 |
pub const UMBRELA_GPT4_COUNTS: [[u32; CONFUSION_GRADES]; CONFUSION_GRADES] = [
    [11293, 4108, 1522, 353],
    [965, 2781, 2056, 802],
    [200, 1265, 2356, 1344],
    [194, 250, 790, 1195],
];

/// The seed key of the labels' per-document uniforms: their own stream, apart from the
/// completed assessor's and the world's, which use the same seed.
const LABEL_STREAM: &str = "labels";
/// The seed key of the topics' effects.
const TOPIC_EFFECT_STREAM: &str = "label topic effects";

/// A confusion table: for each true grade (row), the weight of each label grade (column).
/// Rows need not sum to 1: each is scaled by its own sum.
#[derive(Debug, Clone, PartialEq)]
pub struct Confusion {
    weights: ConfusionWeights,
}

impl Confusion {
    /// A table of `weights[true grade][label grade]` (counts or probabilities).
    ///
    /// # Errors
    /// [`Error::Invalid`] when a weight is not a finite number >= 0 or a row sums to 0 (or
    /// overflows).
    pub fn new(weights: ConfusionWeights) -> Result<Self> {
        for (truth, row) in weights.iter().enumerate() {
            if let Some(weight) = row.iter().find(|w| !w.is_finite() || **w < 0.0) {
                return Err(Error::Invalid(format!(
                    "confusion table: expected finite weights >= 0, found {weight} in the row \
                     of true grade {truth}"
                )));
            }
            let sum: f64 = row.iter().sum();
            if sum <= 0.0 || !sum.is_finite() {
                return Err(Error::Invalid(format!(
                    "confusion table: expected the row of true grade {truth} to sum to more \
                     than 0 and less than infinity, found {sum}"
                )));
            }
        }
        Ok(Self { weights })
    }

    /// UMBRELA's GPT-4 against NIST on TREC DL 2019-2021 ([`UMBRELA_GPT4_COUNTS`]).
    pub fn umbrela_gpt4() -> Self {
        Self {
            weights: UMBRELA_GPT4_COUNTS.map(|row| row.map(f64::from)),
        }
    }

    /// The table's weights, as given.
    pub fn weights(&self) -> &ConfusionWeights {
        &self.weights
    }

    /// `P(label = k | truth)` for k = 0 to 3: the row of `truth` (clamped to 0..=3) scaled to
    /// sum to 1.
    pub fn shares(&self, truth: Grade) -> [f64; CONFUSION_GRADES] {
        let row = &self.weights[row_of(truth)];
        let total: f64 = row.iter().sum();
        row.map(|weight| weight / total)
    }
}

impl Default for Confusion {
    fn default() -> Self {
        Self::umbrela_gpt4()
    }
}

/// The row of a true grade: grades above 3 count as 3, below 0 (and unjudged) as 0.
fn row_of(truth: Grade) -> usize {
    truth.clamp(0, CONFUSION_GRADES as Grade - 1) as usize
}

/// A labeller: a confusion table, a leniency and the spread of the topics' effects, both on
/// the latent logistic scale (see the module's documentation).
#[derive(Debug, Clone, PartialEq)]
pub struct Labeller {
    /// `P(label | true grade)` at leniency 0 and no topic effect.
    pub confusion: Confusion,
    /// The shift of every document's latent position, in logits: +1 multiplies the odds of
    /// every "label above k" by e (a more lenient labeller), -1 divides them by e.
    pub leniency: f64,
    /// The standard deviation of the topics' effects, in logits: each topic's documents share
    /// one shift drawn from the normal law with mean 0 and this deviation.
    pub topic_sd: f64,
}

impl Default for Labeller {
    /// The UMBRELA table, no leniency, no topic effect.
    fn default() -> Self {
        Self {
            confusion: Confusion::default(),
            leniency: 0.0,
            topic_sd: 0.0,
        }
    }
}

impl Labeller {
    /// Checks the settings.
    ///
    /// # Errors
    /// [`Error::Invalid`] when the leniency is not finite or `topic_sd` is not a finite number
    /// >= 0.
    pub fn check(&self) -> Result<()> {
        if !self.leniency.is_finite() {
            return Err(Error::Invalid(format!(
                "expected a finite label leniency, found {}",
                self.leniency
            )));
        }
        if !self.topic_sd.is_finite() || self.topic_sd < 0.0 {
            return Err(Error::Invalid(format!(
                "expected a label topic sd that is a finite number >= 0, found {}",
                self.topic_sd
            )));
        }
        Ok(())
    }

    /// The effect of `topic` on the latent scale under `seed`: `topic_sd` times a standard
    /// normal keyed by (seed, topic).
    pub fn topic_effect(&self, seed: u64, topic: &str) -> f64 {
        if self.topic_sd == 0.0 {
            return 0.0;
        }
        let key = keyed_seed(keyed_seed(seed, TOPIC_EFFECT_STREAM), topic);
        self.topic_sd * gaussian(key)
    }

    /// `P(label <= k | truth, shift)` for k = 0 to 2 (k = 3 is certain): the row's cumulative
    /// odds divided by `e^shift`, `C / (C + (1 - C) e^shift)`, computed from the row's weights
    /// so that a cell of weight 0 is never drawn.
    fn cumulative(&self, truth: Grade, shift: f64) -> [f64; CONFUSION_GRADES - 1] {
        let row = &self.confusion.weights[row_of(truth)];
        let scale = shift.exp();
        std::array::from_fn(|k| {
            let below: f64 = row[..=k].iter().sum();
            let above: f64 = row[k + 1..].iter().sum();
            if above == 0.0 {
                1.0
            } else {
                below / (below + above * scale)
            }
        })
    }

    /// `P(label = k | truth, shift)` for k = 0 to 3, where `shift` is the leniency plus the
    /// topic's effect.
    pub fn label_shares(&self, truth: Grade, shift: f64) -> [f64; CONFUSION_GRADES] {
        let cumulative = self.cumulative(truth, shift);
        std::array::from_fn(|k| {
            let upper = cumulative.get(k).copied().unwrap_or(1.0);
            let lower = if k == 0 { 0.0 } else { cumulative[k - 1] };
            upper - lower
        })
    }

    /// The label of one document whose uniform is `uniform` (in [0, 1)), of true grade `truth`,
    /// under a total `shift`.
    fn label(&self, truth: Grade, shift: f64, uniform: f64) -> Grade {
        let cumulative = self.cumulative(truth, shift);
        cumulative.iter().filter(|&&c| uniform >= c).count() as Grade
    }

    /// Labels `documents`, (topic, document id) pairs (repeats are labelled once), given the
    /// complete truth `truth` (a document it does not grade has true grade 0): the labels as
    /// qrels, topics and documents in byte order when written.
    ///
    /// # Errors
    /// [`Error::Invalid`] as [`Labeller::check`].
    pub fn draw<'d>(
        &self,
        seed: u64,
        truth: &Qrels,
        documents: impl IntoIterator<Item = (&'d str, &'d str)>,
    ) -> Result<Qrels> {
        self.check()?;
        let label_seed = keyed_seed(seed, LABEL_STREAM);
        let mut shifts: BTreeMap<&str, f64> = BTreeMap::new();
        let mut labels = Qrels::default();
        for (topic, docid) in documents {
            let shift = *shifts
                .entry(topic)
                .or_insert_with(|| self.leniency + self.topic_effect(seed, topic));
            let true_grade = (truth.topic(topic))
                .and_then(|grades| grades.grade(docid))
                .unwrap_or(0);
            let uniform = document_uniforms(label_seed, topic, docid)[0];
            (labels.topics.entry(topic.into()))
                .or_insert_with(TopicQrels::default)
                .insert(docid, self.label(true_grade, shift, uniform));
        }
        Ok(labels)
    }
}

/// The documents of every run's top `depth` for each topic: (topic, document id) pairs in
/// topic then document byte order, each once.
pub fn run_tops(runs: &[Run], depth: usize) -> BTreeSet<(&str, &str)> {
    (runs.iter())
        .flat_map(|run| run.topics.iter())
        .flat_map(|ranking| {
            (ranking.docs.iter().take(depth)).map(|doc| (&*ranking.topic, &*doc.docid))
        })
        .collect()
}

#[cfg(test)]
#[path = "labels_tests.rs"]
mod tests;
