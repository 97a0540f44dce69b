//! What CAL may propose for a topic: the candidate documents, their vectors for one trial
//! (see docs/judge.md#a-judging-run-for-one-topic), the feature store's documents beyond the
//! collection, and the choice of a retrain's best-scoring list.

use rustc_hash::{FxHashMap, FxHashSet};

use crate::base::error::Result;
use crate::base::sparse::SparseVec;
use crate::base::DocId;
use crate::collection::{CandidateSource, Collection, StoreDocuments, TopicData, Vectors};
use crate::features::runs::run_feature_vector;
use crate::judge::learner::Scorer;

/// The interned documents CAL may propose for a topic, sorted (withheld ones still among
/// them). With corpus candidates and a feature store, the store's other documents are
/// candidates too ([`crate::collection::CorpusDocuments`]); no run retrieved them and the
/// qrels do not judge them.
pub fn candidate_documents<'c>(
    collection: &'c Collection,
    topic: &'c TopicData,
    source: CandidateSource,
) -> &'c [DocId] {
    match source {
        CandidateSource::Retrieved => &topic.retrieved,
        CandidateSource::Corpus => collection.corpus.interned(),
    }
}

/// The candidates of a topic and their vectors for one trial.
pub(super) struct CandidateVectors<'c> {
    pub(super) docs: &'c [DocId],
    owned: Vec<SparseVec>,
    /// The vectors of the judged feature-store documents that were not interned.
    pub(super) judged_from_store: FxHashMap<DocId, SparseVec>,
    collection: &'c Collection,
}

impl<'c> CandidateVectors<'c> {
    pub(super) fn new(
        collection: &'c Collection,
        topic: &'c TopicData,
        source: CandidateSource,
        excluded_runs: &[bool],
    ) -> Self {
        let docs = candidate_documents(collection, topic, source);
        let owned = match collection.vectors {
            Vectors::Text { .. } => Vec::new(),
            Vectors::Runs => {
                let available = excluded_runs.iter().filter(|excluded| !**excluded).count();
                topic
                    .hits
                    .iter()
                    .map(|hits| {
                        run_feature_vector(
                            hits,
                            |run| !excluded_runs[run as usize],
                            available,
                            collection.runs.len(),
                        )
                    })
                    .collect()
            }
        };
        Self {
            docs,
            owned,
            judged_from_store: FxHashMap::default(),
            collection,
        }
    }

    /// Calls `visit` with every candidate and its vector, in candidate order (as
    /// [`vector`](Self::vector) gives them, without looking each up).
    pub(super) fn for_each_with_vector<'s>(
        &'s self,
        empty: &'s SparseVec,
        mut visit: impl FnMut(DocId, &'s SparseVec),
    ) {
        match &self.collection.vectors {
            Vectors::Text { .. } => {
                for &doc in self.docs {
                    visit(doc, self.vector(doc, empty));
                }
            }
            Vectors::Runs => {
                for (&doc, vector) in self.docs.iter().zip(&self.owned) {
                    visit(doc, vector);
                }
            }
        }
    }

    /// The vector of a document (empty when it has none for this topic and trial).
    pub(super) fn vector<'s>(&'s self, doc: DocId, empty: &'s SparseVec) -> &'s SparseVec {
        match &self.collection.vectors {
            Vectors::Text { vectors, .. } => vectors
                .get(doc as usize)
                .or_else(|| self.judged_from_store.get(&doc))
                .unwrap_or(empty),
            Vectors::Runs => match self.docs.binary_search(&doc) {
                Ok(pos) => &self.owned[pos],
                Err(_) => empty,
            },
        }
    }
}

/// The vector of `doc` when it is a feature store's document that the collection did not
/// intern (`None` for any other document).
///
/// # Errors
/// When the store is damaged at that document.
pub(super) fn store_vector(collection: &Collection, doc: DocId) -> Result<Option<SparseVec>> {
    let Some(store) = collection.corpus.store() else {
        return Ok(None);
    };
    let Some(position) = store.position_of_unnamed(doc) else {
        return Ok(None);
    };
    // Its id is read now, so that naming it later cannot fail.
    store.store().name(position)?;
    let mut pairs = Vec::new();
    store.store().vector_into(position, &mut pairs)?;
    Ok(Some(SparseVec::from_pairs(pairs)?))
}

/// Feature-store positions scored per parallel task when the whole store is scored.
const STORE_SCORING_CHUNK: u32 = 1 << 16;

/// The `list_size` best (see [`select_batch`]) of the feature store's documents that the
/// collection did not intern and that are not `unavailable`, scored by `model`: HiCAL's
/// corpus candidates beyond the documents the collection holds, scored straight from the store
/// in parallel chunks.
///
/// # Errors
/// When the store is damaged at a document.
pub(super) fn best_of_store(
    store: &StoreDocuments,
    model: &(dyn Scorer + Sync),
    unavailable: &FxHashSet<DocId>,
    list_size: usize,
) -> Result<Vec<(f32, u32, DocId)>> {
    use rayon::prelude::*;
    let document_count = store.store().document_count() as u32;
    let chunks: Vec<Vec<(f32, u32, DocId)>> = (0..document_count.div_ceil(STORE_SCORING_CHUNK))
        .into_par_iter()
        .map(|chunk| {
            let start = chunk * STORE_SCORING_CHUNK;
            let end = (start + STORE_SCORING_CHUNK).min(document_count);
            let mut pairs = Vec::new();
            let mut scored = Vec::new();
            for (position, doc) in store.unnamed_in(start..end) {
                if unavailable.contains(&doc) {
                    continue;
                }
                store.store().vector_into(position, &mut pairs)?;
                scored.push((model.score_pairs(&pairs), position, doc));
            }
            select_batch(&mut scored, list_size);
            Ok(scored)
        })
        .collect::<Result<_>>()?;
    Ok(chunks.into_iter().flatten().collect())
}

/// Keeps the `batch_size` best of `scored` (score, tie rank, document): highest score first,
/// ties to the lower tie rank (the document first in the corpus file, as HiCAL's heap), best
/// first, without sorting the rest.
pub fn select_batch(scored: &mut Vec<(f32, u32, DocId)>, batch_size: usize) {
    let best_first =
        |a: &(f32, u32, DocId), b: &(f32, u32, DocId)| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1));
    if batch_size == 0 {
        scored.clear();
        return;
    }
    if scored.len() > batch_size {
        scored.select_nth_unstable_by(batch_size - 1, best_first);
        scored.truncate(batch_size);
    }
    scored.sort_unstable_by(best_first);
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(crate::base::fuzz::property_config(256))]
        #[test]
        fn select_batch_equals_a_full_sort(
            scores in proptest::collection::vec(-3i8..3, 0..60),
            batch_size in 0usize..70,
        ) {
            // Few distinct scores, so ties are common and the tie rule is exercised.
            // Tie ranks run opposite to document ids, so the tie rule must use the rank.
            let scored: Vec<(f32, u32, DocId)> = scores
                .iter()
                .enumerate()
                .map(|(doc, &score)| (f32::from(score), 1000 - doc as u32, doc as DocId))
                .rev()
                .collect();
            let mut selected = scored.clone();
            select_batch(&mut selected, batch_size);
            let mut expected = scored;
            expected.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
            expected.truncate(batch_size);
            prop_assert_eq!(selected, expected);
        }
    }
}
