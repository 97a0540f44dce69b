//! ranx's names for the measures reusesim has under other names. They are the same measures:
//! `tests/cli/ranx.rs` checks each against ranx's values. ranx's measures that no other name
//! spells (`hits`, `f1`, `dcg`, `dcg_burges`, `ndcg_burges`) are families of their own in
//! the registry. ranx's bare `map`, `ndcg` and `bpref` are trec_eval's names already; its bare
//! `recall` is trec_eval's `recall` root (`recall_5` to `recall_1000`), so its whole-ranking
//! recall is spelled `set_recall`.

use crate::eval::family::Family;

/// ranx names taken with a cutoff (`ndcg@10`), and the family they name.
pub const WITH_CUTOFF: &[(&str, Family)] = &[
    ("ndcg", Family::Ndcg),
    ("map", Family::AveragePrecision),
    ("mrr", Family::ReciprocalRank),
    ("precision", Family::Precision),
    ("recall", Family::Recall),
    ("hit_rate", Family::Success),
];

/// ranx names taken without a cutoff, and the family they name.
pub const WITHOUT_CUTOFF: &[(&str, Family)] = &[
    ("mrr", Family::ReciprocalRank),
    ("precision", Family::SetPrecision),
    ("r-precision", Family::RPrecision),
];

/// The family a ranx name with a cutoff names, if it is one of [`WITH_CUTOFF`].
pub fn family_with_cutoff(name: &str) -> Option<Family> {
    lookup(WITH_CUTOFF, name)
}

/// The family a ranx name without a cutoff names, if it is one of [`WITHOUT_CUTOFF`].
pub fn family_without_cutoff(name: &str) -> Option<Family> {
    lookup(WITHOUT_CUTOFF, name)
}

fn lookup(table: &[(&str, Family)], name: &str) -> Option<Family> {
    table
        .iter()
        .find(|(ranx, _)| *ranx == name)
        .map(|&(_, family)| family)
}
