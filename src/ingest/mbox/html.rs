//! Readable text from HTML mail, guarded against layout bombs.
//!
//! html2text (through html5ever) costs time quadratic in how deeply elements
//! nest: 20,000 nested `<div>`s take seconds, 100,000 more than a minute. Real
//! mail nests a few dozen deep, so a cheap linear scan first bounds the depth
//! the parser would reach, and HTML nested deeper than [`MAX_HTML_DEPTH`], or
//! with more than [`MAX_HTML_ELEMENTS`] elements (html2text's memory grows
//! with them), has its tags stripped instead of being laid out. Tables are
//! rewritten as rows of text first (`html_tables.rs`): laid out as a grid,
//! their memory grew with rows × width.

use std::borrow::Cow;

use super::message::truncate_at_char;

#[path = "html_blocks.rs"]
mod blocks;
#[path = "html_scan.rs"]
mod scan;
#[path = "html_tables.rs"]
mod tables;

/// HTML beyond this many bytes is not rendered: html2text's cost grows with the
/// document, and the readable text of real mail is far smaller.
const MAX_HTML_BYTES: usize = 2 << 20;

/// Deepest nesting handed to html2text. Newsletters built from tables in
/// tables reach 30-40; at this depth a 2 MB document still renders in well
/// under a second.
const MAX_HTML_DEPTH: usize = 256;

/// Elements that never have content, so never nest.
const VOID: &[&str] = &[
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source",
    "track", "wbr", "basefont", "bgsound", "frame", "keygen",
];

/// End tags the parser honours past unclosed children, as long as no scope
/// boundary lies between: `<div><span></div>` closes both.
const CLOSES_CONTENTS: &[&str] = &[
    "address",
    "article",
    "aside",
    "blockquote",
    "center",
    "details",
    "dialog",
    "dir",
    "div",
    "dl",
    "fieldset",
    "figcaption",
    "figure",
    "footer",
    "header",
    "hgroup",
    "listing",
    "main",
    "menu",
    "nav",
    "ol",
    "pre",
    "section",
    "summary",
    "ul",
    "li",
    "dd",
    "dt",
    "p",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
];

/// Elements a [`CLOSES_CONTENTS`] end tag does not close past: the parser's
/// scope boundaries, with the list and button ones added (stopping early only
/// makes the estimate deeper).
const SCOPE_BOUNDARIES: &[&str] = &[
    "applet",
    "caption",
    "html",
    "table",
    "td",
    "th",
    "marquee",
    "object",
    "template",
    "ol",
    "ul",
    "button",
    "mi",
    "mo",
    "mn",
    "ms",
    "mtext",
    "annotation-xml",
    "foreignobject",
    "desc",
    "title",
];

/// Table end tags close everything inside them up to the nearest table.
const TABLE_PARTS: &[&str] = &[
    "table", "caption", "tbody", "thead", "tfoot", "tr", "td", "th",
];
const TABLE_SCOPE_BOUNDARIES: &[&str] = &["html", "table", "template"];

/// Most elements handed to html2text. Its memory grows with the elements
/// laid out, 1.5-3 KB each: 2 MB of `<p>a</p>` (250,000 paragraphs) took
/// 560 MB, and 2 MB of `<br>`s 700 MB. Tags, end tags and comments count
/// (`markup_opens`). The largest HTML part in the shared real mail has 1,130
/// start tags. Above this, tags are stripped instead.
const MAX_HTML_ELEMENTS: usize = 20_000;

/// How wide html2text lays text out: wide, so that paragraphs are not
/// wrapped into fragments.
const RENDER_WIDTH: usize = 100_000;

/// Readable text from HTML mail: html2text drops style and script and decodes
/// entities; we render wide ([`RENDER_WIDTH`]) so paragraphs stay whole.
///
/// Tables are written as lines of inline cells before html2text sees them
/// ([`tables::flatten_tables`]): laid out as a grid, they were padded to
/// their widest cell on every line, which cost memory as rows × columns (a
/// 245 KB message took 1 GB), and with borders they filled hundreds of chunks
/// with box drawing (docs/PERFORMANCE.md, "2026-12-07, fourth session").
/// Every cell's text is kept, a row on one line, so short cells such as an
/// invoice number stay beside their label.
///
/// HTML nested too deep to lay out in linear time, or with too many elements
/// to lay out in bounded memory, has its tags stripped instead (after the
/// tables are rewritten).
pub fn html_to_text(html: &str) -> String {
    let html = truncate_at_char(html, MAX_HTML_BYTES);
    if nests_deeper_than(html, MAX_HTML_DEPTH) {
        return strip_tags(html);
    }
    let html = drop_iframe_contents(html);
    let cut = matches!(html, Cow::Owned(_));
    let html = tables::flatten_tables(&html);
    // Estimated again only for text the rewrites changed: most HTML has
    // neither frames nor tables, and its depth was just estimated.
    let changed = cut || matches!(html, Cow::Owned(_));
    let too_deep = changed && nests_deeper_than(&html, MAX_HTML_DEPTH);
    let text = if too_deep || markup_opens(&html) > MAX_HTML_ELEMENTS {
        strip_tags(&html)
    } else {
        let text = html2text::config::plain_no_decorate()
            .no_table_borders()
            .string_from_read(html.as_bytes(), RENDER_WIDTH)
            .unwrap_or_else(|_| String::new());
        cap_space_runs(&text, MAX_SPACE_RUN)
    };
    match html {
        Cow::Owned(_) => blocks::join_short_blocks(&text),
        Cow::Borrowed(_) => text,
    }
}

/// `html` without its `<iframe>` elements. The parser keeps what is written
/// between `<iframe>` and `</iframe>` as raw text, which html2text then
/// prints, tags and all; a browser shows the framed page instead, and a mail
/// reader nothing. Newsletters put ad scripts there (46 chunks of
/// SpamAssassin ham began `<script language="JavaScript" src=...`).
///
/// Comments, scripts and styles are stepped over whole, so an `<iframe`
/// written inside them opens nothing; an `<iframe>` that is never closed, or
/// anything after an unclosed comment, script or style, is left as it is.
fn drop_iframe_contents(html: &str) -> Cow<'_, str> {
    const OPEN: &str = "<iframe";
    const CLOSE: &str = "</iframe";
    if find_ascii_ci(html, OPEN).is_none() {
        return Cow::Borrowed(html);
    }
    let mut out = String::with_capacity(html.len());
    // `html[kept..]` is not yet copied; the scan is at `html[at..]`.
    let (mut kept, mut at) = (0, 0);
    while let Some(lt) = html[at..].find('<') {
        let tag = &html[at + lt..];
        let opaque = [
            ("<!--", "-->"),
            ("<script", "</script"),
            ("<style", "</style"),
        ]
        .into_iter()
        .find(|(open, _)| starts_with_ci(tag, open));
        if let Some((open, close)) = opaque {
            let Some(end) = find_ascii_ci(&tag[open.len()..], close) else {
                break;
            };
            at += lt + open.len() + end + close.len();
            continue;
        }
        if !is_start_tag(tag, OPEN) {
            at += lt + 1;
            continue;
        }
        let Some(close) = find_ascii_ci(tag, CLOSE) else {
            break;
        };
        let after = &tag[close + CLOSE.len()..];
        let Some(gt) = after.find('>') else {
            break;
        };
        out.push_str(&html[kept..at + lt]);
        at = html.len() - (after.len() - gt - 1);
        kept = at;
    }
    out.push_str(&html[kept..]);
    Cow::Owned(out)
}

/// Whether `s` starts with the start tag `open` (`<name`, any case), the
/// name ending there: `<iframe>` and `<iframe src=x>` are, `<iframely>` is not.
fn is_start_tag(s: &str, open: &str) -> bool {
    starts_with_ci(s, open)
        && s.as_bytes()
            .get(open.len())
            .is_none_or(|b| scan::ends_tag_name(*b))
}

/// Longest run of spaces kept in rendered HTML. Laid-out tables were padded
/// to their widest cell (thousands of spaces beside a long paragraph); tables
/// are no longer laid out, and what is left is `<pre>` text, whose indents
/// and alignment keep their shape up to this width.
const MAX_SPACE_RUN: usize = 16;

/// `text` with every run of more than `max` spaces cut to `max`.
fn cap_space_runs(text: &str, max: usize) -> String {
    let mut out = String::with_capacity(text.len());
    let mut run = 0;
    for c in text.chars() {
        if c == ' ' {
            run += 1;
            if run > max {
                continue;
            }
        } else {
            run = 0;
        }
        out.push(c);
    }
    out
}

/// True when the HTML parser's stack of open elements could grow past `limit`.
///
/// An over-estimate by design: start tags push, and a tag is popped only where
/// the parser surely pops it (an end tag matching the innermost open element,
/// a block end tag closing what it contains, a `<li>` or `<td>` closing the
/// previous one). Sloppy HTML can only make the estimate too deep, which costs
/// layout, never time.
fn nests_deeper_than(html: &str, limit: usize) -> bool {
    let mut open: Vec<&str> = Vec::new();
    let bytes = html.as_bytes();
    let mut i = 0;
    while let Some(lt) = bytes[i..].iter().position(|&b| b == b'<') {
        i += lt + 1;
        let end_tag = bytes.get(i) == Some(&b'/');
        let name_start = i + usize::from(end_tag);
        // Only a letter starts a name; measured otherwise, `<!--` repeated
        // was a name running to the end each time (quadratic: 320 KB took
        // 12 s).
        if !bytes.get(name_start).is_some_and(u8::is_ascii_alphabetic) {
            continue;
        }
        let name_len = bytes[name_start..]
            .iter()
            .take_while(|b| !scan::ends_tag_name(**b))
            .count();
        let name = &html[name_start..name_start + name_len];
        i = name_start + name_len;
        if end_tag {
            close(&mut open, name);
        } else if !is_one_of(name, VOID) {
            close_implied_siblings(&mut open, name);
            open.push(name);
            if open.len() > limit {
                return true;
            }
        }
    }
    false
}

/// How many tags and comments `html` opens (`<` and a letter, `/`, `!` or
/// `?`): an upper bound on the nodes the parser makes, beyond text.
fn markup_opens(html: &str) -> usize {
    html.as_bytes()
        .windows(2)
        .filter(|w| w[0] == b'<' && (w[1].is_ascii_alphabetic() || b"/!?".contains(&w[1])))
        .count()
}

/// `</name>`: pop it if it is the innermost element, or, for block and table
/// elements, pop down to it unless that crosses a scope boundary.
fn close(open: &mut Vec<&str>, name: &str) {
    if open
        .last()
        .is_some_and(|top| top.eq_ignore_ascii_case(name))
    {
        open.pop();
        return;
    }
    let boundaries = if is_one_of(name, TABLE_PARTS) {
        TABLE_SCOPE_BOUNDARIES
    } else if is_one_of(name, CLOSES_CONTENTS) {
        SCOPE_BOUNDARIES
    } else {
        return;
    };
    for at in (0..open.len()).rev() {
        if open[at].eq_ignore_ascii_case(name) {
            open.truncate(at);
            return;
        }
        if is_one_of(open[at], boundaries) {
            return;
        }
    }
}

/// A start tag that the parser knows ends the innermost open element of the
/// same kind: `<li>` after `<li>`, `<td>` after `<td>`, `<tr>` after a cell.
fn close_implied_siblings(open: &mut Vec<&str>, name: &str) {
    let closes: &[&str] = match name.to_ascii_lowercase().as_str() {
        "li" => &["li"],
        "dt" | "dd" => &["dt", "dd"],
        "p" => &["p"],
        "option" => &["option"],
        "optgroup" => &["option", "optgroup"],
        "td" | "th" => &["td", "th"],
        "tr" => &["td", "th", "tr"],
        "thead" | "tbody" | "tfoot" => &["td", "th", "tr", "thead", "tbody", "tfoot"],
        _ => return,
    };
    while open.last().is_some_and(|top| is_one_of(top, closes)) {
        open.pop();
    }
}

/// `name` is one of `names` (lowercase), ignoring ASCII case as HTML does.
fn is_one_of(name: &str, names: &[&str]) -> bool {
    names.iter().any(|n| n.eq_ignore_ascii_case(name))
}

/// The text of HTML too deeply nested to lay out: tags removed (a line break
/// for each, so block text does not run together), script and style dropped,
/// the common entities decoded.
fn strip_tags(html: &str) -> String {
    let mut out = String::with_capacity(html.len() / 2);
    let mut rest = html;
    while let Some(lt) = rest.find('<') {
        out.push_str(&decode_entities(&rest[..lt]));
        rest = &rest[lt..];
        let skip_to = if starts_with_ci(rest, "<script") {
            "</script"
        } else if starts_with_ci(rest, "<style") {
            "</style"
        } else {
            ">"
        };
        rest = match find_ascii_ci(rest, skip_to) {
            Some(at) => &rest[at..],
            None => "",
        };
        rest = rest.find('>').map_or("", |gt| &rest[gt + 1..]);
        if !out.ends_with('\n') {
            out.push('\n');
        }
    }
    out.push_str(&decode_entities(rest));
    out
}

fn starts_with_ci(s: &str, prefix: &str) -> bool {
    s.as_bytes()
        .get(..prefix.len())
        .is_some_and(|head| head.eq_ignore_ascii_case(prefix.as_bytes()))
}

/// Position of `needle` (ASCII, lowercase) in `hay`, ignoring ASCII case.
fn find_ascii_ci(hay: &str, needle: &str) -> Option<usize> {
    hay.as_bytes()
        .windows(needle.len())
        .position(|w| w.eq_ignore_ascii_case(needle.as_bytes()))
}

fn decode_entities(s: &str) -> String {
    s.replace("&nbsp;", " ")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

#[cfg(test)]
#[path = "html_tests.rs"]
mod tests;
