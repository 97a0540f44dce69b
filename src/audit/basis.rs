//! What every audit against one set of judgments shares, computed once: the judgments, every
//! run's scores on them, each topic's judge model and the collection's calibration. The
//! backtest audits all of a team's runs against one basis; `reusesim audit` builds one for its
//! single run.

use rand::Rng;
use rayon::prelude::*;
use rustc_hash::FxHashSet;

use super::others::{OtherRuns, TopicShifts};
use super::report::{MeasureAudit, PoolEntry};
use super::risk::{
    judging_list, measure_risk, remaining_after, settling, ListMeasures, ListRules, MeasureRisk,
    Settling,
};
use super::settings::{AuditRules, AUDITED_TEAM, AUDIT_DEPTH, AUDIT_SEED, SAMPLES};
use super::topic::{
    audit_topic, Coverage, Judgment, RelevanceJudge, ScoreInterval, TopicAudit, TopicInput,
    TopicOutcome,
};
use crate::base::error::Result;
use crate::base::{DocId, DocumentGrades, Grade};
use crate::collection::Collection;
use crate::eval::Measure;
use crate::relevance_model::calibration::{calibrate, Calibration};
use crate::relevance_model::calibration_features::{judged_precision, DocumentFeatures};
use crate::relevance_model::calibration_sample::{pooled_tops, CalibrationInput, TeamAbsence};
use crate::relevance_model::effects::RunEffect;
use crate::relevance_model::model::{fit_topic, questions, TopicModel};
use crate::relevance_model::reach::{BestPooledRanks, BeyondPool};
use crate::relevance_model::trials::Judgments;
use crate::sim::scoring::{QrelsGrades, RunScorer, ScoreTable, TopicGrades};
use crate::stats::rank::quantile;

/// What audits against one set of judgments share.
#[derive(Debug)]
pub struct AuditBasis<'c> {
    /// The collection (every run, the audited ones included).
    pub collection: &'c Collection,
    /// The judgments the audit is made against.
    pub judgments: Judgments,
    /// The measures.
    pub measures: Vec<Measure>,
    /// The depth the judgments' pool was taken to.
    pub pool_depth: usize,
    /// Every run scored on the judgments.
    pub scores: ScoreTable,
    /// Each topic's judge model.
    pub models: Vec<TopicModel>,
    /// The calibration of the models.
    pub calibration: Calibration,
    /// How documents beyond the pool's reach are treated.
    pub beyond_pool: BeyondPool,
    /// Each topic's best pooled ranks (collection order).
    pub best_ranks: Vec<BestPooledRanks<'c>>,
    /// A secondary assessor's labels (collection topic order), if given: evidence the
    /// calibration weighs ([`crate::relevance_model::labels`]).
    pub labels: Option<Judgments>,
}

/// One run's audit before its list: its topics' outcomes, what they do to the other runs, and
/// each measure's rank risk.
#[derive(Debug)]
pub(super) struct RunOutcomes {
    pub(super) others: OtherRuns,
    pub(super) outcomes: Vec<TopicOutcome>,
    pub(super) shifts: Vec<TopicShifts>,
    pub(super) risks: Vec<MeasureRisk>,
    /// Whether each measure is at risk.
    pub(super) at_risk: Vec<bool>,
    /// What judging can do for each at-risk measure (None for the others).
    pub(super) settling: Vec<Option<Settling>>,
    /// Whether the run's lists serve each measure: at risk, and judging can settle it.
    pub(super) served: Vec<bool>,
}

impl RunOutcomes {
    /// The measures the run's lists follow and serve.
    pub(super) fn list_measures(&self) -> ListMeasures<'_> {
        ListMeasures {
            at_risk: &self.at_risk,
            served: &self.served,
        }
    }
}

/// When the run's own list, and a measure's own list, stop.
pub(super) fn list_rules(rules: &AuditRules) -> ListRules {
    ListRules {
        threshold: rules.settle_threshold,
        rank_margin: rules.rank_margin,
        per_topic: rules.list_per_topic,
    }
}

/// One run's audit, before it is put into a report.
#[derive(Debug, Clone)]
pub struct RunAudit {
    /// Coverage over the audited topics.
    pub coverage: Coverage,
    /// Per measure.
    pub measures: Vec<MeasureAudit>,
    /// The documents to judge before the budget cap.
    pub candidates: usize,
    /// The documents to judge, in priority order (budget applied).
    pub to_judge: Vec<PoolEntry>,
    /// Per topic.
    pub topics: Vec<TopicAudit>,
}

/// `judgments` as the in-memory scorer takes them.
pub fn judgments_grades(collection: &Collection, judgments: &[DocumentGrades]) -> QrelsGrades {
    collection
        .topics
        .iter()
        .zip(judgments)
        .map(|(topic, grades)| {
            TopicGrades::new(
                &topic.retrieved,
                grades.iter().map(|(&doc, &grade)| (Some(doc), grade)),
            )
        })
        .collect()
}

impl<'c> AuditBasis<'c> {
    /// Scores every run on `judgments`, fits every topic's model and calibrates them on
    /// `absence`, what a team's absence leaves unjudged (the pool taken to `pool_depth`),
    /// leaving the runs of `audited_teams` out of the calibration sample; documents beyond the
    /// pool's reach are treated as `beyond_pool` says. With `labels`, a secondary assessor's
    /// grades, the calibration learns what each label is worth, and a labelled document's
    /// probability weighs its label.
    ///
    /// # Errors
    /// When a logistic fit fails, or the labels grade too few of the calibration's documents.
    pub fn new(
        collection: &'c Collection,
        (judgments, labels): (Judgments, Option<Judgments>),
        measures: &[Measure],
        (pool_depth, beyond_pool): (usize, BeyondPool),
        audited_teams: &[String],
        absence: TeamAbsence,
    ) -> Result<Self> {
        let scorer = RunScorer::new(collection, measures.to_vec());
        let scores = scorer.score(&judgments_grades(collection, &judgments), |_| true);
        let audited_runs: Vec<usize> = (0..collection.runs.len())
            .filter(|&run| audited_teams.contains(&collection.runs[run].team))
            .collect();
        let models = collection
            .topics
            .par_iter()
            .zip(&judgments)
            .map(|(topic, grades)| {
                fit_topic(
                    collection,
                    topic,
                    grades,
                    &questions(topic, grades, &audited_runs),
                )
            })
            .collect::<Result<Vec<_>>>()?;
        let best_ranks = BestPooledRanks::every_topic(collection);
        let calibration = calibrate(
            &CalibrationInput {
                collection,
                grades: &judgments,
                models: &models,
                pool_depth,
                audited_teams,
                beyond_pool,
                best_ranks: &best_ranks,
                labels: labels.as_deref(),
            },
            absence,
        )?;
        Ok(Self {
            collection,
            judgments,
            measures: measures.to_vec(),
            pool_depth,
            scores,
            models,
            calibration,
            beyond_pool,
            best_ranks,
            labels,
        })
    }

    /// The secondary assessor's label of `doc` of topic `topic`, if any.
    pub fn label(&self, topic: usize, doc: DocId) -> Option<Grade> {
        (self.labels.as_ref()).and_then(|labels| labels[topic].get(&doc).copied())
    }

    /// The raw probability of `doc` of topic `topic` under the topic's judge model.
    pub fn raw_probability(&self, topic: usize, doc: DocId) -> f64 {
        self.models[topic]
            .probabilities
            .get(&doc)
            .copied()
            .unwrap_or(0.0)
    }

    /// The log-odds of run `run`'s judged precision on topic `topic`: the relevant share of
    /// the judged documents of its top [`AUDIT_DEPTH`].
    pub fn run_precision(&self, topic: usize, run: usize) -> f64 {
        let ranking = &self.collection.topics[topic].rankings[run];
        let top = &ranking[..ranking.len().min(AUDIT_DEPTH)];
        let level = self.collection.relevance_level;
        judged_precision(top, level, |doc| self.judgments[topic].get(&doc).copied())
    }

    /// Whether the audit treats run `run` as pooled, so that its own top `pool_depth` is in
    /// the pool's reach: a run new to the task always (the audit asks what the collection
    /// would say had it taken part); a task run when it was pooled, or when the audit
    /// extrapolates beyond the pool (it then asks what judging the run's documents would
    /// find, not how the collection treated the run).
    pub fn counts_as_pooled(&self, run: usize) -> bool {
        let info = &self.collection.runs[run];
        info.is_pooled || info.team == AUDITED_TEAM || self.beyond_pool == BeyondPool::Extrapolated
    }

    /// Audits run `run` (a collection run index) on every topic it ranks.
    pub fn audit(&self, run: usize, rules: &AuditRules) -> RunAudit {
        self.finish(&self.outcomes(run, rules, None), rules)
    }

    /// Run `run`'s topic outcomes, what they do to the other runs, and each measure's risk:
    /// the audit before its list. With `only` (per topic, collection order), every unjudged
    /// document outside it is non-relevant for certain: what the audit expects of the
    /// documents a deeper judging did grade, to be compared with their grades.
    pub(super) fn outcomes(
        &self,
        run: usize,
        rules: &AuditRules,
        only: Option<&Judgments>,
    ) -> RunOutcomes {
        let collection = self.collection;
        let info = &collection.runs[run];
        let counts_as_pooled = self.counts_as_pooled(run);
        let run_effects = run_effects(&self.calibration, &info.tag);
        let others = OtherRuns::new(&self.scores, &self.measures, run);
        let (outcomes, shifts): (Vec<TopicOutcome>, Vec<TopicShifts>) = collection
            .topics
            .par_iter()
            .enumerate()
            .filter(|(_, topic)| !topic.rankings[run].is_empty())
            .map(|(index, topic)| {
                let mut in_pool = pooled_tops(collection, topic, self.pool_depth, &[]);
                if counts_as_pooled {
                    in_pool.extend(topic.pool_rankings[run].iter().take(self.pool_depth));
                }
                let judge = RunTopicJudge {
                    basis: self,
                    topic: index,
                    team: &info.team,
                    in_pool,
                    run_precision: self.run_precision(index, run),
                    run_effects: &run_effects,
                    only,
                };
                let input = TopicInput {
                    topic,
                    judgments: &self.judgments[index],
                    ranking: &topic.rankings[run],
                    relevance_level: collection.relevance_level,
                    is_model_fitted: self.models[index].is_fitted,
                    topic_sd: self.calibration.topic_sd[index].hypot(self.calibration.run_topic_sd),
                    grade_factors: &self.calibration.grade_factors,
                    below_level_shift: self.calibration.below_level_shift,
                };
                let outcome = audit_topic(&input, &self.measures, &judge);
                let shifts = others.topic_shifts(
                    topic,
                    &self.judgments[index],
                    &outcome.unjudged_ids,
                    &outcome.grades.grades,
                    (&self.measures, collection.relevance_level),
                );
                (outcome, shifts)
            })
            .unzip();
        let risks: Vec<MeasureRisk> = (0..self.measures.len())
            .map(|m| {
                let collection_score = topic_mean(&outcomes, |t| t.audit.scores[m].lower);
                measure_risk(
                    &outcomes,
                    (&others, &shifts),
                    m,
                    collection_score,
                    rules.rank_margin,
                )
            })
            .collect();
        let at_risk: Vec<bool> = risks
            .iter()
            .map(|r| r.probability_rank_moves > rules.risk_threshold)
            .collect();
        let settling: Vec<Option<Settling>> = (0..risks.len())
            .map(|m| {
                let others = (&others, shifts.as_slice());
                at_risk[m].then(|| settling(&outcomes, others, &risks, m, list_rules(rules)))
            })
            .collect();
        let served = (settling.iter())
            .map(|s| s.is_some_and(|s| !s.cannot_settle))
            .collect();
        RunOutcomes {
            others,
            outcomes,
            shifts,
            risks,
            at_risk,
            settling,
            served,
        }
    }

    /// The audit of prepared `run` with its own list to judge.
    pub(super) fn finish(&self, run: &RunOutcomes, rules: &AuditRules) -> RunAudit {
        let (outcomes, others) = (&run.outcomes, (&run.others, run.shifts.as_slice()));
        let risks = &run.risks;
        let list = run.list_measures();
        let listed = judging_list(outcomes, others, risks, list, list_rules(rules));
        let candidates = listed.len();
        let limit = rules.budget.unwrap_or(usize::MAX).min(candidates);
        let remaining = remaining_after(
            outcomes,
            others,
            risks,
            list,
            (&listed[..limit], rules.rank_margin),
        );
        let to_judge: Vec<PoolEntry> = listed[..limit]
            .iter()
            .map(|entry| {
                let topic = &outcomes[entry.topic].audit;
                let doc = &topic.unjudged[entry.doc];
                PoolEntry {
                    topic: topic.topic.clone(),
                    docid: doc.docid.clone(),
                    rank: doc.rank,
                    probability: doc.probability,
                    priority: entry.priority,
                    remaining_risk: entry.remaining,
                    is_beyond_pool: doc.is_beyond_pool,
                    label: doc.label,
                }
            })
            .collect();
        let measures = self
            .measures
            .iter()
            .enumerate()
            .map(|(m, measure)| {
                let judging = (run.settling[m], remaining[m]);
                measure_audit(outcomes, (&risks[m], m, measure), judging)
            })
            .collect();
        RunAudit {
            coverage: overall_coverage(outcomes),
            measures,
            candidates,
            to_judge,
            topics: outcomes.iter().map(|t| t.audit.clone()).collect(),
        }
    }
}

/// The relevance model's answers about one run's unjudged documents of one topic.
struct RunTopicJudge<'a, 'c> {
    basis: &'a AuditBasis<'c>,
    /// The topic (collection order).
    topic: usize,
    /// The run's team.
    team: &'a str,
    /// The documents in the pool's reach.
    in_pool: FxHashSet<DocId>,
    /// The log-odds of the run's judged precision on the topic.
    run_precision: f64,
    /// The run's effect in each Monte-Carlo sample.
    run_effects: &'a [RunEffect],
    /// The documents a deeper judging graded (see [`AuditBasis::outcomes`]).
    only: Option<&'a Judgments>,
}

impl RelevanceJudge for RunTopicJudge<'_, '_> {
    fn judge(&self, doc: DocId, rank: usize) -> Judgment {
        let calibration = &self.basis.calibration;
        let is_in_pool = self.in_pool.contains(&doc);
        let excluded = (self.only).is_some_and(|only| !only[self.topic].contains_key(&doc));
        if excluded {
            // Non-relevant for certain in every sample.
            return Judgment {
                log_odds: vec![f64::NEG_INFINITY],
                is_beyond_pool: !is_in_pool,
                label: None,
            };
        }
        let document = DocumentFeatures {
            raw: self.basis.raw_probability(self.topic, doc),
            rank,
            run_precision: self.run_precision,
            is_in_pool,
            best_pooled_rank: self.basis.best_ranks[self.topic].without(doc, self.team),
            label: self.basis.label(self.topic, doc),
        };
        let replicates: Vec<f64> = (0..calibration.replicates.len().max(1))
            .map(|replicate| calibration.replicate_log_odds(self.topic, &document, replicate))
            .collect();
        let tilt = (rank as f64).ln() - calibration.log_rank_center;
        let log_odds = (self.run_effects.iter().enumerate())
            .map(|(sample, effect)| {
                effect.log_odds(
                    replicates[sample % replicates.len()],
                    tilt,
                    calibration.run_topic_sd,
                )
            })
            .collect();
        Judgment {
            log_odds,
            is_beyond_pool: !is_in_pool,
            label: document.label,
        }
    }

    fn name(&self, doc: DocId) -> String {
        self.basis.collection.docs.name(doc).to_string()
    }
}

/// The run effect of each Monte-Carlo sample of run `tag`: normal with the standard deviations
/// of the sample's bootstrap replicate ([`Calibration::run_effect_sds`]), from a ChaCha8 stream seeded by ([`AUDIT_SEED`],
/// the run's tag), so that a run's samples do not depend on the other runs audited beside it.
fn run_effects(calibration: &Calibration, tag: &str) -> Vec<RunEffect> {
    let mut rng = crate::base::seed::keyed_rng(AUDIT_SEED, tag);
    let mut normal = move || rng.sample::<f64, _>(rand_distr::StandardNormal);
    (0..SAMPLES)
        .map(|sample| {
            let (shift_sd, slope_sd) = calibration.run_effect_sds(sample);
            RunEffect::draw(shift_sd, slope_sd, &mut normal)
        })
        .collect()
}

/// One measure's overall figures: `m` is its index, `settling` what judging can do for it
/// (None when it is not at risk) and `remaining` its probability of a rank move once the
/// run's list is judged.
fn measure_audit(
    outcomes: &[TopicOutcome],
    (risk, m, measure): (&MeasureRisk, usize, &Measure),
    (settling, remaining): (Option<Settling>, f64),
) -> MeasureAudit {
    let lower = risk.collection_score;
    let upper = topic_mean(outcomes, |t| t.audit.scores[m].upper);
    let expected = topic_mean(outcomes, |t| t.audit.scores[m].expected);
    let mut sampled = risk.sample_scores.clone();
    sampled.sort_by(f64::total_cmp);
    let others = &risk.standings;
    MeasureAudit {
        score: ScoreInterval {
            measure: measure.to_string(),
            lower,
            upper,
            expected,
            median: quantile(&sampled, 0.5),
            sample_low: quantile(&sampled, 0.05),
            sample_high: quantile(&sampled, 0.95),
            extrapolated: topic_mean(outcomes, |t| t.audit.scores[m].extrapolated),
        },
        rank: others.rank(lower),
        rank_best: others.rank(lower.max(upper)),
        rank_worst: others.rank(lower.min(upper)),
        rank_expected: others.rank(expected),
        runs_ranked: others.len() + 1,
        lou_max_score_drop: None,
        probability_rank_moves: risk.probability_rank_moves,
        remaining_probability_rank_moves: remaining,
        is_at_risk: settling.is_some(),
        cannot_settle: settling.is_some_and(|s| s.cannot_settle),
        risk_documents_per_topic: settling.map_or(0.0, |s| s.documents_per_topic),
        risk_documents_beyond_pool_per_topic: settling.map_or(0.0, |s| s.beyond_pool_per_topic),
        remaining_after_merged_list: remaining,
        audited_rank: 1.0,
        audited_rank_expected: 1.0,
        audited_runs: 1,
    }
}

/// The mean of `value` over the audited topics (0 without topics).
fn topic_mean(outcomes: &[TopicOutcome], value: impl Fn(&TopicOutcome) -> f64) -> f64 {
    if outcomes.is_empty() {
        return 0.0;
    }
    outcomes.iter().map(value).sum::<f64>() / outcomes.len() as f64
}

/// Coverage over all audited topics: means of the fractions, sums of the counts.
fn overall_coverage(outcomes: &[TopicOutcome]) -> Coverage {
    let sum =
        |count: fn(&Coverage) -> usize| outcomes.iter().map(|t| count(&t.audit.coverage)).sum();
    Coverage {
        judged_10: topic_mean(outcomes, |t| t.audit.coverage.judged_10),
        judged_20: topic_mean(outcomes, |t| t.audit.coverage.judged_20),
        judged_100: topic_mean(outcomes, |t| t.audit.coverage.judged_100),
        unj_10: topic_mean(outcomes, |t| t.audit.coverage.unj_10),
        unjudged_10: sum(|c| c.unjudged_10),
        unjudged_20: sum(|c| c.unjudged_20),
        unjudged_100: sum(|c| c.unjudged_100),
    }
}
