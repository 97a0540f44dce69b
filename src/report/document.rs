//! The content of a report as a list of blocks (headings, paragraphs, tables, lists, figures),
//! built once and rendered both as Markdown (`report.md`) and as HTML (`report.html`).
//! Text may hold inline code between backticks, as in Markdown.

use std::io::{self, Write};

use crate::report::plots::{figure_stem, FigureKind};

/// A report: its blocks, in reading order (the first is the title).
#[derive(Debug, Clone, PartialEq)]
pub struct Document {
    /// The blocks in reading order.
    pub blocks: Vec<Block>,
}

/// One block of a report.
#[derive(Debug, Clone, PartialEq)]
pub enum Block {
    /// A heading: level 1 is the title, 2 a section, 3 a subsection.
    Heading {
        /// 1, 2 or 3.
        level: u8,
        /// The heading's text.
        text: String,
    },
    /// A paragraph set in bold: what to read first (an audit's verdict).
    Lead(String),
    /// A paragraph of text.
    Paragraph(String),
    /// A table.
    Table(Table),
    /// A bulleted list, each item with its own sub-items.
    List(Vec<ListItem>),
    /// The figures of a study, each under its own level-3 heading.
    Figures(Vec<Figure>),
    /// A drawing made with the content (an audit's rank figure): inline SVG and its caption.
    /// Markdown gives the caption only.
    Drawing {
        /// What it shows, in words.
        caption: String,
        /// The SVG element.
        svg: String,
    },
}

/// A table: the column names, how each column is aligned, and the rows of cells (an empty
/// cell is left blank).
#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    /// Column names.
    pub header: Vec<String>,
    /// Each column's alignment.
    pub align: Vec<Align>,
    /// Rows, each with one cell per column.
    pub rows: Vec<Vec<String>>,
}

/// A table block with the given column names and rows, every column aligned left.
pub fn table(header: &[&str], rows: Vec<Vec<String>>) -> Block {
    Block::Table(Table {
        header: header.iter().map(ToString::to_string).collect(),
        align: vec![Align::Left; header.len()],
        rows,
    })
}

/// How a table column is aligned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    /// To the left (text).
    Left,
    /// To the right (numbers).
    Right,
}

/// An item of a bulleted list.
#[derive(Debug, Clone, PartialEq)]
pub struct ListItem {
    /// The item's text.
    pub text: String,
    /// Sub-items, one level deeper.
    pub items: Vec<String>,
}

/// A figure of a study: its kind, its measure and what it shows.
#[derive(Debug, Clone, PartialEq)]
pub struct Figure {
    /// Which figure.
    pub kind: FigureKind,
    /// The measure it shows.
    pub measure: String,
    /// What it shows, in words.
    pub title: String,
}

impl Figure {
    /// The figure's file name without extension (see [`figure_stem`]).
    pub fn stem(&self) -> String {
        figure_stem(self.kind, &self.measure)
    }

    /// The figure's heading: measure and title.
    pub fn heading(&self) -> String {
        format!("{}: {}", self.measure, self.title)
    }
}

impl Document {
    /// Writes the document as Markdown: blocks separated by a blank line, figures as images
    /// of `figures/<stem>.png`.
    ///
    /// # Errors
    /// When writing fails.
    pub fn write_markdown(&self, out: &mut dyn Write) -> io::Result<()> {
        for (index, block) in self.blocks.iter().enumerate() {
            if index > 0 {
                writeln!(out)?;
            }
            write_markdown_block(out, block)?;
        }
        Ok(())
    }
}

fn write_markdown_block(out: &mut dyn Write, block: &Block) -> io::Result<()> {
    match block {
        Block::Heading { level, text } => {
            writeln!(out, "{} {text}", "#".repeat(usize::from(*level)))
        }
        Block::Lead(text) => writeln!(out, "**{text}**"),
        Block::Paragraph(text) => writeln!(out, "{text}"),
        Block::Table(table) => write_markdown_table(out, table),
        Block::List(items) => {
            for item in items {
                writeln!(out, "- {}", item.text)?;
                for sub_item in &item.items {
                    writeln!(out, "  - {sub_item}")?;
                }
            }
            Ok(())
        }
        Block::Drawing { caption, .. } => writeln!(out, "{caption}"),
        Block::Figures(figures) => {
            // Each figure ends with a blank line, the last one too.
            for figure in figures {
                let heading = figure.heading();
                writeln!(
                    out,
                    "### {heading}\n\n![{heading}](figures/{}.png)\n",
                    figure.stem()
                )?;
            }
            Ok(())
        }
    }
}

fn write_markdown_table(out: &mut dyn Write, table: &Table) -> io::Result<()> {
    let write_row = |out: &mut dyn Write, cells: &[String]| -> io::Result<()> {
        write!(out, "|")?;
        for cell in cells {
            if cell.is_empty() {
                write!(out, " |")?;
            } else {
                write!(out, " {cell} |")?;
            }
        }
        writeln!(out)
    };
    write_row(out, &table.header)?;
    let rule: String = table
        .align
        .iter()
        .map(|align| match align {
            Align::Left => "---|",
            Align::Right => "---:|",
        })
        .collect();
    writeln!(out, "|{rule}")?;
    for row in &table.rows {
        write_row(out, row)?;
    }
    Ok(())
}

/// Text split at its backticks: `(is_code, part)` in order, the parts between backticks code.
pub fn inline_parts(text: &str) -> impl Iterator<Item = (bool, &str)> {
    text.split('`')
        .enumerate()
        .map(|(index, part)| (index % 2 == 1, part))
        .filter(|(_, part)| !part.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn markdown(blocks: Vec<Block>) -> String {
        let mut out = Vec::new();
        Document { blocks }.write_markdown(&mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn blocks_are_separated_by_a_blank_line_and_blank_cells_stay_single_spaced() {
        let text = markdown(vec![
            Block::Heading {
                level: 2,
                text: "Title".into(),
            },
            Block::Paragraph("Some `code`.".into()),
            Block::Table(Table {
                header: vec!["a".into(), "b".into()],
                align: vec![Align::Left, Align::Right],
                rows: vec![vec!["1".into(), String::new()]],
            }),
            Block::List(vec![ListItem {
                text: "item".into(),
                items: vec!["sub".into()],
            }]),
        ]);
        assert_eq!(
            text,
            "## Title\n\nSome `code`.\n\n| a | b |\n|---|---:|\n| 1 | |\n\n- item\n  - sub\n"
        );
    }

    #[test]
    fn figures_link_their_png_and_end_with_a_blank_line() {
        let text = markdown(vec![
            Block::Figures(vec![Figure {
                kind: FigureKind::TauB,
                measure: "map".into(),
                title: "tau".into(),
            }]),
            Block::Paragraph("after".into()),
        ]);
        assert_eq!(
            text,
            "### map: tau\n\n![map: tau](figures/tau_b_map.png)\n\n\nafter\n"
        );
    }

    #[test]
    fn inline_code_is_what_backticks_enclose() {
        let parts: Vec<_> = inline_parts("a `b` c").collect();
        assert_eq!(parts, vec![(false, "a "), (true, "b"), (false, " c")]);
    }
}
