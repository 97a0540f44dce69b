//! An audited run's claims from its audit's own Monte-Carlo samples, with no second sampling:
//! in each sample the run's per-topic scores are the audit's sampled ones, and each baseline's
//! are its collection scores moved by the run's documents drawn relevant there, to first order
//! as the rank risk moves the other runs ([`crate::audit::others`]): a document the baseline
//! also retrieves lifts it with the same grade, and one it does not still changes its grade
//! counts.

use rayon::prelude::*;

use super::baselines::{Baseline, ClaimSettings, BASELINE_TEAM};
use super::summary::{summarize, ClaimScores, ClaimSummary};
use crate::audit::basis::{AuditBasis, RunOutcomes};
use crate::base::error::{Context, Error, Result};
use crate::stats::comparison::TestSettings;

/// An audited run's claims of one measure: the family its test's correction runs over.
#[derive(Debug, Clone)]
pub(in crate::audit) struct ClaimFamily {
    /// The measure's index among the audit's.
    pub(in crate::audit) measure: usize,
    /// Each baseline's position among the audited run's other runs.
    pub(in crate::audit) positions: Vec<usize>,
    /// The measure's name.
    pub(in crate::audit) measure_name: String,
    /// The audited run's tag, then the baselines'.
    pub(in crate::audit) runs: Vec<String>,
    /// `collection[run][topic]` over the audited run's topics.
    pub(in crate::audit) collection: Vec<Vec<f64>>,
    /// `samples[sample][run][topic]`.
    pub(in crate::audit) samples: Vec<Vec<Vec<f64>>>,
    /// Each claim, in the order of the baselines.
    pub(in crate::audit) summaries: Vec<ClaimSummary>,
}

impl ClaimFamily {
    /// The family's scores, as [`summarize`] takes them.
    pub(in crate::audit) fn scores(&self) -> ClaimScores<'_> {
        ClaimScores {
            measure: &self.measure_name,
            runs: &self.runs,
            collection: &self.collection,
            samples: &self.samples,
        }
    }
}

/// An audited run's claims: one family per measure (none without baselines).
#[derive(Debug, Clone, Default)]
pub(in crate::audit) struct RunClaims {
    pub(in crate::audit) families: Vec<ClaimFamily>,
}

impl RunClaims {
    /// Every claim as reported, with what remains of it once the merged list is judged
    /// (`remaining[family][claim]`) and how many of the list's documents serve it (`listed`).
    pub(in crate::audit) fn reported(
        &self,
        remaining: &[Vec<f64>],
        listed: &[Vec<usize>],
    ) -> Vec<ClaimSummary> {
        (self.families.iter().zip(remaining).zip(listed))
            .flat_map(|((family, remaining), listed)| {
                (family.summaries.iter().zip(remaining).zip(listed)).map(
                    |((summary, &remaining), &listed)| ClaimSummary {
                        remaining_after_list: remaining,
                        listed_documents: listed,
                        ..summary.clone()
                    },
                )
            })
            .collect()
    }
}

/// The claims of audited run `run` (a collection index) with its audit's `outcomes`, against
/// the baselines of `settings`; `audited` holds every audited run, none of which is `best`.
///
/// # Errors
/// `best` with no run of the task left to be it; the test's errors (fewer than 2 topics).
pub(in crate::audit) fn run_claims(
    basis: &AuditBasis,
    (run, outcomes): (usize, &RunOutcomes),
    settings: &ClaimSettings,
    audited: &[usize],
) -> Result<RunClaims> {
    if settings.baselines.is_empty() {
        return Ok(RunClaims::default());
    }
    let baselines = (0..basis.measures.len())
        .map(|m| baselines_of(basis, settings, m, audited))
        .collect::<Result<Vec<_>>>()?;
    claims_against(basis, (run, outcomes), &baselines, &settings.test)
}

/// The claims of audited run `run` against `baselines[measure]` (collection indices, each
/// with how it was named), tested with `test`.
///
/// # Errors
/// The test's errors (fewer than 2 topics).
pub(in crate::audit) fn claims_against(
    basis: &AuditBasis,
    (run, outcomes): (usize, &RunOutcomes),
    baselines: &[Vec<(usize, &'static str)>],
    test: &TestSettings,
) -> Result<RunClaims> {
    let collection = basis.collection;
    let topics: Vec<usize> = (0..collection.topics.len())
        .filter(|&t| !collection.topics[t].rankings[run].is_empty())
        .collect();
    let tag = &collection.runs[run].tag;
    let families = (baselines.iter().enumerate())
        .filter(|(_, baselines)| !baselines.is_empty())
        .map(|(m, baselines)| {
            let positions: Vec<usize> = (baselines.iter())
                .map(|&(b, _)| {
                    outcomes
                        .others
                        .position(b)
                        .expect("a baseline is another run")
                })
                .collect();
            let mut runs = vec![tag.clone()];
            runs.extend(
                baselines
                    .iter()
                    .map(|&(b, _)| collection.runs[b].tag.clone()),
            );
            let mut family_collection = vec![(outcomes.outcomes.iter())
                .map(|t| t.audit.scores[m].lower)
                .collect::<Vec<f64>>()];
            family_collection.extend(baselines.iter().map(|&(b, _)| {
                (topics.iter())
                    .map(|&t| basis.scores.per_topic[b][t].as_ref().map_or(0.0, |s| s[m]))
                    .collect()
            }));
            let mut family = ClaimFamily {
                measure: m,
                measure_name: basis.measures[m].to_string(),
                samples: sampled_scores(outcomes, m, &family_collection, &positions),
                positions,
                runs,
                collection: family_collection,
                summaries: Vec::new(),
            };
            family.summaries = summarize(&family.scores(), test)
                .with_context(|| format!("testing the claims of run {tag}"))?;
            for (summary, &(_, chosen_as)) in family.summaries.iter_mut().zip(baselines) {
                summary.chosen_as = chosen_as.to_string();
            }
            Ok(family)
        })
        .collect::<Result<_>>()?;
    Ok(RunClaims { families })
}

/// The baselines of measure `m` (collection indices, each with how it was named), each once.
fn baselines_of(
    basis: &AuditBasis,
    settings: &ClaimSettings,
    m: usize,
    audited: &[usize],
) -> Result<Vec<(usize, &'static str)>> {
    let runs = &basis.collection.runs;
    let mut chosen: Vec<(usize, &'static str)> = Vec::new();
    for baseline in &settings.baselines {
        let pick = match baseline {
            Baseline::Run { tag, is_file } => {
                let index = (runs.iter().position(|r| r.tag == *tag))
                    .expect("a baseline's tag was checked against the task");
                (index, if *is_file { "file" } else { "run" })
            }
            Baseline::Best(by) => (best_run(basis, by.unwrap_or(m), audited)?, "best"),
        };
        if chosen.iter().all(|&(index, _)| index != pick.0) {
            chosen.push(pick);
        }
    }
    Ok(chosen)
}

/// The task's best run on the collection by measure `m`, the audited runs and the baselines
/// read from files aside (ties: the first in the collection's order).
fn best_run(basis: &AuditBasis, m: usize, audited: &[usize]) -> Result<usize> {
    let runs = &basis.collection.runs;
    (0..runs.len())
        .filter(|r| !audited.contains(r) && runs[*r].team != BASELINE_TEAM)
        .fold(None, |best: Option<usize>, r| match best {
            Some(b) if basis.scores.summary[b][m] >= basis.scores.summary[r][m] => Some(b),
            _ => Some(r),
        })
        .ok_or_else(|| {
            Error::Invalid(
                "--against best: the task has no run but the audited ones to be the best".into(),
            )
        })
}

/// `samples[sample][run][topic]`: the audited run's sampled topic scores of measure `m`, and
/// each baseline's (at `positions` among the other runs) moved by the documents drawn relevant.
fn sampled_scores(
    outcomes: &RunOutcomes,
    m: usize,
    collection: &[Vec<f64>],
    positions: &[usize],
) -> Vec<Vec<Vec<f64>>> {
    let samples = outcomes.outcomes.first().map_or(0, |t| t.samples.len());
    (0..samples)
        .into_par_iter()
        .map(|s| {
            let mut scores = collection.to_vec();
            for (t, (outcome, shift)) in outcomes.outcomes.iter().zip(&outcomes.shifts).enumerate()
            {
                scores[0][t] = outcome.samples[s][m];
                for doc in 0..outcome.unjudged_ids.len() {
                    let Some(grade) = outcome.drawn_grade(s, doc) else {
                        continue;
                    };
                    for (b, &position) in positions.iter().enumerate() {
                        scores[b + 1][t] +=
                            outcomes
                                .others
                                .topic_change(shift, (doc, grade), m, position);
                    }
                }
            }
            scores
        })
        .collect()
}
