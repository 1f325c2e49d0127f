//! Turning arbitrary user text into a safe SQLite FTS5 `MATCH` expression.
//!
//! Queries are natural language ("what did Acme say about the contract"), and
//! FTS5's query syntax treats `AND`, `OR`, `NOT`, `NEAR`, `-`, `*`, `^`, `:`,
//! parentheses and quotes as operators, so passing user text straight through
//! either errors or silently changes meaning. [`build`] extracts plain word
//! tokens, drops stopwords, quotes every token so none of it is syntax, and
//! joins them with `OR` so a hit need not contain every word (bm25 ranks the
//! rows that contain more of them higher).

use std::collections::HashSet;

/// Most tokens kept from one query. A pasted 5,000-char email must still
/// produce a query that FTS5 evaluates quickly.
pub const MAX_TOKENS: usize = 64;

/// Longest token kept, in chars. Longer runs (base64 blobs, hashes) are cut;
/// nobody types a 100-char word, and FTS5 work grows with token length.
pub const MAX_TOKEN_CHARS: usize = 100;

/// Common English words that match nearly every row and so only add noise to
/// an `OR` query. Kept modest: anything rarer may be what the user means
/// ("will" and "may" are left out because they are also names and nouns).
/// The one-letter and contraction fragments ("s", "t", "ll", ...) come from
/// splitting "Acme's" or "don't" at the apostrophe.
const STOPWORDS: &[&str] = &[
    "s", "t", "d", "ll", "m", "re", "ve", "a", "about", "after", "all", "also", "am", "an", "and",
    "any", "are", "as", "at", "be", "been", "before", "being", "but", "by", "can", "could", "did",
    "do", "does", "for", "from", "had", "has", "have", "he", "her", "him", "his", "how", "i", "if",
    "in", "into", "is", "it", "its", "me", "my", "no", "not", "of", "on", "or", "our", "she", "so",
    "some", "than", "that", "the", "their", "them", "then", "there", "these", "they", "this",
    "those", "to", "us", "was", "we", "were", "what", "when", "where", "which", "who", "whom",
    "why", "with", "would", "you", "your",
];

/// A query ready to bind as the right-hand side of `MATCH`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FtsQuery {
    /// FTS5 expression such as `"acme" OR "contract"`. Bind it as a parameter;
    /// it is safe as FTS5 syntax, not as SQL text.
    pub match_expr: String,
    /// The quoted terms that `match_expr` joins with `OR`: FTS5's phrases,
    /// in its phrase order.
    pub phrases: Vec<String>,
    /// The lowercased tokens in first-seen order, for highlighting snippets.
    pub terms: Vec<String>,
}

/// Builds an FTS5 query from any user text.
///
/// Returns `None` when the text has no word tokens at all (only punctuation,
/// emoji, whitespace): the caller should report "no hits" rather than fail.
pub fn build(user_text: &str) -> Option<FtsQuery> {
    let mut seen: HashSet<String> = HashSet::new();
    let mut all: Vec<String> = Vec::new();
    let mut content: Vec<String> = Vec::new();
    for token in tokens(user_text) {
        if !seen.insert(token.clone()) {
            continue;
        }
        if !STOPWORDS.contains(&token.as_str()) {
            content.push(token.clone());
            if content.len() == MAX_TOKENS {
                break;
            }
        }
        // Stopwords are only needed when the query turns out to be nothing
        // but stopwords, so collecting more than the cap is pointless.
        if all.len() < MAX_TOKENS {
            all.push(token);
        }
    }
    // A query made only of stopwords ("the who") is still a real question;
    // searching its words beats returning nothing.
    let terms = if content.is_empty() { all } else { content };
    if terms.is_empty() {
        return None;
    }
    let phrases: Vec<String> = terms.iter().map(|t| quote(t)).collect();
    let match_expr = phrases.join(" OR ");
    Some(FtsQuery {
        match_expr,
        phrases,
        terms,
    })
}

/// Splits text into maximal runs of alphanumeric chars, lowercased and cut to
/// [`MAX_TOKEN_CHARS`]. Duplicates are left for the caller to drop.
fn tokens(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|run| !run.is_empty())
        .map(|run| run.to_lowercase().chars().take(MAX_TOKEN_CHARS).collect())
}

/// Wraps `t` as an FTS5 string literal, doubling any `"` inside. Tokens are
/// alphanumeric so there are none today, but the quoting must stay correct if
/// tokenisation ever changes.
fn quote(t: &str) -> String {
    format!("\"{}\"", t.replace('"', "\"\""))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rusqlite::Connection;

    /// An in-memory table with the production tokenizer and a few rows.
    fn fts_db() -> Connection {
        let db = Connection::open_in_memory().unwrap();
        db.execute_batch(
            "CREATE VIRTUAL TABLE t USING fts5(text, \
                 tokenize='porter unicode61 remove_diacritics 2');
             INSERT INTO t(text) VALUES
                 ('Acme sent the signed contract on Monday'),
                 ('Dinner with Alice at the café, receipt attached'),
                 ('東京 trip itinerary and ホテル booking'),
                 ('The Who concert tickets'),
                 ('Contracts renewal reminder from Acme legal');",
        )
        .unwrap();
        db
    }

    fn run(db: &Connection, expr: &str) -> rusqlite::Result<Vec<i64>> {
        let mut stmt = db.prepare("SELECT rowid FROM t WHERE t MATCH ?1 ORDER BY bm25(t)")?;
        stmt.query_map([expr], |r| r.get(0))?.collect()
    }

    #[test]
    fn natural_language_question() {
        let q = build("what did Acme say about the contract").unwrap();
        assert_eq!(q.terms, ["acme", "say", "contract"]);
        assert_eq!(q.match_expr, r#""acme" OR "say" OR "contract""#);
        let hits = run(&fts_db(), &q.match_expr).unwrap();
        // Porter stemming lets "contract" find "Contracts" too.
        assert!(hits.contains(&1) && hits.contains(&5), "{hits:?}");
    }

    #[test]
    fn all_stopwords_are_kept() {
        let q = build("The Who").unwrap();
        assert_eq!(q.terms, ["the", "who"]);
        assert_eq!(run(&fts_db(), &q.match_expr).unwrap().first(), Some(&4));
    }

    #[test]
    fn no_tokens_gives_none() {
        for s in [
            "", "   ", "?!", "\"", "()", "🎉🔥", "-*^:", "\0\n\t", "\u{202E}",
        ] {
            assert_eq!(build(s), None, "{s:?}");
        }
    }

    #[test]
    fn duplicates_and_case_fold() {
        let q = build("Acme acme ACME contract Acme").unwrap();
        assert_eq!(q.terms, ["acme", "contract"]);
    }

    #[test]
    fn caps_tokens_and_length() {
        let many: String = (0..500).map(|i| format!("word{i} ")).collect();
        let q = build(&many).unwrap();
        assert_eq!(q.terms.len(), MAX_TOKENS);
        assert_eq!(q.terms[0], "word0");
        assert_eq!(q.terms[63], "word63");
        let long = "x".repeat(5_000);
        let q = build(&long).unwrap();
        assert_eq!(q.terms, ["x".repeat(MAX_TOKEN_CHARS)]);
    }

    #[test]
    fn quote_doubles_quotes() {
        assert_eq!(quote("plain"), "\"plain\"");
        assert_eq!(quote("a\"b"), "\"a\"\"b\"");
        assert_eq!(quote("\"\""), "\"\"\"\"\"\"");
        // And FTS5 accepts the defensively quoted form.
        run(&fts_db(), &quote("say \"hi\" OR NOT")).unwrap();
    }

    #[test]
    fn hostile_queries_never_error() {
        let paste: String = "Lorem ipsum dolor sit amet, \"quoted\" (paren) NOT -x a* ^y:z "
            .repeat(90)
            .chars()
            .take(5_000)
            .collect();
        let long_word = "a".repeat(5_000);
        let cases: Vec<&str> = vec![
            "\"",
            "\"\"",
            "\"unbalanced",
            "foo AND",
            "AND",
            "OR",
            "NOT",
            "NOT foo",
            "foo NOT",
            "-x",
            "--",
            "a*",
            "*",
            "title:foo",
            "text:acme",
            "{text}: acme",
            "(",
            ")",
            "(acme",
            "NEAR(a b)",
            "NEAR(acme contract, 2)",
            "^start",
            "acme + contract",
            "café naïve Ångström",
            "CAFÉ",
            "🎉",
            "🎉 acme 🔥",
            "東京",
            "東京のホテル",
            "مرحبا بالعالم",
            "\u{202E}acme\u{202C}",
            "שלום עולם",
            "'; DROP TABLE memory_chunks; --",
            "\" OR 1=1 --",
            "' OR '1'='1",
            "1; SELECT * FROM sqlite_master",
            "acme\0contract",
            "\0",
            "line one\nline two\r\n",
            "tab\tseparated",
            "x²³ ½ Ⅻ",
            "e\u{301}te\u{301}",
            "rank:1 bm25(t)",
            "MATCH",
            "the who",
            "a",
            &paste,
            &long_word,
        ];
        assert!(cases.len() >= 40);
        let db = fts_db();
        for input in cases {
            let Some(q) = build(input) else { continue };
            assert!(q.terms.len() <= MAX_TOKENS);
            assert!(q.terms.iter().all(|t| t.chars().count() <= MAX_TOKEN_CHARS));
            if let Err(e) = run(&db, &q.match_expr) {
                panic!("input {input:?} -> {:?} failed: {e}", q.match_expr);
            }
        }
    }

    #[test]
    fn apostrophe_fragments_are_dropped() {
        assert_eq!(
            build("Acme's contract").unwrap().terms,
            ["acme", "contract"]
        );
        assert_eq!(build("don't forget").unwrap().terms, ["don", "forget"]);
    }

    proptest::proptest! {
        #[test]
        fn any_text_is_valid_fts5(s in proptest::prelude::any::<String>()) {
            if let Some(q) = build(&s) {
                let db = fts_db();
                proptest::prop_assert!(run(&db, &q.match_expr).is_ok(), "{:?}", q.match_expr);
            }
        }

        /// Random strings rarely contain FTS5 syntax; these are made of it.
        #[test]
        fn any_mix_of_fts5_syntax_is_valid_fts5(
            s in "((AND|OR|NOT|NEAR|NEAR/2|\\^|\\*|:|\"|'|\\(|\\)|\\{|\\}|-|\\+|,|\\.|;|col:|text:|[a-z]{1,6}|\\PC)[ \t]?){1,40}"
        ) {
            if let Some(q) = build(&s) {
                let db = fts_db();
                proptest::prop_assert!(run(&db, &q.match_expr).is_ok(), "{:?} -> {:?}", s, q.match_expr);
            }
        }
    }

    #[test]
    fn stopword_list_is_lowercase_and_unique() {
        for (i, w) in STOPWORDS.iter().enumerate() {
            assert_eq!(*w, w.to_lowercase());
            assert!(!STOPWORDS[i + 1..].contains(w), "duplicate {w}");
        }
    }
}
