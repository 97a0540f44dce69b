//! What describes a measure family: the families, their cutoff and parameter rules, how their
//! topics are summarised, and the shape of a registry entry. The entries themselves are the
//! registry's table.

use crate::eval::measures::contract::MeasureFn;

/// A measure family: one formula, possibly taking a cutoff or parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Family {
    /// Topics evaluated (`num_q`).
    Topics,
    /// Retrieved documents (`num_ret`).
    Retrieved,
    /// Relevant documents (`num_rel`).
    Relevant,
    /// Relevant retrieved documents (`num_rel_ret`).
    RelevantRetrieved,
    /// Average precision (`map`, `map_cut_k`, `AP`).
    AveragePrecision,
    /// Average precision, geometric mean over topics (`gm_map`).
    GeometricAveragePrecision,
    /// R-precision (`Rprec`).
    RPrecision,
    /// bpref (`bpref`, `Bpref`).
    Bpref,
    /// Reciprocal rank (`recip_rank`, `RR`, `RR@k`).
    ReciprocalRank,
    /// Interpolated precision at recall levels (`iprec_at_recall_0.10`).
    InterpolatedPrecision,
    /// Precision at k (`P_k`, `P@k`).
    Precision,
    /// Recall (`recall_k`, `R@k`).
    Recall,
    /// Inferred average precision (`infAP`).
    InferredAveragePrecision,
    /// bpref, geometric mean over topics (`gm_bpref`).
    GeometricBpref,
    /// Precision at multiples of R (`Rprec_mult_0.20`).
    RPrecisionMultiple,
    /// Set utility (`utility`).
    Utility,
    /// Interpolated precision averaged over recall levels (`11pt_avg`).
    ElevenPointAverage,
    /// Binary G (`binG`).
    BinaryG,
    /// Normalised gain (`G`).
    G,
    /// nDCG (`ndcg`, `ndcg_cut_k`, `nDCG@k`).
    Ndcg,
    /// nDCG averaged over the relevant documents (`ndcg_rel`).
    NdcgOverRelevant,
    /// nDCG averaged at the R of each grade (`Rndcg`).
    NdcgAtGradeR,
    /// Relative precision at k (`relative_P_k`).
    RelativePrecision,
    /// Success at k (`success_k`, `Success@k`).
    Success,
    /// Set precision (`set_P`).
    SetPrecision,
    /// Set precision over its best possible value (`set_relative_P`).
    SetRelativePrecision,
    /// Set recall (`set_recall`).
    SetRecall,
    /// Set precision × set recall (`set_map`).
    SetAveragePrecision,
    /// Set F measure (`set_F`).
    SetF,
    /// Judged non-relevant retrieved documents (`num_nonrel_judged_ret`).
    NonrelevantJudgedRetrieved,
    /// trec_eval's rank-biased precision, graded, p = 0.9 (`rbp`).
    GradedRbp,
    /// trec_eval's RBP residual (`rbp_resid`).
    GradedRbpResidual,
    /// Unjudged fraction at k (`unj_k`, trec_eval 10).
    Unjudged,
    /// Judged fraction at k (`judged_k`, `Judged@k`).
    Judged,
    /// Normalised cumulative gain at k (`ncg_cut_k`, `NCG@k`).
    Ncg,
    /// Rank-biased precision (`RBP(p=0.8)`, `RBP(rel=1,p=0.8)@10`).
    Rbp,
    /// RBP's residual: how much RBP could rise were every unjudged document relevant
    /// (`RBPResidual(p=0.8)`).
    RbpResidual,
    /// Expected reciprocal rank at k (`ERR@k`).
    Err,
    /// Relevant retrieved documents, averaged over topics (ranx's `hits`, `hits@k`).
    Hits,
    /// F1 at k, precision dividing by k (ranx's `f1@k`).
    F1,
    /// DCG, grades as gains (ranx's `dcg@k`).
    Dcg,
    /// DCG, 2^grade − 1 as gains (ranx's `dcg_burges@k`).
    DcgBurges,
    /// nDCG, 2^grade − 1 as gains (ranx's `ndcg_burges@k`).
    NdcgBurges,
}

/// Whether a family takes a cutoff.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CutoffRule {
    /// Never.
    Forbidden,
    /// With or without.
    Optional,
    /// Always: a bare trec_eval name expands to the default cutoffs.
    Required,
}

/// The parameters a family takes besides a cutoff, `rel=N` and `judged_only`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ParamRule {
    /// None.
    None,
    /// RBP's persistence, ir_measures' `RBP(p=0.8)`.
    Persistence,
    /// One value per level, after trec_eval's dot (`iprec_at_recall..25,.5`); a bare name
    /// expands to these default levels.
    Levels(&'static [f64]),
    /// A list of numbers after the dot (`utility.2,-1,0,0`): exactly `count` of them, or any
    /// number when `None`.
    Numbers {
        /// How many.
        count: Option<usize>,
    },
    /// `name=value` pairs after the dot: gains per grade (`ndcg.1=3,2=9`) and `p` (`rbp.p=0.95`).
    Pairs,
}

/// How a family's per-topic values become the run's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Summary {
    /// The arithmetic mean over topics.
    Mean,
    /// The sum over topics, printed as a whole number.
    Sum,
    /// exp of the mean of the per-topic values, which are logarithms (trec_eval's `gm_`).
    GeometricMean,
    /// The number of topics.
    TopicCount,
}

/// Everything known about a family.
#[derive(Debug, Clone, Copy)]
pub struct FamilyInfo {
    /// The family.
    pub family: Family,
    /// trec_eval's name without a cutoff (`map`, `ndcg`); empty when a cutoff or level is
    /// required or trec_eval lacks the measure (the ir_measures name is then the canonical one).
    pub trec_name: &'static str,
    /// trec_eval's root before `_k` or `.k,k` (`map_cut`, `ndcg_cut`, `P`, `iprec_at_recall`);
    /// empty without cutoffs or levels, or when trec_eval lacks the measure.
    pub trec_cut_name: &'static str,
    /// ir_measures' name (`AP`, `nDCG`, `P`), or trec_eval's where ir_measures lacks the measure.
    pub ir_name: &'static str,
    /// Cutoff rule.
    pub cutoff: CutoffRule,
    /// The cutoffs a bare trec_eval root expands to (trec_eval's defaults).
    pub default_cutoffs: &'static [usize],
    /// The parameters taken.
    pub params: ParamRule,
    /// How topics are summarised.
    pub summary: Summary,
    /// Whether trec_eval prints the per-topic values (`-q`).
    pub printed_per_topic: bool,
    /// Whether the relevance level changes the value.
    pub uses_relevance_level: bool,
    /// The per-topic function.
    pub compute: MeasureFn,
    /// One line of help.
    pub description: &'static str,
}

impl FamilyInfo {
    /// Whether trec_eval has the measure: its names are then the canonical ones.
    pub fn has_trec_name(&self) -> bool {
        !self.trec_name.is_empty() || !self.trec_cut_name.is_empty()
    }

    /// Whether the family takes RBP's persistence `p`.
    pub fn takes_persistence(&self) -> bool {
        self.params == ParamRule::Persistence
    }

    /// Whether the summary is a sum, printed as a whole number.
    pub fn is_count(&self) -> bool {
        matches!(self.summary, Summary::Sum | Summary::TopicCount)
    }
}
