//! Choosing the short excerpt of a hit that is shown in search results.
//!
//! A stored chunk can be thousands of characters; the reader needs the part
//! that explains why it matched. [`snippet`] picks the window with the most
//! distinct query terms, cuts it on word boundaries, marks the cuts with "…"
//! and reports which byte ranges to highlight. All slicing is by char, so
//! CJK, emoji and combining accents never cause a panic.
//!
//! The text is not sanitised here: pass it through
//! `crate::sanitize::for_terminal` first if it will reach a terminal, so the
//! highlight ranges refer to what is actually printed.

/// Marks the side(s) where the snippet was cut from a longer text.
pub const ELLIPSIS: &str = "…";

/// Shortest term that also highlights longer words starting with it. The
/// index is porter-stemmed, so "contract" finds "contracts"; for short terms
/// ("at", "pen") prefix matching would light up unrelated words.
pub const MIN_PREFIX_TERM_CHARS: usize = 4;

/// How far (in chars) the start or end may move inward to land on a word
/// boundary instead of cutting a word in half.
const BOUNDARY_SLACK_CHARS: usize = 15;

/// An excerpt ready to print.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Snippet {
    /// The excerpt, whitespace collapsed, with "…" where it was cut.
    pub text: String,
    /// Byte ranges `start..end` into `text` of words matching a query term;
    /// sorted and non-overlapping, always on char boundaries.
    pub highlights: Vec<(usize, usize)>,
}

/// A word of the normalised text, in char positions, and the term it matches.
struct Hit {
    start: usize,
    end: usize,
    term: usize,
}

/// Returns an excerpt of at most `max_chars` chars (ellipses included) from
/// `text`, centred on the densest cluster of `terms`, with highlights.
pub fn snippet(text: &str, terms: &[String], max_chars: usize) -> Snippet {
    let chars: Vec<char> = collapse_whitespace(text).chars().collect();
    let terms: Vec<String> = terms.iter().map(|t| t.to_lowercase()).collect();
    let hits = find_hits(&chars, &terms);
    let n = chars.len();

    if n <= max_chars {
        return render(&chars, 0, n, &hits, false);
    }
    if max_chars == 0 {
        return Snippet {
            text: String::new(),
            highlights: Vec::new(),
        };
    }
    // Leave room for an ellipsis at each end, unless the budget is so small
    // that the marks would crowd out the text itself.
    let marks = max_chars > 2 * ELLIPSIS.chars().count();
    let width = if marks { max_chars - 2 } else { max_chars };
    let (start, end) = match best_cluster(&hits, width, terms.len()) {
        Some((first, last)) => {
            let (from, to) = (hits[first].start, hits[last].end);
            // Centre the cluster in the window, clamped to the text.
            let start = from
                .saturating_sub((width - (to - from)) / 2)
                .min(n - width);
            let start = snap_start(&chars, start, from);
            // Re-extend after snapping so the cut-off chars are used at the end.
            (start, snap_end(&chars, (start + width).min(n), to))
        }
        None => (0, snap_end(&chars, width, 0)),
    };
    render(&chars, start, end, &hits, marks)
}

/// Joins the whitespace-separated words of `text` with single spaces.
fn collapse_whitespace(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Finds alphanumeric words matching a term: equal to it, or starting with it
/// when the term is at least [`MIN_PREFIX_TERM_CHARS`] long.
fn find_hits(chars: &[char], terms: &[String]) -> Vec<Hit> {
    let mut hits = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if !chars[i].is_alphanumeric() {
            i += 1;
            continue;
        }
        let start = i;
        while i < chars.len() && chars[i].is_alphanumeric() {
            i += 1;
        }
        let word: String = chars[start..i].iter().collect::<String>().to_lowercase();
        let matched = terms.iter().position(|t| {
            !t.is_empty()
                && (word == *t
                    || (t.chars().count() >= MIN_PREFIX_TERM_CHARS && word.starts_with(t.as_str())))
        });
        if let Some(term) = matched {
            hits.push(Hit {
                start,
                end: i,
                term,
            });
        }
    }
    hits
}

/// Index range `(first, last)` into `hits` of the run that fits in `width`
/// chars and covers the most distinct terms (ties: more hits, then earlier).
fn best_cluster(hits: &[Hit], width: usize, n_terms: usize) -> Option<(usize, usize)> {
    let mut counts = vec![0usize; n_terms];
    let mut distinct = 0;
    let mut best: Option<(usize, usize, usize)> = None; // (distinct, first, last)
    let mut last = 0;
    // Sliding window over hits: `first..last` all end within `width` chars of
    // hits[first].start.
    for first in 0..hits.len() {
        if last < first {
            last = first;
        }
        while last < hits.len() && hits[last].end - hits[first].start <= width {
            if counts[hits[last].term] == 0 {
                distinct += 1;
            }
            counts[hits[last].term] += 1;
            last += 1;
        }
        if last > first {
            let better = match best {
                None => true,
                Some((d, f, l)) => (distinct, last - first) > (d, l + 1 - f),
            };
            if better {
                best = Some((distinct, first, last - 1));
            }
            counts[hits[first].term] -= 1;
            if counts[hits[first].term] == 0 {
                distinct -= 1;
            }
        }
    }
    best.map(|(_, f, l)| (f, l))
}

/// Moves `start` forward past a partly-cut word, but never past `keep` (the
/// first highlighted word) nor more than [`BOUNDARY_SLACK_CHARS`].
fn snap_start(chars: &[char], start: usize, keep: usize) -> usize {
    if start == 0 || !chars[start - 1].is_alphanumeric() || !chars[start].is_alphanumeric() {
        return skip_spaces(chars, start, keep);
    }
    let limit = keep.min(start + BOUNDARY_SLACK_CHARS).min(chars.len());
    match (start..limit).find(|&i| !chars[i].is_alphanumeric()) {
        Some(i) => skip_spaces(chars, i, keep),
        None => start,
    }
}

/// Moves past leading separators so the snippet starts on a word.
fn skip_spaces(chars: &[char], mut i: usize, keep: usize) -> usize {
    while i < keep && i < chars.len() && chars[i] == ' ' {
        i += 1;
    }
    i
}

/// Moves `end` back before a partly-cut word, but never before `keep` (the
/// end of the last highlighted word) nor more than [`BOUNDARY_SLACK_CHARS`].
fn snap_end(chars: &[char], end: usize, keep: usize) -> usize {
    let mut e = end;
    if end > 0
        && end < chars.len()
        && chars[end - 1].is_alphanumeric()
        && chars[end].is_alphanumeric()
    {
        let floor = keep.max(end.saturating_sub(BOUNDARY_SLACK_CHARS));
        if let Some(i) = (floor..end).rev().find(|&i| !chars[i].is_alphanumeric()) {
            e = i;
        }
    }
    while e > keep && chars[e - 1] == ' ' {
        e -= 1;
    }
    e
}

/// Builds the snippet text for `chars[start..end]` with ellipses at cut ends
/// (when `marks`) and byte-range highlights for the hits entirely inside the
/// window.
fn render(chars: &[char], start: usize, end: usize, hits: &[Hit], marks: bool) -> Snippet {
    let mut text = String::new();
    if marks && start > 0 {
        text.push_str(ELLIPSIS);
    }
    let mut highlights = Vec::new();
    let mut hits = hits
        .iter()
        .filter(|h| h.start >= start && h.end <= end)
        .peekable();
    let mut open = 0;
    for (i, &c) in chars.iter().enumerate().take(end).skip(start) {
        if hits.peek().is_some_and(|h| h.start == i) {
            open = text.len();
        }
        text.push(c);
        if let Some(h) = hits.next_if(|h| h.end == i + 1) {
            debug_assert!(h.start <= i);
            highlights.push((open, text.len()));
        }
    }
    if marks && end < chars.len() {
        text.push_str(ELLIPSIS);
    }
    Snippet { text, highlights }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn terms(ts: &[&str]) -> Vec<String> {
        ts.iter().map(|t| t.to_string()).collect()
    }

    /// The highlighted substrings, for readable assertions.
    fn marked(s: &Snippet) -> Vec<&str> {
        s.highlights.iter().map(|&(a, b)| &s.text[a..b]).collect()
    }

    #[test]
    fn short_text_is_whole_and_collapsed() {
        let s = snippet(
            "  Acme   sent\n\tthe contract  ",
            &terms(&["acme", "contract"]),
            100,
        );
        assert_eq!(s.text, "Acme sent the contract");
        assert_eq!(marked(&s), ["Acme", "contract"]);
    }

    #[test]
    fn prefix_match_only_for_long_terms() {
        let s = snippet(
            "Contracts at attic contract pen penguin",
            &terms(&["contract", "at", "pen"]),
            100,
        );
        assert_eq!(marked(&s), ["Contracts", "at", "contract", "pen"]);
    }

    #[test]
    fn picks_window_with_most_distinct_terms() {
        let filler = "lorem ipsum dolor sit amet ".repeat(10);
        let text =
            format!("acme {filler} acme acme {filler} the acme contract was signed {filler}");
        let s = snippet(&text, &terms(&["acme", "contract"]), 60);
        assert!(
            s.text.starts_with('…') && s.text.ends_with('…'),
            "{:?}",
            s.text
        );
        assert!(s.text.contains("acme contract was signed"), "{:?}", s.text);
        assert_eq!(marked(&s), ["acme", "contract"]);
        assert!(s.text.chars().count() <= 60);
    }

    #[test]
    fn cuts_on_word_boundaries() {
        let text = "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima";
        let s = snippet(text, &terms(&["golf"]), 30);
        assert_eq!(marked(&s), ["golf"]);
        let inner = s.text.trim_matches('…');
        for w in inner.split(' ') {
            assert!(
                text.split(' ').any(|t| t == w),
                "cut word {w:?} in {:?}",
                s.text
            );
        }
    }

    #[test]
    fn no_match_gives_the_start() {
        let s = snippet("one two three four five six seven", &terms(&["zebra"]), 15);
        assert_eq!(s.text, "one two three…");
        assert!(s.highlights.is_empty());
        let s = snippet("one two three", &[], 5);
        assert_eq!(s.text, "one…");
    }

    #[test]
    fn tiny_budgets() {
        assert_eq!(snippet("hello world", &terms(&["world"]), 0).text, "");
        assert_eq!(
            snippet("hello world", &terms(&["world"]), 1)
                .text
                .chars()
                .count(),
            1
        );
        assert_eq!(
            snippet("hello world", &terms(&["world"]), 2)
                .text
                .chars()
                .count(),
            2
        );
        assert_eq!(snippet("", &terms(&["x"]), 10).text, "");
    }

    #[test]
    fn multibyte_text() {
        let text = "東京の会議 café\u{301} 🎉🎉 Zürich contract signé à Genève 契約 ".repeat(5);
        let s = snippet(&text, &terms(&["zürich", "契約", "genève"]), 40);
        assert!(s.text.chars().count() <= 40);
        for &(a, b) in &s.highlights {
            assert!(s.text.is_char_boundary(a) && s.text.is_char_boundary(b));
        }
        assert!(marked(&s).contains(&"Zürich"), "{:?}", s);
    }

    #[test]
    fn uppercase_terms_still_match() {
        let s = snippet("see the CONTRACT", &terms(&["Contract"]), 50);
        assert_eq!(marked(&s), ["CONTRACT"]);
    }

    proptest! {
        #[test]
        fn ranges_are_valid(
            text in any::<String>(),
            ts in prop::collection::vec("[a-zé東🎉]{1,5}", 0..4),
            max in 1usize..200,
        ) {
            let s = snippet(&text, &ts, max);
            prop_assert!(s.text.chars().count() <= max);
            let mut prev_end = 0;
            for &(a, b) in &s.highlights {
                prop_assert!(prev_end <= a && a < b && b <= s.text.len());
                prop_assert!(s.text.is_char_boundary(a) && s.text.is_char_boundary(b));
                prev_end = b;
            }
        }

        #[test]
        fn matching_words_are_found(
            words in prop::collection::vec("[a-dé ]{1,8}", 1..60),
            max in 1usize..200,
        ) {
            let text = words.join(" ");
            let ts = vec!["ab".to_string(), "dcba".to_string(), "é".to_string()];
            let s = snippet(&text, &ts, max);
            prop_assert!(s.text.chars().count() <= max);
            for &(a, b) in &s.highlights {
                let w = s.text[a..b].to_lowercase();
                prop_assert!(w == "ab" || w == "é" || w.starts_with("dcba"), "{:?}", w);
            }
        }
    }
}
