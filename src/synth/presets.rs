//! The shapes of synthetic collections: the named presets and the numbers each one fixes.
//!
//! `default` is passage-like and small enough for quick leave-team-out studies with HiCAL's
//! settings; `dl19` has the shape of the TREC Deep Learning
//! 2019 document task (43 topics, 11 teams, 38 runs, 150 to 600 judgments per topic) and is
//! meant for benchmarks. This module holds numbers only; [`super::generate`] uses them.

use crate::base::choice::choice_enum;
use std::ops::RangeInclusive;

choice_enum! {
    /// A named collection shape.
    pub enum Preset {
        /// Passage-like and small: 14 topics, 9 teams, 27 runs, 20,000 documents of 40 to 60
        /// distinct terms, 80 to 300 judgments per topic.
        Default = "default",
        /// TREC DL 2019 document-task shape: 43 topics, 11 teams, 38 runs, 200,000 documents of
        /// about 200 distinct terms, 150 to 600 judgments per topic.
        Dl19 = "dl19",
    }
}

/// The numbers that shape a synthetic collection.
#[derive(Debug, Clone, PartialEq)]
pub struct PresetParams {
    /// The task name written to `task.toml`.
    pub name: &'static str,
    /// The number of topics.
    pub topic_count: usize,
    /// The number of teams, the baseline team included.
    pub team_count: usize,
    /// The number of runs over all teams.
    pub run_count: usize,
    /// How many runs one team submits.
    pub runs_per_team: RangeInclusive<usize>,
    /// The number of documents in the corpus.
    pub document_count: usize,
    /// The first character of every document id (`p0001234` for passages, `D0001234` for
    /// documents, as in MS MARCO).
    pub doc_id_prefix: char,
    /// How many distinct terms one document holds.
    pub distinct_terms_per_document: RangeInclusive<usize>,
    /// The size of the background vocabulary.
    pub vocabulary_size: usize,
    /// The exponent of the Zipf law the background words are drawn from (1 for English).
    pub zipf_exponent: f64,
    /// The vocabulary ranks (0 is the most frequent word) topical words are drawn from: not
    /// stopword-like, not so rare that background documents never contain them.
    pub topical_rank_range: RangeInclusive<usize>,
    /// How many words of a topic's vocabulary make its query (the topic text).
    pub query_terms: RangeInclusive<usize>,
    /// How many further words a topic's relevant documents use.
    pub expansion_terms_per_topic: usize,
    /// How many words mark a topic's other sense, carried by its on-topic distractors.
    pub distractor_terms_per_topic: usize,
    /// How many documents per topic are relevant (grade >= 1) in the truth.
    pub relevant_per_topic: RangeInclusive<usize>,
    /// How many on-topic non-relevant distractors a topic has, per relevant document.
    pub distractors_per_relevant: RangeInclusive<f64>,
    /// The share of relevant documents with grade 1, 2 and 3.
    pub grade_shares: [f64; 3],
    /// The per-topic judgment budget range (pool plus CAL judgments).
    pub judgment_budget: RangeInclusive<usize>,
    /// How many documents every run returns per topic.
    pub run_depth: usize,
    /// The depth of the official pool.
    pub pool_depth: usize,
}

impl Preset {
    /// The numbers of this preset.
    pub fn params(self) -> PresetParams {
        match self {
            Preset::Default => PresetParams {
                name: "synth-passage",
                topic_count: 14,
                team_count: 9,
                run_count: 27,
                runs_per_team: 2..=4,
                document_count: 20_000,
                doc_id_prefix: 'p',
                distinct_terms_per_document: 40..=60,
                vocabulary_size: 30_000,
                zipf_exponent: 1.0,
                topical_rank_range: 300..=6_000,
                query_terms: 2..=5,
                expansion_terms_per_topic: 12,
                distractor_terms_per_topic: 6,
                relevant_per_topic: 30..=150,
                distractors_per_relevant: 0.5..=1.5,
                grade_shares: [0.45, 0.33, 0.22],
                judgment_budget: 80..=300,
                run_depth: 100,
                pool_depth: 10,
            },
            Preset::Dl19 => PresetParams {
                name: "synth-dl19",
                topic_count: 43,
                team_count: 11,
                run_count: 38,
                runs_per_team: 2..=4,
                document_count: 200_000,
                doc_id_prefix: 'D',
                distinct_terms_per_document: 170..=230,
                vocabulary_size: 120_000,
                zipf_exponent: 1.0,
                topical_rank_range: 1_000..=30_000,
                query_terms: 2..=5,
                expansion_terms_per_topic: 16,
                distractor_terms_per_topic: 8,
                relevant_per_topic: 50..=260,
                distractors_per_relevant: 0.5..=1.5,
                grade_shares: [0.45, 0.33, 0.22],
                judgment_budget: 150..=600,
                run_depth: 100,
                pool_depth: 10,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_are_consistent() {
        for preset in [Preset::Default, Preset::Dl19] {
            let params = preset.params();
            let fewest_runs = params.team_count * params.runs_per_team.start();
            let most_runs = params.team_count * params.runs_per_team.end();
            assert!(
                (fewest_runs..=most_runs).contains(&params.run_count),
                "{preset}"
            );
            assert!(params.topical_rank_range.end() < &params.vocabulary_size);
            let topical_words = params.topic_count
                * (params.query_terms.end()
                    + params.expansion_terms_per_topic
                    + params.distractor_terms_per_topic);
            let topical_ranks = params.topical_rank_range.end() - params.topical_rank_range.start();
            assert!(topical_words * 4 < topical_ranks, "{preset}");
            let most_topical = params.topic_count
                * (*params.relevant_per_topic.end() as f64
                    * (1.0 + params.distractors_per_relevant.end())) as usize;
            assert!(most_topical * 2 < params.document_count, "{preset}");
            assert!((params.grade_shares.iter().sum::<f64>() - 1.0).abs() < 1e-9);
        }
    }
}
