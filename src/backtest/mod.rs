//! The audit's backtest: how far can the audit be trusted on a collection?
//!
//! Each team G with a pooled run is taken out of the collection in one of two worlds:
//! - **classic**: the official qrels less G's unique documents (judged documents that a run of
//!   G retrieved, at any depth, and no other team's run retrieved: [`UniqueRule::any_run_any_depth`]);
//! - **simulated**: the qrels of G's leave-out trial (`simulate --withhold uniques`), read from
//!   a results folder kept with `--keep-qrels` or judged here.
//!
//! Each run of G is then audited against that world as a new run, and compared with the
//! **truth**: the world's judgments completed for that run with the official grade of every
//! document of its top [`AUDIT_DEPTH`] (0 for a document the official qrels lack), every run
//! scored on those completed judgments. Beside the audit's expected score stand the collection's
//! own score and the published corrections of [`corrections`]; and the run is scored again after
//! "judging" the audit's list with the official qrels as the assessor.
//!
//! The rules are in `docs/backtest.md`.

mod claims;
pub mod claims_summary;
mod confusion;
pub mod corrections;
pub mod files;
mod label_fill;
mod outcome;
pub mod settings;
pub mod summary;
mod worlds;

use rayon::prelude::*;

use crate::audit::{AuditBasis, PoolEntry, RunAudit, AUDIT_DEPTH};
use crate::base::error::Result;
use crate::base::progress::StagedProgress;
use crate::base::{DocId, DocumentGrades, Grade};
use crate::collection::{CandidateSource, Collection, UniqueRule};
use crate::eval::Family;
use crate::io::task::Task;
use crate::relevance_model::calibration_sample::TeamAbsence;
use crate::relevance_model::labels::read_labels;
use crate::relevance_model::trials::{AbsenceSource, Judgments, TrialJudgments};
use crate::sim::scoring::{RunScorer, ScoreTable};
use crate::stats::rank::rank_among;

pub use outcome::{BacktestOutcome, BacktestRow, ClaimOutcome, ProbabilityOutcome};
pub use settings::{BacktestSettings, TrialSource, World};
pub use summary::{BacktestSummary, MeasureSummary};
use worlds::{
    audited_runs, classic_worlds, read_truth, simulated_trials, simulated_worlds,
    CLASSIC_WORLD_RULE,
};

/// Runs the backtest of `task`. `progress` hears of the teams as they finish (and, in the
/// simulated world without results, of the study's units first).
///
/// # Errors
/// Unknown teams, corpus, study and learner errors, and unreadable or foreign trial qrels.
pub fn run_backtest(
    task: &Task,
    settings: &BacktestSettings,
    progress: StagedProgress<'_>,
) -> Result<BacktestOutcome> {
    crate::eval::check_auditable(&settings.measures, "the backtest")?;
    let use_text =
        crate::judge::resolve_features(task, settings.features, CandidateSource::Retrieved)?;
    let collection = Collection::prepare(task, &task.qrels, use_text)?;
    let official: Judgments = collection.topics.iter().map(|t| t.grades.clone()).collect();
    let labels = (settings.labels.as_deref())
        .map(|path| read_labels(&collection, path))
        .transpose()?;
    let (teams, audited) = audited_runs(task, &collection, settings)?;
    let (trials, worlds, truth) = match settings.world {
        World::Classic => (
            TrialJudgments::new(),
            classic_worlds(&collection, &official, &teams),
            official.clone(),
        ),
        World::Simulated => {
            let trials = simulated_trials(task, &collection, settings, &teams, progress)?;
            let worlds = simulated_worlds(&trials, &teams);
            (trials, worlds, official.clone())
        }
        World::Deeper => {
            let path = settings
                .truth_qrels
                .as_deref()
                .expect("checked: the deeper world has a truth file");
            let truth = read_truth(&collection, path)?;
            (
                TrialJudgments::new(),
                vec![official.clone(); teams.len()],
                truth,
            )
        }
    };
    let evidence = match (settings.evidence, settings.world) {
        (AbsenceSource::Pool, World::Deeper) => {
            TeamAbsence::Pool(UniqueRule::classic(task.pool_depth))
        }
        (AbsenceSource::Pool, _) => TeamAbsence::Pool(CLASSIC_WORLD_RULE),
        (AbsenceSource::Trials, _) => TeamAbsence::Trials(&trials),
    };
    let mut found = TeamFindings::default();
    for (done, ((team, world), runs)) in teams.iter().zip(worlds).zip(&audited).enumerate() {
        let basis = AuditBasis::new(
            &collection,
            (world, labels.clone()),
            &settings.measures,
            (task.pool_depth, settings.rules.beyond_pool),
            std::slice::from_ref(team),
            evidence,
        )?;
        for run in backtest_team(&basis, &truth, team, runs, settings)? {
            found.rows.extend(run.rows);
            found.probabilities.extend(run.probabilities);
            found.claims.extend(run.claims);
            found.claim_lists.push(run.claim_list);
            found
                .restricted_claim_lists
                .extend(run.restricted_claim_list);
        }
        progress("teams", done + 1, teams.len());
    }
    Ok(BacktestOutcome {
        task: task.manifest.name.clone(),
        world: settings.world,
        evidence: settings.evidence,
        teams,
        rows: found.rows,
        probabilities: found.probabilities,
        claims: found.claims,
        claim_lists: found.claim_lists,
        restricted_claim_lists: found.restricted_claim_lists,
    })
}

/// What the backtest finds of the audited runs.
#[derive(Default)]
struct TeamFindings {
    rows: Vec<BacktestRow>,
    probabilities: Vec<ProbabilityOutcome>,
    claims: Vec<ClaimOutcome>,
    claim_lists: Vec<usize>,
    restricted_claim_lists: Vec<usize>,
}

/// What the backtest finds of one audited run.
struct RunFindings {
    rows: Vec<BacktestRow>,
    probabilities: Vec<ProbabilityOutcome>,
    claims: Vec<ClaimOutcome>,
    /// The length of its list serving its ranks and claims.
    claim_list: usize,
    /// The same of the restricted audit (deeper world).
    restricted_claim_list: Option<usize>,
}

/// The judgments `world` plus the official grade of each of `docs` (0 for a document the
/// official qrels lack).
fn with_official(
    world: &[DocumentGrades],
    official: &[DocumentGrades],
    docs: &[Vec<DocId>],
) -> Judgments {
    world
        .iter()
        .zip(official)
        .zip(docs)
        .map(|((world, official), docs)| {
            let mut completed = world.clone();
            for &doc in docs {
                completed
                    .entry(doc)
                    .or_insert_with(|| official.get(&doc).copied().unwrap_or(0));
            }
            completed
        })
        .collect()
}

/// Audits the runs `team_runs` of `team` against its world (`basis`) and compares with the
/// truth, whose grades come from `truth` (the official judgments, or a deeper file's).
///
/// # Errors
/// The claims' test's errors (fewer than 2 topics).
fn backtest_team(
    basis: &AuditBasis,
    truth: &Judgments,
    team: &str,
    team_runs: &[usize],
    settings: &BacktestSettings,
) -> Result<Vec<RunFindings>> {
    let collection = basis.collection;
    let corrections = corrections::Corrections::new(basis, team);
    let scorer = RunScorer::new(collection, settings.measures.clone());
    team_runs
        .par_iter()
        .map(|&run| {
            let baselines = claims::claim_baselines(basis, team, run);
            let audit_claims = |only| {
                basis.audit_with_claims(
                    run,
                    &settings.rules,
                    &baselines,
                    &settings.significance,
                    only,
                )
            };
            let chosen = audit_claims(None)?;
            // The audit restricted to what the truth grades (deeper world: a lower bound).
            let restricted = (settings.world == World::Deeper)
                .then(|| audit_claims(Some(truth)))
                .transpose()?;
            let audit = &chosen.audit;
            let tops = run_tops(collection, run);
            let judged_with = |lists: &[Vec<DocId>]| scored_with(basis, &scorer, truth, lists);
            let true_scores = judged_with(&tops);
            let mut rows = run_rows(
                (basis, &scorer, truth, &corrections),
                (team, run),
                audit,
                (&tops, &true_scores),
            );
            if let Some((naive, table)) =
                label_fill::label_filled_scores(basis, &scorer, (team, run), &tops)
            {
                for ((row, naive), table) in rows.iter_mut().zip(naive).zip(table) {
                    row.labels_filled_score = Some(naive);
                    row.labels_table_score = Some(table);
                }
            }
            if let Some(restricted) = &restricted {
                for (row, figures) in rows.iter_mut().zip(&restricted.audit.measures) {
                    row.truth_judged_sample_low = Some(figures.score.sample_low);
                    row.truth_judged_sample_high = Some(figures.score.sample_high);
                    row.truth_judged_expected = Some(figures.score.expected);
                    row.truth_judged_probability_rank_moves = Some(figures.probability_rank_moves);
                    row.truth_judged_is_at_risk = Some(figures.is_at_risk);
                }
            }
            let judged_after = |chosen: &crate::audit::claims::ChosenClaims| {
                let list = (chosen.list.iter()).map(|e| (e.topic.as_str(), e.docid.as_str()));
                judged_with(&listed_documents(collection, list))
            };
            let restricted_judged = restricted.as_ref().map(judged_after);
            let truths = claims::ClaimTruths {
                truth: &true_scores,
                judged: &judged_after(&chosen),
                restricted_judged: restricted_judged.as_ref(),
                corrections: &corrections,
                test: &settings.significance,
            };
            Ok(RunFindings {
                claims: claims::claim_outcomes(
                    basis,
                    run,
                    (&chosen, restricted.as_ref()),
                    &baselines,
                    &truths,
                )?,
                claim_list: chosen.list.len(),
                restricted_claim_list: restricted.as_ref().map(|r| r.list.len()),
                probabilities: probability_outcomes(audit, truth, collection),
                rows,
            })
        })
        .collect()
}

/// Every run scored on the world of `basis` plus the grades `truth` gives the documents of
/// `lists` (per topic).
fn scored_with(
    basis: &AuditBasis,
    scorer: &RunScorer,
    truth: &Judgments,
    lists: &[Vec<DocId>],
) -> ScoreTable {
    let completed = with_official(&basis.judgments, truth, lists);
    scorer.score(
        &crate::audit::basis::judgments_grades(basis.collection, &completed),
        |_| true,
    )
}

/// Run `run`'s top [`AUDIT_DEPTH`] per topic.
fn run_tops(collection: &Collection, run: usize) -> Vec<Vec<DocId>> {
    collection
        .topics
        .iter()
        .map(|topic| {
            topic.rankings[run]
                .iter()
                .take(AUDIT_DEPTH)
                .copied()
                .collect()
        })
        .collect()
}

/// The documents of a list of (topic id, document id), per topic in the collection's order.
fn listed_documents<'a>(
    collection: &Collection,
    entries: impl Iterator<Item = (&'a str, &'a str)>,
) -> Vec<Vec<DocId>> {
    let mut listed: Vec<Vec<DocId>> = vec![Vec::new(); collection.topics.len()];
    for (topic, docid) in entries {
        let topic = collection
            .topic_index(topic)
            .expect("a listed topic is the collection's");
        let doc = collection
            .docs
            .get(docid)
            .expect("a listed document is interned");
        listed[topic].push(doc);
    }
    listed
}

/// The (topic id, document id) of each entry of a list, in its order.
fn list_entries(list: &[PoolEntry]) -> impl Iterator<Item = (&str, &str)> {
    list.iter().map(|e| (e.topic.as_str(), e.docid.as_str()))
}

/// Per measure, run `run`'s rank after judging the first `k` entries of `list` through
/// `judged_with`, for `k` from 0 to the list's length; and the scores after the whole list.
fn prefix_ranks(
    (collection, list, run): (&Collection, &[PoolEntry], usize),
    measures: usize,
    judged_with: impl Fn(&[Vec<DocId>]) -> ScoreTable,
) -> (Vec<Vec<f64>>, ScoreTable) {
    let mut ranks = vec![Vec::with_capacity(list.len() + 1); measures];
    let mut scored = |k: usize| {
        let scores = judged_with(&listed_documents(collection, list_entries(&list[..k])));
        for (m, ranks) in ranks.iter_mut().enumerate() {
            ranks.push(rank_in(&scores.summary, run, m));
        }
        scores
    };
    for k in 0..list.len() {
        scored(k);
    }
    let whole = scored(list.len());
    (ranks, whole)
}

/// The rank of run `run` among all other runs of a score table's measure.
fn rank_in(summary: &[Vec<f64>], run: usize, measure: usize) -> f64 {
    let others: Vec<f64> = summary
        .iter()
        .enumerate()
        .filter(|&(other, _)| other != run)
        .map(|(_, values)| values[measure])
        .collect();
    rank_among(&others, summary[run][measure])
}

/// The rows of one audited run: `run` of `team`, audited as `audit`, whose top is `tops` and
/// whose truth scores every run as `truth`.
fn run_rows(
    (basis, scorer, official, corrections): (
        &AuditBasis,
        &RunScorer,
        &Judgments,
        &corrections::Corrections,
    ),
    (team, run): (&str, usize),
    audit: &RunAudit,
    (tops, truth): (&[Vec<DocId>], &ScoreTable),
) -> Vec<BacktestRow> {
    let collection = basis.collection;
    let listed = listed_documents(collection, list_entries(&audit.to_judge));
    let judged_with = |lists: &[Vec<DocId>]| scored_with(basis, scorer, official, lists);
    let (ranks_after_prefixes, judged) = prefix_ranks(
        (collection, &audit.to_judge, run),
        basis.measures.len(),
        judged_with,
    );
    let oracle = judged_with(&oracle_list(
        &basis.judgments,
        official,
        tops,
        &listed,
        collection.relevance_level,
    ));
    let needs_judging = audit.measures.iter().any(|m| m.is_at_risk);
    let truth_coverage = coverage_of(&basis.judgments, official, tops);
    let relevant_in = |lists: &[Vec<DocId>]| {
        relevant_unjudged(
            &basis.judgments,
            official,
            lists,
            collection.relevance_level,
        )
        .map(|docs| docs.count())
        .sum::<usize>()
    };
    let (list_relevant, unjudged_relevant) = (relevant_in(&listed), relevant_in(tops));
    basis
        .measures
        .iter()
        .enumerate()
        .map(|(m, measure)| {
            let figures = &audit.measures[m];
            BacktestRow {
                team: team.to_string(),
                run: collection.runs[run].tag.clone(),
                measure: measure.to_string(),
                topics: audit.topics.len(),
                true_score: truth.summary[run][m],
                true_rank: rank_in(&truth.summary, run, m),
                collection_score: basis.scores.summary[run][m],
                collection_rank: rank_in(&basis.scores.summary, run, m),
                expected_score: figures.score.expected,
                upper: figures.score.upper,
                median_score: figures.score.median,
                sample_low: figures.score.sample_low,
                sample_high: figures.score.sample_high,
                webber_park_score: basis.scores.summary[run][m] + corrections.adjustment(m),
                anti_precision_score: (measure.family == Family::Precision)
                    .then(|| corrections.anti_precision(run, m)),
                condensed_score: corrections.condensed(run, m),
                rbp_residual_upper: corrections
                    .residual(run, m)
                    .map(|residual| basis.scores.summary[run][m] + residual),
                probability_rank_moves: figures.probability_rank_moves,
                is_at_risk: figures.is_at_risk,
                needs_judging,
                list_size: audit.to_judge.len(),
                list_relevant,
                unjudged_relevant,
                judged_score: judged.summary[run][m],
                judged_rank: rank_in(&judged.summary, run, m),
                ranks_after_list_prefixes: ranks_after_prefixes[m].clone(),
                oracle_judged_score: oracle.summary[run][m],
                oracle_judged_rank: rank_in(&oracle.summary, run, m),
                truth_coverage,
                expected_extrapolated: figures.score.extrapolated,
                truth_judged_expected: None,
                truth_judged_sample_low: None,
                truth_judged_sample_high: None,
                truth_judged_probability_rank_moves: None,
                truth_judged_is_at_risk: None,
                labels_filled_score: None,
                labels_table_score: None,
            }
        })
        .collect()
}

/// Per topic, the documents of `docs` unjudged in `world` that `truth` judges relevant, with
/// their positions in `docs`.
fn relevant_unjudged<'a>(
    world: &'a Judgments,
    truth: &'a Judgments,
    docs: &'a [Vec<DocId>],
    relevance_level: Grade,
) -> impl Iterator<Item = impl Iterator<Item = (usize, DocId, Grade)> + 'a> + 'a {
    world
        .iter()
        .zip(truth)
        .zip(docs)
        .map(move |((world, truth), docs)| {
            docs.iter()
                .enumerate()
                .filter(|(_, doc)| !world.contains_key(doc))
                .filter_map(move |(index, &doc)| {
                    let grade = *truth.get(&doc)?;
                    crate::base::is_relevant(grade, relevance_level).then_some((index, doc, grade))
                })
        })
}

/// The oracle's list: per topic, as many of the documents of `top` unjudged in `world` as
/// `listed` holds there, the ones the truth grades relevant with the largest gain at their
/// rank (grade / log2(rank + 1), as DCG counts them; by rank for binary grades), so that
/// judging them raises the run's score as far as judging that many of its documents can.
fn oracle_list(
    world: &Judgments,
    truth: &Judgments,
    tops: &[Vec<DocId>],
    listed: &[Vec<DocId>],
    relevance_level: Grade,
) -> Vec<Vec<DocId>> {
    relevant_unjudged(world, truth, tops, relevance_level)
        .zip(listed)
        .map(|(relevant, listed)| {
            let mut relevant: Vec<(f64, DocId)> = relevant
                .map(|(index, doc, grade)| (f64::from(grade) / ((index + 2) as f64).log2(), doc))
                .collect();
            relevant.sort_by(|a, b| b.0.total_cmp(&a.0));
            relevant
                .into_iter()
                .take(listed.len())
                .map(|(_, doc)| doc)
                .collect()
        })
        .collect()
}

/// The share of the documents of `tops` (per topic) unjudged in `world` that `truth` judges
/// (1 when none is unjudged).
fn coverage_of(world: &Judgments, truth: &Judgments, tops: &[Vec<DocId>]) -> f64 {
    let (mut unjudged, mut covered) = (0usize, 0usize);
    for ((world, truth), top) in world.iter().zip(truth).zip(tops) {
        for doc in top.iter().filter(|doc| !world.contains_key(doc)) {
            unjudged += 1;
            covered += usize::from(truth.contains_key(doc));
        }
    }
    if unjudged == 0 {
        1.0
    } else {
        covered as f64 / unjudged as f64
    }
}

/// The unjudged documents of an audited run's top with their probabilities and their
/// relevance under the truth's grades.
fn probability_outcomes(
    audit: &RunAudit,
    official: &Judgments,
    collection: &Collection,
) -> Vec<ProbabilityOutcome> {
    audit
        .topics
        .iter()
        .flat_map(|topic| {
            let index = collection
                .topic_index(&topic.topic)
                .expect("an audited topic is the collection's");
            topic.unjudged.iter().map(move |doc| {
                let id = collection
                    .docs
                    .get(&doc.docid)
                    .expect("an audited document is interned");
                ProbabilityOutcome {
                    probability: doc.probability,
                    rank: doc.rank,
                    is_relevant: official[index].get(&id).is_some_and(|&grade| {
                        crate::base::is_relevant(grade, collection.relevance_level)
                    }),
                    is_judged: official[index].contains_key(&id),
                }
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_oracle_takes_the_relevant_unjudged_documents_of_largest_gain_as_many_as_listed() {
        // Ranks 1..=6 hold documents 10..=15; 10 is judged in the world, 11 is non-relevant
        // in the truth, 14 is absent from it, 12 (rank 3, grade 1), 13 (rank 4, grade 2) and
        // 15 (rank 6, grade 1) are relevant: by gain, 13 (2 / log2 5) comes before 12.
        let world: Judgments = vec![DocumentGrades::from_iter([(10, 1)])];
        let truth: Judgments = vec![DocumentGrades::from_iter([
            (10, 1),
            (11, 0),
            (12, 1),
            (13, 2),
            (15, 1),
        ])];
        let tops = vec![(10..16).collect::<Vec<DocId>>()];
        let oracle = |listed: usize| oracle_list(&world, &truth, &tops, &[vec![0; listed]], 1);
        assert_eq!(oracle(0), vec![Vec::<DocId>::new()]);
        assert_eq!(oracle(2), vec![vec![13, 12]]);
        assert_eq!(oracle(5), vec![vec![13, 12, 15]], "only what is relevant");
        // At relevance level 2 only the document of grade 2 counts.
        assert_eq!(
            oracle_list(&world, &truth, &tops, &[vec![0; 5]], 2),
            vec![vec![13]]
        );
    }
}
