//! Table tests for `dream::claims`, kept beside it so that file stays readable.

use super::*;

fn c(entity: &str, key: &str, value: &str, negated: bool) -> Option<Claim> {
    Some(Claim {
        entity: entity.into(),
        key: key.into(),
        value: value.into(),
        negated,
        multi: key == "allergy",
    })
}

#[test]
fn parse_table() {
    let cases: &[(&str, Option<Claim>)] = &[
        (
            "Jane Tan's phone number is 012-345 6789.",
            c("jane tan", "phone number", "0123456789", false),
        ),
        (
            "The phone number of Jane Tan is 0123456789",
            c("jane tan", "phone number", "0123456789", false),
        ),
        ("My blood type is O+", c("me", "blood type", "o", false)),
        ("Kofi lives in Accra", c("kofi", "home", "accra", false)),
        (
            "Kofi does not live in Accra",
            c("kofi", "home", "accra", true),
        ),
        (
            "I'm not allergic to peanuts",
            c("me", "allergy", "peanuts", true),
        ),
        (
            "I am allergic to shellfish",
            c("me", "allergy", "shellfish", false),
        ),
        (
            "Jane's mobile isn't 555-1234",
            c("jane", "phone number", "5551234", true),
        ),
        ("We had a lovely dinner at the harbour", None),
        (
            "My phone is a Samsung Galaxy S23",
            c("me", "phone", "samsung galaxy s23", false),
        ),
        ("Meet Jane at 3pm", None),
    ];
    for (text, want) in cases {
        assert_eq!(&parse(text), want, "{text}");
    }
}

#[test]
fn compare_table() {
    let p = |t: &str| parse(t).unwrap();
    let cases: &[(&str, &str, &str)] = &[
        (
            "Jane's phone is 555 1234",
            "Jane's phone number is 5551234",
            "same",
        ),
        (
            "Jane's phone is 555 1234",
            "Jane's phone is 555 9876",
            "conflict",
        ),
        ("Kofi lives in Accra", "Kofi lives in Kumasi", "conflict"),
        (
            "Kofi lives in Accra",
            "Kofi does not live in Accra",
            "conflict",
        ),
        (
            "Kofi lives in Accra",
            "Kofi does not live in Kumasi",
            "compatible",
        ),
        (
            "I am allergic to peanuts",
            "I am allergic to shellfish",
            "compatible",
        ),
        (
            "Jane's phone is 555 1234",
            "Kofi's phone is 555 9876",
            "compatible",
        ),
    ];
    for (a, b, want) in cases {
        let got = match compare(&p(a), &p(b)) {
            Verdict::Same => "same",
            Verdict::Conflict(_) => "conflict",
            Verdict::Compatible => "compatible",
        };
        assert_eq!(got, *want, "{a} / {b}");
    }
}

#[test]
fn value_difference_table() {
    let cases: &[(&str, &str, bool)] = &[
        (
            "The dentist appointment is on 4 March",
            "The dentist appointment is on 5 March",
            true,
        ),
        (
            "The Orion kickoff is in Accra",
            "The Orion kickoff is in Lagos",
            true,
        ),
        ("Jane likes green tea", "Jane does not like green tea", true),
        ("Jane drinks green tea", "Jane never drinks green tea", true),
        (
            "Kofi leads the Orion project",
            "Kofi leads the Orion project from Accra",
            false,
        ),
        (
            "Jane prefers window seats",
            "Jane prefers aisle seats",
            false,
        ),
        ("Same words", "Same words", false),
    ];
    for (a, b, want) in cases {
        assert_eq!(value_difference(a, b).is_some(), *want, "{a} / {b}");
    }
}

#[test]
fn split_once_words_table() {
    // (line, phrase, want): the first occurrence with a space each side.
    type Case<'a> = (&'a str, &'a str, Option<(&'a str, &'a str)>);
    let cases: &[Case] = &[
        ("kofi lives in accra", "lives in", Some(("kofi", "accra"))),
        ("this is it", "is", Some(("this", "it"))),
        ("isis is here", "is", Some(("isis", "here"))),
        ("my phone is mine is", "is", Some(("my phone", "mine is"))),
        ("lives in accra", "lives in", None),
        ("kofi lives in", "lives in", None),
        ("kofi relives in accra", "lives in", None),
        ("café is open", "is", Some(("café", "open"))),
        ("", "is", None),
    ];
    for (line, phrase, want) in cases {
        assert_eq!(split_once_words(line, phrase), *want, "{line:?} {phrase:?}");
    }
}
