//! One corpus line as a JSON object: the document id and text taken from named fields.

use std::fmt::Write;

use serde_json::{Map, Value};

use crate::base::error::{excerpt, ParseErrorKind};
use crate::io::corpus::layout::CorpusLayout;

/// Reads the document on `line` into `id` and `text` (both cleared first) by the field rules
/// of `layout`.
pub(super) fn read_document(
    line: &str,
    layout: &CorpusLayout,
    id: &mut String,
    text: &mut String,
) -> Result<(), ParseErrorKind> {
    let object = parse_object(line)?;
    read_id(&object, &layout.id_fields, id)?;
    read_text(&object, &layout.text_fields, text)
}

/// The line as a JSON object.
fn parse_object(line: &str) -> Result<Map<String, Value>, ParseErrorKind> {
    match serde_json::from_str(line) {
        Ok(Value::Object(object)) => Ok(object),
        Ok(other) => Err(json_error("a JSON object".into(), describe(&other))),
        Err(error) => Err(json_error(
            "a JSON object".into(),
            format!(
                "invalid JSON ({} at column {})",
                error_message(&error),
                error.column()
            ),
        )),
    }
}

/// serde_json's message without its position (the line is the file's, the column is given
/// apart).
fn error_message(error: &serde_json::Error) -> String {
    let message = error.to_string();
    let position = format!(" at line {} column {}", error.line(), error.column());
    message
        .strip_suffix(&position)
        .map_or(message.clone(), str::to_string)
}

/// Writes into `id` the first present of `fields`: a string without white space, or an
/// integer.
fn read_id(
    object: &Map<String, Value>,
    fields: &[String],
    id: &mut String,
) -> Result<(), ParseErrorKind> {
    id.clear();
    let Some((field, value)) = first_present(object, fields) else {
        return Err(json_error(
            format!("a document id in field {}", list(fields)),
            "none of them".into(),
        ));
    };
    match value {
        Value::String(text) if !text.is_empty() && !text.contains(char::is_whitespace) => {
            id.push_str(text);
        }
        Value::String(text) => {
            return Err(json_error(
                format!("a document id without white space in field {field}"),
                format!("{:?}", excerpt(text)),
            ))
        }
        Value::Number(number) if number.is_i64() || number.is_u64() => {
            write!(id, "{number}").expect("writing to a String cannot fail");
        }
        other => {
            return Err(json_error(
                format!("a document id (a string or an integer) in field {field}"),
                describe(other),
            ))
        }
    }
    Ok(())
}

/// Writes into `text` each part of `parts` that is present (the first present of its
/// alternative fields), joined with single spaces.
fn read_text(
    object: &Map<String, Value>,
    parts: &[Vec<String>],
    text: &mut String,
) -> Result<(), ParseErrorKind> {
    text.clear();
    let mut is_found = false;
    for alternatives in parts {
        let Some((field, value)) = first_present(object, alternatives) else {
            continue;
        };
        let Value::String(part) = value else {
            return Err(json_error(
                format!("a string in field {field}"),
                describe(value),
            ));
        };
        if is_found {
            text.push(' ');
        }
        text.push_str(part);
        is_found = true;
    }
    if is_found {
        Ok(())
    } else {
        let fields: Vec<String> = parts.iter().flatten().cloned().collect();
        Err(json_error(
            format!("the text in field {}", list(&fields)),
            "none of them".into(),
        ))
    }
}

/// The first of `fields` that the object holds with a value other than null.
fn first_present<'a>(
    object: &'a Map<String, Value>,
    fields: &'a [String],
) -> Option<(&'a str, &'a Value)> {
    fields.iter().find_map(|field| match object.get(field) {
        None | Some(Value::Null) => None,
        Some(value) => Some((field.as_str(), value)),
    })
}

/// `a, b or c`.
fn list(fields: &[String]) -> String {
    match fields.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    }
}

/// What a JSON value is, for an error message.
fn describe(value: &Value) -> String {
    match value {
        Value::Null => "null".into(),
        Value::Bool(flag) => format!("the boolean {flag}"),
        Value::Number(number) => format!("the number {}", excerpt(&number.to_string())),
        Value::String(text) => format!("the string {:?}", excerpt(text)),
        Value::Array(_) => "an array".into(),
        Value::Object(_) => "an object".into(),
    }
}

fn json_error(expected: String, found: String) -> ParseErrorKind {
    ParseErrorKind::Json { expected, found }
}
