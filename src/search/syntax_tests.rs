use super::*;

fn words(text: &str) -> Node {
    Node::Term(Term {
        kind: Kind::Words,
        field: None,
        text: text.into(),
    })
}

fn term(kind: Kind, field: Option<Field>, text: &str) -> Node {
    Node::Term(Term {
        kind,
        field,
        text: text.into(),
    })
}

fn not(n: Node) -> Node {
    Node::Not(Box::new(n))
}

fn and(items: Vec<(Node, bool)>) -> Node {
    Node::And(items)
}

#[test]
fn plain_words_are_plain_words() {
    assert_eq!(
        parse("what did Acme's lawyer say?"),
        Some(and(vec![
            (words("what"), false),
            (words("did"), false),
            (words("Acme's"), false),
            (words("lawyer"), false),
            (words("say?"), false),
        ]))
    );
    assert_eq!(parse("acme"), Some(words("acme")));
    assert_eq!(parse(""), None);
    assert_eq!(parse("  \t\n"), None);
}

#[test]
fn the_grammar_reads_as_documented() {
    use Field::*;
    use Kind::*;
    for (input, want) in [
        (r#""exact phrase""#, term(Phrase, None, "exact phrase")),
        ("asteroid*", term(Prefix, None, "asteroid")),
        ("asteroid**", term(Prefix, None, "asteroid")),
        ("from:alice", term(Words, Some(From), "alice")),
        ("FROM:alice", term(Words, Some(From), "alice")),
        (
            r#"subject:"big news""#,
            term(Phrase, Some(Subject), "big news"),
        ),
        ("vendor:star*", term(Prefix, Some(Vendor), "star")),
        ("-spam", not(words("spam"))),
        ("NOT spam", not(words("spam"))),
        (r#"-"big news""#, not(term(Phrase, None, "big news"))),
        ("-from:bob", not(term(Words, Some(From), "bob"))),
        (
            "a OR b c",
            Node::Or(vec![
                words("a"),
                and(vec![(words("b"), false), (words("c"), false)]),
            ]),
        ),
        (
            "a b AND c d",
            and(vec![
                (words("a"), false),
                (words("b"), true),
                (words("c"), true),
                (words("d"), false),
            ]),
        ),
        (
            "(a OR b) c",
            and(vec![
                (
                    Node::Group(Box::new(Node::Or(vec![words("a"), words("b")]))),
                    false,
                ),
                (words("c"), false),
            ]),
        ),
        (
            "subject:(a -b)",
            Node::Group(Box::new(and(vec![
                (term(Words, Some(Subject), "a"), false),
                (not(term(Words, Some(Subject), "b")), false),
            ]))),
        ),
        // Hyphens inside a word, and a field name inside a word, are text.
        ("e-mail", words("e-mail")),
        ("re:from:x", words("re:from:x")),
        ("from:to:x", term(Words, Some(From), "to:x")),
    ] {
        assert_eq!(parse(input), Some(want), "{input}");
    }
}

#[test]
fn what_cannot_be_syntax_is_text() {
    for (input, want) in [
        ("AND", words("AND")),
        ("OR", words("OR")),
        ("NOT", words("NOT")),
        (
            "a AND",
            and(vec![(words("a"), false), (words("AND"), false)]),
        ),
        ("OR a", and(vec![(words("OR"), false), (words("a"), false)])),
        // The first OR has no item after it; the second then has one before.
        (
            "a OR OR b",
            Node::Or(vec![
                and(vec![(words("a"), false), (words("OR"), false)]),
                words("b"),
            ]),
        ),
        ("-", words("-")),
        ("--x", words("--x")),
        (
            "from: x",
            and(vec![(words("from:"), false), (words("x"), false)]),
        ),
        ("(a", words("a")),
        ("a)", words("a")),
        ("()a", words("a")),
        (r#""a"#, words("a")),
        (
            r#"a" b"#,
            and(vec![(words("a"), false), (words("b"), false)]),
        ),
        ("*", words("*")),
    ] {
        assert_eq!(parse(input), Some(want), "{input}");
    }
}

#[test]
fn a_pasted_wall_of_negations_does_not_overflow() {
    let many = format!("{}acme", "NOT -".repeat(100_000));
    assert_eq!(
        parse(&many),
        Some(Node::Not(Box::new(Node::Not(Box::new(words("acme"))))))
    );
    assert_eq!(parse("NOT NOT NOT acme"), Some(not(words("acme"))));
}

#[test]
fn deep_parentheses_are_read_as_punctuation() {
    let deep = format!("{}a{}", "(".repeat(1000), ")".repeat(1000));
    let mut node = parse(&deep).unwrap();
    let mut depth = 0;
    while let Node::Group(inner) = node {
        node = *inner;
        depth += 1;
    }
    assert_eq!(node, words("a"));
    assert!(depth <= MAX_DEPTH, "{depth}");
}

proptest::proptest! {
    /// Never a panic, on any text or any mix of the syntax.
    #[test]
    fn parsing_never_panics(s in proptest::prelude::any::<String>()) {
        let _ = parse(&s);
    }

    #[test]
    fn parsing_syntax_never_panics(
        s in "((AND|OR|NOT|-|\\*|\"|\\(|\\)|:|from:|subject:|to:|source:|[a-z]{1,4}\\*?|\\PC)[ ]?){1,60}"
    ) {
        let _ = parse(&s);
    }
}
