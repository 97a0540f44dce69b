//! The page's text: inline code, and the ids headings are linked by.

use maud::{html, Markup};

use crate::report::document::inline_parts;

/// Text with its inline code.
pub(super) fn inline(text: &str) -> Markup {
    html! {
        @for (is_code, part) in inline_parts(text) {
            @if is_code { code { (part) } } @else { (part) }
        }
    }
}

/// The id of a heading: its text's letters and digits, lower case, the rest as dashes.
pub(super) fn anchor(text: &str) -> String {
    let mut id = String::new();
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            id.push(c.to_ascii_lowercase());
        } else if !id.ends_with('-') {
            id.push('-');
        }
    }
    id.trim_matches('-').to_string()
}
