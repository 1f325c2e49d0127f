use super::*;

/// The rewrite in short: `{` `}` a block (`<div>`), `[` `]` an inline cell
/// (`<object> ` ... `</object>`), `·` a tag replaced by nothing, `«` `»` the
/// marks around an outermost table.
fn shape(html: &str) -> String {
    flatten_tables(html)
        .replace(ROW.0, "{")
        .replace(ROW.1, "}")
        .replace(CELL.0, "[")
        .replace(CELL.1, "]")
        .replace(GUARD, "·")
        .replace(TABLE_START, "«")
        .replace(TABLE_END, "»")
}

#[test]
fn tables_become_lines_of_inline_cells() {
    for (html, want) in [
        ("no tables <b>here</b>", "no tables <b>here</b>"),
        (
            "<table class=x><tr><td>Total</td><TD align=right>$42</td></tr></table>",
            "{«{[Total][$42]}»}",
        ),
        // Rows and cells left open are closed where the parser closes them.
        (
            "<table><tr><td>a<td>b<tr><th>c</table>after",
            "{«{[a][b]}{[c]}»}after",
        ),
        // A cell with no row is a row of its own; sections and columns
        // become nothing; a caption is a line.
        (
            "<TABLE><caption>Q1</caption><colgroup><col span=2></colgroup>\
             <tbody><td>x</td></tbody></TABLE>",
            "{«{[Q1]}····{[x]}»}",
        ),
        // A table in a cell closes its own rows, then the outer cell goes on;
        // only the outermost table is marked.
        (
            "<table><tr><td><table><tr><td>in</td></tr></table>out</td></tr></table>",
            "{«{[{{[in]}}out]}»}",
        ),
        // Table parts outside a table become nothing, as the parser drops
        // them; names are whole (`<tdx>` and `<tablet>` are not table tags).
        ("<table></table>a</td><tr>b</table>c", "{«»}a··b·c"),
        ("<tablet><tdx>y</tdx>", "<tablet><tdx>y</tdx>"),
        ("<table/><td/>z", "{«{[z»"),
        // A tag never closed takes the rest with it, as the tokenizer drops
        // it; the last table runs to the end.
        ("<table><td", "{«»"),
        ("<table><td title='x>y", "{«»"),
        ("été<table><td>契約</td></table>", "été{«{[契約]}»}"),
        // Marks written in the mail are not kept, where tables are rewritten.
        ("a\u{e001}<table></table>\u{e000}b", "a{«»}b"),
        ("no table \u{e000}", "no table «"),
        // What was around a replaced tag never joins into a table tag, and
        // a table tag the parser would read as text has its `<` escaped.
        ("a<table></table><tab</td>le>b", "a{«»}<tab&lt;/td>le>b"),
        (
            "<table><td>x</td></table><table<td>y",
            "{«{[x]}»}<table&lt;td>y",
        ),
        // Between rows the parser moves other elements out of the table:
        // they wrap none of its rows.
        (
            "<table><blockquote><center><tr><td>x</td></tr></center></table>",
            "{«··{[x]}·»}",
        ),
        // A table in a comment (Outlook's `[if mso]`), a script, a textarea
        // or an attribute value opens none, and its tags are replaced.
        (
            "<!--[if mso]><table><tr><td><![endif]--><table><td>x</table>",
            "<!--[if mso]>&lt;table>&lt;tr>&lt;td><![endif]-->{«{[x]}»}",
        ),
        (
            "<table><td><script>w('<td>')</script><textarea></table></textarea>y</table>",
            "{«{[<script>w('&lt;td>')</script><textarea>&lt;/table></textarea>y]}»}",
        ),
        (
            "<table><td title=\"a><!--\">Important</table>",
            "{«{[Important]}»}",
        ),
    ] {
        assert_eq!(shape(html), want, "{html:?}");
    }
}

/// What a reader of the stored text sees: a row on a line, its cells in
/// order a space apart, and the columns of a layout table one after the
/// other instead of interleaved line by line, a short label joined to what
/// follows it.
#[test]
fn rendered_tables_read_row_by_row() {
    for (html, want) in [
        (
            "<table><tr><th>Item</th><th>Qty</th></tr>\
             <tr><td>Widget</td><td>2</td></tr>\
             <tr><td>Invoice number</td><td>INV-4471</td></tr></table>",
            "Item Qty\nWidget 2\nInvoice number INV-4471\n",
        ),
        (
            "<table><tr><td><p>The lead story begins with its first line.</p>\
             <p>The lead story goes on for another line.</p></td>\
             <td><p>Sidebar:</p><p>the weekend regatta moved to Sunday.</p></td></tr></table>",
            "The lead story begins with its first line.\n\n\
             The lead story goes on for another line.\n\n\
             Sidebar:\nthe weekend regatta moved to Sunday.\n",
        ),
        // A style, script or title between rows keeps its end tag, so the
        // rows after it are not swallowed.
        (
            "<table><tr><td>first row</td></tr><style>.x{color:red}</style>\
             <tr><td>Second row text</td></tr><title>T</title></table><p>Paragraph after</p>",
            "first row\nSecond row text\nT\n\nParagraph after\n",
        ),
        // In SVG a CDATA section runs to `]]>`, and `<style/>` holds no text.
        (
            "<table><tr><td>a</td></tr></table><svg><style/><![CDATA[ x > 1; <a title=\" ]]></svg>\
             <table><tr><td>Hello world</td></tr></table><p>Important text after the svg</p>",
            "a\nHello world\n\nImportant text after the svg\n",
        ),
    ] {
        let text = super::super::html_to_text(html);
        assert_eq!(text.trim_matches('\n'), want.trim_end(), "{html:?}");
    }
}

/// One long cell above many short rows: laid out as a grid, every row was
/// padded to the long cell's width (rows x width of text, 1 GB for this
/// shape at 5,000 rows). Flat, the text is about as long as the HTML's
/// words. The time and memory are measured, not asserted:
/// `benches/bombs.py BIN HTML`.
#[test]
fn a_wide_cell_above_many_rows_costs_its_own_length() {
    let long = "w".repeat(20_000);
    let rows = "<tr><td>a</td><td>b</td></tr>".repeat(2_000);
    let html = format!("<table><tr><td>{long}</td><td>side</td></tr>{rows}</table>");
    let text = super::super::html_to_text(&html);
    assert!(text.contains(&long) && text.contains("side"));
    assert_eq!(text.matches("a b\n").count(), 2_000);
    assert!(text.len() < html.len(), "{} bytes of text", text.len());
}

/// Random markup from table tags, other tags, comments, quotes, marks and
/// multi-byte text: flattening never panics, leaves no table tag anywhere
/// for the parser, and its marks never reach the text.
#[test]
fn random_markup_flattens_without_tables_left() {
    const PIECES: &[&str] = &[
        "<table>",
        "</table>",
        "<TABLE border=1>",
        "<tr>",
        "</tr>",
        "<td>",
        "</TD>",
        "<th>",
        "<tbody>",
        "</tfoot>",
        "<caption>",
        "<col>",
        "<table",
        "<td title=\"a>b\">",
        "<p>",
        "</p>",
        "<blockquote>",
        "<!--",
        "-->",
        "<script>",
        "</script>",
        "<",
        ">",
        "/",
        "\"",
        "word",
        "契約",
        "é",
        " ",
        "\n",
        "\u{e000}",
        "\u{e001}",
        "<tablet>",
        "</",
        "<textarea>",
        "</textarea>",
        "<!--[if mso]>",
        "<![endif]-->",
        "<td\t",
        "<TaBlE/>",
        "='",
        "<svg>",
        "<object>",
        "</object>",
        "<b id=1>",
        "<caption>",
    ];
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for _ in 0..20_000 {
        let len = (next() % 40) as usize;
        let html: String = (0..len)
            .map(|_| PIECES[(next() % PIECES.len() as u64) as usize])
            .collect();
        let flat = flatten_tables(&html);
        if matches!(flat, Cow::Owned(_)) {
            // No `<` or `</` before a table tag's name is left, wherever it
            // is: the tokenizer ends a name at whitespace, `/` or `>`.
            let b = flat.as_bytes();
            for (lt, _) in flat.match_indices('<') {
                let at = lt + 1 + usize::from(b.get(lt + 1) == Some(&b'/'));
                let len = b[at..].iter().take_while(|c| !ends_tag_name(**c)).count();
                assert!(
                    Part::of(&flat[at..at + len]).is_none(),
                    "a table tag left in {flat:?} from {html:?}"
                );
            }
        }
        // Our marks never reach the text (HTML without tables is passed
        // through as it is, marks and all: it has none of ours).
        let rewritten = matches!(flat, Cow::Owned(_));
        let text = super::super::html_to_text(&html);
        assert!(
            !rewritten || !text.contains([TABLE_START, TABLE_END]),
            "{html:?}"
        );
    }
}
