//! What the strategies without learning share: a rule that picks the next run to judge from,
//! and the judging order such a rule gives.

use crate::base::DocId;

/// One pooled run a strategy may still judge from: its position among the strategy's runs and
/// the 1-based rank of its next document that is neither judged nor withheld.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OpenRun {
    /// The run's position among the runs the strategy draws from.
    pub arm: usize,
    /// The rank of the run's next judgeable document.
    pub next_rank: usize,
}

/// A rule that picks the run whose next document is judged, and learns from the outcome.
pub trait RunChooser {
    /// The position in `open` (never empty, ascending by arm) of the run to judge from.
    fn choose(&self, open: &[OpenRun]) -> usize;
    /// Records that the document judged from run `arm` was relevant or not.
    fn observe(&mut self, arm: usize, is_relevant: bool);
}

/// The documents a run chooser judges, in order: at most `limit` documents of `rankings` (one
/// ranking per arm), skipping those `is_available` refuses and those already judged; each
/// judged document's relevance comes from `is_relevant_doc` and is fed back to the chooser.
pub fn judging_order(
    rankings: &[&[DocId]],
    is_available: impl Fn(DocId) -> bool,
    mut is_relevant_doc: impl FnMut(DocId) -> bool,
    limit: usize,
    chooser: &mut dyn RunChooser,
) -> Vec<DocId> {
    let mut judged = rustc_hash::FxHashSet::default();
    let mut cursors = vec![0usize; rankings.len()];
    let mut order = Vec::new();
    let mut open = Vec::with_capacity(rankings.len());
    while order.len() < limit {
        open.clear();
        for (arm, ranking) in rankings.iter().enumerate() {
            let cursor = &mut cursors[arm];
            while *cursor < ranking.len()
                && (judged.contains(&ranking[*cursor]) || !is_available(ranking[*cursor]))
            {
                *cursor += 1;
            }
            if *cursor < ranking.len() {
                open.push(OpenRun {
                    arm,
                    next_rank: *cursor + 1,
                });
            }
        }
        if open.is_empty() {
            break;
        }
        let arm = open[chooser.choose(&open)].arm;
        let doc = rankings[arm][cursors[arm]];
        judged.insert(doc);
        order.push(doc);
        chooser.observe(arm, is_relevant_doc(doc));
    }
    order
}
