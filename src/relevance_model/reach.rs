//! What lies within the pool's reach, and how the audit treats what lies beyond it.
//!
//! A document is *in the pool's reach* when some pooled run puts it in its top `pool_depth`
//! (NIST's pooling order): judging would have reached it. Everything else is unjudged because
//! of how the pool was built, not because it was found non-relevant. The collection holds
//! direct evidence only within its reach; beyond it the audit extrapolates
//! ([`BeyondPool::Extrapolated`]) or, where the question asked is what the collection's own
//! process would have said, presumes such documents non-relevant as the collection does
//! ([`BeyondPool::NonRelevant`]).

use rustc_hash::FxHashMap;

use crate::base::choice::choice_enum;
use crate::base::DocId;
use crate::collection::{Collection, TopicData};

choice_enum! {
    /// How the audit treats an unjudged document beyond the pool's reach.
    pub enum BeyondPool {
        /// Relevant with the probability the calibration extrapolates from what the collection
        /// shows (the default): the audit asks what deeper judging of the run would find, and
        /// an audited run counts as pooled (its own top `pool_depth` is in reach).
        Extrapolated = "extrapolate",
        /// Non-relevant, as the collection presumes it: the audit asks what the collection's
        /// own judging would have said of the run, which reaches the run's top `pool_depth`
        /// only when the run was pooled or is new to the task.
        NonRelevant = "non-relevant",
    }
}

/// The rank used for a document that no counted pooled run retrieved, and the cap of every
/// best pooled rank: beyond it a rank says nothing more.
pub const BEST_RANK_CAP: usize = 1_000;

/// For each document of a topic, the best (smallest) 1-based rank at which a pooled run put
/// it, in NIST's pooling order, and the best rank among pooled runs of teams other than that
/// best run's team: enough to answer "the best rank without team T" for any T.
#[derive(Debug, Clone, Default)]
pub struct BestPooledRanks<'c> {
    best: FxHashMap<DocId, (usize, &'c str, usize)>,
}

impl<'c> BestPooledRanks<'c> {
    /// The best pooled ranks of every document of `topic`'s pooled rankings.
    pub fn new(collection: &'c Collection, topic: &TopicData) -> Self {
        let mut best: FxHashMap<DocId, (usize, &'c str, usize)> = FxHashMap::default();
        let pooled = collection
            .runs
            .iter()
            .zip(&topic.pool_rankings)
            .filter(|(run, _)| run.is_pooled);
        for (run, ranking) in pooled {
            let team = run.team.as_str();
            for (pos, &doc) in ranking.iter().take(BEST_RANK_CAP).enumerate() {
                let rank = pos + 1;
                let entry = best.entry(doc).or_insert((rank, team, BEST_RANK_CAP));
                if entry.1 == team {
                    entry.0 = entry.0.min(rank);
                } else if rank < entry.0 {
                    *entry = (rank, team, entry.0);
                } else {
                    entry.2 = entry.2.min(rank);
                }
            }
        }
        Self { best }
    }

    /// The best pooled ranks of every topic of `collection`, in collection order.
    pub fn every_topic(collection: &'c Collection) -> Vec<Self> {
        (collection.topics.iter())
            .map(|topic| Self::new(collection, topic))
            .collect()
    }

    /// The best rank of `doc` among pooled runs of teams other than `team` ("" counts every
    /// team), capped at [`BEST_RANK_CAP`].
    pub fn without(&self, doc: DocId, team: &str) -> usize {
        match self.best.get(&doc) {
            Some(&(rank, owner, _)) if owner != team => rank,
            Some(&(_, _, other)) => other,
            None => BEST_RANK_CAP,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_best_rank_without_a_team_skips_only_that_team() {
        let dir = tempfile::tempdir().unwrap();
        let collection = crate::collection::fixture::hand_collection(dir.path());
        let topic = &collection.topics[collection.topic_index("1").unwrap()];
        let ranks = BestPooledRanks::new(&collection, topic);
        for &doc in &topic.retrieved {
            for team in ["", "A", "B", "C"] {
                // By brute force: every pooled run of another team.
                let want = collection
                    .runs
                    .iter()
                    .zip(&topic.pool_rankings)
                    .filter(|(run, _)| run.is_pooled && run.team != team)
                    .filter_map(|(_, ranking)| ranking.iter().position(|&d| d == doc))
                    .map(|pos| pos + 1)
                    .min()
                    .unwrap_or(BEST_RANK_CAP)
                    .min(BEST_RANK_CAP);
                assert_eq!(ranks.without(doc, team), want, "{team}");
            }
        }
    }
}
