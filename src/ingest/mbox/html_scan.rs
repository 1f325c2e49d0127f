//! Markup read the way html5ever's tokenizer reads it, as far as the table
//! rewrite needs: where a tag ends (attributes, quoted values and all),
//! comments, and the elements whose content is text. A misreading here can
//! only make the rewrite's rows and marks worse, never let a table through:
//! `html_tables.rs` neutralises every table tag in what it copies.

/// What starts at a `<`.
pub(super) enum Markup<'a> {
    /// A `<` that opens nothing: text.
    Text,
    /// A comment, a bogus comment, a doctype: this many bytes, none of it
    /// elements.
    Opaque(usize),
    /// A start or end tag of this many bytes, `>` included; `name` as
    /// written (compare ignoring ASCII case).
    Tag {
        name: &'a str,
        end: bool,
        len: usize,
    },
    /// A tag that never ends: the tokenizer takes the rest of the document
    /// into it, and drops it.
    Unterminated,
}

/// The tokenizer's whitespace, and what else ends a tag name.
pub(super) fn ends_tag_name(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | b'\x0c' | b'\r' | b' ' | b'/' | b'>')
}

fn is_space(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | b'\x0c' | b'\r' | b' ')
}

/// What the markup at the start of `s` (which starts with `<`) is.
pub(super) fn markup(s: &str) -> Markup<'_> {
    let b = s.as_bytes();
    match b.get(1) {
        Some(b'!') if s[2..].starts_with("--") => Markup::Opaque(comment_len(s)),
        Some(b'!' | b'?') => Markup::Opaque(bogus_len(s)),
        Some(b'/') => match b.get(2) {
            Some(c) if c.is_ascii_alphabetic() => tag(s, 2, true),
            Some(b'>') => Markup::Opaque(3),
            Some(_) => Markup::Opaque(bogus_len(s)),
            None => Markup::Text,
        },
        Some(c) if c.is_ascii_alphabetic() => tag(s, 1, false),
        _ => Markup::Text,
    }
}

/// A comment from `<!--`: `<!-->` and `<!--->` end at once; otherwise it ends
/// at the first `-->` or `--!>`, or runs to the end. One pass: searching
/// for each ending in turn read to the end for the one that is absent, on
/// every comment.
fn comment_len(s: &str) -> usize {
    let body = &s[4..];
    if body.starts_with('>') {
        return 5;
    }
    if body.starts_with("->") {
        return 6;
    }
    let mut at = 0;
    while let Some(dashes) = body[at..].find("--") {
        let after = &body[at + dashes + 2..];
        if after.starts_with('>') {
            return 4 + at + dashes + 3;
        }
        if after.starts_with("!>") {
            return 4 + at + dashes + 4;
        }
        at += dashes + 1;
    }
    s.len()
}

/// In SVG or MathML, `<![CDATA[` runs to `]]>` (or the end), not to the
/// first `>`.
pub(super) fn cdata_len(s: &str) -> Option<usize> {
    let body = s.strip_prefix("<![CDATA[")?;
    Some(body.find("]]>").map_or(s.len(), |end| 9 + end + 3))
}

/// `<!x`, `<?x`, `</1`: a bogus comment, to the first `>`.
fn bogus_len(s: &str) -> usize {
    s.find('>').map_or(s.len(), |gt| gt + 1)
}

/// The tag whose name starts at `s[at..]`.
fn tag(s: &str, at: usize, end: bool) -> Markup<'_> {
    let b = s.as_bytes();
    let name_end = at + b[at..].iter().take_while(|c| !ends_tag_name(**c)).count();
    match tag_end(b, name_end) {
        Some(len) => Markup::Tag {
            name: &s[at..name_end],
            end,
            len,
        },
        None => Markup::Unterminated,
    }
}

/// Where a tag ends (the index after its `>`), reading its attributes from
/// `b[i..]` as the tokenizer does: names, `=`, and values quoted or not.
fn tag_end(b: &[u8], mut i: usize) -> Option<usize> {
    let skip = |i: &mut usize, while_: fn(u8) -> bool| {
        while *i < b.len() && while_(b[*i]) {
            *i += 1;
        }
    };
    loop {
        skip(&mut i, |c| is_space(c) || c == b'/');
        match *b.get(i)? {
            b'>' => return Some(i + 1),
            _ => i += 1,
        }
        skip(&mut i, |c| !ends_tag_name(c) && c != b'=');
        skip(&mut i, is_space);
        if *b.get(i)? != b'=' {
            continue;
        }
        i += 1;
        skip(&mut i, is_space);
        match *b.get(i)? {
            quote @ (b'"' | b'\'') => {
                i += 2 + b[i + 1..].iter().position(|&c| c == quote)?;
            }
            b'>' => return Some(i + 1),
            _ => skip(&mut i, |c| !is_space(c) && c != b'>'),
        }
    }
}

/// Elements whose content the tokenizer reads as text up to their end tag.
/// (`<noscript>` is markup: html2text parses without scripting.)
pub(super) fn is_raw_text(name: &str) -> bool {
    [
        "script",
        "style",
        "textarea",
        "title",
        "xmp",
        "iframe",
        "noembed",
        "noframes",
        "plaintext",
    ]
    .iter()
    .any(|raw| raw.eq_ignore_ascii_case(name))
}

/// How far the text content of the raw-text element `name` runs in `rest`
/// (what follows its start tag): to its end tag, or to the end.
pub(super) fn raw_text_len(rest: &str, name: &str) -> usize {
    if name.eq_ignore_ascii_case("plaintext") {
        return rest.len();
    }
    let b = rest.as_bytes();
    let mut at = 0;
    while let Some(lt) = rest[at..].find("</") {
        let name_at = at + lt + 2;
        let after = name_at + name.len();
        if b.get(name_at..after)
            .is_some_and(|n| n.eq_ignore_ascii_case(name.as_bytes()))
            && b.get(after).is_none_or(|c| ends_tag_name(*c))
        {
            return at + lt;
        }
        at = name_at;
    }
    rest.len()
}
