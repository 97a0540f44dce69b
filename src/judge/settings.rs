//! How the judge works: the learner, the schedule, where candidates come from, what a leave-out
//! trial withholds, and which grades train as positive. Validated once by [`JudgeSettings::check`].

use crate::base::choice::choice_enum;
use crate::base::error::Result;
use crate::base::Grade;
use crate::collection::CandidateSource;
use crate::judge::pegasos::GramPrecision;
use crate::judge::schedule::Schedule;

/// The number of presumed non-relevant documents drawn afresh for every retrain (HiCAL's).
pub const RANDOM_NEGATIVES: usize = 100;

/// The lowest grade HiCAL trains as positive: its simulation oracle and HiCALWeb (which NIST
/// used) send every grade > 0 as relevant.
pub const HICAL_TRAIN_LEVEL: Grade = 1;

choice_enum! {
    /// The learner the judge retrains.
    pub enum LearnerChoice {
        /// HiCAL's logistic Pegasos in a pairwise ROC loop.
        Pegasos = "pegasos",
        /// L2-regularised logistic regression (argmin's L-BFGS on linfa-logistic's objective),
        /// for dense run features.
        Logistic = "logistic",
    }
}

choice_enum! {
    /// What a trial that leaves a team out withholds besides the team's runs.
    pub enum Withhold {
        /// Nothing: the judge may still find the team's documents by their text or through
        /// other runs (had the team never taken part, HiCAL could still have judged them).
        None = "none",
        /// Also the team's unique relevant documents, from the simulated assessor (see
        /// [`crate::collection::UniqueRule::withheld`]): nobody ever finds them.
        Uniques = "uniques",
    }
}

choice_enum! {
    /// What the judge does with the carried judgments: the official judgments of documents
    /// outside the candidates, kept in the simulated qrels unchanged.
    pub enum Carried {
        /// They join the training set from the first retrain and count toward BMI's judged
        /// total, as everything NIST's judge judged did.
        Train = "train",
        /// They never train the model and BMI does not count them.
        Ignore = "ignore",
    }
}

/// What a leave-out trial withholds unless told otherwise: the team's unique relevant
/// documents, as the analysis the study reproduces removes them.
pub const DEFAULT_WITHHOLD: Withhold = Withhold::Uniques;

/// What the judge does with carried judgments unless told otherwise: they do not train it.
/// Training on them lowers the control's recall of the relevant documents the judge could find
/// and moves its ranking away from the official and the true ones (measured in the README):
/// NIST's judge met them one at a time while it judged, not all before its first retrain.
pub const DEFAULT_CARRIED: Carried = Carried::Ignore;

/// How one judging run is done.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct JudgeSettings {
    /// The trial seed (set per trial by a study; reported as the study's list of seeds).
    #[serde(skip)]
    pub seed: u64,
    /// The learner.
    pub learner: LearnerChoice,
    /// Pegasos iterations per retrain.
    pub iterations: usize,
    /// The precision of the Pegasos Gram matrix.
    pub precision: GramPrecision,
    /// The batch schedule.
    pub schedule: Schedule,
    /// Where candidates come from.
    pub candidates: CandidateSource,
    /// The pool depth (top k of every pooled run, in pooling order).
    pub pool_depth: usize,
    /// Presumed non-relevant documents per retrain.
    pub random_negatives: usize,
    /// A judged grade >= this trains as positive (separate from the evaluation's level).
    pub train_level: Grade,
    /// What a leave-out trial withholds from the simulated assessor.
    pub withhold: Withhold,
    /// With [`Withhold::Uniques`]: how deep into every run, in NIST's pooling order, a document
    /// counts as retrieved (`None`: at any depth).
    pub unique_depth: Option<usize>,
    /// Whether carried judgments train the judge.
    pub carried: Carried,
}

impl JudgeSettings {
    /// HiCAL's settings as TREC DL ran them, with candidates from the runs and the given pool
    /// depth: Pegasos with 200,000 iterations (f32 Gram rows, as close to exact as HiCAL's own
    /// f32 arithmetic), BMI batches, 100 random negatives, grade >= 1 trains positive, seed 0;
    /// a leave-out trial withholds [`DEFAULT_WITHHOLD`] and carried judgments are
    /// [`DEFAULT_CARRIED`].
    pub fn hical(pool_depth: usize) -> Self {
        Self {
            seed: 0,
            learner: LearnerChoice::Pegasos,
            iterations: crate::judge::pegasos::DEFAULT_ITERATIONS,
            precision: GramPrecision::F32,
            schedule: Schedule::Bmi,
            candidates: CandidateSource::Retrieved,
            pool_depth,
            random_negatives: RANDOM_NEGATIVES,
            train_level: HICAL_TRAIN_LEVEL,
            withhold: DEFAULT_WITHHOLD,
            unique_depth: None,
            carried: DEFAULT_CARRIED,
        }
    }

    /// Checks the settings once, before any judging.
    ///
    /// # Errors
    /// [`crate::base::error::Error::Invalid`] for zero iterations, a training level below 1, or a unique
    /// depth of 0.
    pub fn check(self) -> Result<Self> {
        if self.iterations == 0 {
            return Err(crate::base::error::Error::Invalid(
                "the learner needs at least 1 iteration per retrain, found 0".into(),
            ));
        }
        if self.train_level < 1 {
            return Err(crate::base::error::Error::Invalid(format!(
                "the training level must be at least 1 (grade 0 is non-relevant), found {}",
                self.train_level
            )));
        }
        if self.unique_depth == Some(0) {
            return Err(crate::base::error::Error::Invalid(
                "the unique depth must be at least 1, found 0".into(),
            ));
        }
        Ok(self)
    }
}
