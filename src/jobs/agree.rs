//! `agree`: how far two qrels, A and B, agree: on the grades of the pairs both grade, topic by
//! topic on what each grades alone, and, given runs, on the leaderboards they give (the runs
//! scored and compared on each as `compare` does, on the topics both grade).

use std::borrow::Cow;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::base::error::{Context, Error, Result, Warning};
use crate::base::relevance::{check_relevance_level, Grade};
use crate::io::qrels::{read_qrels, read_qrels_of, Qrels, TopicQrels};
use crate::io::run::Run;
use crate::io::task::TaskManifest;
use crate::jobs::compare::{CompareOptions, TopicRule};
use crate::jobs::simulate::DEFAULT_STUDY_MEASURES;
use crate::report::agree::{Agreement, Leaderboard, MeasureAgreement, TopicAgreement};
use crate::report::compare::Comparison;
use crate::stats::agreement::{grade_agreement, kappa};
use crate::stats::comparison::SignificanceTest;
use crate::stats::correction::Correction;
use crate::stats::leaderboard::leaderboard_agreement;
use crate::stats::pair_changes::{directions, Direction, PairChanges};
use crate::stats::summary::Spread;

/// The numbers of A's best runs among which tau_b is also given.
pub const TOP_RUNS: [usize; 2] = [10, 15];

/// The options of `agree`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AgreeOptions {
    /// Measures the leaderboards are compared on, in trec_eval or ir_measures spelling, each a
    /// list.
    pub measures: Vec<String>,
    /// A grade >= this counts as relevant (the binary kappa, the shares, the binary measures);
    /// `None`: the task's, or 1 without a task.
    pub relevance_level: Option<i32>,
    /// A task manifest: both qrels must grade its topics only, and its relevance level is the
    /// default.
    pub task: Option<PathBuf>,
    /// The paired test of the runs' pairs (as `compare`'s).
    pub test: SignificanceTest,
    /// The correction over each measure's pairs.
    pub correction: Correction,
    /// A pair differs significantly when its adjusted p-value is below this, in (0, 1).
    pub alpha: f64,
    /// Random samples of the randomization, bootstrap and Tukey tests.
    pub permutations: usize,
    /// The seed of their random streams.
    pub seed: u64,
}

impl Default for AgreeOptions {
    fn default() -> Self {
        let compare = CompareOptions::default();
        Self {
            measures: vec![DEFAULT_STUDY_MEASURES.to_string()],
            relevance_level: None,
            task: None,
            test: compare.test,
            correction: compare.correction,
            alpha: compare.alpha,
            permutations: compare.permutations,
            seed: compare.seed,
        }
    }
}

/// The topics of a task, which both qrels must keep to.
#[derive(Debug)]
struct TaskTopics {
    /// The manifest.
    manifest: PathBuf,
    /// The topics its official qrels grade.
    topics: BTreeSet<String>,
}

impl TaskTopics {
    /// Why `topic` is refused, if it is.
    fn check(&self, topic: &str) -> std::result::Result<(), String> {
        if self.topics.contains(topic) {
            return Ok(());
        }
        let mut listed: Vec<&str> = self.topics.iter().take(5).map(String::as_str).collect();
        if self.topics.len() > listed.len() {
            listed.push("...");
        }
        Err(format!(
            "topic {topic:?} is not a topic of the task {} (its qrels grade {} topics: {})",
            self.manifest.display(),
            self.topics.len(),
            listed.join(", ")
        ))
    }
}

/// An agreement checked before the qrels are read.
#[derive(Debug)]
pub struct AgreePlan {
    comparison: CompareOptions,
    relevance_level: Grade,
    task_topics: Option<TaskTopics>,
}

/// Two qrels compared, and the problems that did not stop the comparison.
#[derive(Debug)]
pub struct Agreed {
    /// The agreement, ready to render.
    pub agreement: Agreement,
    /// Runs left out of the rankings.
    pub warnings: Vec<Warning>,
}

impl AgreeOptions {
    /// Checks the options and reads the task's manifest and qrels, if a task is named.
    ///
    /// # Errors
    /// An unreadable task, an invalid relevance level, and the checks of `compare`'s options.
    pub fn plan(&self) -> Result<AgreePlan> {
        let task_topics = match &self.task {
            Some(path) => {
                let manifest = TaskManifest::read(path)
                    .with_context(|| format!("loading task {}", path.display()))?;
                let qrels = read_qrels(&manifest.qrels)
                    .with_context(|| format!("loading task {}", path.display()))?;
                let topics = qrels.topics.keys().map(|topic| topic.to_string()).collect();
                Some((
                    manifest.relevance_level,
                    TaskTopics {
                        manifest: path.clone(),
                        topics,
                    },
                ))
            }
            None => None,
        };
        let relevance_level = check_relevance_level(
            (self.relevance_level)
                .or(task_topics.as_ref().map(|(level, _)| *level))
                .unwrap_or(1),
        )?;
        let comparison = CompareOptions {
            measures: self.measures.clone(),
            relevance_level,
            topics: TopicRule::Qrels,
            test: self.test,
            correction: self.correction,
            alpha: self.alpha,
            baseline: None,
            permutations: self.permutations,
            seed: self.seed,
        };
        comparison.plan()?;
        Ok(AgreePlan {
            comparison,
            relevance_level,
            task_topics: task_topics.map(|(_, topics)| topics),
        })
    }
}

impl AgreePlan {
    /// Reads a qrels file, refusing, with its line, a topic outside the task when there is one.
    ///
    /// # Errors
    /// As [`read_qrels`], and a topic outside the task.
    pub fn read_qrels(&self, path: &Path) -> Result<Qrels> {
        Ok(match &self.task_topics {
            Some(task) => read_qrels_of(path, &|topic| task.check(topic))?,
            None => read_qrels(path)?,
        })
    }

    /// Compares qrels A and B (each with the name the outputs give it) and, with two runs or
    /// more, the leaderboards they give. Runs on the current rayon pool.
    ///
    /// # Errors
    /// A topic outside the task, no pair both grade, fewer than 2 topics both grade (with
    /// runs), two runs with one tag.
    pub fn agree(&self, qrels: [(&str, &Qrels); 2], runs: &[Run]) -> Result<Agreed> {
        let [(name_a, qrels_a), (name_b, qrels_b)] = qrels;
        for (name, qrels) in [(name_a, qrels_a), (name_b, qrels_b)] {
            self.check_topics(name, qrels)?;
        }
        let topics = topic_agreements(qrels_a, qrels_b);
        let pairs: Vec<(Grade, Grade)> = topics
            .iter()
            .flat_map(|(_, pairs)| pairs)
            .copied()
            .collect();
        if pairs.is_empty() {
            return Err(Error::Invalid(format!(
                "{name_a} and {name_b} grade no (topic, document) pair in common: there is \
                 nothing to compare"
            )));
        }
        let graded_by_both = topics.iter().filter(|(topic, _)| topic.common > 0);
        let topic_kappas: Vec<f64> = graded_by_both
            .clone()
            .filter_map(|(t, _)| t.kappa)
            .collect();
        let topics_without_kappa = graded_by_both.count() - topic_kappas.len();
        let topics: Vec<TopicAgreement> = topics.into_iter().map(|(topic, _)| topic).collect();
        let mut agreement = Agreement {
            qrels_a: name_a.to_string(),
            qrels_b: name_b.to_string(),
            grades: grade_agreement(&pairs, self.relevance_level),
            topic_kappa: Spread::of(&topic_kappas),
            topics_without_kappa,
            only_a: topics.iter().map(|topic| topic.only_a).sum(),
            only_b: topics.iter().map(|topic| topic.only_b).sum(),
            topics,
            leaderboard: None,
            notes: Vec::new(),
        };
        let mut warnings = Vec::new();
        if !runs.is_empty() {
            self.rank(&mut agreement, [qrels_a, qrels_b], runs, &mut warnings)?;
        }
        Ok(Agreed {
            agreement,
            warnings,
        })
    }

    /// Refuses qrels with a topic outside the task, if there is one.
    fn check_topics(&self, name: &str, qrels: &Qrels) -> Result<()> {
        let Some(task) = &self.task_topics else {
            return Ok(());
        };
        for topic in qrels.topics.keys() {
            task.check(topic)
                .map_err(|why| Error::Invalid(format!("{name}: {why}")))?;
        }
        Ok(())
    }

    /// Scores the runs on A and on B over the topics both grade, compares them as `compare`
    /// does on each, and puts the leaderboards' agreement into `agreement`.
    fn rank(
        &self,
        agreement: &mut Agreement,
        [qrels_a, qrels_b]: [&Qrels; 2],
        runs: &[Run],
        warnings: &mut Vec<Warning>,
    ) -> Result<()> {
        let common: BTreeSet<&str> = (qrels_a.topics.keys())
            .filter(|topic| qrels_b.topics.contains_key(*topic))
            .map(|topic| &**topic)
            .collect();
        let restrict = |qrels: &Qrels| Qrels {
            topics: (qrels.topics.iter())
                .filter(|(topic, _)| common.contains(&***topic))
                .map(|(topic, judgments)| (topic.clone(), judgments.clone()))
                .collect(),
        };
        let (restricted_a, restricted_b) = (restrict(qrels_a), restrict(qrels_b));
        let sides = [
            (agreement.qrels_a.clone(), qrels_a),
            (agreement.qrels_b.clone(), qrels_b),
            ("the topics both grade".to_string(), &restricted_a),
        ];
        let mut kept = Vec::new();
        for run in runs {
            let shares_a_topic = |qrels: &Qrels| {
                (run.topics.iter()).any(|topic| qrels.topics.contains_key(&*topic.topic))
            };
            match sides.iter().find(|(_, qrels)| !shares_a_topic(qrels)) {
                Some((name, _)) => warnings.push(Warning::RunLeftOut {
                    run: run.tag.clone(),
                    qrels: name.clone(),
                }),
                None => kept.push(run),
            }
        }
        if kept.len() < 2 {
            agreement.notes.push(format!(
                "{} run(s) with a topic both qrels grade: no leaderboard to compare",
                kept.len()
            ));
            return Ok(());
        }
        let runs: Cow<[Run]> = if kept.len() == runs.len() {
            Cow::Borrowed(runs)
        } else {
            Cow::Owned(kept.into_iter().cloned().collect())
        };
        let compare = |qrels: &Qrels, side: &str| {
            let plan = self.comparison.plan()?;
            (plan.compare(qrels, &runs)).with_context(|| format!("ranking the runs on {side}"))
        };
        let compared_a = compare(&restricted_a, &agreement.qrels_a)?;
        let compared_b = compare(&restricted_b, &agreement.qrels_b)?;
        let ignored = (compared_a.warnings.iter())
            .filter(|warning| matches!(warning, Warning::TopicNotJudged { .. }))
            .count();
        if ignored > 0 {
            agreement.notes.push(format!(
                "{ignored} ranking(s) of a run for a topic not both qrels grade are ignored"
            ));
        }
        let (a, b) = (compared_a.comparison, compared_b.comparison);
        agreement.notes.extend(side_notes(&a.notes, &b.notes));
        let measures = (a.measures.iter().zip(&b.measures))
            .map(|(measure_a, measure_b)| {
                let ranks = leaderboard_agreement(&measure_a.means, &measure_b.means, &TOP_RUNS)?;
                let (directions_a, directions_b) =
                    (directions(&measure_a.pairs), directions(&measure_b.pairs));
                let significant = |directions: &[Direction]| {
                    directions.iter().filter(|d| d.is_significant()).count()
                };
                Ok(MeasureAgreement {
                    measure: measure_a.measure.clone(),
                    means_a: measure_a.means.clone(),
                    means_b: measure_b.means.clone(),
                    largest_drop_run: (ranks.largest_drop).map(|drop| a.runs[drop.run].clone()),
                    ranks,
                    significant_a: significant(&directions_a),
                    significant_b: significant(&directions_b),
                    pairs: PairChanges::classify(&directions_a, &directions_b, |_| true),
                })
            })
            .collect::<Result<Vec<_>>>()?;
        agreement.leaderboard = Some(leaderboard(&a, measures));
        Ok(())
    }
}

/// The leaderboard of comparison `a` with `measures` compared.
fn leaderboard(a: &Comparison, measures: Vec<MeasureAgreement>) -> Leaderboard {
    Leaderboard {
        settings: a.settings.clone(),
        runs: a.runs.clone(),
        topics: a.topics,
        measures,
    }
}

/// The notes of the comparisons on A and on B: those both have once, the others saying which.
fn side_notes(notes_a: &[String], notes_b: &[String]) -> Vec<String> {
    let mut notes = Vec::new();
    for note in notes_a {
        notes.push(match notes_b.contains(note) {
            true => note.clone(),
            false => format!("under A: {note}"),
        });
    }
    for note in notes_b.iter().filter(|note| !notes_a.contains(note)) {
        notes.push(format!("under B: {note}"));
    }
    notes
}

/// Every topic either qrels grades, in topic id order: its counts and kappa, and the pairs
/// (A's grade, B's grade) of the documents both grade, in document id order.
fn topic_agreements(
    qrels_a: &Qrels,
    qrels_b: &Qrels,
) -> Vec<(TopicAgreement, Vec<(Grade, Grade)>)> {
    let topics: BTreeSet<&str> = (qrels_a.topics.keys().chain(qrels_b.topics.keys()))
        .map(|topic| &**topic)
        .collect();
    (topics.into_iter())
        .map(|topic| {
            let (a, b) = (qrels_a.topic(topic), qrels_b.topic(topic));
            let pairs: Vec<(Grade, Grade)> = match (a, b) {
                (Some(a), Some(b)) => (a.judgments().into_iter())
                    .filter_map(|(doc, grade)| b.grade(doc).map(|other| (grade, other)))
                    .collect(),
                _ => Vec::new(),
            };
            let count = |judgments: Option<&TopicQrels>| {
                judgments.map_or(0, |judgments| judgments.len()) - pairs.len()
            };
            let agreement = TopicAgreement {
                topic: topic.to_string(),
                common: pairs.len(),
                only_a: count(a),
                only_b: count(b),
                kappa: if pairs.is_empty() {
                    None
                } else {
                    kappa(&pairs)
                },
            };
            (agreement, pairs)
        })
        .collect()
}
