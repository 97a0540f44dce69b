//! One list to judge for several audited runs. A document that several of them leave unjudged
//! is listed once; the list is ordered by each document's combined value to every audited run's
//! verdict (the sum of its priorities in the runs' own lists, each run's priorities summing to
//! its number of served measures: at risk, and judging can settle them), and judging a listed
//! document settles every run it serves at once. The list stops once every audited run's
//! served measures' remaining probability of a rank move is at most the settle threshold, with
//! at most `list_per_topic` documents of one topic in the whole list; with one audited run and
//! no claims it is that run's own list. The list also serves the runs' claims
//! ([`super::claims`]): a document's value adds its shares of the unsettled claims' expected
//! squared change (those judging can settle), and the list goes on while such a claim's
//! remaining probability that judging changes its outcome exceeds the settle threshold.

use std::collections::BTreeMap;

use rustc_hash::FxHashMap;
use serde::Serialize;

use super::basis::RunOutcomes;
use super::claims::list::{claim_candidates, with_claim_candidates, ClaimProgress};
use super::claims::sampled::RunClaims;
use super::risk::{prioritised, ListProgress};
use super::settings::AuditRules;
use crate::base::{DocId, Grade};
use crate::stats::comparison::TestSettings;

/// One document of the merged list.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MergedEntry {
    /// The topic id.
    pub topic: String,
    /// The document id.
    pub docid: String,
    /// Its best rank among the runs it serves.
    pub rank: usize,
    /// Its probability of relevance: the mean over the runs it serves (each run's samples draw
    /// their own run effect).
    pub probability: f64,
    /// Its combined value: the sum of its priorities in the lists of the runs it serves.
    pub value: f64,
    /// The audited runs it serves: those whose at-risk measures or unsettled claims it can
    /// move.
    pub runs: Vec<String>,
    /// The unsettled claims it serves, each `RUN vs BASELINE by MEASURE`.
    pub claims: Vec<String>,
    /// The largest probability, over the audited runs, that a rank still moves or an
    /// unsettled claim's outcome still changes once this document and every one before it are
    /// judged.
    pub remaining_risk: f64,
    /// Whether it lies beyond the pool's reach for a run it serves.
    pub is_beyond_pool: bool,
    /// The secondary assessor's label of it, with `--labels`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<Grade>,
}

/// The merged list and what it leaves of each run's risk.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct MergedList {
    /// The list before the budget cap.
    pub(super) candidates: usize,
    /// The list, budget applied.
    pub(super) entries: Vec<MergedEntry>,
    /// remaining[run][measure]: each run's remaining probability of a rank move once the list
    /// (budget applied) is judged.
    pub(super) remaining: Vec<Vec<f64>>,
    /// claims_remaining[run][family][claim]: each claim's remaining probability that judging
    /// changes its outcome once the list (budget applied) is judged.
    pub(super) claims_remaining: Vec<Vec<Vec<f64>>>,
    /// claims_listed[run][family][claim]: the documents of the list (budget applied) that
    /// serve each claim.
    pub(super) claims_listed: Vec<Vec<Vec<usize>>>,
}

/// An audited run as the merged list sees it: its tag, its audit's outcomes and its claims.
pub(super) type ListedRun<'a> = (&'a str, &'a RunOutcomes, &'a RunClaims);

/// A run's progress as the list is judged: its ranks' and its claims'.
type Progress<'a> = (ListProgress<'a>, ClaimProgress<'a>);

fn remaining(progress: &Progress) -> f64 {
    progress.0.remaining().max(progress.1.remaining())
}

/// A document some audited runs leave unjudged: where it sits in each run's outcomes.
struct Shared {
    value: f64,
    rank: usize,
    /// (audited run, topic index among its outcomes, document index among the topic's
    /// unjudged documents).
    places: Vec<(usize, usize, usize)>,
}

/// The merged list of `runs`, their claims tested with `test`, with `topic_index` giving a
/// topic's position in the collection (the order ties are broken in).
pub(super) fn merged_list(
    runs: &[ListedRun],
    (rules, test): (&AuditRules, &TestSettings),
    topic_index: &FxHashMap<&str, usize>,
) -> MergedList {
    let mut shared: BTreeMap<(usize, DocId), Shared> = BTreeMap::new();
    for (run, (_, outcomes, claims)) in runs.iter().enumerate() {
        let listed = prioritised(
            &outcomes.outcomes,
            (&outcomes.others, &outcomes.shifts),
            &outcomes.risks,
            &outcomes.served,
        );
        let listed = with_claim_candidates(listed, claim_candidates(outcomes, claims));
        for candidate in listed {
            let outcome = &outcomes.outcomes[candidate.topic];
            let topic = topic_index[outcome.audit.topic.as_str()];
            let rank = outcome.audit.unjudged[candidate.doc].rank;
            let entry = shared
                .entry((topic, outcome.unjudged_ids[candidate.doc]))
                .or_insert(Shared {
                    value: 0.0,
                    rank,
                    places: Vec::new(),
                });
            entry.value += candidate.priority;
            entry.rank = entry.rank.min(rank);
            entry.places.push((run, candidate.topic, candidate.doc));
        }
    }
    let mut order: Vec<((usize, DocId), Shared)> = shared.into_iter().collect();
    // Highest value first; ties by topic, then best rank, then document.
    order.sort_by(|(a_key, a), (b_key, b)| {
        b.value
            .total_cmp(&a.value)
            .then(a_key.0.cmp(&b_key.0))
            .then(a.rank.cmp(&b.rank))
            .then(a_key.1.cmp(&b_key.1))
    });
    let mut progress: Vec<Progress> = runs
        .iter()
        .map(|(_, o, claims)| {
            let ranks = ListProgress::new(
                &o.outcomes,
                (&o.others, &o.shifts),
                &o.risks,
                o.list_measures(),
                rules.rank_margin,
            );
            (ranks, ClaimProgress::new(o, claims, *test))
        })
        .collect();
    let remaining_now = |progress: &[Progress]| -> Vec<Vec<f64>> {
        progress
            .iter()
            .zip(runs)
            .map(|(p, (_, o, _))| (0..o.risks.len()).map(|m| p.0.remaining_of(m)).collect())
            .collect()
    };
    let claims_now = |progress: &[Progress]| -> Vec<Vec<Vec<f64>>> {
        progress.iter().map(|p| p.1.remaining_of_each()).collect()
    };
    let threshold = rules.settle_threshold;
    let limit = rules.list_per_topic.unwrap_or(usize::MAX);
    let mut served: FxHashMap<usize, usize> = FxHashMap::default();
    let mut entries = Vec::new();
    let mut served_claims = Vec::new();
    let mut remaining_after = vec![remaining_now(&progress)];
    let mut claims_after = vec![claims_now(&progress)];
    for ((topic, _), document) in order {
        if progress.iter().all(|p| remaining(p) <= threshold) {
            break;
        }
        let unsettled =
            |&&(run, _, _): &&(usize, usize, usize)| remaining(&progress[run]) > threshold;
        if !document.places.iter().any(|place| unsettled(&place)) {
            continue;
        }
        let count = served.entry(topic).or_default();
        if *count >= limit {
            continue;
        }
        *count += 1;
        let served: Vec<(usize, usize, usize)> = (document.places.iter())
            .flat_map(|&(run, topic, doc)| {
                let claims = progress[run].1.served_by(topic, doc);
                claims
                    .into_iter()
                    .map(move |(family, claim)| (run, family, claim))
            })
            .collect();
        for &(run, topic, doc) in &document.places {
            progress[run].0.judge(topic, doc);
            progress[run].1.judge(topic, doc);
        }
        entries.push(entry(runs, &document, &progress, &served));
        served_claims.push(served);
        remaining_after.push(remaining_now(&progress));
        claims_after.push(claims_now(&progress));
    }
    let candidates = entries.len();
    let limit = rules.budget.unwrap_or(usize::MAX).min(candidates);
    entries.truncate(limit);
    let mut claims_listed: Vec<Vec<Vec<usize>>> = (claims_after[0].iter())
        .map(|families| {
            families
                .iter()
                .map(|claims| vec![0; claims.len()])
                .collect()
        })
        .collect();
    for &(run, family, claim) in served_claims[..limit].iter().flatten() {
        claims_listed[run][family][claim] += 1;
    }
    MergedList {
        candidates,
        entries,
        remaining: remaining_after.swap_remove(limit),
        claims_remaining: claims_after.swap_remove(limit),
        claims_listed,
    }
}

/// The listed `document` once judged, `progress` holding every run's remaining risk after it,
/// `claims` the claims it serves (run, family, claim).
fn entry(
    runs: &[ListedRun],
    document: &Shared,
    progress: &[Progress],
    claims: &[(usize, usize, usize)],
) -> MergedEntry {
    let docs: Vec<_> = document
        .places
        .iter()
        .map(|&(run, topic, doc)| {
            let audit = &runs[run].1.outcomes[topic].audit;
            (&audit.topic, &audit.unjudged[doc])
        })
        .collect();
    let (topic, first) = docs[0];
    MergedEntry {
        topic: topic.clone(),
        docid: first.docid.clone(),
        rank: document.rank,
        label: first.label,
        probability: docs.iter().map(|(_, d)| d.probability).sum::<f64>() / docs.len() as f64,
        value: document.value,
        runs: document
            .places
            .iter()
            .map(|&(run, _, _)| runs[run].0.to_string())
            .collect(),
        claims: (claims.iter())
            .map(|&(run, family, claim)| {
                let summary = &runs[run].2.families[family].summaries[claim];
                format!(
                    "{} vs {} by {}",
                    summary.run, summary.baseline, summary.measure
                )
            })
            .collect(),
        remaining_risk: progress.iter().map(remaining).fold(0.0, f64::max),
        is_beyond_pool: docs.iter().any(|(_, d)| d.is_beyond_pool),
    }
}

/// Writes `qid docid probability` lines in the list's order.
///
/// # Errors
/// When writing fails.
pub fn write_pool(out: &mut dyn std::io::Write, entries: &[MergedEntry]) -> std::io::Result<()> {
    for entry in entries {
        writeln!(
            out,
            "{} {} {:.6}",
            entry.topic, entry.docid, entry.probability
        )?;
    }
    Ok(())
}
