//! BERT's WordPiece tokenizer, read from a Hugging Face `tokenizer.json`:
//! clean and lowercase the text (accents stripped), split on whitespace and
//! punctuation, then split each word greedily into the longest vocabulary
//! pieces, continuing pieces prefixed `##`.
//!
//! Differences from the `tokenizers` crate, accepted to keep the binary lean:
//! punctuation is ASCII punctuation plus the common Unicode punctuation
//! blocks rather than every Unicode `P*` character, and marks stripped with
//! the accents include spacing marks (`Mc`) as well as `Mn`.

use std::collections::HashMap;

use anyhow::{Context, Result};
use serde::Deserialize;
use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::is_combining_mark;

#[derive(Deserialize)]
struct File {
    model: Model,
    #[serde(default)]
    normalizer: Option<Normalizer>,
}

#[derive(Deserialize)]
struct Model {
    vocab: HashMap<String, u32>,
    #[serde(default = "unk")]
    unk_token: String,
    #[serde(default = "prefix")]
    continuing_subword_prefix: String,
    #[serde(default = "max_chars")]
    max_input_chars_per_word: usize,
}

#[derive(Deserialize)]
struct Normalizer {
    #[serde(default = "yes")]
    lowercase: bool,
}

fn unk() -> String {
    "[UNK]".into()
}
fn prefix() -> String {
    "##".into()
}
fn max_chars() -> usize {
    100
}
fn yes() -> bool {
    true
}

pub struct Tokenizer {
    vocab: HashMap<String, u32>,
    unk: u32,
    cls: u32,
    sep: u32,
    prefix: String,
    max_word_chars: usize,
    lowercase: bool,
}

impl Tokenizer {
    pub fn from_json(text: &str) -> Result<Tokenizer> {
        let f: File = serde_json::from_str(text).context("unreadable tokenizer.json")?;
        let id = |t: &str| {
            f.model
                .vocab
                .get(t)
                .copied()
                .with_context(|| format!("tokenizer.json has no {t} token"))
        };
        Ok(Tokenizer {
            unk: id(&f.model.unk_token)?,
            cls: id("[CLS]")?,
            sep: id("[SEP]")?,
            prefix: f.model.continuing_subword_prefix.clone(),
            max_word_chars: f.model.max_input_chars_per_word,
            lowercase: f.normalizer.is_none_or(|n| n.lowercase),
            vocab: f.model.vocab,
        })
    }

    /// `[CLS] pieces… [SEP]`, at most `max_len` ids.
    pub fn encode(&self, text: &str, max_len: usize) -> Vec<u32> {
        let mut ids = vec![self.cls];
        let budget = max_len.saturating_sub(1).max(1);
        'words: for word in pre_tokenize(&self.normalise(text)) {
            for id in self.word_pieces(&word) {
                if ids.len() == budget {
                    break 'words;
                }
                ids.push(id);
            }
        }
        ids.push(self.sep);
        ids
    }

    fn normalise(&self, text: &str) -> String {
        let mut out = String::with_capacity(text.len());
        for c in text.chars() {
            if c == '\0' || c == '\u{fffd}' || (c.is_control() && !c.is_whitespace()) {
                continue;
            }
            if c.is_whitespace() {
                out.push(' ');
            } else if is_cjk(c) {
                out.push(' ');
                out.push(c);
                out.push(' ');
            } else {
                out.push(c);
            }
        }
        if !self.lowercase {
            return out;
        }
        out.to_lowercase()
            .nfd()
            .filter(|c| !is_combining_mark(*c))
            .collect()
    }

    fn word_pieces(&self, word: &str) -> Vec<u32> {
        let chars: Vec<(usize, char)> = word.char_indices().collect();
        if chars.len() > self.max_word_chars {
            return vec![self.unk];
        }
        let mut out = Vec::new();
        let mut start = 0;
        let mut piece = String::with_capacity(word.len() + self.prefix.len());
        while start < word.len() {
            let mut end = word.len();
            let mut found = None;
            while end > start {
                piece.clear();
                if start > 0 {
                    piece.push_str(&self.prefix);
                }
                piece.push_str(&word[start..end]);
                if let Some(&id) = self.vocab.get(&piece) {
                    found = Some(id);
                    break;
                }
                // Step back one character, not one byte.
                end = word[..end]
                    .char_indices()
                    .next_back()
                    .map_or(start, |(i, _)| i);
            }
            match found {
                Some(id) => out.push(id),
                None => return vec![self.unk],
            }
            start = end;
        }
        out
    }
}

/// Whitespace-separated words, with every punctuation character its own word.
fn pre_tokenize(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    for w in text.split(' ').filter(|w| !w.is_empty()) {
        let mut cur = String::new();
        for c in w.chars() {
            if is_punctuation(c) {
                if !cur.is_empty() {
                    words.push(std::mem::take(&mut cur));
                }
                words.push(c.to_string());
            } else {
                cur.push(c);
            }
        }
        if !cur.is_empty() {
            words.push(cur);
        }
    }
    words
}

fn is_punctuation(c: char) -> bool {
    c.is_ascii_punctuation()
        || matches!(c as u32,
            0xA1 | 0xA7 | 0xAB | 0xB6 | 0xB7 | 0xBB | 0xBF
            | 0x2010..=0x2027 | 0x2030..=0x205E
            | 0x3001..=0x3003 | 0x3008..=0x3011 | 0x3014..=0x301F
            | 0xFF01..=0xFF0F | 0xFF1A..=0xFF20 | 0xFF3B..=0xFF40 | 0xFF5B..=0xFF65)
}

/// The CJK ideograph blocks BERT pads with spaces (each becomes a word).
fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x4E00..=0x9FFF | 0x3400..=0x4DBF | 0x20000..=0x2A6DF | 0x2A700..=0x2B73F
        | 0x2B740..=0x2B81F | 0x2B820..=0x2CEAF | 0xF900..=0xFAFF | 0x2F800..=0x2FA1F)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tiny() -> Tokenizer {
        let vocab: Vec<&str> = vec![
            "[PAD]", "[UNK]", "[CLS]", "[SEP]", "un", "##aff", "##able", "the", "cafe", ",", "!",
        ];
        let map: serde_json::Map<String, serde_json::Value> = vocab
            .iter()
            .enumerate()
            .map(|(i, t)| (t.to_string(), serde_json::json!(i)))
            .collect();
        let json = serde_json::json!({"model": {"vocab": map}, "normalizer": {"lowercase": true}});
        Tokenizer::from_json(&json.to_string()).unwrap()
    }

    #[test]
    fn wordpiece_table() {
        let t = tiny();
        for (text, ids) in [
            ("unaffable", vec![2, 4, 5, 6, 3]),
            ("The  CAFÉ, un!", vec![2, 7, 8, 9, 4, 10, 3]),
            ("unknownword", vec![2, 1, 3]),
            ("", vec![2, 3]),
        ] {
            assert_eq!(t.encode(text, 64), ids, "{text}");
        }
    }

    #[test]
    fn truncation_keeps_cls_and_sep() {
        assert_eq!(tiny().encode("the the the the", 4), vec![2, 7, 7, 3]);
    }

    #[test]
    fn multibyte_words_step_back_by_character() {
        // Must not panic on a byte boundary inside a character.
        assert_eq!(tiny().encode("ünaffäble", 64), vec![2, 4, 5, 6, 3]);
        assert_eq!(tiny().encode("日本", 64), vec![2, 1, 1, 3]);
    }
}
