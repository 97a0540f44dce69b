//! The one table of measure families: names in both spellings, cutoff rules, default cutoffs,
//! how topics are summarised, the function that computes it, and its help text. A new measure
//! is one entry here plus its file in `measures/`.

use crate::base::Grade;
use crate::eval::measures::{
    ap, bpref, counts, err, judged, ncg, ndcg, precision, rbp, recall, rr,
};
use crate::eval::ranking::JudgedRanking;

/// A measure family: one formula, possibly taking a cutoff.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Family {
    /// Average precision (`map`, `AP`).
    AveragePrecision,
    /// Precision at k (`P_k`, `P@k`).
    Precision,
    /// Recall (`recall_k`, `R@k`).
    Recall,
    /// nDCG (`ndcg`, `ndcg_cut_k`, `nDCG@k`).
    Ndcg,
    /// Reciprocal rank (`recip_rank`, `RR`, `RR@k`).
    ReciprocalRank,
    /// R-precision (`Rprec`).
    RPrecision,
    /// bpref (`bpref`, `Bpref`).
    Bpref,
    /// Retrieved documents (`num_ret`).
    Retrieved,
    /// Relevant documents (`num_rel`).
    Relevant,
    /// Relevant retrieved documents (`num_rel_ret`).
    RelevantRetrieved,
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

/// A per-topic measure function of the ranking, the cutoff and the relevance level.
pub type MeasureFn = fn(&JudgedRanking, Option<usize>, Grade) -> f64;

/// A per-topic measure function that also takes a persistence p in (0, 1) (RBP's user model).
pub type PersistentMeasureFn = fn(&JudgedRanking, Option<usize>, Grade, f64) -> f64;

/// How a family computes one topic's value.
#[derive(Debug, Clone, Copy)]
pub enum Compute {
    /// From the ranking, the cutoff and the relevance level.
    Ranked(MeasureFn),
    /// From those and a persistence p (the family takes the parameter `p`).
    Persistent(PersistentMeasureFn),
}

/// Everything known about a family.
#[derive(Debug, Clone, Copy)]
pub struct FamilyInfo {
    /// The family.
    pub family: Family,
    /// trec_eval's name without a cutoff (`map`, `ndcg`); empty when a cutoff is required or
    /// trec_eval lacks the measure (the ir_measures name is then the canonical one).
    pub trec_name: &'static str,
    /// trec_eval's root before `_k` or `.k,k` (`map_cut`, `ndcg_cut`, `P`); empty without cutoffs
    /// or when trec_eval lacks the measure.
    pub trec_cut_name: &'static str,
    /// ir_measures' name (`AP`, `nDCG`, `P`).
    pub ir_name: &'static str,
    /// Cutoff rule.
    pub cutoff: CutoffRule,
    /// The cutoffs a bare trec_eval root expands to (trec_eval's defaults).
    pub default_cutoffs: &'static [usize],
    /// Whether topics are summed (counts) instead of averaged, and printed as integers.
    pub is_count: bool,
    /// Whether the relevance level changes the value.
    pub uses_relevance_level: bool,
    /// The per-topic function.
    pub compute: Compute,
    /// One line of help.
    pub description: &'static str,
}

const TREC_CUTOFFS: &[usize] = &[5, 10, 15, 20, 30, 100, 200, 500, 1000];
const UNJUDGED_CUTOFFS: &[usize] = &[5, 10, 20];

/// Every family, in output order (most important first, as trec_eval's registry).
pub const FAMILIES: &[FamilyInfo] = &[
    FamilyInfo {
        family: Family::Retrieved,
        trec_name: "num_ret",
        trec_cut_name: "",
        ir_name: "NumRet",
        cutoff: CutoffRule::Forbidden,
        default_cutoffs: &[],
        is_count: true,
        uses_relevance_level: false,
        compute: Compute::Ranked(counts::retrieved),
        description: "number of retrieved documents (summed over topics)",
    },
    FamilyInfo {
        family: Family::Relevant,
        trec_name: "num_rel",
        trec_cut_name: "",
        ir_name: "NumRel",
        cutoff: CutoffRule::Forbidden,
        default_cutoffs: &[],
        is_count: true,
        uses_relevance_level: true,
        compute: Compute::Ranked(counts::relevant),
        description: "number of relevant documents (summed over topics)",
    },
    FamilyInfo {
        family: Family::RelevantRetrieved,
        trec_name: "num_rel_ret",
        trec_cut_name: "",
        ir_name: "NumRelRet",
        cutoff: CutoffRule::Forbidden,
        default_cutoffs: &[],
        is_count: true,
        uses_relevance_level: true,
        compute: Compute::Ranked(counts::relevant_retrieved),
        description: "number of relevant retrieved documents (summed over topics)",
    },
    FamilyInfo {
        family: Family::AveragePrecision,
        trec_name: "map",
        trec_cut_name: "map_cut",
        ir_name: "AP",
        cutoff: CutoffRule::Optional,
        default_cutoffs: TREC_CUTOFFS,
        is_count: false,
        uses_relevance_level: true,
        compute: Compute::Ranked(ap::average_precision),
        description: "mean average precision (with a cutoff: only the top k count)",
    },
    FamilyInfo {
        family: Family::RPrecision,
        trec_name: "Rprec",
        trec_cut_name: "",
        ir_name: "Rprec",
        cutoff: CutoffRule::Forbidden,
        default_cutoffs: &[],
        is_count: false,
        uses_relevance_level: true,
        compute: Compute::Ranked(precision::r_precision),
        description: "precision at rank R, R the number of relevant documents",
    },
    FamilyInfo {
        family: Family::Bpref,
        trec_name: "bpref",
        trec_cut_name: "",
        ir_name: "Bpref",
        cutoff: CutoffRule::Forbidden,
        default_cutoffs: &[],
        is_count: false,
        uses_relevance_level: true,
        compute: Compute::Ranked(bpref::bpref),
        description: "binary preference over judged documents (Buckley and Voorhees 2004)",
    },
    FamilyInfo {
        family: Family::ReciprocalRank,
        trec_name: "recip_rank",
        trec_cut_name: "recip_rank",
        ir_name: "RR",
        cutoff: CutoffRule::Optional,
        default_cutoffs: &[],
        is_count: false,
        uses_relevance_level: true,
        compute: Compute::Ranked(rr::reciprocal_rank),
        description: "reciprocal rank of the first relevant document (within the top k)",
    },
    FamilyInfo {
        family: Family::Precision,
        trec_name: "",
        trec_cut_name: "P",
        ir_name: "P",
        cutoff: CutoffRule::Required,
        default_cutoffs: TREC_CUTOFFS,
        is_count: false,
        uses_relevance_level: true,
        compute: Compute::Ranked(precision::precision),
        description: "precision at k; missing ranks of a short run count as non-relevant",
    },
    FamilyInfo {
        family: Family::Recall,
        trec_name: "",
        trec_cut_name: "recall",
        ir_name: "R",
        cutoff: CutoffRule::Required,
        default_cutoffs: TREC_CUTOFFS,
        is_count: false,
        uses_relevance_level: true,
        compute: Compute::Ranked(recall::recall),
        description: "recall at k: relevant documents in the top k over all relevant",
    },
    FamilyInfo {
        family: Family::Ndcg,
        trec_name: "ndcg",
        trec_cut_name: "ndcg_cut",
        ir_name: "nDCG",
        cutoff: CutoffRule::Optional,
        default_cutoffs: TREC_CUTOFFS,
        is_count: false,
        uses_relevance_level: false,
        compute: Compute::Ranked(ndcg::ndcg),
        description:
            "nDCG with grades as gains and a log2(rank+1) discount (Jarvelin and Kekalainen 2002)",
    },
    FamilyInfo {
        family: Family::Ncg,
        trec_name: "",
        trec_cut_name: "ncg_cut",
        ir_name: "NCG",
        cutoff: CutoffRule::Required,
        default_cutoffs: TREC_CUTOFFS,
        is_count: false,
        uses_relevance_level: false,
        compute: Compute::Ranked(ncg::ncg),
        description: "normalised cumulative gain at k, no discount (Rosset et al. 2018)",
    },
    FamilyInfo {
        family: Family::Judged,
        trec_name: "",
        trec_cut_name: "judged",
        ir_name: "Judged",
        cutoff: CutoffRule::Required,
        default_cutoffs: UNJUDGED_CUTOFFS,
        is_count: false,
        uses_relevance_level: false,
        compute: Compute::Ranked(judged::judged),
        description: "judged fraction of the top min(k, retrieved) (ir_measures' Judged@k)",
    },
    FamilyInfo {
        family: Family::Unjudged,
        trec_name: "",
        trec_cut_name: "unj",
        ir_name: "Unj",
        cutoff: CutoffRule::Required,
        default_cutoffs: UNJUDGED_CUTOFFS,
        is_count: false,
        uses_relevance_level: false,
        compute: Compute::Ranked(judged::unjudged),
        description: "unjudged documents in the top k over k (trec_eval 10's unj)",
    },
    FamilyInfo {
        family: Family::Rbp,
        trec_name: "",
        trec_cut_name: "",
        ir_name: "RBP",
        cutoff: CutoffRule::Optional,
        default_cutoffs: &[],
        is_count: false,
        uses_relevance_level: true,
        compute: Compute::Persistent(rbp::rbp),
        description: "rank-biased precision, persistence p (default 0.8) (Moffat and Zobel 2008)",
    },
    FamilyInfo {
        family: Family::RbpResidual,
        trec_name: "",
        trec_cut_name: "",
        ir_name: "RBPResidual",
        cutoff: CutoffRule::Optional,
        default_cutoffs: &[],
        is_count: false,
        uses_relevance_level: true,
        compute: Compute::Persistent(rbp::residual),
        description:
            "RBP's residual: its rise were every unjudged document and missing rank relevant",
    },
    FamilyInfo {
        family: Family::Err,
        trec_name: "",
        trec_cut_name: "",
        ir_name: "ERR",
        cutoff: CutoffRule::Required,
        default_cutoffs: &[],
        is_count: false,
        uses_relevance_level: false,
        compute: Compute::Ranked(err::expected_reciprocal_rank),
        description: "expected reciprocal rank, gdeval's gains (2^g-1)/16 (Chapelle et al. 2009)",
    },
];

impl FamilyInfo {
    /// Whether trec_eval has the measure: its names are then the canonical ones.
    pub fn has_trec_name(&self) -> bool {
        !self.trec_name.is_empty() || !self.trec_cut_name.is_empty()
    }

    /// Whether the family takes RBP's persistence `p`.
    pub fn takes_persistence(&self) -> bool {
        matches!(self.compute, Compute::Persistent(_))
    }
}

impl Family {
    /// Why the family's values cannot rank runs, or `None` when they can. The simulator, the
    /// audit and the backtest rank runs by every measure they are given.
    pub fn unrankable_reason(self) -> Option<&'static str> {
        match self {
            Family::RbpResidual => Some(
                "RBP's residual measures what the judgments leave unknown, not effectiveness; \
                 rank by RBP, whose interval the residual gives",
            ),
            _ => None,
        }
    }

    /// Whether the condensed variant (`judged_only=True`: unjudged documents dropped before
    /// scoring) exists: not for counts, for the judged and unjudged fractions, which it would
    /// make constant, nor for RBP's residual, which measures the unjudged documents.
    pub fn takes_judged_only(self) -> bool {
        !self.info().is_count
            && !matches!(
                self,
                Family::Judged | Family::Unjudged | Family::RbpResidual
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
            if !info.has_trec_name() {
                continue;
            }
            let has_bare = !info.trec_name.is_empty();
            assert_eq!(has_bare, info.cutoff != CutoffRule::Required, "{info:?}");
            let has_cut = !info.trec_cut_name.is_empty();
            assert_eq!(has_cut, info.cutoff != CutoffRule::Forbidden, "{info:?}");
        }
    }
}
