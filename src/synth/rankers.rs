//! The teams and their runs: BM25 over the corpus with team-specific parameters, optional
//! pseudo-relevance-feedback expansion, a truth-grade signal of team-specific strength (how
//! good the team's "reranker" is), and Gaussian noise shared by a team's runs plus a smaller
//! part of each run's own. Shared parameters and shared noise make a team's runs correlated;
//! the signal strength spreads quality across teams as in a TREC track.
//!
//! The baseline team (`baseline`, runs `bm25base` and `bm25base_prf`) is plain BM25 with
//! Anserini's defaults (k1 = 0.9, b = 0.4), without and with expansion.
//!
//! Queries and expansion terms only use topical words (the index holds nothing else; see
//! [`super::corpus`]). A real feedback model could also pick a background word that happens to
//! recur in the feedback documents; in a Zipfian background such words are either frequent
//! (low idf) or recur by chance, so leaving them out changes little.
//!
//! Ranking ties (equal final scores) are broken by document position descending, the order
//! trec_eval uses for equal scores (docid descending), and written scores are made strictly
//! decreasing in single precision so no reader ever sees a tie.

use std::path::PathBuf;

use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

use crate::base::sparse::summed_by_key;
use crate::base::Grade;
use crate::io::run::{RankedDoc, Run, RunTopic};
use crate::synth::corpus::{Corpus, DocumentRole, TopicalIndex};
use crate::synth::keys::{gaussian, mix, sub_seed, Part};
use crate::synth::presets::PresetParams;

/// The baseline team's name.
pub const BASELINE_TEAM: &str = "baseline";
/// How many top documents feed the expansion.
const FEEDBACK_DOCUMENTS: usize = 10;
/// How many words the expansion adds at most.
const EXPANSION_TERMS: usize = 8;
/// The weight of an expansion word that occurs in every feedback document (original query
/// words weigh 1).
const EXPANSION_WEIGHT: f64 = 0.5;
/// The smallest gap between two written scores, in millionths.
const SCORE_GAP_MICROS: i64 = 100;

/// How one team ranks.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct TeamProfile {
    /// The team name.
    pub(crate) name: String,
    /// BM25's term-frequency saturation.
    pub(crate) k1: f64,
    /// BM25's length normalisation.
    pub(crate) b: f64,
    /// The weight of the truth grade in the final score (0 for the baseline).
    pub(crate) grade_weight: f64,
    /// The standard deviation of the noise shared by the team's runs.
    pub(crate) team_noise: f64,
    /// The standard deviation of each run's own noise.
    pub(crate) run_noise: f64,
}

/// How one run ranks.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RunProfile {
    /// The run tag.
    pub(crate) tag: String,
    /// The team's position.
    pub(crate) team: usize,
    /// Whether the query is expanded from the top documents.
    pub(crate) is_expanded: bool,
    /// This run's multiplier on the team's grade weight.
    pub(crate) grade_weight_factor: f64,
}

/// Draws the teams (the baseline first) and their runs, in team order.
pub(crate) fn plan_teams(params: &PresetParams, seed: u64) -> (Vec<TeamProfile>, Vec<RunProfile>) {
    let mut rng = ChaCha8Rng::seed_from_u64(sub_seed(seed, Part::Teams, 0));
    let other_teams = params.team_count.saturating_sub(1);
    const BASELINE_RUNS: usize = 2;
    let mut run_counts = vec![*params.runs_per_team.start(); other_teams];
    let mut extra_runs = params
        .run_count
        .saturating_sub(BASELINE_RUNS + run_counts.iter().sum::<usize>());
    while extra_runs > 0 {
        let open: Vec<usize> = (0..other_teams)
            .filter(|&team| run_counts[team] < *params.runs_per_team.end())
            .collect();
        let Some(&team) = open.get(rng.random_range(0..open.len().max(1))) else {
            break;
        };
        run_counts[team] += 1;
        extra_runs -= 1;
    }
    // Stratified quality: one team in each tenth (or ninth, ...) of the range, in random
    // order, so every seed gives a spread of quality.
    let mut strata: Vec<usize> = (0..other_teams).collect();
    strata.shuffle(&mut rng);
    let mut teams = vec![TeamProfile {
        name: BASELINE_TEAM.to_string(),
        k1: 0.9,
        b: 0.4,
        grade_weight: 0.0,
        team_noise: 0.0,
        run_noise: 0.0,
    }];
    let mut runs = vec![
        RunProfile {
            tag: "bm25base".to_string(),
            team: 0,
            is_expanded: false,
            grade_weight_factor: 1.0,
        },
        RunProfile {
            tag: "bm25base_prf".to_string(),
            team: 0,
            is_expanded: true,
            grade_weight_factor: 1.0,
        },
    ];
    for (number, (&stratum, &run_count)) in strata.iter().zip(&run_counts).enumerate() {
        let quality = (stratum as f64 + rng.random::<f64>()) / other_teams as f64;
        let team = teams.len();
        let name = format!("team{:02}", number + 1);
        teams.push(TeamProfile {
            name: name.clone(),
            k1: rng.random_range(0.6..1.4),
            b: rng.random_range(0.3..0.9),
            grade_weight: 0.1 + 0.5 * quality,
            team_noise: 0.3,
            run_noise: 0.15,
        });
        // Some teams always expand, some never, some on alternate runs.
        let expansion_policy = rng.random_range(0..3);
        for run_number in 0..run_count {
            let is_expanded = match expansion_policy {
                0 => false,
                1 => true,
                _ => run_number % 2 == 1,
            };
            runs.push(RunProfile {
                tag: format!("{name}_run{}", run_number + 1),
                team,
                is_expanded,
                grade_weight_factor: rng.random_range(0.85..1.15),
            });
        }
    }
    (teams, runs)
}

/// A query: index slots and weights.
type Query = Vec<(u32, f64)>;

/// The shared inputs of every ranking.
pub(crate) struct RankingContext<'a> {
    /// The corpus recipe (document roles give the truth grades).
    pub(crate) corpus: &'a Corpus,
    /// The index of topical words.
    pub(crate) index: &'a TopicalIndex,
    /// Each topic's id, in topic order.
    pub(crate) topic_ids: &'a [String],
    /// The world seed.
    pub(crate) seed: u64,
    /// How many documents a run returns per topic.
    pub(crate) run_depth: usize,
}

impl RankingContext<'_> {
    /// Every run, sorted by tag, each ranking every topic.
    pub(crate) fn make_runs(&self, teams: &[TeamProfile], runs: &[RunProfile]) -> Vec<Run> {
        let units: Vec<(usize, usize)> = (0..runs.len())
            .flat_map(|run| (0..self.topic_ids.len()).map(move |topic| (run, topic)))
            .collect();
        let rankings: Vec<RunTopic> = units
            .par_iter()
            .map(|&(run, topic)| self.rank(&teams[runs[run].team], &runs[run], run, topic))
            .collect();
        let mut rankings = rankings.into_iter();
        let mut made: Vec<Run> = runs
            .iter()
            .map(|profile| Run {
                tag: profile.tag.clone(),
                path: PathBuf::from("runs").join(&profile.tag),
                topics: rankings.by_ref().take(self.topic_ids.len()).collect(),
            })
            .collect();
        made.sort_by(|a, b| a.tag.cmp(&b.tag));
        made
    }

    /// The truth grade of the document at `pos` for `topic`.
    fn grade(&self, pos: u32, topic: usize) -> Grade {
        match self.corpus.roles[pos as usize] {
            DocumentRole::Topical {
                topic: doc_topic,
                grade,
            } if doc_topic as usize == topic => grade,
            _ => 0,
        }
    }

    /// BM25 scores of every document matching the query, by position.
    fn bm25(&self, query: &Query, team: &TeamProfile) -> Vec<(u32, f64)> {
        let index = self.index;
        let document_count = index.document_count() as f64;
        let mut contributions: Vec<(u32, f64)> = Vec::new();
        for &(slot, weight) in query {
            let postings = &index.postings[slot as usize];
            let document_frequency = postings.len() as f64;
            // Lucene's idf, which is never negative.
            let idf = (1.0
                + (document_frequency_complement(document_count, document_frequency) + 0.5)
                    / (document_frequency + 0.5))
                .ln();
            for &(pos, frequency) in postings {
                let frequency = frequency as f64;
                let length_ratio =
                    index.document_lengths[pos as usize] as f64 / index.average_length;
                let saturation = team.k1 * (1.0 - team.b + team.b * length_ratio);
                let score = idf * frequency * (team.k1 + 1.0) / (frequency + saturation);
                contributions.push((pos, weight * score));
            }
        }
        // Each document's terms are summed in query order, however the postings were built.
        summed_by_key(contributions)
    }

    /// The query expanded with the words most common in the top documents.
    fn expand(&self, query: &Query, scores: &[(u32, f64)]) -> Query {
        let mut ranked: Vec<(u32, f64)> = scores.to_vec();
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(b.0.cmp(&a.0)));
        let feedback = &ranked[..ranked.len().min(FEEDBACK_DOCUMENTS)];
        let mut feedback_frequency: Vec<(u32, usize)> = Vec::new();
        for &(pos, _) in feedback {
            for &(slot, _) in &self.index.forward[pos as usize] {
                feedback_frequency.push((slot, 1));
            }
        }
        feedback_frequency.sort_unstable_by_key(|&(slot, _)| slot);
        feedback_frequency.dedup_by(|later, kept| {
            let is_same = later.0 == kept.0;
            if is_same {
                kept.1 += 1;
            }
            is_same
        });
        let document_count = self.index.document_count() as f64;
        let mut candidates: Vec<(u32, usize, f64)> = feedback_frequency
            .into_iter()
            .filter(|&(slot, documents)| {
                documents >= 2 && !query.iter().any(|&(query_slot, _)| query_slot == slot)
            })
            .map(|(slot, documents)| {
                let document_frequency = self.index.postings[slot as usize].len() as f64;
                let idf = (document_count / document_frequency).ln();
                (slot, documents, documents as f64 * idf)
            })
            .collect();
        candidates.sort_by(|a, b| b.2.total_cmp(&a.2).then(a.0.cmp(&b.0)));
        let mut expanded = query.clone();
        expanded.extend(
            candidates
                .iter()
                .take(EXPANSION_TERMS)
                .map(|&(slot, documents, _)| {
                    (
                        slot,
                        EXPANSION_WEIGHT * documents as f64 / FEEDBACK_DOCUMENTS as f64,
                    )
                }),
        );
        expanded
    }

    /// One run's ranking of one topic.
    fn rank(
        &self,
        team: &TeamProfile,
        run: &RunProfile,
        run_position: usize,
        topic: usize,
    ) -> RunTopic {
        let query: Query = self.corpus.topic_words[topic]
            .query
            .iter()
            .filter_map(|&word| self.index.slot(word))
            .map(|slot| (slot, 1.0))
            .collect();
        let mut scores = self.bm25(&query, team);
        if run.is_expanded {
            let expanded = self.expand(&query, &scores);
            scores = self.bm25(&expanded, team);
        }
        let is_plain_bm25 = team.grade_weight == 0.0 && team.team_noise == 0.0;
        if !is_plain_bm25 {
            let best = scores.iter().map(|&(_, score)| score).fold(0.0, f64::max);
            let team_key = mix(
                sub_seed(self.seed, Part::TeamNoise, run.team as u64),
                topic as u64,
            );
            let run_key = mix(
                sub_seed(self.seed, Part::RunNoise, run_position as u64),
                topic as u64,
            );
            let grade_weight = team.grade_weight * run.grade_weight_factor;
            for (pos, score) in &mut scores {
                let lexical = *score / best.max(f64::MIN_POSITIVE);
                let grade = self.grade(*pos, topic) as f64;
                let team_noise = team.team_noise * gaussian(mix(team_key, *pos as u64));
                let run_noise = team.run_noise * gaussian(mix(run_key, *pos as u64));
                // Scaled by 10 so scores read like a neural reranker's logits.
                *score = 10.0 * (lexical + grade_weight * grade + team_noise + run_noise);
            }
        }
        scores.sort_by(|a, b| b.1.total_cmp(&a.1).then(b.0.cmp(&a.0)));
        scores.truncate(self.run_depth);
        RunTopic {
            topic: self.topic_ids[topic].as_str().into(),
            docs: written_scores(&scores)
                .into_iter()
                .zip(&scores)
                .map(|(score, &(pos, _))| RankedDoc {
                    docid: self.corpus.document_id(pos as usize).into(),
                    score,
                })
                .collect(),
        }
    }
}

fn document_frequency_complement(document_count: f64, document_frequency: f64) -> f64 {
    (document_count - document_frequency).max(0.0)
}

/// The scores as written (six decimals) and read back (single precision), strictly decreasing
/// for `scores` sorted best first.
fn written_scores(scores: &[(u32, f64)]) -> Vec<f32> {
    let mut written: Vec<f32> = Vec::with_capacity(scores.len());
    let mut previous_micros: Option<i64> = None;
    for &(_, score) in scores {
        let mut micros = (score * 1e6).round() as i64;
        if let Some(previous) = previous_micros {
            micros = micros.min(previous - SCORE_GAP_MICROS);
            let previous_value = written[written.len() - 1];
            while micros_to_f32(micros) >= previous_value {
                micros -= SCORE_GAP_MICROS;
            }
        }
        written.push(micros_to_f32(micros));
        previous_micros = Some(micros);
    }
    written
}

/// A score in millionths as a run reader sees it: the decimal text parsed in double precision
/// and rounded once to single precision.
fn micros_to_f32(micros: i64) -> f32 {
    (micros as f64 / 1e6) as f32
}

/// The six-decimal text of a written score.
pub(crate) fn score_text(score: f32) -> String {
    format!("{score:.6}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn written_scores_strictly_decrease_in_single_precision() {
        let scores = [(0, 50.0), (1, 50.0), (2, 50.0000001), (3, -1.0), (4, -1.0)];
        let written = written_scores(&scores);
        assert!(
            written.windows(2).all(|pair| pair[0] > pair[1]),
            "{written:?}"
        );
        for score in &written {
            let reread = score_text(*score).parse::<f64>().unwrap() as f32;
            assert_eq!(reread, *score);
        }
    }
}
