//! `report.html`: a report's [`Document`] as one self-contained page, rendered with maud.
//! The CSS and the script are inline, the figures inline SVG; a Content-Security-Policy lets
//! the page load nothing else. Over each figure, every run's marks carry its name, team and
//! ranks (an SVG `<title>`, and a tip the script shows on hover and focus); tables sort by a
//! click on a column; a team picked in the page's header is highlighted in every figure.

mod figure;
mod text;

use text::{anchor, inline};

use maud::{html, Markup, PreEscaped, DOCTYPE};

use crate::base::error::Result;
use crate::report::document::{Align, Block, Document, ListItem, Table};
use crate::sim::analysis::StudyResults;

/// The page's style sheet.
const STYLE: &str = include_str!("report.css");
/// The page's script: tips, sorting, the team picker.
const SCRIPT: &str = include_str!("report.js");
/// Nothing but the page's own inline style and script, and images inlined as data.
const CONTENT_SECURITY_POLICY: &str =
    "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:";

/// The study's report as a page: `document`'s blocks, its figures drawn from `results`.
///
/// # Errors
/// [`crate::base::error::Error::Plot`] when a figure cannot be drawn.
pub fn study_page(document: &Document, results: &StudyResults) -> Result<String> {
    let mut body = Vec::with_capacity(document.blocks.len());
    for block in &document.blocks {
        body.push(match block {
            Block::Figures(figures) => figures
                .iter()
                .map(|figure| figure::render(figure, results))
                .collect::<Result<Vec<Markup>>>()
                .map(|figures| html! { @for figure in figures { (figure) } })?,
            other => render_block(other),
        });
    }
    Ok(page(&title(document), &results.teams(), &body).into_string())
}

/// A report without figures (an audit's) as a page.
pub fn document_page(document: &Document) -> String {
    let body: Vec<Markup> = document.blocks.iter().map(render_block).collect();
    page(&title(document), &[], &body).into_string()
}

/// The text of the document's first heading.
fn title(document: &Document) -> String {
    document
        .blocks
        .iter()
        .find_map(|block| match block {
            Block::Heading { text, .. } => Some(text.clone()),
            _ => None,
        })
        .unwrap_or_default()
}

/// The page around the rendered blocks, with a picker over `teams` (none without teams).
fn page(title: &str, teams: &[String], body: &[Markup]) -> Markup {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta http-equiv="Content-Security-Policy" content=(CONTENT_SECURITY_POLICY);
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) }
                style { (PreEscaped(STYLE)) }
            }
            body {
                @if !teams.is_empty() {
                    header.controls {
                        label for="team-pick" { "Highlight a team" }
                        select #team-pick {
                            option value="" { "none" }
                            @for team in teams {
                                option value=(team) { (team) }
                            }
                        }
                    }
                }
                main {
                    @for block in body { (block) }
                }
                div #tip role="status" hidden {}
                script { (PreEscaped(SCRIPT)) }
            }
        }
    }
}

/// A block other than figures.
fn render_block(block: &Block) -> Markup {
    match block {
        Block::Heading { level, text } => match level {
            1 => html! { h1 { (inline(text)) } },
            2 => html! { h2 id=(anchor(text)) { (inline(text)) } },
            _ => html! { h3 { (inline(text)) } },
        },
        Block::Lead(text) => html! { p.lead { strong { (inline(text)) } } },
        Block::Paragraph(text) => html! { p { (inline(text)) } },
        Block::Table(table) => render_table(table),
        Block::List(items) => render_list(items),
        Block::Figures(_) => html! {},
        Block::Drawing { caption, svg } => html! {
            figure { (PreEscaped(svg)) figcaption { (inline(caption)) } }
        },
    }
}

fn render_table(table: &Table) -> Markup {
    html! {
        table.sortable {
            thead {
                tr {
                    @for name in &table.header {
                        th scope="col" { button type="button" { (inline(name)) } }
                    }
                }
            }
            tbody {
                @for row in &table.rows {
                    tr {
                        @for (cell, align) in row.iter().zip(&table.align) {
                            td class=[(*align == Align::Right).then_some("number")] { (inline(cell)) }
                        }
                    }
                }
            }
        }
    }
}

fn render_list(items: &[ListItem]) -> Markup {
    html! {
        ul {
            @for item in items {
                li {
                    (inline(&item.text))
                    @if !item.items.is_empty() {
                        ul {
                            @for sub_item in &item.items { li { (inline(sub_item)) } }
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests;
