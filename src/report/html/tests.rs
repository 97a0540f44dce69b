use super::*;
use crate::report::document::{Align, Table};

fn rendered(block: Block) -> String {
    render_block(&block).into_string()
}

#[test]
fn text_is_escaped_and_backticks_become_code() {
    assert_eq!(
        rendered(Block::Paragraph("a <b> & `c<d>`".into())),
        "<p>a &lt;b&gt; &amp; <code>c&lt;d&gt;</code></p>"
    );
}

#[test]
fn sections_get_an_anchor_from_their_heading() {
    assert_eq!(
        rendered(Block::Heading {
            level: 2,
            text: "Leave-out trials paired with their seed's control".into()
        }),
        "<h2 id=\"leave-out-trials-paired-with-their-seed-s-control\">Leave-out trials paired \
         with their seed's control</h2>"
    );
}

#[test]
fn tables_have_a_sort_button_per_column_and_keep_blank_cells() {
    let html = rendered(Block::Table(Table {
        header: vec!["measure".into(), "tau_b".into()],
        align: vec![Align::Left, Align::Right],
        rows: vec![vec!["map".into(), String::new()]],
    }));
    assert_eq!(html.matches("<th scope=\"col\"><button").count(), 2);
    assert!(
        html.contains("<tr><td>map</td><td class=\"number\"></td></tr>"),
        "{html}"
    );
}

#[test]
fn the_page_allows_nothing_but_its_own_style_and_script() {
    let page = page("A <study>", &["t1".into()], &[]).into_string();
    assert!(page.starts_with("<!DOCTYPE html>"));
    assert!(page.contains(&format!("content=\"{CONTENT_SECURITY_POLICY}\"")));
    assert!(page.contains("<title>A &lt;study&gt;</title>"));
    assert!(page.contains("<option value=\"t1\">t1</option>"));
    for outside in ["src=", "href=", "@import", "url("] {
        assert!(!page.contains(outside), "the page refers to {outside}");
    }
}
