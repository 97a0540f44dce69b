//! How the audit speaks of claims: the verdict's lead, the claims' table, what returned
//! judgments changed, and the page's figure of each claim's difference (the collection's, the
//! expected one and its 90% range), drawn as inline SVG with maud as the rank figure is.

use maud::{html, Markup};

use super::summary::{ClaimChange, ClaimSummary, ClaimVerdict};
use crate::audit::markdown::{names, per_topic_cap, section, table};
use crate::audit::report::AuditReport;
use crate::report::document::Block;

/// At most this many unsettled claims are named in the verdict.
const NAMED_CLAIMS: usize = 3;

/// The columns both claims tables open with: the claim (run, baseline, measure), then its
/// difference and p-value on the collection.
const CLAIM_COLUMNS: [&str; 5] = ["run", "baseline", "measure", "difference", "p"];

/// A claims table's header: [`CLAIM_COLUMNS`], then `more`.
fn claims_header(more: &[&str]) -> Vec<String> {
    names(&[&CLAIM_COLUMNS[..], more].concat())
}

/// `RUN vs BASELINE by MEASURE`.
fn name(claim: &ClaimSummary) -> String {
    format!("{} vs {} by {}", claim.run, claim.baseline, claim.measure)
}

/// The claims' part of the verdict, `None` without claims: each unsettled claim with its
/// probability (at most [`NAMED_CLAIMS`]) and whether judging cannot settle it, how many are
/// safe or no claim, and, when the list serves some (unsettled, and judging can settle them),
/// the list's length (`listed`, the merged list, which serves ranks and claims) with the
/// largest probability that judging changes such a claim's outcome before and after it.
pub fn claims_verdict(reports: &[AuditReport], listed: usize) -> Option<String> {
    let claims: Vec<&ClaimSummary> = reports.iter().flat_map(|r| &r.claims).collect();
    if claims.is_empty() {
        return None;
    }
    let count = |verdict: ClaimVerdict| claims.iter().filter(|c| c.verdict == verdict).count();
    let unsettled: Vec<&&ClaimSummary> = (claims.iter())
        .filter(|c| c.verdict.is_unsettled())
        .collect();
    let mut parts: Vec<String> = (unsettled.iter().take(NAMED_CLAIMS))
        .map(|c| {
            let settle = if c.cannot_settle {
                "; judging cannot settle it"
            } else {
                ""
            };
            match c.verdict {
                ClaimVerdict::AtRisk => format!(
                    "{} at risk (P(significant as claimed) {:.2}{settle})",
                    name(c),
                    c.probability_significant_as_claimed
                ),
                _ => format!(
                    "{}: judging could make it significant (P {:.2}{settle})",
                    name(c),
                    1.0 - c.probability_not_significant
                ),
            }
        })
        .collect();
    if unsettled.len() > NAMED_CLAIMS {
        parts.push(format!("{} more unsettled", unsettled.len() - NAMED_CLAIMS));
    }
    for (verdict, label) in [
        (ClaimVerdict::Safe, "safe"),
        (ClaimVerdict::NoClaim, "no claim"),
    ] {
        let n = count(verdict);
        if n > 0 {
            parts.push(format!("{n} {label}"));
        }
    }
    let mut text = format!("claims: {}", parts.join(", "));
    let served: Vec<&&ClaimSummary> = claims.iter().filter(|c| c.steers_list()).collect();
    if !served.is_empty() {
        let largest =
            |value: fn(&ClaimSummary) -> f64| served.iter().map(|c| value(c)).fold(0.0, f64::max);
        let before = largest(|c| c.probability_outcome_changes);
        let documents = match listed {
            1 => "1 document".to_string(),
            n => format!("{n} documents"),
        };
        text.push_str(&format!(
            "; judge {documents} (P(claim's outcome changes) {before:.2} → {:.2})",
            largest(|c| c.remaining_after_list)
        ));
    }
    Some(text)
}

/// A claim's verdict, and whether judging cannot settle it.
pub fn verdict(claim: &ClaimSummary) -> String {
    if claim.cannot_settle {
        format!("{}; judging cannot settle it", claim.verdict)
    } else {
        claim.verdict.to_string()
    }
}

/// A claim as the assessment sheet gives it: `RUN vs BASELINE by MEASURE: verdict`, its
/// probability of being significant (as claimed, when the collection finds it so), and its
/// probability that judging changes its outcome before and after the sheet is judged.
pub fn sheet_line(claim: &ClaimSummary) -> String {
    let significant = if claim.is_significant {
        format!(
            "P(significant as claimed) {:.2}",
            claim.probability_significant_as_claimed
        )
    } else {
        format!(
            "P(significant) {:.2}",
            1.0 - claim.probability_not_significant
        )
    };
    format!(
        "{}: {}, {significant}, P(outcome changes) {:.2} → {:.2} once this sheet is judged",
        name(claim),
        verdict(claim),
        claim.probability_outcome_changes,
        claim.remaining_after_list
    )
}

/// The claims' section: how they are read, and one row per claim.
pub fn claims_blocks(reports: &[AuditReport]) -> Vec<Block> {
    let claims: Vec<&ClaimSummary> = reports.iter().flat_map(|r| &r.claims).collect();
    if claims.is_empty() {
        return Vec::new();
    }
    let settings = &reports[0].settings;
    let explanation = format!(
        "Each audited run against each baseline, per measure: the difference on the collection \
         (the run's score less the baseline's, mean over the run's {} topics) and its p-value, \
         corrected over the run's claims of the measure; over {} Monte-Carlo samples of the \
         unjudged documents (both runs' scores move with them), the expected difference and \
         its 90% range, and the share of samples where the difference is significant as the \
         collection says, reversed, or not significant. Safe: significant, and as claimed in at \
         least 0.9 of the samples; at risk: significant, as claimed in fewer; no claim: not \
         significant, nor in more than 0.1 of the samples, else judging could make it \
         significant. After list: the probability that judging changes the claim's outcome \
         once the documents to judge are judged. Judging cannot settle an unsettled claim when \
         its own whole list, at most {} documents a topic, would leave that probability above \
         {}; the list then does not serve it.",
        claims[0].topics,
        settings.samples,
        per_topic_cap(settings.list_per_topic),
        settings.settle_threshold
    );
    let rows = (claims.iter())
        .map(|c| {
            vec![
                c.run.clone(),
                format!("{} ({})", c.baseline, c.chosen_as),
                c.measure.clone(),
                format!("{:+.4}", c.difference),
                format!("{:.4}", c.p_value),
                format!(
                    "{:+.4} ({:+.4}–{:+.4})",
                    c.expected_difference, c.difference_low, c.difference_high
                ),
                format!("{:.2}", c.probability_significant_as_claimed),
                format!("{:.2}", c.probability_reversed),
                format!("{:.2}", c.probability_not_significant),
                format!("{:.2}", c.remaining_after_list),
                c.listed_documents.to_string(),
                verdict(c),
            ]
        })
        .collect();
    vec![
        section(2, "Claims"),
        Block::Paragraph(explanation),
        table(
            claims_header(&[
                "expected (90% range)",
                "P(significant as claimed)",
                "P(reversed)",
                "P(not significant)",
                "after list",
                "documents listed",
                "verdict",
            ]),
            "lllrrrrrrrrl",
            rows,
        ),
    ]
}

/// What returned judgments changed of the claims.
pub fn judged_claims_blocks(changes: &[ClaimChange]) -> Vec<Block> {
    if changes.is_empty() {
        return Vec::new();
    }
    let cell = |change: &ClaimChange, value: fn(&ClaimSummary) -> String| {
        format!("{} → {}", value(&change.before), value(&change.after))
    };
    let rows = (changes.iter())
        .map(|change| {
            vec![
                change.after.run.clone(),
                cell(change, |c| c.baseline.clone()),
                change.after.measure.clone(),
                cell(change, |c| format!("{:+.4}", c.difference)),
                cell(change, |c| format!("{:.4}", c.p_value)),
                cell(change, |c| {
                    format!("{:.2}", c.probability_significant_as_claimed)
                }),
                cell(change, verdict),
            ]
        })
        .collect();
    vec![table(
        claims_header(&["P(significant as claimed)", "verdict"]),
        "lllrrrl",
        rows,
    )]
}

/// The figure's width, a row's height and the margins, in pixels.
const WIDTH: f64 = 720.0;
const ROW: f64 = 22.0;
const LEFT: f64 = 260.0;
const RIGHT: f64 = 20.0;
const TOP: f64 = 26.0;

/// The claims' figure, `None` without claims: per measure, a row per claim on the axis of the
/// difference (the measure's claims share it, 0 marked), the collection's difference (a dot),
/// the expected difference (a ring) and its 90% range (a bar).
pub fn claims_figure(reports: &[AuditReport]) -> Option<Block> {
    let claims: Vec<&ClaimSummary> = reports.iter().flat_map(|r| &r.claims).collect();
    let mut measures: Vec<&str> = Vec::new();
    for claim in &claims {
        if !measures.contains(&claim.measure.as_str()) {
            measures.push(&claim.measure);
        }
    }
    if measures.is_empty() {
        return None;
    }
    let panels: Vec<Vec<&ClaimSummary>> = (measures.iter())
        .map(|m| claims.iter().copied().filter(|c| c.measure == *m).collect())
        .collect();
    let heights: Vec<f64> = (panels.iter())
        .map(|p| TOP + ROW * p.len() as f64 + 10.0)
        .collect();
    let height = heights.iter().sum::<f64>() + 10.0;
    let tops: Vec<f64> = (heights.iter())
        .scan(0.0, |top, h| {
            let this = *top;
            *top += h;
            Some(this)
        })
        .collect();
    let svg = html! {
        svg xmlns="http://www.w3.org/2000/svg" width=(WIDTH) height=(height)
            viewBox={ "0 0 " (WIDTH) " " (height) } role="img" font-family="sans-serif"
            font-size="12" {
            @for (panel, top) in panels.iter().zip(&tops) {
                (claims_panel(panel, *top))
            }
        }
    };
    Some(Block::Drawing {
        caption: "Claims, per measure: the audited run's score less the baseline's; a dot, the \
                  collection's difference; a ring, the expected difference; a bar, the 90% \
                  range of the sampled differences; the grey line, no difference."
            .to_string(),
        svg: svg.into_string(),
    })
}

/// One measure's panel of `claims`, its top at `top`.
fn claims_panel(claims: &[&ClaimSummary], top: f64) -> Markup {
    let values = (claims.iter()).flat_map(|c| {
        [
            c.difference,
            c.difference_low,
            c.difference_high,
            c.expected_difference,
        ]
    });
    let (low, high) = values.fold((0.0f64, 0.0f64), |(l, h), v| (l.min(v), h.max(v)));
    let span = (high - low).max(1e-9);
    let x = |value: f64| LEFT + (value - low) / span * (WIDTH - LEFT - RIGHT);
    let axis = top + TOP - 8.0;
    let bottom = top + TOP + ROW * claims.len() as f64;
    html! {
        text x="4" y=(top + 14.0) font-weight="bold" {
            (claims[0].measure) " difference (" (format!("{low:+.4}")) " to "
            (format!("{high:+.4}")) ")"
        }
        line x1=(LEFT) y1=(axis) x2=(WIDTH - RIGHT) y2=(axis) stroke="#999" {}
        line x1=(x(0.0)) y1=(axis) x2=(x(0.0)) y2=(bottom) stroke="#bbb" {}
        @for (row, claim) in claims.iter().enumerate() {
            @let y = top + TOP + ROW * row as f64 + ROW / 2.0;
            g {
                title {
                    (claim.run) " vs " (claim.baseline) " · " (claim.measure) ": difference "
                    (format!("{:+.4}", claim.difference)) " (p " (format!("{:.4}", claim.p_value))
                    "), expected " (format!("{:+.4}", claim.expected_difference)) " ("
                    (format!("{:+.4}", claim.difference_low)) " to "
                    (format!("{:+.4}", claim.difference_high)) "); " (claim.verdict)
                }
                text x="4" y=(y + 4.0) { (claim.run) " vs " (claim.baseline) }
                line x1=(x(claim.difference_low)) y1=(y) x2=(x(claim.difference_high)) y2=(y)
                    stroke="#8aa" stroke-width="4" {}
                circle cx=(x(claim.difference)) cy=(y) r="4" fill="#236" {}
                circle cx=(x(claim.expected_difference)) cy=(y) r="6" fill="none"
                    stroke="#c50" stroke-width="2" {}
            }
        }
    }
}
