//! Packs rendered messages into chunks of bounded size, splitting only between
//! messages, so every chunk knows exactly which messages (and which date) it holds.

use super::Message;
use crate::ingest::record::ChunkDraft;

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
