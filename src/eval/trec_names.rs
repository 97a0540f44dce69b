//! trec_eval's output order and its nicknames for sets of measures (`official`, `all_trec`,
//! `set`), by printed root.

/// trec_eval's output order, by printed root (`relstring` and `runid` are not scores but have
/// their place).
pub const TREC_ORDER: &[&str] = &[
    "runid",
    "num_q",
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "map",
    "gm_map",
    "Rprec",
    "bpref",
    "recip_rank",
    "iprec_at_recall",
    "P",
    "relstring",
    "recall",
    "infAP",
    "gm_bpref",
    "Rprec_mult",
    "utility",
    "11pt_avg",
    "binG",
    "G",
    "ndcg",
    "ndcg_rel",
    "Rndcg",
    "ndcg_cut",
    "map_cut",
    "relative_P",
    "success",
    "set_P",
    "set_relative_P",
    "set_recall",
    "set_map",
    "set_F",
    "num_nonrel_judged_ret",
    "rbp",
    "rbp_resid",
    "unj",
];

/// The roots trec_eval 10.0 added to its measures and to `all_trec`; 9.0.8's `all_trec` lacks
/// them (reusesim computes them whichever version is chosen, when they are named).
pub const ADDED_IN_TEN: &[&str] = &["unj", "rbp", "rbp_resid"];

/// How many roots at the head of [`TREC_ORDER`] make trec_eval's default set, `official`.
const OFFICIAL_ROOTS: usize = 12;

/// The measures of trec_eval's nicknames `official`, `all_trec` and `set`, as printed roots:
/// `all_trec` is every root, `official` the first ones in trec_eval's order.
pub const NICKNAMES: &[(&str, &[&str])] = &[
    ("official", TREC_ORDER.split_at(OFFICIAL_ROOTS).0),
    ("all_trec", TREC_ORDER),
    (
        "set",
        &[
            "runid",
            "num_q",
            "num_ret",
            "num_rel",
            "num_rel_ret",
            "utility",
            "set_P",
            "set_recall",
            "set_relative_P",
            "set_map",
            "set_F",
        ],
    ),
];

/// The position of a printed root (`map`, `ndcg_cut`, `relstring`) in trec_eval's output
/// order; roots trec_eval lacks come after all of its own.
pub fn trec_rank(root: &str) -> usize {
    TREC_ORDER
        .iter()
        .position(|name| *name == root)
        .unwrap_or(TREC_ORDER.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::registry::FAMILIES;

    #[test]
    fn every_trec_eval_root_has_its_place_in_the_output_order() {
        for info in FAMILIES {
            for root in [info.trec_name, info.trec_cut_name] {
                if !root.is_empty() && root != "judged" && root != "ncg_cut" {
                    assert!(trec_rank(root) < TREC_ORDER.len(), "{root}");
                }
            }
        }
        for (_, names) in NICKNAMES {
            for name in *names {
                assert!(trec_rank(name) < TREC_ORDER.len(), "{name}");
            }
        }
    }
}
