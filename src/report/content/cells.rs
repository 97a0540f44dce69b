//! How the report's tables write their cells and lay out a section of one table.

use crate::report::document::{table, Block};
use crate::stats::Spread;

/// A spread over seeds: the mean, then the range in brackets.
pub(super) fn fmt_spread(spread: &Option<Spread>) -> String {
    match spread {
        Some(s) => format!("{:.3} ({:.3}–{:.3})", s.mean, s.min, s.max),
        None => "n/a".into(),
    }
}

/// A count over seeds: the count when every seed gave the same, else its spread.
pub(super) fn fmt_count(spread: &Option<Spread>) -> String {
    match spread {
        Some(s) if s.min == s.max => format!("{:.0}", s.mean),
        Some(s) => format!("{:.1} ({:.0}–{:.0})", s.mean, s.min, s.max),
        None => "n/a".into(),
    }
}

/// A value with three decimals, or `n/a` when it is undefined.
pub(super) fn fmt_value(value: Option<f64>) -> String {
    value.map_or_else(|| "n/a".into(), |v| format!("{v:.3}"))
}

/// A row that says something about a measure in its second cell, the others blank.
pub(super) fn note_row(measure: &str, note: &str, columns: usize) -> Vec<String> {
    let mut row = vec![measure.to_string(), note.to_string()];
    row.resize(columns, String::new());
    row
}

/// A heading of the given level.
pub(super) fn heading(level: u8, text: impl Into<String>) -> Block {
    Block::Heading {
        level,
        text: text.into(),
    }
}

/// A paragraph.
pub(super) fn paragraph(text: impl Into<String>) -> Block {
    Block::Paragraph(text.into())
}

/// A level-2 section of one table: its title, what it holds in words (if anything to say), and
/// the table.
pub(super) fn table_section(
    title: &str,
    text: Option<String>,
    header: &[&str],
    rows: Vec<Vec<String>>,
) -> Vec<Block> {
    let mut blocks = vec![heading(2, title)];
    blocks.extend(text.map(paragraph));
    blocks.push(table(header, rows));
    blocks
}
