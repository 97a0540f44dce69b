//! One corpus line as tab-separated columns: the document id, then the text.

use crate::base::error::{excerpt, ParseErrorKind};

/// The layout named in the error for a line without a tab.
const EXPECTED_LAYOUT: &str = "doc_id<TAB>text (or id<TAB>url<TAB>title<TAB>body)";

/// Splits a line into document id and text by the column rule of the module documentation,
/// overwriting the tabs that join text columns with spaces (both are single ASCII bytes, so
/// this changes neither the validity of the UTF-8 nor the tokens of the text).
pub(super) fn split_document(line: &mut [u8]) -> Result<(&str, &str), ParseErrorKind> {
    let mut tabs = line
        .iter()
        .enumerate()
        .filter(|&(_, &byte)| byte == b'\t')
        .map(|(pos, _)| pos);
    let Some(id_end) = tabs.next() else {
        return Err(ParseErrorKind::Columns {
            expected: EXPECTED_LAYOUT,
            found: 1,
        });
    };
    let second_tab = tabs.next();
    let column_count = 2 + usize::from(second_tab.is_some()) + tabs.count();
    let text_start = match (column_count, second_tab) {
        // MS MARCO docs: skip the url column.
        (4, Some(url_end)) => url_end + 1,
        _ => id_end + 1,
    };
    for byte in &mut line[text_start..] {
        if *byte == b'\t' {
            *byte = b' ';
        }
    }
    let line = std::str::from_utf8(line).map_err(|_| ParseErrorKind::Binary)?;
    // Both cut points sit next to an ASCII tab, so they are character boundaries.
    let (doc_id, text) = (&line[..id_end], &line[text_start..]);
    if doc_id.is_empty() || doc_id.contains(char::is_whitespace) {
        return Err(ParseErrorKind::Field {
            column: 1,
            expected: "a document id without white space",
            found: excerpt(doc_id),
        });
    }
    Ok((doc_id, text))
}
