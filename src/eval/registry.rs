//! The one table of measure families: names in both spellings, cutoff and parameter rules,
//! default cutoffs, how topics are summarised, the function that computes it, and its help
//! text. A new measure is one entry here plus its file in `measures/`. The table lists
//! trec_eval's families in the order of its own (`measures.c`), `map_cut` and `ndcg_cut` at
//! their families' place, then those trec_eval lacks: `reusesim measures` lists them so.
//! `reusesim eval` prints in trec_eval's output order instead,
//! [`TREC_ORDER`](crate::eval::trec_names::TREC_ORDER).

use crate::eval::family::{CutoffRule, Family, FamilyInfo, ParamRule, Summary};
use crate::eval::measures::{
    ap, bpref, counts, err, f1, infap, interpolated, judged, ncg, ndcg, other_gain_measures,
    precision, ranx_dcg, rbp, recall, rr, set,
};

const TREC_CUTOFFS: &[usize] = &[5, 10, 15, 20, 30, 100, 200, 500, 1000];
const UNJUDGED_CUTOFFS: &[usize] = &[5, 10, 20];
const SUCCESS_CUTOFFS: &[usize] = &[1, 5, 10];
const RECALL_LEVELS: &[f64] = &[0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0];
const R_MULTIPLES: &[f64] = &[0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0];

/// The common shape: a mean over topics of a binary measure without cutoff or parameters.
const PLAIN: FamilyInfo = FamilyInfo {
    family: Family::Topics,
    trec_name: "",
    trec_cut_name: "",
    ir_name: "",
    cutoff: CutoffRule::Forbidden,
    default_cutoffs: &[],
    params: ParamRule::None,
    summary: Summary::Mean,
    printed_per_topic: true,
    uses_relevance_level: true,
    compute: counts::one,
    description: "",
};

/// Every family, in trec_eval's order, then those trec_eval lacks.
pub const FAMILIES: &[FamilyInfo] = &[
    FamilyInfo {
        family: Family::Topics,
        trec_name: "num_q",
        ir_name: "num_q",
        summary: Summary::TopicCount,
        printed_per_topic: false,
        uses_relevance_level: false,
        compute: counts::one,
        description: "number of topics evaluated",
        ..PLAIN
    },
    FamilyInfo {
        family: Family::Retrieved,
        trec_name: "num_ret",
        ir_name: "NumRet",
        summary: Summary::Sum,
        uses_relevance_level: false,
        compute: counts::retrieved,
        description: "number of retrieved documents (summed over topics)",
        ..PLAIN
    },
    FamilyInfo {
        family: Family::Relevant,
        trec_name: "num_rel",
        ir_name: "NumRel",
        summary: Summary::Sum,
        compute: counts::relevant,
        description: "number of relevant documents (summed over topics)",
        ..PLAIN
    },
    FamilyInfo {
        family: Family::RelevantRetrieved,
        trec_name: "num_rel_ret",
        ir_name: "NumRelRet",
        summary: Summary::Sum,
        compute: counts::relevant_retrieved,
        description: "number of relevant retrieved documents (summed over topics)",
        ..PLAIN
    },
    FamilyInfo {
        family: Family::AveragePrecision,
        trec_name: "map",
        trec_cut_name: "map_cut",
        ir_name: "AP",
        cutoff: CutoffRule::Optional,
        default_cutoffs: TREC_CUTOFFS,
        compute: ap::average_precision,
        description: "mean average precision (with a cutoff: only the top k count)",
        ..PLAIN
    },
    FamilyInfo {
        family: Family::GeometricAveragePrecision,
        trec_name: "gm_map",
        ir_name: "gm_map",
        summary: Summary::GeometricMean,
        printed_per_topic: false,
        compute: ap::log_average_precision,
        description: "geometric mean of average precision (per topic: ln max(AP, 0.00001))",
        ..PLAIN
    },
    FamilyInfo {
        family: Family::RPrecision,
        trec_name: "Rprec",
        ir_name: "Rprec",
        compute: precision::r_precision,
        description: "precision at rank R, R the number of relevant documents",
        ..PLAIN
    },
    FamilyInfo {
        family: Family::Bpref,
        trec_name: "bpref",
        ir_name: "Bpref",
        compute: bpref::bpref,
        description: "binary preference over judged documents (Buckley and Voorhees 2004)",
        ..PLAIN
    },
    FamilyInfo {
        family: Family::ReciprocalRank,
        trec_name: "recip_rank",
        trec_cut_name: "recip_rank",
        ir_name: "RR",
        cutoff: CutoffRule::Optional,
        compute: rr::reciprocal_rank,
        description: "reciprocal rank of the first relevant document (within the top k)",
        ..PLAIN
    },
    FamilyInfo {
        family: Family::InterpolatedPrecision,
        trec_cut_name: "iprec_at_recall",
        ir_name: "IPrec",
        params: ParamRule::Levels(RECALL_LEVELS),
        compute: interpolated::precision_at_recall,
        description: "interpolated precision at a recall level (the recall-precision graph)",
        ..PLAIN
    },
    FamilyInfo {
        family: Family::Precision,
        trec_cut_name: "P",
        ir_name: "P",
        cutoff: CutoffRule::Required,
        default_cutoffs: TREC_CUTOFFS,
        compute: precision::precision,
        description: "precision at k; missing ranks of a short run count as non-relevant",
        ..PLAIN
    },
    FamilyInfo {
        family: Family::Recall,
        trec_cut_name: "recall",
        ir_name: "R",
        cutoff: CutoffRule::Required,
        default_cutoffs: TREC_CUTOFFS,
        compute: recall::recall,
        description: "recall at k: relevant documents in the top k over all relevant",
        ..PLAIN
    },
    FamilyInfo {
        family: Family::InferredAveragePrecision,
        trec_name: "infAP",
        ir_name: "infAP",
        compute: infap::inferred_average_precision,
        description: "inferred AP over a sampled pool (Yilmaz and Aslam 2006)",
        ..PLAIN
    },
    FamilyInfo {
        family: Family::GeometricBpref,
        trec_name: "gm_bpref",
        ir_name: "gm_bpref",
        summary: Summary::GeometricMean,
        printed_per_topic: false,
        compute: bpref::log_bpref,
        description: "geometric mean of bpref (per topic: ln max(bpref, 0.00001))",
        ..PLAIN
    },
    FamilyInfo {
        family: Family::RPrecisionMultiple,
        trec_cut_name: "Rprec_mult",
        ir_name: "Rprec_mult",
        params: ParamRule::Levels(R_MULTIPLES),
        compute: precision::precision_at_r_multiple,
        description: "precision at a multiple of R",
        ..PLAIN
    },
    FamilyInfo {
        family: Family::Utility,
        trec_name: "utility",
        ir_name: "utility",
        params: ParamRule::Numbers { count: Some(4) },
        compute: set::utility,
        description: "set utility a·relret + b·nonrelret + c·relnotret + d·rest (default 1,-1,0,0)",
        ..PLAIN
    },
    FamilyInfo {
        family: Family::ElevenPointAverage,
        trec_name: "11pt_avg",
        ir_name: "11pt_avg",
        params: ParamRule::Numbers { count: None },
        compute: interpolated::average_over_recall_levels,
        description: "interpolated precision averaged over recall levels (default 0, 0.1, .. 1)",
        ..PLAIN
    },
    FamilyInfo {
        family: Family::BinaryG,
        trec_name: "binG",
        ir_name: "binG",
        compute: other_gain_measures::binary_g,
        description: "binary G: mean over relevant documents of 1 / log2(2 + non-relevant above)",
        ..PLAIN
    },
    FamilyInfo {
        family: Family::G,
        trec_name: "G",
        ir_name: "G",
        params: ParamRule::Pairs,
        uses_relevance_level: false,
        compute: other_gain_measures::normalized_gain,
        description: "normalised gain, discounted by the cost of reading (trec_eval's G)",
        ..PLAIN
    },
    FamilyInfo {
        family: Family::Ndcg,
        trec_name: "ndcg",
        trec_cut_name: "ndcg_cut",
        ir_name: "nDCG",
        cutoff: CutoffRule::Optional,
        default_cutoffs: TREC_CUTOFFS,
        params: ParamRule::Pairs,
        uses_relevance_level: false,
        compute: ndcg::ndcg,
        description:
            "nDCG with grades as gains and a log2(rank+1) discount (Jarvelin and Kekalainen 2002)",
        ..PLAIN
    },
    FamilyInfo {
        family: Family::NdcgOverRelevant,
        trec_name: "ndcg_rel",
        ir_name: "ndcg_rel",
        params: ParamRule::Pairs,
        uses_relevance_level: false,
        compute: other_gain_measures::ndcg_over_relevant,
        description: "nDCG averaged over the ranks of the relevant documents",
        ..PLAIN
    },
    FamilyInfo {
        family: Family::NdcgAtGradeR,
        trec_name: "Rndcg",
        ir_name: "Rndcg",
        params: ParamRule::Pairs,
        compute: other_gain_measures::ndcg_at_grade_r,
        description: "nDCG averaged at the ranks where the ideal gain changes",
        ..PLAIN
    },
    FamilyInfo {
        family: Family::RelativePrecision,
        trec_cut_name: "relative_P",
        ir_name: "relative_P",
        cutoff: CutoffRule::Required,
        default_cutoffs: TREC_CUTOFFS,
        compute: precision::relative_precision,
        description: "precision at k over the best possible, min(k, R) / k",
        ..PLAIN
    },
    FamilyInfo {
        family: Family::Success,
        trec_cut_name: "success",
        ir_name: "Success",
        cutoff: CutoffRule::Required,
        default_cutoffs: SUCCESS_CUTOFFS,
        compute: rr::success,
        description: "1 when a relevant document is in the top k, else 0",
        ..PLAIN
    },
    FamilyInfo {
        family: Family::SetPrecision,
        trec_name: "set_P",
        ir_name: "set_P",
        compute: set::precision,
        description: "precision of the whole retrieved set",
        ..PLAIN
    },
    FamilyInfo {
        family: Family::SetRelativePrecision,
        trec_name: "set_relative_P",
        ir_name: "set_relative_P",
        compute: set::relative_precision,
        description: "set precision over the best possible, min(retrieved, R) / retrieved",
        ..PLAIN
    },
    FamilyInfo {
        family: Family::SetRecall,
        trec_name: "set_recall",
        ir_name: "set_recall",
        compute: set::recall,
        description: "recall of the whole retrieved set",
        ..PLAIN
    },
    FamilyInfo {
        family: Family::SetAveragePrecision,
        trec_name: "set_map",
        ir_name: "set_map",
        compute: set::precision_times_recall,
        description: "set precision × set recall",
        ..PLAIN
    },
    FamilyInfo {
        family: Family::SetF,
        trec_name: "set_F",
        ir_name: "set_F",
        params: ParamRule::Numbers { count: Some(1) },
        compute: set::f_measure,
        description: "set F measure, (β+1)PR / (βP + R), β = 1 unless given (set_F.0.5)",
        ..PLAIN
    },
    FamilyInfo {
        family: Family::NonrelevantJudgedRetrieved,
        trec_name: "num_nonrel_judged_ret",
        ir_name: "num_nonrel_judged_ret",
        summary: Summary::Sum,
        compute: counts::nonrelevant_judged_retrieved,
        description: "number of judged non-relevant retrieved documents (summed over topics)",
        ..PLAIN
    },
    FamilyInfo {
        family: Family::GradedRbp,
        trec_name: "rbp",
        ir_name: "rbp",
        params: ParamRule::Pairs,
        uses_relevance_level: false,
        compute: rbp::graded_rbp,
        description:
            "trec_eval's RBP: grades rescaled into [0, 1], p = 0.9 unless given (rbp.p=0.8)",
        ..PLAIN
    },
    FamilyInfo {
        family: Family::GradedRbpResidual,
        trec_name: "rbp_resid",
        ir_name: "rbp_resid",
        params: ParamRule::Pairs,
        uses_relevance_level: false,
        compute: rbp::graded_residual,
        description: "trec_eval's RBP residual: 0 when every retrieved document is judged",
        ..PLAIN
    },
    FamilyInfo {
        family: Family::Unjudged,
        trec_cut_name: "unj",
        ir_name: "Unj",
        cutoff: CutoffRule::Required,
        default_cutoffs: UNJUDGED_CUTOFFS,
        uses_relevance_level: false,
        compute: judged::unjudged,
        description: "unjudged documents in the top k over k (trec_eval 10's unj)",
        ..PLAIN
    },
    FamilyInfo {
        family: Family::Judged,
        trec_cut_name: "judged",
        ir_name: "Judged",
        cutoff: CutoffRule::Required,
        default_cutoffs: UNJUDGED_CUTOFFS,
        uses_relevance_level: false,
        compute: judged::judged,
        description: "judged fraction of the top min(k, retrieved) (ir_measures' Judged@k)",
        ..PLAIN
    },
    FamilyInfo {
        family: Family::Ncg,
        trec_cut_name: "ncg_cut",
        ir_name: "NCG",
        cutoff: CutoffRule::Required,
        default_cutoffs: TREC_CUTOFFS,
        uses_relevance_level: false,
        compute: ncg::ncg,
        description: "normalised cumulative gain at k, no discount (Rosset et al. 2018)",
        ..PLAIN
    },
    FamilyInfo {
        family: Family::Rbp,
        ir_name: "RBP",
        cutoff: CutoffRule::Optional,
        params: ParamRule::Persistence,
        compute: rbp::rbp,
        description: "rank-biased precision, persistence p (default 0.8) (Moffat and Zobel 2008)",
        ..PLAIN
    },
    FamilyInfo {
        family: Family::RbpResidual,
        ir_name: "RBPResidual",
        cutoff: CutoffRule::Optional,
        params: ParamRule::Persistence,
        compute: rbp::residual,
        description:
            "RBP's residual: its rise were every unjudged document and missing rank relevant",
        ..PLAIN
    },
    FamilyInfo {
        family: Family::Err,
        ir_name: "ERR",
        cutoff: CutoffRule::Required,
        uses_relevance_level: false,
        compute: err::expected_reciprocal_rank,
        description: "expected reciprocal rank, gdeval's gains (2^g-1)/16 (Chapelle et al. 2009)",
        ..PLAIN
    },
    FamilyInfo {
        family: Family::Hits,
        ir_name: "hits",
        cutoff: CutoffRule::Optional,
        compute: counts::relevant_retrieved,
        description: "relevant documents in the top k, averaged over topics (ranx's hits)",
        ..PLAIN
    },
    FamilyInfo {
        family: Family::F1,
        ir_name: "f1",
        cutoff: CutoffRule::Optional,
        compute: f1::f1,
        description: "harmonic mean of P@k and R@k (ranx's f1; without k, set_F)",
        ..PLAIN
    },
    FamilyInfo {
        family: Family::Dcg,
        ir_name: "dcg",
        cutoff: CutoffRule::Optional,
        compute: ranx_dcg::dcg,
        description: "DCG, grades >= the level as gains, log2(rank+1) discount (ranx's dcg)",
        ..PLAIN
    },
    FamilyInfo {
        family: Family::DcgBurges,
        ir_name: "dcg_burges",
        cutoff: CutoffRule::Optional,
        compute: ranx_dcg::dcg_burges,
        description: "DCG with gains 2^grade-1 for grades >= the level (ranx's dcg_burges)",
        ..PLAIN
    },
    FamilyInfo {
        family: Family::NdcgBurges,
        ir_name: "ndcg_burges",
        cutoff: CutoffRule::Optional,
        compute: ranx_dcg::ndcg_burges,
        description: "nDCG with gains 2^grade-1 for grades >= the level (Burges et al. 2005; ranx)",
        ..PLAIN
    },
];

impl Family {
    /// Why the family's values cannot rank runs, or `None` when they can. The simulator, the
    /// audit and the backtest rank runs by every measure they are given.
    pub fn unrankable_reason(self) -> Option<&'static str> {
        match self {
            Family::RbpResidual | Family::GradedRbpResidual => Some(
                "RBP's residual measures what the judgments leave unknown, not effectiveness; \
                 rank by RBP, whose interval the residual gives",
            ),
            Family::Topics => Some("num_q is the number of topics, the same for every run"),
            _ => None,
        }
    }

    /// Why the audit cannot estimate the family's score, or `None` when it can: the audit
    /// moves a run's score by the change of each topic's value, which a geometric mean does not
    /// allow.
    pub fn unauditable_reason(self) -> Option<&'static str> {
        (self.info().summary == Summary::GeometricMean).then_some(
            "a geometric mean over topics does not move by the sum of its topics' changes; \
             audit the arithmetic mean (map, bpref) instead",
        )
    }

    /// Whether the condensed variant (`judged_only=True`: unjudged documents dropped before
    /// scoring) exists: not for counts, for the judged and unjudged fractions, which it would
    /// make constant, nor for RBP's residuals and infAP, which read the unjudged documents.
    pub fn takes_judged_only(self) -> bool {
        !self.info().is_count()
            && !matches!(
                self,
                Family::Judged
                    | Family::Unjudged
                    | Family::RbpResidual
                    | Family::GradedRbpResidual
                    | Family::InferredAveragePrecision
            )
    }

    /// The registry entry of this family.
    pub fn info(self) -> &'static FamilyInfo {
        FAMILIES
            .iter()
            .find(|info| info.family == self)
            .expect("every family has a registry entry")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_family_has_exactly_one_entry_with_consistent_names() {
        for info in FAMILIES {
            assert_eq!(
                FAMILIES.iter().filter(|o| o.family == info.family).count(),
                1
            );
            assert!(!info.ir_name.is_empty(), "{info:?}");
            if !info.has_trec_name() {
                continue;
            }
            let has_bare = !info.trec_name.is_empty();
            let has_cut = !info.trec_cut_name.is_empty();
            if let ParamRule::Levels(_) = info.params {
                assert!(has_cut && !has_bare, "{info:?}");
                continue;
            }
            assert_eq!(has_bare, info.cutoff != CutoffRule::Required, "{info:?}");
            assert_eq!(has_cut, info.cutoff != CutoffRule::Forbidden, "{info:?}");
        }
    }
}
