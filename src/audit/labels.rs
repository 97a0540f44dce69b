//! What the audit says of a secondary assessor's labels (`--labels`): how far they agree with
//! the collection on the pairs both grade, how many of the audited runs' unjudged documents
//! they grade, and what the calibration learnt a label is worth
//! ([`crate::relevance_model::labels::LabelCalibration`], in the settings' calibration).

use serde::Serialize;

use super::basis::AuditBasis;
use super::label_sheet::{unjudged_tops, LabelReason, LabelRequest};
use super::markdown::{names, section, table};
use crate::relevance_model::labels::LabelCalibration;
use crate::report::document::Block;
use crate::stats::agreement::{grade_agreement, GradeAgreement};

/// The labels as the audit used them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LabelsSummary {
    /// The label file.
    pub file: String,
    /// The labels (B) against the collection's judgments (A), on the pairs both grade.
    pub agreement: GradeAgreement,
    /// The audited runs' unjudged documents within the audit's reach (each topic's document
    /// once).
    pub unjudged: usize,
    /// Of which labelled.
    pub unjudged_labelled: usize,
    /// The documents the label sheet asks for (unjudged, then for the calibration).
    pub to_label_unjudged: usize,
    /// The calibration documents the label sheet asks for.
    pub to_label_calibration: usize,
}

/// The summary of labels read from `file`, for runs `audited` of `basis` with the label
/// sheet's `requests`.
pub fn labels_summary(
    basis: &AuditBasis,
    audited: &[usize],
    file: &str,
    requests: &[LabelRequest],
) -> LabelsSummary {
    let unjudged = unjudged_tops(basis, audited);
    let labelled = (unjudged.iter())
        .filter(|&&(topic, doc)| basis.label(topic, doc).is_some())
        .count();
    let mut pairs = Vec::new();
    for (topic, judged) in basis.judgments.iter().enumerate() {
        for (&doc, &grade) in judged {
            pairs.extend(basis.label(topic, doc).map(|label| (grade, label)));
        }
    }
    let asked = |reason| requests.iter().filter(|r| r.reason == reason).count();
    LabelsSummary {
        file: file.to_string(),
        agreement: grade_agreement(&pairs, basis.collection.relevance_level),
        unjudged: unjudged.len(),
        unjudged_labelled: labelled,
        to_label_unjudged: asked(LabelReason::Unjudged),
        to_label_calibration: asked(LabelReason::Calibration),
    }
}

/// The report's section on the labels: their agreement with the collection, how many unjudged
/// documents they grade, and per label grade what the calibration learnt (`stage`, none when
/// the calibration had no labels).
pub(super) fn labels_blocks(
    summary: &LabelsSummary,
    stage: Option<&LabelCalibration>,
) -> Vec<Block> {
    let agreement = &summary.agreement;
    let figure = |value: Option<f64>| value.map_or("undefined".to_string(), |v| format!("{v:.3}"));
    let mut blocks = vec![
        section(2, "Labels"),
        Block::Paragraph(format!(
            "Labels from `{}` grade {} of the audited runs' {} unjudged documents within the \
             audit's reach. On the {} pairs both grade, against the collection: Cohen's kappa \
             {} (binary at level {}: {}); relevant share {} by the collection, {} by the \
             labels. The label sheet would ask for {} unjudged and {} calibration documents.",
            summary.file,
            summary.unjudged_labelled,
            summary.unjudged,
            agreement.pairs,
            figure(agreement.kappa),
            agreement.relevance_level,
            figure(agreement.binary_kappa),
            figure(agreement.relevant_share_a),
            figure(agreement.relevant_share_b),
            summary.to_label_unjudged,
            summary.to_label_calibration,
        )),
    ];
    if let Some(stage) = stage {
        let information = &stage.information;
        let verdict = match information.is_informative {
            true => {
                "they say something of relevance beyond the calibration, and the audit \
                     weighs them"
            }
            false => {
                "they say nothing of relevance beyond the calibration that the test can \
                      find, and the audit does not weigh them: every probability is as without \
                      labels"
            }
        };
        blocks.push(Block::Paragraph(format!(
            "Within topics, on the {} labelled documents a team's absence leaves unjudged ({} \
             rows of the calibration, one per run and document), the labels' likelihood ratio \
             is {:.1} on {} degrees of freedom (p = {:.2e}): {verdict}. Per label grade, the \
             rows' relevant share and the mean probability the audit gives them without and \
             with their labels:",
            information.documents,
            stage.rows,
            information.likelihood_ratio,
            information.degrees_of_freedom,
            information.p_value,
        )));
        let rows = (stage.by_grade.iter())
            .map(|grade| {
                vec![
                    grade.grade.to_string(),
                    grade.rows.to_string(),
                    format!("{:.3}", grade.relevant as f64 / grade.rows.max(1) as f64),
                    format!("{:.3}", grade.probability_without_label),
                    format!("{:.3}", grade.probability),
                ]
            })
            .collect();
        let header = [
            "label",
            "rows",
            "relevant share",
            "P without label",
            "P with label",
        ];
        blocks.push(table(names(&header), "rrrrr", rows));
    }
    blocks
}
