use super::*;

#[test]
fn real_mail_nesting_is_not_too_deep() {
    let unit = "<table><tr><td><table><tr><td><div><p>a<p>b<ul><li>x<li>y</ul>\
                <ul><li>one</ul><div><span>unclosed</div></td><td>c</td></tr></table>\
                </td></tr></table>";
    let newsletter = format!("<html><body>{}</body></html>", unit.repeat(200));
    assert!(!nests_deeper_than(&newsletter, 40));
}

#[test]
fn estimate_is_not_fooled_by_end_tags_the_parser_ignores() {
    // A stray </x> or an end tag behind a list item closes nothing.
    for unit in [
        "<div></x>",
        "<x><li></x>",
        "<li><dd>",
        "<table><tr><td></div>",
        "<ul><li></p>",
    ] {
        assert!(
            nests_deeper_than(&unit.repeat(300), MAX_HTML_DEPTH),
            "{unit}"
        );
    }
}

/// html2text took time quadratic in nesting depth: 20,000 nested `<div>`s
/// cost 4.8 s, 100,000 more than a minute (a 500 KB message). Such HTML
/// must take the linear path (tags stripped), and HTML just under the
/// limit may be laid out, whatever its length. Their time is measured,
/// not asserted: `benches/bombs.py`, "HTML nested 20,000 deep".
#[test]
fn deeply_nested_html_is_stripped_instead_of_laid_out() {
    for open in ["<div>", "<ul><li>", "<pre>", "<blockquote>", "<x><li></x>"] {
        let html = open.repeat(20_000) + "deep text";
        assert!(nests_deeper_than(&html, MAX_HTML_DEPTH), "{open}");
        let text = html_to_text(&html);
        assert_eq!(text, strip_tags(&html), "{open}");
        assert!(text.contains("deep text"), "{open}");
    }
    let html = "<div>".repeat(MAX_HTML_DEPTH - 8) + &"<p>x</p><b>y</b>".repeat(20_000);
    assert!(!nests_deeper_than(&html, MAX_HTML_DEPTH));
    let text = html_to_text(&html);
    assert_eq!(text.matches('y').count(), 20_000, "laid out in full");
}

/// Box drawing, U+2500 to U+257F: what html2text draws table rules with.
fn box_drawing(text: &str) -> usize {
    text.chars()
        .filter(|c| ('\u{2500}'..='\u{257f}').contains(c))
        .count()
}

#[test]
fn tables_keep_every_cell_and_draw_no_rules() {
    let cases = [
        (
            "two-by-two",
            "<table><tr><td>Invoice number</td><td>INV-4471</td></tr>\
             <tr><td>Total</td><td>$42.00</td></tr></table>",
            &["Invoice number", "INV-4471", "Total", "$42.00"][..],
        ),
        (
            "layout table in a table",
            "<table><tr><td><table><tr><td>Left column news</td></tr></table></td>\
             <td>Right column weather</td></tr></table>",
            &["Left column news", "Right column weather"][..],
        ),
        (
            "a long cell beside short rows",
            &format!(
                "<table><tr><td>{}</td><td>side note</td></tr>\
                 <tr><td>Item 1</td><td>$1.00</td></tr></table>",
                "word ".repeat(900)
            ),
            &["side note", "Item 1", "$1.00"][..],
        ),
    ];
    for (name, html, cells) in cases {
        let text = html_to_text(html);
        assert_eq!(box_drawing(&text), 0, "{name}: {text:?}");
        for cell in cells {
            assert!(
                text.contains(cell),
                "{name}: {cell:?} missing from {text:?}"
            );
        }
        // The words, a separator between cells and line ends: no padding
        // as wide as the layout.
        let words: usize = cells.iter().map(|c| c.len()).sum();
        assert!(
            text.len() < html.len() + words,
            "{name}: {} bytes of text from {} of HTML",
            text.len(),
            html.len()
        );
    }
}

#[test]
fn space_runs_are_capped_and_nothing_else_changes() {
    for (text, max, want) in [
        ("a     b", 2, "a  b"),
        ("a  b", 2, "a  b"),
        ("     lead and trail     ", 3, "   lead and trail   "),
        ("tabs\t\t\tstay", 1, "tabs\t\t\tstay"),
        ("été  契約", 1, "été 契約"),
        ("", 0, ""),
    ] {
        assert_eq!(cap_space_runs(text, max), want, "{text:?}");
    }
}

#[test]
fn stripped_text_keeps_words_and_drops_script() {
    assert_eq!(
        strip_tags("<p>Caf&eacute; &amp; bar<script>x<y</SCRIPT>open<br>now</p>"),
        "\nCaf&eacute; & bar\nopen\nnow\n"
    );
}

#[test]
fn iframe_contents_are_dropped_when_closed() {
    for (html, want) in [
        ("no frames here", "no frames here"),
        ("a<iframe src=x>ad</iframe>b", "ab"),
        ("a<IFRAME>x</IFrame >b<iframe>y</iframe>c", "abc"),
        ("a<iframe>never closed", "a<iframe>never closed"),
        ("a<iframe>x</iframe>b<iframe>open", "ab<iframe>open"),
        ("a<iframe>x</iframe", "a<iframe>x</iframe"),
        ("été<iframe>契約</iframe>東京", "été東京"),
        // Inside a comment or a script an `<iframe` opens nothing.
        (
            "<p>Hi</p><!-- <iframe src=old> --><p>Meeting at 3</p><iframe>ad</iframe><p>Bye</p>",
            "<p>Hi</p><!-- <iframe src=old> --><p>Meeting at 3</p><p>Bye</p>",
        ),
        (
            "<script>w('<iframe>')</script><p>Order shipped</p><script>w('</iframe>')</script>",
            "<script>w('<iframe>')</script><p>Order shipped</p><script>w('</iframe>')</script>",
        ),
        (
            "<STYLE>x{}</style><iframe/>y</iframe>z",
            "<STYLE>x{}</style>z",
        ),
        (
            "a<!-- never closed <iframe>x</iframe>",
            "a<!-- never closed <iframe>x</iframe>",
        ),
        ("<iframely>kept</iframely>", "<iframely>kept</iframely>"),
    ] {
        assert_eq!(drop_iframe_contents(html), want, "{html:?}");
    }
}

#[test]
fn an_ad_in_an_iframe_leaves_no_markup_in_the_text() {
    let html = "<p>Rhapsody rules, says our editor this week.</p>\
                <iframe src=\"http://ads.example/ifc\" width=160>\
                <script language=\"JavaScript\" src=\"http://ads.example/js\"></script>\
                </iframe><p>Subscription music grew up.</p>";
    let text = html_to_text(html);
    assert!(!text.contains('<'), "{text:?}");
    assert!(
        text.contains("Rhapsody rules") && text.contains("music grew up"),
        "{text:?}"
    );
}
