//! Paragraph chunking for prose (email bodies), as designed: normalise line
//! ends, split on blank lines, hard-split long paragraphs at a word boundary,
//! and drop the short pieces (greetings, sign-offs) that only add noise.

/// A paragraph longer than this (in characters) is split at a word boundary.
pub const MAX_CHUNK_CHARS: usize = 1200;

/// Paragraphs shorter than this (in characters) are dropped as noise ("Hi
/// Jane,", "Thanks, Bob") unless the whole text is that short.
pub const MIN_PIECE_CHARS: usize = 40;

/// Split `body` into chunks, with `heading` (an email subject) kept at the
/// start of the first chunk: it names what the message is about, so it is never
/// dropped as a short piece.
pub fn chunk_with_heading(heading: &str, body: &str) -> Vec<String> {
    let heading = heading.trim();
    let mut chunks = chunk_text(body);
    if heading.is_empty() {
        return chunks;
    }
    match chunks.first_mut() {
        Some(first) => *first = format!("{heading}\n\n{first}"),
        None => chunks.push(heading.to_string()),
    }
    chunks
}

/// Split prose into chunks. A text whose pieces are all short still yields
/// its whole text, so a short message stays findable.
pub fn chunk_text(text: &str) -> Vec<String> {
    let paragraphs = paragraphs(text);
    let mut out = Vec::new();
    for p in &paragraphs {
        // Only a short paragraph is noise; the short tail of a long one that
        // was hard-split is the end of a real sentence and is kept.
        if p.chars().count() < MIN_PIECE_CHARS {
            continue;
        }
        out.extend(
            hard_split(p, MAX_CHUNK_CHARS)
                .into_iter()
                .map(str::to_string),
        );
    }
    if out.is_empty() && !paragraphs.is_empty() {
        let whole = paragraphs.join("\n\n");
        out = hard_split(&whole, MAX_CHUNK_CHARS)
            .into_iter()
            .map(str::to_string)
            .collect();
    }
    out
}

/// CRLF and lone CR become LF, whitespace-only lines count as blank, and the
/// text is split on blank lines into trimmed, non-empty paragraphs.
fn paragraphs(text: &str) -> Vec<String> {
    let normalised = text.replace("\r\n", "\n").replace('\r', "\n");
    let mut out = Vec::new();
    let mut cur = String::new();
    for line in normalised.split('\n') {
        let line = line.trim_end();
        if line.trim().is_empty() {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur).trim_start().to_string());
            }
        } else {
            if !cur.is_empty() {
                cur.push('\n');
            }
            cur.push_str(line);
        }
    }
    if !cur.is_empty() {
        out.push(cur.trim_start().to_string());
    }
    out
}

/// Split `s` into pieces of at most `max` characters, each ending at a word
/// boundary when one exists in the second half of the window (so a word is
/// only cut when it alone is longer than half a chunk).
pub fn hard_split(s: &str, max: usize) -> Vec<&str> {
    let mut pieces = Vec::new();
    let mut rest = s.trim();
    while !rest.is_empty() {
        let Some((cut, _)) = rest.char_indices().nth(max) else {
            pieces.push(rest);
            break;
        };
        let window = &rest[..cut];
        let half = window.char_indices().nth(max / 2).map_or(0, |(i, _)| i);
        let at = window[half..]
            .rfind(char::is_whitespace)
            .map(|i| half + i)
            .filter(|&i| i > 0)
            .unwrap_or(cut);
        pieces.push(rest[..at].trim_end());
        rest = rest[at..].trim_start();
    }
    pieces
}

#[cfg(test)]
mod tests {
    use super::*;

    const LONG: &str = "This paragraph is comfortably longer than forty characters.";

    #[test]
    fn splits_on_blank_lines_and_drops_short_pieces() {
        let text = format!("Hi Jane,\r\n\r\n{LONG}\r\n\r\n\r\n\r\nThanks,\r\nBob");
        assert_eq!(chunk_text(&text), vec![LONG.to_string()]);
    }

    #[test]
    fn whitespace_only_lines_separate_paragraphs() {
        let text = format!("{LONG}\n   \n{LONG}");
        assert_eq!(chunk_text(&text).len(), 2);
    }

    #[test]
    fn a_short_message_still_yields_one_chunk() {
        assert_eq!(chunk_text("ok, thanks!"), vec!["ok, thanks!".to_string()]);
        assert!(chunk_text("  \n\n ").is_empty());
    }

    #[test]
    fn long_paragraphs_split_at_word_boundaries() {
        let para = "word ".repeat(700);
        let chunks = chunk_text(&para);
        assert!(chunks.len() >= 3);
        for c in &chunks {
            assert!(c.chars().count() <= MAX_CHUNK_CHARS);
            assert!(c.split(' ').all(|w| w == "word"), "a word was cut: {c:?}");
        }
    }

    #[test]
    fn a_word_longer_than_the_limit_is_cut() {
        let w = "é".repeat(3000);
        let pieces = hard_split(&w, MAX_CHUNK_CHARS);
        assert_eq!(pieces.len(), 3);
        assert_eq!(pieces.concat(), w);
    }

    #[test]
    fn the_short_tail_of_a_long_paragraph_is_kept() {
        let para = format!("{} the very end.", "word ".repeat(240));
        let chunks = chunk_text(&para);
        assert_eq!(chunks.len(), 2);
        assert!(chunks[1].ends_with("the very end."), "{chunks:?}");
    }

    /// The non-whitespace characters of `s`, in order.
    fn ink(s: &str) -> String {
        s.chars().filter(|c| !c.is_whitespace()).collect()
    }

    /// The test's own statement of the rule: blank lines separate
    /// paragraphs; a paragraph under MIN_PIECE_CHARS is dropped unless every
    /// paragraph is that short.
    fn kept_ink(text: &str) -> String {
        let text = text.replace("\r\n", "\n").replace('\r', "\n");
        let mut paras: Vec<String> = Vec::new();
        let mut cur: Vec<&str> = Vec::new();
        for line in text.split('\n').chain([""]) {
            if line.trim().is_empty() {
                if !cur.is_empty() {
                    paras.push(cur.join("\n").trim().to_string());
                    cur.clear();
                }
            } else {
                cur.push(line.trim_end());
            }
        }
        let long: Vec<&String> = paras
            .iter()
            .filter(|p| p.chars().count() >= MIN_PIECE_CHARS)
            .collect();
        if long.is_empty() {
            ink(&text)
        } else {
            long.iter().map(|p| ink(p)).collect()
        }
    }

    proptest::proptest! {
        /// Chunking loses no text but the short paragraphs it is designed to
        /// drop, invents none, keeps order, and respects the size limit.
        #[test]
        fn chunking_keeps_all_text_but_short_paragraphs(
            text in "(([a-zé]{1,12}|\\PC{1,3})[ \n\r\t]{1,3}){0,400}"
        ) {
            let chunks = chunk_text(&text);
            let got: String = chunks.iter().map(|c| ink(c)).collect();
            proptest::prop_assert_eq!(got, kept_ink(&text));
            for c in &chunks {
                proptest::prop_assert!(c.chars().count() <= MAX_CHUNK_CHARS);
                proptest::prop_assert!(!c.trim().is_empty());
            }
        }
    }

    #[test]
    fn the_heading_is_kept_even_when_short() {
        let chunks = chunk_with_heading("Acme quote", &format!("Hi,\n\n{LONG}"));
        assert_eq!(chunks, vec![format!("Acme quote\n\n{LONG}")]);
        assert_eq!(
            chunk_with_heading("Acme quote", ""),
            vec!["Acme quote".to_string()]
        );
    }
}
