//! What a fact claims, read from the common ways people write one, and
//! whether two facts' words differ in a value: the shared judgement of
//! consolidation (the same claim merges) and the contradiction check (the
//! same claim with another value is flagged). Pure functions, table-tested.
//!
//! The forms read: "X's K is V", "the K of X is V", "my K is V", "X lives in
//! V" (also "live at", "moved to"), "X works at/for V", "X is allergic to V",
//! "X was born on/in V", "X is married to V", each with "is/are/was" and
//! with a negation ("is not", "isn't", "does not live in", "no longer").

use std::collections::HashSet;

use crate::rank::word_tokens;

/// One claim: `entity`'s `key` is `value` (or, `negated`, is not).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Claim {
    pub entity: String,
    pub key: String,
    /// Normalised for comparison: a phone-like value keeps its digits only.
    pub value: String,
    pub negated: bool,
    /// A key that holds several values at once (one can be allergic to
    /// peanuts and to shellfish): only a negation contradicts it.
    pub multi: bool,
}

/// Verb phrases that name a relation: (phrase, key, several values at once).
const RELATIONS: &[(&str, &str, bool)] = &[
    ("lives in", "home", false),
    ("live in", "home", false),
    ("lives at", "home", false),
    ("live at", "home", false),
    ("moved to", "home", false),
    ("works at", "employer", false),
    ("work at", "employer", false),
    ("works for", "employer", false),
    ("work for", "employer", false),
    ("is allergic to", "allergy", true),
    ("am allergic to", "allergy", true),
    ("are allergic to", "allergy", true),
    ("allergic to", "allergy", true),
    ("was born on", "birthday", false),
    ("was born in", "birthplace", false),
    ("were born on", "birthday", false),
    ("is married to", "spouse", false),
    ("am married to", "spouse", false),
];

/// Keys that mean the same, as people write them: (written, meant).
const KEY_SYNONYMS: &[(&str, &str)] = &[
    ("phone", "phone number"),
    ("mobile", "phone number"),
    ("mobile number", "phone number"),
    ("cell", "phone number"),
    ("cell number", "phone number"),
    ("handphone number", "phone number"),
    ("number", "phone number"),
    ("date of birth", "birthday"),
    ("birth date", "birthday"),
    ("home address", "address"),
    ("email", "email address"),
    ("e-mail", "email address"),
    ("e-mail address", "email address"),
];

/// Words that turn a statement around.
const NEGATIONS: &[&str] = &[
    "not", "never", "no", "isn", "aren", "wasn", "doesn", "don", "didn", "won", "cannot",
];

/// Longest entity or key read (in words): a longer left side is a sentence,
/// not a name.
const MAX_NAME_WORDS: usize = 4;

/// The claim `text` makes, if it is written in one of the common forms.
pub fn parse(text: &str) -> Option<Claim> {
    let (words, negated) = normalise(text);
    if words.len() < 3 {
        return None;
    }
    let line = words.join(" ");
    for &(phrase, key, multi) in RELATIONS {
        if let Some((left, right)) = split_once_words(&line, phrase) {
            return claim(entity(left)?, key.to_string(), right, negated, multi);
        }
    }
    for copula in ["is", "are", "was"] {
        let Some((left, right)) = split_once_words(&line, copula) else {
            continue;
        };
        let (who, key) = if let Some((who, key)) = left.split_once("'s ") {
            (who.to_string(), key.to_string())
        } else if let Some(key) = left.strip_prefix("my ") {
            ("me".to_string(), key.to_string())
        } else if let Some(rest) = left.strip_prefix("the ") {
            let (key, who) = rest.split_once(" of ")?;
            (who.to_string(), key.to_string())
        } else {
            return None;
        };
        let who = entity(&who)?;
        let key = key.trim().to_string();
        if key.is_empty() || key.split(' ').count() > MAX_NAME_WORDS {
            return None;
        }
        let meant = KEY_SYNONYMS
            .iter()
            .find(|(w, _)| *w == key)
            .map(|(_, m)| m.to_string());
        // "My phone is a Samsung": a phone, not its number.
        let key = match meant {
            Some(m) if m != "phone number" || is_phone_like(right) => m,
            _ => key,
        };
        return claim(who, key, right, negated, false);
    }
    None
}

fn claim(entity: String, key: String, value: &str, negated: bool, multi: bool) -> Option<Claim> {
    let value = normalise_value(value);
    (!value.is_empty()).then_some(Claim {
        entity,
        key,
        value,
        negated,
        multi,
    })
}

/// Lowercase words with the negation taken out (and reported), apostrophes
/// straightened, "n't" split off, trailing punctuation dropped.
fn normalise(text: &str) -> (Vec<String>, bool) {
    let text = text.trim().replace(['’', '‘'], "'").to_lowercase();
    let text = text.trim_end_matches(['.', '!', ';']);
    let mut negated = false;
    let mut out: Vec<String> = Vec::new();
    let mut words = text.split_whitespace().peekable();
    while let Some(w) = words.next() {
        let w = w.trim_matches(|c: char| c == ',' || c == '"');
        if let Some(stem) = w.strip_suffix("n't") {
            negated = true;
            match stem {
                "does" | "do" | "did" | "ca" | "wo" => {}
                s => out.push(s.to_string()),
            }
            continue;
        }
        match w {
            "not" | "never" => negated = true,
            "no" if words.peek() == Some(&"longer") => {
                negated = true;
                words.next();
            }
            "does" | "do" | "did" if words.peek().is_some_and(|n| *n == "not") => {}
            "" => {}
            w => out.push(w.to_string()),
        }
    }
    // "does not live in" leaves "live in"; "lives in" is the same relation.
    (out, negated)
}

/// `line` split around the first whole-word occurrence of `phrase`: the
/// first `phrase` with a space on each side (the sides without them).
/// Searched in place: a dream parses every fact against every relation.
fn split_once_words<'a>(line: &'a str, phrase: &str) -> Option<(&'a str, &'a str)> {
    let bytes = line.as_bytes();
    let step = phrase.chars().next().map_or(1, char::len_utf8);
    let mut from = 0;
    while let Some(k) = line[from..].find(phrase) {
        let at = from + k;
        let end = at + phrase.len();
        if at > 0 && bytes[at - 1] == b' ' && bytes.get(end) == Some(&b' ') {
            return Some((&line[..at - 1], &line[end + 1..]));
        }
        from = at + step;
    }
    None
}

/// A subject as an entity: "i" and "my" are the user; a leading "the" goes.
fn entity(who: &str) -> Option<String> {
    let who = who.trim();
    let who = who.strip_prefix("the ").unwrap_or(who);
    let who = match who {
        "i" | "i'm" | "me" | "my" | "we" => "me",
        w => w,
    };
    (!who.is_empty() && who.split(' ').count() <= MAX_NAME_WORDS).then(|| who.to_string())
}

/// Mostly digits, as a phone number is written.
fn is_phone_like(value: &str) -> bool {
    value.chars().filter(char::is_ascii_digit).count() >= 5
        && !value.chars().any(char::is_alphabetic)
}

/// A value for comparison: digits only when it is mostly a number (a phone
/// number written with or without spaces and dashes), else its words.
fn normalise_value(value: &str) -> String {
    if is_phone_like(value) {
        return value.chars().filter(char::is_ascii_digit).collect();
    }
    let words: Vec<String> = value
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty() && !matches!(*w, "a" | "an" | "the"))
        .map(str::to_string)
        .collect();
    words.join(" ")
}

/// How two claims about one (entity, key) relate.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// They say the same: a merge.
    Same,
    /// They disagree, in these words.
    Conflict(String),
    /// Both can be true.
    Compatible,
}

/// Two claims about the same (entity, key): the same, conflicting, or both
/// true. Claims about different things are [`Verdict::Compatible`].
pub fn compare(a: &Claim, b: &Claim) -> Verdict {
    if a.entity != b.entity || a.key != b.key {
        return Verdict::Compatible;
    }
    let about = format!("{}, {}", a.entity, a.key);
    match (a.value == b.value, a.negated == b.negated) {
        (true, true) => Verdict::Same,
        (true, false) => Verdict::Conflict(format!("one says not ({about})")),
        (false, _) if a.multi || a.negated || b.negated => Verdict::Compatible,
        (false, _) => Verdict::Conflict(format!(
            "different {} for ({about}): {:?} and {:?}",
            value_kind(&a.value, &b.value),
            a.value,
            b.value
        )),
    }
}

/// A month's name, whole or its first three letters or more ("Mar", "Sept").
fn is_month(word: &str) -> bool {
    crate::dates::month_by_name(word).is_some()
}

fn value_kind(a: &str, b: &str) -> &'static str {
    let has = |s: &str, f: &dyn Fn(&str) -> bool| s.split(' ').any(f);
    let digit = |w: &str| w.chars().any(|c| c.is_ascii_digit());
    if has(a, &is_month) || has(b, &is_month) {
        "dates"
    } else if has(a, &digit) && has(b, &digit) {
        "numbers"
    } else {
        "values"
    }
}

/// Most differing words a free-text contradiction may have on each side:
/// "the same sentence with another value", not two sentences on a topic.
const MAX_DIFFERING_WORDS: usize = 2;

/// Whether two facts that share most of their words differ in a value:
/// a number, a date, a name or place (a capitalised word, not the first),
/// or a negation on one side only. The differing words must all be such
/// values; anything else is a different sentence, not a different value.
pub fn value_difference(a: &str, b: &str) -> Option<String> {
    differ(&Words::of(a), &Words::of(b))
}

/// A fact's words as [`differ`] compares them, prepared once per fact.
#[derive(Debug, Clone)]
pub struct Words {
    stems: HashSet<String>,
    proper: HashSet<String>,
}

impl Words {
    pub fn of(text: &str) -> Words {
        Words {
            stems: stems(text),
            proper: proper_words(text),
        }
    }
}

/// [`value_difference`] of two prepared facts.
pub fn differ(a: &Words, b: &Words) -> Option<String> {
    let (ta, tb) = (&a.stems, &b.stems);
    let only_a: HashSet<&String> = ta.difference(tb).collect();
    let only_b: HashSet<&String> = tb.difference(ta).collect();
    let is_neg = |w: &&String| NEGATIONS.contains(&w.as_str()) || w.as_str() == "t";
    let is_aux = |w: &&String| is_neg(w) || matches!(w.as_str(), "do" | "doe" | "did");
    let neg_a = only_a.iter().any(is_neg);
    let neg_b = only_b.iter().any(is_neg);
    let rest_a: Vec<&String> = only_a.iter().copied().filter(|w| !is_aux(w)).collect();
    let rest_b: Vec<&String> = only_b.iter().copied().filter(|w| !is_aux(w)).collect();
    if rest_a.is_empty() && rest_b.is_empty() {
        return (neg_a != neg_b).then(|| "one says not".to_string());
    }
    if rest_a.is_empty()
        || rest_b.is_empty()
        || rest_a.len() > MAX_DIFFERING_WORDS
        || rest_b.len() > MAX_DIFFERING_WORDS
    {
        return None;
    }
    let (names_a, names_b) = (&a.proper, &b.proper);
    let kind = |w: &String, names: &HashSet<String>| -> Option<&'static str> {
        if is_month(w) {
            Some("dates")
        } else if w.chars().any(|c| c.is_ascii_digit()) {
            Some("numbers")
        } else if names.contains(w) {
            Some("names or places")
        } else {
            None
        }
    };
    let kinds_a: Option<Vec<&str>> = rest_a.iter().map(|w| kind(w, names_a)).collect();
    let kinds_b: Option<Vec<&str>> = rest_b.iter().map(|w| kind(w, names_b)).collect();
    let (kinds_a, kinds_b) = (kinds_a?, kinds_b?);
    let kind = kinds_a
        .iter()
        .chain(&kinds_b)
        .min_by_key(|k| match **k {
            "dates" => 0,
            "numbers" => 1,
            _ => 2,
        })
        .copied()
        .unwrap_or("values");
    let mut wa: Vec<&str> = rest_a.iter().map(|s| s.as_str()).collect();
    let mut wb: Vec<&str> = rest_b.iter().map(|s| s.as_str()).collect();
    wa.sort_unstable();
    wb.sort_unstable();
    Some(format!(
        "different {kind}: {:?} and {:?}",
        wa.join(" "),
        wb.join(" ")
    ))
}

/// Word tokens with a plural or third-person "s" taken off ("likes" and
/// "like" are one word here): only for finding the words two facts differ in.
fn stems(text: &str) -> HashSet<String> {
    word_tokens(text)
        .into_iter()
        .map(|w| match w.strip_suffix('s') {
            Some(stem) if stem.chars().count() >= 3 => stem.to_string(),
            _ => w,
        })
        .collect()
}

/// Lowercased words written with a capital, except the first word, with
/// the same "s" taken off as [`stems`].
fn proper_words(text: &str) -> HashSet<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .skip(1)
        .filter(|w| w.chars().next().is_some_and(char::is_uppercase))
        .map(|w| {
            let w = w.to_lowercase();
            match w.strip_suffix('s') {
                Some(stem) if stem.chars().count() >= 3 => stem.to_string(),
                _ => w,
            }
        })
        .collect()
}

#[cfg(test)]
#[path = "claims_tests.rs"]
mod tests;
