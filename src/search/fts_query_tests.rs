use super::*;
use rusqlite::Connection;

/// An in-memory table with the production columns and tokenizer, and a few
/// rows (text, subject, sender).
fn fts_db() -> Connection {
    let db = Connection::open_in_memory().unwrap();
    crate::store::register_fts(&db).unwrap();
    db.execute_batch(&format!(
        "CREATE VIRTUAL TABLE t USING fts5(text, subject, sender, vendor, title, recipients, \
             tokenize='{}');
         INSERT INTO t(text, subject, sender) VALUES
             ('Acme sent the signed contract on Monday', 'contract', 'Bob <bob@acme.com>'),
             ('Dinner with Alice at the café, receipt attached', 'dinner', 'Alice <alice@x.org>'),
             ('東京 trip itinerary and ホテル booking', 'trip', 'Alice <alice@x.org>'),
             ('The Who concert tickets', 'tickets', 'Bob <bob@acme.com>'),
             ('Contracts renewal reminder from Acme legal', 'renewal', 'Legal <legal@acme.com>'),
             ('java is for kiddies, said the asteroids expert', 'java', 'Carol <c@y.net>');",
        crate::store::TOKENIZE
    ))
    .unwrap();
    db
}

fn run(db: &Connection, expr: &str) -> rusqlite::Result<Vec<i64>> {
    let mut stmt = db.prepare("SELECT rowid FROM t WHERE t MATCH ?1 ORDER BY bm25(t), rowid")?;
    stmt.query_map([expr], |r| r.get(0))?.collect()
}

fn expr(q: &str) -> String {
    build(q).map(|f| f.match_expr).unwrap_or_default()
}

#[test]
fn natural_language_question() {
    let q = build("what did Acme say about the contract").unwrap();
    assert_eq!(q.terms, ["acme", "say", "contract"]);
    assert_eq!(q.match_expr, r#""acme" OR "say" OR "contract""#);
    assert!(!q.structured && q.plain_text.is_none());
    assert_eq!(q.by_meaning, MeaningFilter::default());
    assert_eq!(q.phrases.join(" OR "), q.match_expr);
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
        "",
        "   ",
        "?!",
        "\"",
        "()",
        "🎉🔥",
        "-*^:",
        "\0\n\t",
        "\u{202E}",
        "-spam",
        "NOT x",
        "\"\"",
        "from:\"\"",
        "-(a b)",
    ] {
        assert_eq!(build(s), None, "{s:?}");
    }
}

#[test]
fn only_exclusions_are_told_apart_from_no_words() {
    assert!(only_exclusions("-spam"));
    assert!(only_exclusions("NOT spam -from:bob"));
    assert!(!only_exclusions("?!"));
    assert!(!only_exclusions("acme -spam"));
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
    let many_phrases: String = (0..200).map(|i| format!("-w{i} \"p{i}\" ")).collect();
    let q = build(&many_phrases).unwrap();
    assert!(q.phrases.len() <= MAX_TOKENS, "{}", q.phrases.len());
}

#[test]
fn quote_doubles_quotes() {
    assert_eq!(quote("plain"), "\"plain\"");
    assert_eq!(quote("a\"b"), "\"a\"\"b\"");
    assert_eq!(quote("\"\""), "\"\"\"\"\"\"");
    // And FTS5 accepts the defensively quoted form.
    run(&fts_db(), &quote("say \"hi\" OR NOT")).unwrap();
}

/// The syntax, as FTS5 receives it: what the user typed is always quoted.
#[test]
fn syntax_lowers_to_fts5() {
    for (input, want, structured) in [
        // The issue's example: a phrase or a prefix.
        (
            r#""java is for kiddies" OR asteroid*"#,
            r#""java is for kiddies" OR "asteroid" *"#,
            false,
        ),
        // A phrase among words stays optional, like them.
        (
            r#"trip "signed contract""#,
            r#""trip" OR "signed contract""#,
            false,
        ),
        ("from:alice", r#"{sender} : "alice""#, false),
        ("from:alice@x.org", r#"{sender} : "alice x org""#, false),
        (
            r#"from:"Bob" subject:contract"#,
            r#"{sender} : "bob" AND {subject} : "contract""#,
            true,
        ),
        // As in Gmail: both words in the subject.
        (
            "subject:(trip tickets)",
            r#"{subject} : "trip" AND {subject} : "tickets""#,
            true,
        ),
        ("from:ali*", r#"{sender} : "ali" *"#, false),
        (
            "from:alice invoice payment",
            r#"{sender} : "alice" AND ("invoice" OR "payment")"#,
            true,
        ),
        ("acme -contract", r#""acme" NOT "contract""#, true),
        ("acme NOT contract", r#""acme" NOT "contract""#, true),
        ("acme -e-mail", r#""acme" NOT "e mail""#, true),
        // Excluded stopwords are excluded as typed.
        ("acme -the", r#""acme" NOT "the""#, true),
        ("acme AND contract", r#""acme" AND "contract""#, true),
        ("the AND who", r#""the" AND "who""#, true),
        // AND binds tighter than OR; juxtaposition is AND's level.
        (
            "acme AND contract OR dinner",
            r#"("acme" AND "contract") OR "dinner""#,
            true,
        ),
        (
            "(acme OR dinner) -renewal",
            r#"("acme" OR "dinner") NOT "renewal""#,
            true,
        ),
        (
            "from:bob OR from:alice tickets",
            r#"{sender} : "bob" OR ({sender} : "alice" AND "tickets")"#,
            true,
        ),
        (
            "(from:bob OR from:alice) tickets",
            r#"({sender} : "bob" OR {sender} : "alice") AND "tickets""#,
            true,
        ),
        (
            "-(acme contract) dinner",
            r#""dinner" NOT ("acme" OR "contract")"#,
            true,
        ),
        // An exclusion with nothing beside it in its branch is dropped.
        ("acme OR -dinner", r#""acme""#, false),
        ("NOT NOT acme", r#""acme""#, false),
        (
            "vendor:starbucks title:plans",
            r#"{vendor} : "starbucks" AND {title} : "plans""#,
            true,
        ),
    ] {
        let q = build(input).unwrap_or_else(|| panic!("{input}: nothing"));
        assert_eq!(q.match_expr, want, "{input}");
        assert_eq!(q.structured, structured, "{input}");
        if !structured {
            assert_eq!(q.phrases.join(" OR "), q.match_expr, "{input}");
        }
        run(&fts_db(), &q.match_expr).unwrap_or_else(|e| panic!("{input}: {e}"));
    }
}

/// What cannot be syntax is read as text, never rejected.
#[test]
fn stray_syntax_is_read_literally() {
    for (input, want) in [
        (r#""unbalanced quote"#, r#""unbalanced" OR "quote""#),
        ("(acme contract", r#""acme" OR "contract""#),
        ("acme) contract", r#""acme" OR "contract""#),
        ("acme AND", r#""acme""#),
        ("OR acme", r#""acme""#),
        ("AND", r#""and""#),
        ("OR", r#""or""#),
        ("NOT", r#""not""#),
        ("acme -", r#""acme""#),
        ("acme - contract", r#""acme" OR "contract""#),
        ("from: bob", r#""bob""#),
        ("from:", r#""from""#),
        ("*", ""),
        ("acme*contract", r#""acme" OR "contract""#),
        ("Time: 5pm", r#""time" OR "5pm""#),
        ("e-mail", r#""e" OR "mail""#),
        ("Acme's", r#""acme""#),
        ("acme or contract", r#""acme" OR "contract""#),
    ] {
        assert_eq!(expr(input), want, "{input}");
    }
}

#[test]
fn the_syntax_finds_what_it_says() {
    let db = fts_db();
    for (input, want) in [
        (r#""java is for kiddies" OR asteroid*"#, vec![6]),
        (r#""is for java""#, vec![]),
        ("from:alice", vec![2, 3]),
        ("from:alice -dinner", vec![3]),
        ("acme -contract", vec![4]),
        ("acme -legal", vec![1, 4]),
        ("subject:contract", vec![1]),
        ("contract -subject:contract", vec![5]),
        ("from:acme.com tickets", vec![4]),
        ("kid*", vec![6]),
        ("ホテル", vec![3]),
        ("東京", vec![3]),
    ] {
        let q = build(input).unwrap();
        let mut hits = run(&db, &q.match_expr).unwrap();
        hits.sort();
        assert_eq!(hits, want, "{input} -> {}", q.match_expr);
    }
}

#[test]
fn source_applies_to_the_whole_query() {
    let q = build("source:receipts coffee -source:fact").unwrap();
    assert_eq!(q.match_expr, r#""coffee""#);
    assert_eq!(q.sources.only, [SourceType::Receipt]);
    assert_eq!(q.sources.not, [SourceType::Fact]);
    assert_eq!(q.sources.apply(&[]), [SourceType::Receipt]);
    assert_eq!(q.sources.apply(&[SourceType::Email]), []);
    let unknown = build("source:pigeon coffee").unwrap();
    assert_eq!(unknown.match_expr, r#""pigeon" AND "coffee""#);
    assert!(
        unknown.notes[0].contains("not a source type"),
        "{:?}",
        unknown.notes
    );
}

#[test]
fn to_searches_the_recipients_column() {
    let q = build("to:bob contract").unwrap();
    assert_eq!(q.match_expr, r#"{recipients} : "bob" AND "contract""#);
    assert!(q.notes.is_empty(), "{:?}", q.notes);
    let q = build("invoice -to:bob").unwrap();
    assert_eq!(q.match_expr, r#""invoice" NOT {recipients} : "bob""#);
    let q = build(r#"to:"alice smith""#).unwrap();
    assert_eq!(q.match_expr, r#"{recipients} : "alice smith""#);
}

#[test]
fn explain_shows_the_query_as_read() {
    let q = build("from:alice (invoice OR receipt*) -spam").unwrap();
    assert_eq!(
        q.parsed,
        r#"(from:"alice" AND ("invoice" OR "receipt"*)) NOT "spam""#
    );
    // Found by meaning: from Alice, without "spam"; the words optional.
    assert_eq!(
        q.by_meaning,
        MeaningFilter {
            required: Some(r#"{sender} : "alice" AND ("invoice" OR "receipt" *)"#.into()),
            excluded: Some(r#""spam""#.into()),
        }
    );
    let words = build("from:alice invoice payment -spam").unwrap();
    assert_eq!(
        words.by_meaning.required.as_deref(),
        Some(r#"{sender} : "alice""#)
    );
    let either = build("from:alice OR from:bob").unwrap();
    assert_eq!(either.by_meaning.required, Some(either.match_expr.clone()));
    assert_eq!(q.terms, ["alice", "invoice", "receipt"]);
    assert_eq!(q.plain_text.as_deref(), Some("alice invoice receipt"));
    let lone = build("acme OR -dinner").unwrap();
    assert!(
        lone.notes[0].contains("-dinner only excludes"),
        "{:?}",
        lone.notes
    );
}

#[test]
fn hostile_queries_never_error() {
    let paste: String = "Lorem ipsum dolor sit amet, \"quoted\" (paren) NOT -x a* ^y:z "
        .repeat(90)
        .chars()
        .take(5_000)
        .collect();
    let long_word = "a".repeat(5_000);
    let deep = format!("{}acme{}", "(".repeat(200), ")".repeat(200));
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
        "from:(to:x OR \"y\") -source:email AND",
        "subject:\"\" from:() -()",
        "((a OR) AND (NOT))",
        "from:\"a\"b\"c",
        &deep,
        &paste,
        &long_word,
    ];
    let db = fts_db();
    for input in cases {
        let Some(q) = build(input) else { continue };
        assert!(q.phrases.len() <= MAX_TOKENS);
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

/// Each phrase counted alone is what FTS5 counts for it inside the
/// expression: the fast engine's IDFs rest on it.
fn assert_valid(db: &Connection, s: &str) -> Result<(), proptest::test_runner::TestCaseError> {
    if let Some(q) = build(s) {
        proptest::prop_assert!(
            run(db, &q.match_expr).is_ok(),
            "{:?} -> {:?}",
            s,
            q.match_expr
        );
        for p in &q.phrases {
            proptest::prop_assert!(run(db, p).is_ok(), "{:?}: phrase {:?}", s, p);
        }
        if !q.structured {
            proptest::prop_assert_eq!(q.phrases.join(" OR "), q.match_expr);
        }
    }
    Ok(())
}

proptest::proptest! {
    #[test]
    fn any_text_is_valid_fts5(s in proptest::prelude::any::<String>()) {
        assert_valid(&fts_db(), &s)?;
    }

    /// Random strings rarely contain syntax; these are made of it.
    #[test]
    fn any_mix_of_syntax_is_valid_fts5(
        s in "((AND|OR|NOT|NEAR|NEAR/2|\\^|\\*|:|\"|'|\\(|\\)|\\{|\\}|-|\\+|,|\\.|;|col:|text:|from:|to:|subject:|source:|vendor:|[a-z]{1,6}\\*?|東京|\\PC)[ \t]?){1,40}"
    ) {
        assert_valid(&fts_db(), &s)?;
    }
}

#[test]
fn stopword_list_is_lowercase_and_unique() {
    for (i, w) in STOPWORDS.iter().enumerate() {
        assert_eq!(*w, w.to_lowercase());
        assert!(!STOPWORDS[i + 1..].contains(w), "duplicate {w}");
    }
}
