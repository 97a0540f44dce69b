//! The corpus settings of a task (`corpus_format`, `corpus_id_fields`, `corpus_text_fields` in
//! `task.toml`, or from Python), checked into a [`CorpusLayout`].

use crate::base::choice::Choice;
use crate::io::corpus::layout::{CorpusFormat, CorpusLayout};

/// The corpus settings of a task as given (in `task.toml`, or from Python), before checking;
/// `None` for a setting left out.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CorpusSettings {
    /// `corpus_format`: `tsv`, `jsonl` or `auto`.
    pub format: Option<String>,
    /// `corpus_id_fields`: field names.
    pub id_fields: Option<Vec<String>>,
    /// `corpus_text_fields`: field names, or alternatives joined by `|`.
    pub text_fields: Option<Vec<String>>,
}

/// One of the corpus settings, to name in an error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CorpusSetting {
    /// `corpus_format`.
    Format,
    /// `corpus_id_fields`.
    IdFields,
    /// `corpus_text_fields`.
    TextFields,
}

impl CorpusSetting {
    /// The setting's name in `task.toml`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Format => "corpus_format",
            Self::IdFields => "corpus_id_fields",
            Self::TextFields => "corpus_text_fields",
        }
    }
}

/// A corpus setting at fault and what was expected of it.
pub type CorpusSettingError = (CorpusSetting, String);

impl CorpusSettings {
    /// The layout the settings describe for a task with or without a corpus, the defaults
    /// for the settings left out.
    ///
    /// # Errors
    /// A setting without a corpus, an unknown format, field settings with the TSV format, or
    /// a field list that is empty or names an empty field.
    pub fn layout(self, has_corpus: bool) -> std::result::Result<CorpusLayout, CorpusSettingError> {
        let defaults = CorpusLayout::default();
        if !has_corpus {
            return match self.given().next() {
                Some(setting) => Err((
                    setting,
                    format!("expected corpus with {}, found none", setting.name()),
                )),
                None => Ok(defaults),
            };
        }
        let format = match &self.format {
            Some(name) => corpus_format(name)?,
            None => defaults.format,
        };
        if format == CorpusFormat::Tsv {
            if let Some(setting) = self
                .given()
                .find(|&setting| setting != CorpusSetting::Format)
            {
                return Err((
                    setting,
                    format!(
                        "expected {} only with corpus_format \"jsonl\" or \"auto\", found \"tsv\"",
                        setting.name()
                    ),
                ));
            }
        }
        Ok(CorpusLayout {
            format,
            id_fields: match self.id_fields {
                Some(fields) => field_names(CorpusSetting::IdFields, fields)?,
                None => defaults.id_fields,
            },
            text_fields: match self.text_fields {
                Some(parts) => text_parts(parts)?,
                None => defaults.text_fields,
            },
        })
    }

    /// The settings given, in the order of [`CorpusSetting`].
    fn given(&self) -> impl Iterator<Item = CorpusSetting> {
        [
            (CorpusSetting::Format, self.format.is_some()),
            (CorpusSetting::IdFields, self.id_fields.is_some()),
            (CorpusSetting::TextFields, self.text_fields.is_some()),
        ]
        .into_iter()
        .filter_map(|(setting, is_given)| is_given.then_some(setting))
    }
}

/// The format called `name`.
fn corpus_format(name: &str) -> std::result::Result<CorpusFormat, CorpusSettingError> {
    CorpusFormat::from_name(name).ok_or_else(|| {
        (
            CorpusSetting::Format,
            format!("expected corpus_format \"tsv\", \"jsonl\" or \"auto\", found {name:?}"),
        )
    })
}

/// The names of a field list setting, checked to be a non-empty list of non-empty names.
fn field_names(
    setting: CorpusSetting,
    fields: Vec<String>,
) -> std::result::Result<Vec<String>, CorpusSettingError> {
    let name = setting.name();
    if fields.is_empty() {
        return Err((
            setting,
            format!("expected {name} to name at least one field, found []"),
        ));
    }
    if fields.iter().any(String::is_empty) {
        return Err((
            setting,
            format!("expected {name} to hold field names, found \"\""),
        ));
    }
    Ok(fields)
}

/// The text parts of `corpus_text_fields`, each split into its alternative fields.
fn text_parts(parts: Vec<String>) -> std::result::Result<Vec<Vec<String>>, CorpusSettingError> {
    field_names(CorpusSetting::TextFields, parts)?
        .iter()
        .map(|part| {
            alternatives(part).ok_or_else(|| {
                (
                    CorpusSetting::TextFields,
                    format!(
                        "expected corpus_text_fields entries of field names joined by \"|\", \
                         found {part:?}"
                    ),
                )
            })
        })
        .collect()
}

/// The alternative fields of a text part `a|b|c`; `None` when one is empty.
fn alternatives(part: &str) -> Option<Vec<String>> {
    part.split('|')
        .map(|field| (!field.is_empty()).then(|| field.to_string()))
        .collect()
}
