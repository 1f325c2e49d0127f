//! Cuts a conversation into overlapping windows of a few messages, each packed
//! into chunks of bounded size split only between messages, so every chunk
//! knows exactly which messages (and which date) it holds.

use std::collections::HashSet;

use super::Message;
use crate::ingest::record::ChunkDraft;

/// Messages per window: a question, its answer and the reply to it.
///
/// Why windows and not "as many messages as fit": search results are read
/// against a budget (a screen, a model's context), and a 1200-char chunk of
/// nine chat lines spends nine lines to deliver the one that matched. A
/// single message loses the other half of the exchange ("Yes, last Tuesday!").
/// Measured on LoCoMo turn recall@10, decay off (docs/RETRIEVAL.md): 1200-char
/// packs 0.625, single messages 0.601, windows of 2 / 3 / 5 messages
/// 0.642 / 0.664 / 0.650, windows of 3 stepping by 2 0.671.
pub const WINDOW_MESSAGES: usize = 3;

/// Messages a window moves on by; one less than [`WINDOW_MESSAGES`], so each
/// window shares its last message with the next and an exchange split across
/// a boundary is still found whole once.
pub const WINDOW_STEP: usize = 2;

/// Cuts `messages` into windows of [`WINDOW_MESSAGES`] that overlap by one,
/// and packs each with [`pack`]. Packing a window of long messages can leave
/// pieces that the neighbouring window holds anyway: an exact repeat (a long
/// message alone in a chunk, once per window) is dropped, and so is a chunk
/// whose messages are all in the chunk beside it.
pub(super) fn windows(messages: &[Message], max_chars: usize, fallback: i64) -> Vec<ChunkDraft> {
    let mut chunks: Vec<ChunkDraft> = Vec::new();
    let mut seen: HashSet<(Vec<String>, String)> = HashSet::new();
    let mut start = 0;
    while start < messages.len() {
        let end = (start + WINDOW_MESSAGES).min(messages.len());
        for chunk in pack(&messages[start..end], max_chars, fallback) {
            if seen.insert((chunk.message_ids.clone(), chunk.text.clone())) {
                chunks.push(chunk);
            }
        }
        if end == messages.len() {
            break;
        }
        start += WINDOW_STEP;
    }
    let covered: Vec<bool> = (0..chunks.len())
        .map(|i| {
            let beside = [i.checked_sub(1), Some(i + 1)];
            beside
                .into_iter()
                .flatten()
                .filter_map(|j| chunks.get(j))
                .any(|other| strict_subset(&chunks[i].message_ids, &other.message_ids))
        })
        .collect();
    chunks
        .into_iter()
        .zip(covered)
        .filter_map(|(c, covered)| (!covered).then_some(c))
        .collect()
}

fn strict_subset(a: &[String], b: &[String]) -> bool {
    a.len() < b.len() && a.iter().all(|id| b.contains(id))
}

/// A message longer than this many chunk lengths is cut into pieces; shorter
/// long messages stay whole, because a cut mid-thought hurts more than size.
const HARD_SPLIT_FACTOR: usize = 4;

/// A chunk being filled.
struct Pending {
    text: String,
    chars: usize,
    ids: Vec<String>,
    at: Option<i64>,
}

/// Packs `messages` (already non-empty) into chunks of at most `max_chars`
/// characters; chunks without a message time are dated `fallback`.
pub(super) fn pack(messages: &[Message], max_chars: usize, fallback: i64) -> Vec<ChunkDraft> {
    let limit = max_chars.max(1);
    let mut chunks = Vec::new();
    let mut pending: Option<Pending> = None;
    let finish = |p: Pending| ChunkDraft {
        text: p.text,
        dated_at: p.at.unwrap_or(fallback),
        message_ids: p.ids,
    };
    for m in messages {
        let line = m.line();
        let chars = line.chars().count();
        if chars > limit {
            chunks.extend(pending.take().map(finish));
            let pieces = if chars > limit.saturating_mul(HARD_SPLIT_FACTOR) {
                split_at_words(&line, limit)
            } else {
                vec![line]
            };
            for text in pieces {
                let chars = text.chars().count();
                chunks.push(finish(Pending {
                    text,
                    chars,
                    ids: vec![m.id.clone()],
                    at: m.at,
                }));
            }
            continue;
        }
        if let Some(p) = &pending
            && p.chars + 1 + chars > limit
        {
            chunks.extend(pending.take().map(finish));
        }
        match &mut pending {
            Some(p) => {
                p.text.push('\n');
                p.text.push_str(&line);
                p.chars += 1 + chars;
                p.ids.push(m.id.clone());
                p.at = p.at.or(m.at);
            }
            None => {
                pending = Some(Pending {
                    text: line,
                    chars,
                    ids: vec![m.id.clone()],
                    at: m.at,
                });
            }
        }
    }
    chunks.extend(pending.take().map(finish));
    chunks
}

/// Cuts `text` into pieces of at most `limit` characters, at the last
/// whitespace that fits, or mid-word when a single word is longer than `limit`.
pub(super) fn split_at_words(text: &str, limit: usize) -> Vec<String> {
    let limit = limit.max(1);
    let mut pieces = Vec::new();
    let mut rest = text.trim();
    while !rest.is_empty() {
        let Some((cut, _)) = rest.char_indices().nth(limit) else {
            pieces.push(rest.to_string());
            break;
        };
        let window = rest.get(..cut).unwrap_or(rest);
        // Index 0 is never whitespace (rest is trimmed), so this always makes progress.
        let split = window
            .rfind(char::is_whitespace)
            .filter(|&i| i > 0)
            .unwrap_or(cut);
        let Some((piece, tail)) = rest.split_at_checked(split) else {
            break;
        };
        pieces.push(piece.trim_end().to_string());
        rest = tail.trim_start();
    }
    pieces
}
