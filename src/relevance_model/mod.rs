//! The relevance model of the documents a collection never judged, shared by the audit and the
//! simulator's completed assessor: per topic, an out-of-fold judge model ([`model`]); its
//! calibration against the collection's own leave-team-out evidence ([`calibration`], on the
//! sample of [`calibration_sample`] with the features of [`calibration_features`], the
//! correlated effects of [`effects`] and the team bootstrap of [`bootstrap`]); what
//! lies within the pool's reach and how what lies beyond it is treated ([`reach`]); and the
//! judgments a calibration is made against, among them a study's kept trials ([`trials`]).
//! The grade mix of a relevant document is [`grade_mix`]'s, the chance of a grade below the
//! relevance level that graded measures count [`below_level`]'s, the label stage that learns
//! what a secondary assessor's label is worth is [`labels`]'s, and the completed assessor's
//! model and draws are [`completion`]'s. The rules are in `docs/audit.md` and `docs/assessor.md`.
//!
//! It does not own what is done with a probability: the audit's expected scores, rank risk
//! and list live in `audit`, and the study's use of the completed assessor in `sim`.

pub mod below_level;
pub mod bootstrap;
pub mod calibration;
pub mod calibration_features;
pub mod calibration_sample;
pub mod completion;
pub mod effects;
pub mod grade_mix;
pub mod labels;
pub mod model;
pub mod reach;
pub mod trials;
