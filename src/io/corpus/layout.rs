//! How a corpus is laid out: its format, and for JSONL the fields its ids and text are read
//! from (see the module documentation of [`super`]).

use crate::base::choice::choice_enum;

choice_enum! {
    /// How the lines of a corpus file are laid out.
    pub enum CorpusFormat {
        /// `doc_id<TAB>text` and the other column layouts of the module documentation.
        Tsv = "tsv",
        /// One JSON object per line.
        Jsonl = "jsonl",
        /// Decided per file: JSONL when its first non-blank character is `{`, else TSV.
        Auto = "auto",
    }
}

/// The fields a JSONL document's id is taken from, in order of preference: MS MARCO v2
/// passages (`pid`; their `docid` is the document they come from), MS MARCO documents and
/// segments (`docid`), ir_datasets (`doc_id`), BEIR (`_id`), Pyserini (`id`).
pub const DEFAULT_ID_FIELDS: &[&str] = &["pid", "docid", "doc_id", "_id", "id"];

/// The parts a JSONL document's text is made of, each the first present of its fields.
pub const DEFAULT_TEXT_FIELDS: &[&[&str]] = &[
    &["title"],
    &["headings"],
    &["text", "passage", "body", "segment", "contents"],
];

/// How a corpus is read: its format and, for JSONL, where id and text are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CorpusLayout {
    /// TSV, JSONL, or decided per file.
    pub format: CorpusFormat,
    /// JSONL: the fields that may hold the id, the first present taken.
    pub id_fields: Vec<String>,
    /// JSONL: the parts of the text, in order; each part is the first present of its fields.
    pub text_fields: Vec<Vec<String>>,
}

impl Default for CorpusLayout {
    fn default() -> Self {
        Self {
            format: CorpusFormat::Auto,
            id_fields: DEFAULT_ID_FIELDS.iter().map(ToString::to_string).collect(),
            text_fields: DEFAULT_TEXT_FIELDS
                .iter()
                .map(|part| part.iter().map(ToString::to_string).collect())
                .collect(),
        }
    }
}
