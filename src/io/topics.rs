//! Topic files: `topic_id <TAB> text` lines, or TREC XML (`<topic number="N">` holding a
//! `<query>` element), told apart by whether the first non-blank character is `<`.

use std::collections::BTreeMap;
use std::path::Path;

use quick_xml::events::Event;

use crate::base::error::{ParseError, ParseErrorKind};
use crate::io::gz;

/// Topic id → topic text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Topics {
    /// The texts, by topic id.
    pub texts: BTreeMap<String, String>,
}

impl Topics {
    /// The text of `topic`.
    pub fn text(&self, topic: &str) -> Option<&str> {
        self.texts.get(topic).map(String::as_str)
    }
}

/// Reads a topic file (TSV or TREC XML).
///
/// # Errors
/// A [`ParseError`] naming file and line for a TSV line without a tab, a topic listed twice,
/// malformed XML, or a file without topics.
pub fn read_topics(path: &Path) -> Result<Topics, ParseError> {
    let text = gz::read_to_string(path)?;
    let topics = if text.trim_start().starts_with('<') {
        parse_xml(path, &text)?
    } else {
        parse_tsv(path, &text)?
    };
    if topics.texts.is_empty() {
        return Err(ParseError::file(path, ParseErrorKind::Empty));
    }
    Ok(topics)
}

fn parse_tsv(path: &Path, text: &str) -> Result<Topics, ParseError> {
    let mut topics = Topics::default();
    for (index, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let line_error = |kind| ParseError::new(path, index + 1, kind);
        let Some((id, topic_text)) = line.split_once('\t') else {
            return Err(line_error(ParseErrorKind::Columns {
                expected: "2 tab-separated columns (topic_id text)",
                found: 1,
            }));
        };
        if topics
            .texts
            .insert(id.trim().to_string(), topic_text.trim().to_string())
            .is_some()
        {
            return Err(line_error(ParseErrorKind::Invalid(format!(
                "topic {id:?} is listed twice"
            ))));
        }
    }
    Ok(topics)
}

fn parse_xml(path: &Path, text: &str) -> Result<Topics, ParseError> {
    let line_of = |position: u64| {
        let end = usize::try_from(position)
            .unwrap_or(text.len())
            .min(text.len());
        text[..end].matches('\n').count() + 1
    };
    let mut reader = quick_xml::Reader::from_str(text);
    let mut topics = Topics::default();
    let mut current_topic: Option<String> = None;
    let mut in_query = false;
    loop {
        let position = reader.buffer_position();
        let xml_error = |message: String| {
            ParseError::new(path, line_of(position), ParseErrorKind::Invalid(message))
        };
        match reader.read_event() {
            Err(error) => return Err(xml_error(format!("expected well-formed XML: {error}"))),
            Ok(Event::Eof) => break,
            Ok(Event::Start(element)) => match element.name().as_ref() {
                b"topic" => {
                    let number = element
                        .try_get_attribute("number")
                        .ok()
                        .flatten()
                        .and_then(|attribute| attribute.unescape_value().ok())
                        .ok_or_else(|| {
                            xml_error("expected a number attribute on <topic>".to_string())
                        })?;
                    current_topic = Some(number.trim().to_string());
                }
                b"query" => in_query = current_topic.is_some(),
                _ => {}
            },
            Ok(Event::Text(content)) if in_query => {
                let query = content
                    .unescape()
                    .map_err(|error| xml_error(format!("expected valid text: {error}")))?;
                let id = current_topic.clone().unwrap_or_default();
                let entry = topics.texts.entry(id).or_default();
                entry.push_str(query.trim());
            }
            Ok(Event::End(element)) => match element.name().as_ref() {
                b"topic" => current_topic = None,
                b"query" => in_query = false,
                _ => {}
            },
            Ok(_) => {}
        }
    }
    Ok(topics)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::fixture::read_written;

    fn topics_from(text: &str) -> Result<Topics, ParseError> {
        read_written("topics", text, read_topics)
    }

    #[test]
    fn tsv_and_xml_topics() {
        let tsv = topics_from("1\tcoronavirus origin\n2\tweather &amp; virus\n").unwrap();
        assert_eq!(tsv.text("1"), Some("coronavirus origin"));
        let xml = topics_from(
            "<topics>\n <topic number=\"1\">\n  <query>coronavirus origin</query>\n  \
             <question>what?</question>\n </topic>\n <topic number=\"2\"><query>a &amp; b</query>\
             </topic>\n</topics>\n",
        )
        .unwrap();
        assert_eq!(xml.text("1"), Some("coronavirus origin"));
        assert_eq!(xml.text("2"), Some("a & b"));
    }

    #[test]
    fn bad_topics_name_their_line() {
        let error = topics_from("1\tfine\n2 no tab here\n").unwrap_err();
        assert_eq!(error.line, 2);
        let error =
            topics_from("<topics>\n<topic>\n<query>x</query></topic></topics>").unwrap_err();
        assert!(error.to_string().contains("number attribute"), "{error}");
    }
}
