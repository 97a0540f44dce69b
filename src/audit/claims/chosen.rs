//! An audited run's claims against baselines chosen by the caller, measure by measure (the
//! backtest's: the best pooled run and the pooled runs around the audited one), with the
//! run's audit and the list that serves both its ranks and its claims.

use rustc_hash::FxHashMap;

use super::list::mark_unsettleable;
use super::sampled::claims_against;
use super::summary::ClaimSummary;
use crate::audit::basis::{AuditBasis, RunAudit};
use crate::audit::merged::{merged_list, MergedEntry};
use crate::audit::settings::AuditRules;
use crate::base::error::Result;
use crate::relevance_model::trials::Judgments;
use crate::stats::comparison::TestSettings;

/// A run's audit with its claims against chosen baselines.
#[derive(Debug, Clone)]
pub struct ChosenClaims {
    /// The run's audit, as [`AuditBasis::audit`] gives it.
    pub audit: RunAudit,
    /// Each claim, measure by measure in the order of the baselines.
    pub claims: Vec<ClaimSummary>,
    /// The list that serves the run's at-risk measures and unsettled claims (budget applied).
    pub list: Vec<MergedEntry>,
}

impl AuditBasis<'_> {
    /// Audits run `run` and its claims against `baselines[measure]` (collection indices, each
    /// with the name of how it was chosen), tested with `test`; with `only`, every unjudged
    /// document outside it (per topic, collection order) is non-relevant for certain, as in
    /// the backtest's audit restricted to what a deeper judging graded.
    ///
    /// # Errors
    /// The test's errors (fewer than 2 topics).
    pub fn audit_with_claims(
        &self,
        run: usize,
        rules: &AuditRules,
        baselines: &[Vec<(usize, &'static str)>],
        test: &TestSettings,
        only: Option<&Judgments>,
    ) -> Result<ChosenClaims> {
        let outcomes = self.outcomes(run, rules, only);
        let mut claims = claims_against(self, (run, &outcomes), baselines, test)?;
        let settle = (rules.settle_threshold, rules.list_per_topic);
        mark_unsettleable(&outcomes, &mut claims, *test, settle);
        let topic_index: FxHashMap<&str, usize> = (self.collection.topics.iter().enumerate())
            .map(|(index, topic)| (topic.id.as_str(), index))
            .collect();
        let tag = self.collection.runs[run].tag.as_str();
        let merged = merged_list(&[(tag, &outcomes, &claims)], (rules, test), &topic_index);
        Ok(ChosenClaims {
            audit: self.finish(&outcomes, rules),
            claims: claims.reported(&merged.claims_remaining[0], &merged.claims_listed[0]),
            list: merged.entries,
        })
    }
}
