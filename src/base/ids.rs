//! Interned identifiers: topic and document names are stored once and referred to by dense
//! `u32` ids, so that large runs and qrels stay small in memory and comparisons are cheap.

use std::collections::HashMap;

/// An interned document: its dense id in the collection's [`Interner`].
pub type DocId = u32;

/// Maps names to dense ids (0, 1, 2, ... in first-seen order) and back.
#[derive(Debug, Default, Clone)]
pub struct Interner {
    ids: HashMap<Box<str>, u32>,
    names: Vec<Box<str>>,
}

impl Interner {
    /// An empty interner.
    pub fn new() -> Self {
        Self::default()
    }

    /// The id of `name`, assigning the next free id when it is new.
    pub fn intern(&mut self, name: &str) -> u32 {
        if let Some(&id) = self.ids.get(name) {
            return id;
        }
        let id = u32::try_from(self.names.len()).expect("fewer than 2^32 distinct names");
        self.names.push(name.into());
        self.ids.insert(name.into(), id);
        id
    }

    /// The id of `name`, if it was interned.
    pub fn get(&self, name: &str) -> Option<u32> {
        self.ids.get(name).copied()
    }

    /// The name behind `id`.
    ///
    /// # Panics
    /// When `id` was not issued by this interner.
    pub fn name(&self, id: u32) -> &str {
        &self.names[id as usize]
    }

    /// How many names are interned.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether no name is interned.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interning_is_stable_and_reversible() {
        let mut interner = Interner::new();
        let a = interner.intern("doc-a");
        let b = interner.intern("doc-b");
        assert_eq!(interner.intern("doc-a"), a);
        assert_ne!(a, b);
        assert_eq!(interner.name(b), "doc-b");
        assert_eq!(interner.get("doc-c"), None);
        assert_eq!(interner.len(), 2);
    }
}
