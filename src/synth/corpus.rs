//! The synthetic corpus: a vocabulary of pronounceable words, a Zipfian background, topics with
//! their own words, and documents whose topical words follow their truth grade.
//!
//! Documents are not kept in memory: each one is a pure function of the world seed, its
//! position and its role (background, or topical with a grade), so its text is regenerated on
//! demand (writing the corpus, pseudo-relevance feedback) and the `dl19` preset's 200,000
//! documents cost only their roles plus a small index. The index holds only the topical words
//! of all topics: they are the only words any query or expansion uses (see
//! [`super::rankers`]).

use std::ops::RangeInclusive;

use rand::seq::index::sample;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use rustc_hash::FxHashSet;

use crate::base::error::{Error, Result};
use crate::base::Grade;
use crate::features::text::stemmed_terms;
use crate::synth::keys::{sub_seed, Part};
use crate::synth::presets::PresetParams;

/// Consonants that open a syllable. No `c`, `q`, `x`, `h`, `w` or `y`: they either play a
/// part in Porter's rules (`y` as a vowel, `w`/`x`/`y` in the `*o` condition) or make
/// unpronounceable pairs.
const ONSETS: &[u8] = b"bdfgklmnprstvz";
/// Vowels of a syllable.
const VOWELS: &[u8] = b"aeiou";
/// Consonants that end a word. A word is (consonant vowel)+ final, so it ends consonant-vowel-
/// consonant; no suffix Porter strips has that shape once `s` (plurals), `d` (`-ed`), `l`
/// (`-al`), `r` (`-er`), `c` (`-ic`) and `y` are kept out of the final position, so every
/// word is its own stem. [`build_vocabulary`] still checks each word with the tokenizer.
const FINALS: &[u8] = b"bgkmnpt";

/// The words of the vocabulary, most frequent first (rank 0).
///
/// Words get longer with rank as in natural language: first every one-syllable word, then
/// two-syllable words, then three-syllable words, each class in random order.
///
/// # Errors
/// [`Error::Invalid`] when the word classes cannot hold `size` words.
pub(crate) fn build_vocabulary(size: usize, seed: u64) -> Result<Vec<String>> {
    let mut rng = ChaCha8Rng::seed_from_u64(sub_seed(seed, Part::Vocabulary, 0));
    let syllable_kinds = ONSETS.len() * VOWELS.len();
    let mut words = Vec::with_capacity(size);
    let mut seen = FxHashSet::default();
    for syllables in 1..=4u32 {
        let needed = size - words.len();
        if needed == 0 {
            break;
        }
        let class_size = syllable_kinds.pow(syllables) * FINALS.len();
        let mut indices: Vec<usize> = if class_size <= needed {
            (0..class_size).collect()
        } else {
            sample(&mut rng, class_size, needed).into_vec()
        };
        indices.shuffle(&mut rng);
        for index in indices {
            let word = decode_word(index, syllables);
            // Every word must survive HiCAL's tokenizer unchanged, as its own distinct stem;
            // the alphabet above guarantees it, and a word that broke it would be dropped.
            let is_own_stem = matches!(&stemmed_terms(&word)[..], [stem] if *stem == word);
            if is_own_stem && seen.insert(word.clone()) {
                words.push(word);
            }
        }
    }
    if words.len() < size {
        return Err(Error::Invalid(format!(
            "expected a vocabulary of {size} words, found only {} distinct stems",
            words.len()
        )));
    }
    Ok(words)
}

/// The word numbered `index` among the words of `syllables` syllables.
fn decode_word(mut index: usize, syllables: u32) -> String {
    let mut word = String::with_capacity(2 * syllables as usize + 1);
    for _ in 0..syllables {
        let syllable = index % (ONSETS.len() * VOWELS.len());
        index /= ONSETS.len() * VOWELS.len();
        word.push(char::from(ONSETS[syllable / VOWELS.len()]));
        word.push(char::from(VOWELS[syllable % VOWELS.len()]));
    }
    word.push(char::from(FINALS[index % FINALS.len()]));
    word
}

/// Draws word ranks from a Zipf law in constant time (Vose's alias method).
#[derive(Debug, Clone)]
pub(crate) struct ZipfSampler {
    /// The probability of keeping a column's own rank rather than its alias.
    keep_probability: Vec<f64>,
    /// The rank a column gives when it does not keep its own.
    alias: Vec<u32>,
}

impl ZipfSampler {
    /// A sampler of ranks `0..size` with probability proportional to `1 / (rank + 1)^exponent`.
    pub(crate) fn new(size: usize, exponent: f64) -> Self {
        let weights: Vec<f64> = (0..size)
            .map(|rank| 1.0 / ((rank + 1) as f64).powf(exponent))
            .collect();
        let total: f64 = weights.iter().sum();
        let mut scaled: Vec<f64> = weights
            .iter()
            .map(|weight| weight * size as f64 / total)
            .collect();
        let mut keep_probability = vec![1.0; size];
        let mut alias: Vec<u32> = (0..size as u32).collect();
        let (mut small, mut large): (Vec<usize>, Vec<usize>) =
            (0..size).partition(|&rank| scaled[rank] < 1.0);
        while let (Some(&short), Some(&long)) = (small.last(), large.last()) {
            small.pop();
            keep_probability[short] = scaled[short];
            alias[short] = long as u32;
            scaled[long] -= 1.0 - scaled[short];
            if scaled[long] < 1.0 {
                large.pop();
                small.push(long);
            }
        }
        // Whatever is left holds (up to rounding) exactly one column's worth: keep it whole.
        Self {
            keep_probability,
            alias,
        }
    }

    /// One rank.
    #[inline]
    pub(crate) fn sample(&self, rng: &mut impl Rng) -> u32 {
        let column = rng.random_range(0..self.alias.len());
        if rng.random::<f64>() < self.keep_probability[column] {
            column as u32
        } else {
            self.alias[column]
        }
    }
}

/// The words of one topic, as vocabulary ranks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TopicWords {
    /// The words of the topic text (the query).
    pub(crate) query: Vec<u32>,
    /// Further words that relevant documents use.
    pub(crate) expansion: Vec<u32>,
    /// Words of the topic's other sense, used by its on-topic distractors.
    pub(crate) distractor: Vec<u32>,
}

impl TopicWords {
    /// Every word of the topic.
    pub(crate) fn all(&self) -> impl Iterator<Item = u32> + '_ {
        self.query
            .iter()
            .chain(&self.expansion)
            .chain(&self.distractor)
            .copied()
    }
}

/// What a document is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DocumentRole {
    /// Background text only; grade 0 for every topic (and absent from the truth file).
    Background,
    /// Written for one topic: relevant with grade 1 to 3, or an on-topic distractor (grade 0).
    Topical {
        /// The topic's position.
        topic: u32,
        /// The truth grade for that topic.
        grade: Grade,
    },
}

/// How many topical words a document of each kind carries.
struct TopicalMix {
    /// The chance that each query word occurs.
    query_probability: f64,
    /// How often an occurring query word is repeated.
    query_term_frequency: RangeInclusive<usize>,
    /// How many of the topic's expansion words occur (once or twice each).
    expansion_words: RangeInclusive<usize>,
    /// How many of the topic's distractor words occur.
    distractor_words: RangeInclusive<usize>,
}

/// Grade-3 documents are full of topical words, grade-1 documents mention the topic in
/// passing, and distractors share the query words but not the rest of the topic.
fn topical_mix(grade: Grade) -> TopicalMix {
    match grade {
        3 => TopicalMix {
            query_probability: 0.9,
            query_term_frequency: 1..=3,
            expansion_words: 4..=7,
            distractor_words: 0..=0,
        },
        2 => TopicalMix {
            query_probability: 0.7,
            query_term_frequency: 1..=2,
            expansion_words: 2..=4,
            distractor_words: 0..=0,
        },
        1 => TopicalMix {
            query_probability: 0.45,
            query_term_frequency: 1..=1,
            expansion_words: 1..=2,
            distractor_words: 0..=0,
        },
        _ => TopicalMix {
            query_probability: 0.75,
            query_term_frequency: 1..=2,
            expansion_words: 0..=1,
            distractor_words: 2..=4,
        },
    }
}

/// Adds `times` occurrences of `word` to a document.
fn push_word(words: &mut Vec<u32>, distinct: &mut FxHashSet<u32>, word: u32, times: usize) {
    distinct.insert(word);
    words.extend(std::iter::repeat_n(word, times));
}

/// The corpus as a recipe: everything needed to regenerate any document.
#[derive(Debug, Clone)]
pub(crate) struct Corpus {
    seed: u64,
    doc_id_prefix: char,
    distinct_terms: RangeInclusive<usize>,
    /// Words by rank.
    pub(crate) vocabulary: Vec<String>,
    zipf: ZipfSampler,
    /// The words of each topic.
    pub(crate) topic_words: Vec<TopicWords>,
    /// The role of each of the world's documents, by position.
    pub(crate) roles: Vec<DocumentRole>,
    /// The number of documents: the world's own, then (in an extended corpus) background
    /// documents, whose roles are not stored.
    document_count: usize,
}

impl Corpus {
    /// Assembles a corpus recipe.
    pub(crate) fn new(
        params: &PresetParams,
        seed: u64,
        vocabulary: Vec<String>,
        topic_words: Vec<TopicWords>,
        roles: Vec<DocumentRole>,
    ) -> Self {
        let zipf = ZipfSampler::new(vocabulary.len(), params.zipf_exponent);
        Self {
            seed,
            doc_id_prefix: params.doc_id_prefix,
            distinct_terms: params.distinct_terms_per_document.clone(),
            vocabulary,
            zipf,
            topic_words,
            document_count: roles.len(),
            roles,
        }
    }

    /// The same corpus followed by background documents up to `document_count` documents in
    /// all. Each is drawn from its position as the world's background documents are, so the
    /// world's documents keep their texts.
    ///
    /// # Panics
    /// When `document_count` is below the world's document count.
    pub(crate) fn extended_to(self, document_count: usize) -> Self {
        assert!(
            document_count >= self.roles.len(),
            "expected at least the world's {} documents, found {document_count}",
            self.roles.len()
        );
        Self {
            document_count,
            ..self
        }
    }

    /// The number of documents.
    pub(crate) fn len(&self) -> usize {
        self.document_count
    }

    /// The role of the document at `pos`: documents past the world's own are background.
    ///
    /// # Panics
    /// When `pos` is not below [`Self::len`].
    fn role(&self, pos: usize) -> DocumentRole {
        assert!(
            pos < self.document_count,
            "expected a document position below {}, found {pos}",
            self.document_count
        );
        self.roles
            .get(pos)
            .copied()
            .unwrap_or(DocumentRole::Background)
    }

    /// The id of the document at `pos`: prefix and seven digits, so ids sort as positions.
    pub(crate) fn document_id(&self, pos: usize) -> String {
        format!("{}{pos:07}", self.doc_id_prefix)
    }

    /// The words of the document at `pos` as vocabulary ranks, in text order. `distinct` is
    /// scratch space.
    pub(crate) fn document_words(&self, pos: usize, distinct: &mut FxHashSet<u32>) -> Vec<u32> {
        let mut rng = ChaCha8Rng::seed_from_u64(sub_seed(self.seed, Part::Documents, pos as u64));
        let distinct_target = rng.random_range(self.distinct_terms.clone());
        distinct.clear();
        let mut words = Vec::with_capacity(distinct_target * 3 / 2);
        if let DocumentRole::Topical { topic, grade } = self.role(pos) {
            let topic_words = &self.topic_words[topic as usize];
            let mix = topical_mix(grade);
            for &word in &topic_words.query {
                if rng.random_bool(mix.query_probability) {
                    let times = rng.random_range(mix.query_term_frequency.clone());
                    push_word(&mut words, distinct, word, times);
                }
            }
            for (count_range, topic_list) in [
                (&mix.expansion_words, &topic_words.expansion),
                (&mix.distractor_words, &topic_words.distractor),
            ] {
                let count = rng.random_range(count_range.clone()).min(topic_list.len());
                for pos in sample(&mut rng, topic_list.len(), count) {
                    let times = rng.random_range(1..=2);
                    push_word(&mut words, distinct, topic_list[pos], times);
                }
            }
            // A document written for a topic names it at least once: a distractor by a query
            // word (that is what makes it a distractor), a relevant one by any topical word.
            let has_query_word = topic_words.query.iter().any(|word| distinct.contains(word));
            if words.is_empty() || (grade == 0 && !has_query_word) {
                let word = topic_words.query[rng.random_range(0..topic_words.query.len())];
                push_word(&mut words, distinct, word, 1);
            }
        }
        while distinct.len() < distinct_target {
            let word = self.zipf.sample(&mut rng);
            distinct.insert(word);
            words.push(word);
        }
        words.shuffle(&mut rng);
        words
    }

    /// The text of the document at `pos`: its words separated by spaces.
    pub(crate) fn document_text(&self, pos: usize, distinct: &mut FxHashSet<u32>) -> String {
        let words = self.document_words(pos, distinct);
        let mut text = String::with_capacity(words.len() * 8);
        for (index, &word) in words.iter().enumerate() {
            if index > 0 {
                text.push(' ');
            }
            text.push_str(&self.vocabulary[word as usize]);
        }
        text
    }

    /// The corpus file's lines (`doc_id<TAB>text\n`) for documents `positions`, generated in
    /// parallel and concatenated in position order.
    pub(crate) fn corpus_lines(&self, positions: std::ops::Range<usize>) -> String {
        const CHUNK_DOCUMENTS: usize = 512;
        let chunks: Vec<std::ops::Range<usize>> = positions
            .clone()
            .step_by(CHUNK_DOCUMENTS)
            .map(|start| start..(start + CHUNK_DOCUMENTS).min(positions.end))
            .collect();
        let pieces: Vec<String> = chunks
            .into_par_iter()
            .map(|chunk| {
                let mut distinct = FxHashSet::default();
                let mut lines = String::new();
                for pos in chunk {
                    lines.push_str(&self.document_id(pos));
                    lines.push('\t');
                    lines.push_str(&self.document_text(pos, &mut distinct));
                    lines.push('\n');
                }
                lines
            })
            .collect();
        pieces.concat()
    }
}

/// A document's indexed words: (slot, frequency) pairs by slot.
type IndexedTerms = Vec<(u32, u32)>;

/// An inverted index over the topical words of all topics, with every document's length.
#[derive(Debug, Clone)]
pub(crate) struct TopicalIndex {
    /// Each document's length in words.
    pub(crate) document_lengths: Vec<u32>,
    /// The mean document length.
    pub(crate) average_length: f64,
    /// For each vocabulary rank, its slot in the index, or `None` when it is not indexed.
    slots: Vec<Option<u32>>,
    /// For each slot, the documents holding the word and its frequency there, by position.
    pub(crate) postings: Vec<Vec<(u32, u32)>>,
    /// For each document, its indexed words (slot, frequency), by slot.
    pub(crate) forward: Vec<Vec<(u32, u32)>>,
}

impl TopicalIndex {
    /// Generates every document once, in parallel, and indexes its topical words.
    pub(crate) fn build(corpus: &Corpus) -> Self {
        let mut indexed: Vec<u32> = corpus
            .topic_words
            .iter()
            .flat_map(TopicWords::all)
            .collect();
        indexed.sort_unstable();
        indexed.dedup();
        let mut slots = vec![None; corpus.vocabulary.len()];
        for (slot, &word) in indexed.iter().enumerate() {
            slots[word as usize] = Some(slot as u32);
        }
        const CHUNK_DOCUMENTS: usize = 1024;
        let chunk_starts: Vec<usize> = (0..corpus.len()).step_by(CHUNK_DOCUMENTS).collect();
        let chunks: Vec<Vec<(u32, IndexedTerms)>> = chunk_starts
            .into_par_iter()
            .map(|start| {
                let mut distinct = FxHashSet::default();
                (start..(start + CHUNK_DOCUMENTS).min(corpus.len()))
                    .map(|pos| {
                        let words = corpus.document_words(pos, &mut distinct);
                        let mut terms: Vec<(u32, u32)> = Vec::new();
                        for &word in &words {
                            if let Some(slot) = slots[word as usize] {
                                terms.push((slot, 1));
                            }
                        }
                        terms.sort_unstable();
                        terms.dedup_by(|later, kept| {
                            let is_same = later.0 == kept.0;
                            if is_same {
                                kept.1 += 1;
                            }
                            is_same
                        });
                        (words.len() as u32, terms)
                    })
                    .collect()
            })
            .collect();
        let mut document_lengths = Vec::with_capacity(corpus.len());
        let mut forward = Vec::with_capacity(corpus.len());
        for (length, terms) in chunks.into_iter().flatten() {
            document_lengths.push(length);
            forward.push(terms);
        }
        let mut postings = vec![Vec::new(); indexed.len()];
        for (pos, terms) in forward.iter().enumerate() {
            for &(slot, frequency) in terms {
                postings[slot as usize].push((pos as u32, frequency));
            }
        }
        let total_length: f64 = document_lengths.iter().map(|&length| length as f64).sum();
        let average_length = total_length / document_lengths.len().max(1) as f64;
        Self {
            document_lengths,
            average_length,
            slots,
            postings,
            forward,
        }
    }

    /// The slot of a vocabulary word, if it is indexed.
    pub(crate) fn slot(&self, word: u32) -> Option<u32> {
        self.slots.get(word as usize).copied().flatten()
    }

    /// The number of documents.
    pub(crate) fn document_count(&self) -> usize {
        self.document_lengths.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_consonant_vowel_syllables_with_a_final() {
        assert_eq!(decode_word(0, 1), "bab");
        assert_eq!(decode_word(1, 2), "bebab");
        let words = build_vocabulary(2_000, 7).unwrap();
        assert_eq!(words.len(), 2_000);
        assert!(words[..490].iter().all(|word| word.len() == 3));
        assert!(words[490..].iter().all(|word| word.len() == 5));
    }

    #[test]
    fn zipf_sampler_follows_the_law() {
        let sampler = ZipfSampler::new(1_000, 1.0);
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let mut counts = vec![0usize; 1_000];
        let draws = 200_000;
        for _ in 0..draws {
            counts[sampler.sample(&mut rng) as usize] += 1;
        }
        let harmonic: f64 = (1..=1_000).map(|rank| 1.0 / rank as f64).sum();
        for rank in [0usize, 1, 9, 99] {
            let expected = draws as f64 / ((rank + 1) as f64 * harmonic);
            let observed = counts[rank] as f64;
            assert!(
                (observed - expected).abs() < 5.0 * expected.sqrt() + 1.0,
                "rank {rank}: expected about {expected}, found {observed}"
            );
        }
    }
}
