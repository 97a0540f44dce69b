//! The documents random negatives and corpus candidates are drawn from, and, with a feature
//! store, how the store's documents map to document ids.

use crate::base::DocId;
use crate::features::store::FeatureStore;

/// The documents random negatives and corpus candidates are drawn from, in draw order: the
/// corpus documents the collection interned, by id, then (with a feature store) the store's
/// other documents, whose ids follow the interned ones in corpus order. Reading the whole
/// corpus instead interns those same documents with those same ids, so a draw picks the same
/// document either way.
#[derive(Debug, Default)]
pub struct CorpusDocuments {
    /// The corpus documents the collection interned, sorted.
    pub(super) interned: Vec<DocId>,
    pub(super) store: Option<StoreDocuments>,
}

/// A feature store and how its documents map to document ids.
#[derive(Debug)]
pub struct StoreDocuments {
    pub(super) store: FeatureStore,
    /// The id of the store's first document that was not interned: the interner's size.
    pub(super) first_unnamed: DocId,
    /// The store positions of the interned documents in the store, sorted.
    pub(super) interned_positions: Vec<u32>,
    /// The interned document at each of those positions.
    pub(super) interned_docs: Vec<DocId>,
}

impl StoreDocuments {
    /// The feature store.
    pub fn store(&self) -> &FeatureStore {
        &self.store
    }

    /// How many store documents were not interned.
    fn unnamed_count(&self) -> usize {
        self.store.document_count() - self.interned_positions.len()
    }

    /// The store position of `doc`, when it is a store document that was not interned: the
    /// `doc - first_unnamed`-th position that no interned document holds.
    pub fn position_of_unnamed(&self, doc: DocId) -> Option<u32> {
        let rank = doc.checked_sub(self.first_unnamed)? as usize;
        if rank >= self.unnamed_count() {
            return None;
        }
        // p_i - i (how many unnamed documents precede interned position p_i) never decreases;
        // the interned positions with p_i - i <= rank precede the answer.
        let positions = &self.interned_positions;
        let (mut low, mut high) = (0, positions.len());
        while low < high {
            let middle = low + (high - low) / 2;
            if positions[middle] as usize - middle <= rank {
                low = middle + 1;
            } else {
                high = middle;
            }
        }
        Some((rank + low) as u32)
    }

    /// The store documents at `positions` that were not interned, with their ids, in position
    /// order: one binary search for the range, then a walk, however long the range.
    pub fn unnamed_in(
        &self,
        positions: std::ops::Range<u32>,
    ) -> impl Iterator<Item = (u32, DocId)> + '_ {
        let mut interned_before = self
            .interned_positions
            .partition_point(|&position| position < positions.start);
        positions.filter_map(move |position| {
            if self.interned_positions.get(interned_before) == Some(&position) {
                interned_before += 1;
                return None;
            }
            Some((
                position,
                self.first_unnamed + position - interned_before as u32,
            ))
        })
    }

    /// The id of the store document at `position`.
    pub fn doc_at(&self, position: u32) -> DocId {
        match self.interned_positions.binary_search(&position) {
            Ok(index) => self.interned_docs[index],
            Err(before) => self.first_unnamed + position - before as u32,
        }
    }

    /// The id of the store document called `name` that was not interned.
    pub(super) fn unnamed_of_name(&self, name: &str) -> Option<DocId> {
        let position = self.store.position(name)?;
        let doc = self.doc_at(position);
        (doc >= self.first_unnamed).then_some(doc)
    }
}

impl CorpusDocuments {
    /// How many documents a draw chooses from.
    pub fn len(&self) -> usize {
        self.interned.len() + self.store.as_ref().map_or(0, StoreDocuments::unnamed_count)
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The document at `index` of the draw order (below [`Self::len`]).
    pub fn get(&self, index: usize) -> DocId {
        match self.interned.get(index) {
            Some(&doc) => doc,
            None => {
                let store = self.store.as_ref().expect("an index below the length");
                store.first_unnamed + (index - self.interned.len()) as DocId
            }
        }
    }

    /// The interned documents, sorted.
    pub fn interned(&self) -> &[DocId] {
        &self.interned
    }

    /// The feature store, if the collection reads one.
    pub fn store(&self) -> Option<&StoreDocuments> {
        self.store.as_ref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A store of `documents` one-word documents, `d0`, `d1`, ...
    fn store(documents: usize) -> FeatureStore {
        let dir = tempfile::tempdir().unwrap();
        let text: String = (0..documents)
            .map(|d| format!("d{d}\tword{}\n", d % 3))
            .collect();
        let corpus = dir.path().join("corpus.tsv");
        std::fs::write(&corpus, text).unwrap();
        let out = dir.path().join("store");
        crate::features::store::build_store(&[corpus], &Default::default(), &out, &|_, _, _| {})
            .unwrap();
        let store = FeatureStore::open(&out).unwrap();
        // The map stays valid once the file is unlinked.
        drop(dir);
        store
    }

    proptest! {
        #![proptest_config(crate::base::fuzz::property_config(64))]
        /// Whichever store documents were interned, every position has one id and every id
        /// one position, and the draw order lists every store document once.
        #[test]
        fn store_positions_and_ids_correspond_one_to_one(
            is_interned in proptest::collection::vec(any::<bool>(), 40),
            interner_size in 40u32..60,
        ) {
            let interned_positions: Vec<u32> = (0..40u32).filter(|&p| is_interned[p as usize]).collect();
            // Interned ids are any distinct ids below the interner's size, in any order.
            let interned_docs: Vec<DocId> = interned_positions.iter().map(|&p| (p * 7) % interner_size).collect();
            prop_assume!({
                let mut ids = interned_docs.clone();
                ids.sort_unstable();
                ids.windows(2).all(|pair| pair[0] != pair[1])
            });
            let mut interned = interned_docs.clone();
            interned.sort_unstable();
            let documents = CorpusDocuments {
                interned,
                store: Some(StoreDocuments {
                    store: store(40),
                    first_unnamed: interner_size,
                    interned_positions,
                    interned_docs,
                }),
            };
            let store = documents.store().unwrap();
            prop_assert_eq!(documents.len(), 40);
            let mut positions: Vec<u32> = (0..documents.len())
                .map(|index| {
                    let doc = documents.get(index);
                    match store.position_of_unnamed(doc) {
                        Some(position) => position,
                        None => {
                            let at = store.interned_docs.iter().position(|&d| d == doc).unwrap();
                            store.interned_positions[at]
                        }
                    }
                })
                .collect();
            for (index, &position) in positions.iter().enumerate() {
                prop_assert_eq!(store.doc_at(position), documents.get(index));
            }
            let unnamed: Vec<(u32, DocId)> = (0..40)
                .map(|position| (position, store.doc_at(position)))
                .filter(|&(_, doc)| doc >= interner_size)
                .collect();
            prop_assert_eq!(store.unnamed_in(0..40).collect::<Vec<_>>(), unnamed.clone());
            let tail: Vec<(u32, DocId)> = unnamed.into_iter().filter(|&(p, _)| p >= 17).collect();
            prop_assert_eq!(store.unnamed_in(17..40).collect::<Vec<_>>(), tail);
            positions.sort_unstable();
            prop_assert_eq!(positions, (0..40).collect::<Vec<u32>>());
        }
    }
}
