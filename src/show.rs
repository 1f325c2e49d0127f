//! `show`: from a chunk to the whole source it came from, as a person reads
//! it after `search`. An e-mail or receipt is all its parts in order, the
//! chunk's own part marked; a conversation is the chunk's messages with
//! `context` neighbouring messages each side; a fact is the fact.

use crate::kinds::SourceType;
use crate::store::search::Candidate;
use crate::store::show::SourceView;

/// One piece of the whole source, in reading order.
#[derive(Debug, Clone, PartialEq)]
pub struct Piece {
    pub text: String,
    /// True for the piece(s) the shown chunk holds.
    pub found: bool,
}

/// The whole source of a chunk, ready to print.
#[derive(Debug, Clone, PartialEq)]
pub struct Whole {
    pub pieces: Vec<Piece>,
    /// Pieces of the source left out before and after (a conversation
    /// beyond `context`).
    pub omitted_before: usize,
    pub omitted_after: usize,
}

impl Whole {
    /// A source that is the chunk itself.
    fn only(text: &str) -> Whole {
        Whole {
            pieces: vec![Piece {
                text: text.to_string(),
                found: true,
            }],
            omitted_before: 0,
            omitted_after: 0,
        }
    }

    /// The pieces joined: blank lines between e-mail parts, one line
    /// between messages.
    pub fn text(&self, separator: &str) -> String {
        let texts: Vec<&str> = self.pieces.iter().map(|p| p.text.as_str()).collect();
        texts.join(separator)
    }
}

/// The whole source of `view`'s chunk; `context` messages each side for a
/// conversation.
pub fn whole(view: &SourceView, context: usize) -> Whole {
    match view {
        SourceView::Fact { chunk, .. } => Whole::only(&chunk.text),
        SourceView::Document { chunk, parts, .. }
            if chunk.source_type == SourceType::Conversation =>
        {
            conversation(chunk, parts, context)
        }
        SourceView::Document { chunk, parts, .. } => Whole {
            pieces: parts
                .iter()
                .map(|p| Piece {
                    text: p.text.clone(),
                    found: p.id == chunk.id,
                })
                .collect(),
            omitted_before: 0,
            omitted_after: 0,
        },
    }
}

/// A conversation's messages, rebuilt from its overlapping chunks: a chunk
/// with one line per message id gives each message its line; any other
/// chunk (a long message cut in pieces, or messages spanning several lines)
/// is kept as one block of its messages. A message or block already seen in
/// an earlier chunk is not repeated.
fn conversation(chunk: &Candidate, parts: &[Candidate], context: usize) -> Whole {
    let mut blocks: Vec<(Vec<String>, String)> = Vec::new();
    for p in parts {
        let lines: Vec<&str> = p.text.split('\n').collect();
        if lines.len() == p.message_ids.len() && !p.message_ids.is_empty() {
            for (id, line) in p.message_ids.iter().zip(lines) {
                if !blocks.iter().any(|(ids, _)| ids.contains(id)) {
                    blocks.push((vec![id.clone()], line.to_string()));
                }
            }
        } else if !blocks
            .iter()
            .any(|(ids, text)| *ids == p.message_ids && *text == p.text)
        {
            blocks.push((p.message_ids.clone(), p.text.clone()));
        }
    }
    let is_found = |ids: &[String], text: &str| {
        if chunk.message_ids.is_empty() {
            text == chunk.text
        } else {
            ids.iter().any(|id| chunk.message_ids.contains(id))
        }
    };
    let found: Vec<usize> = (0..blocks.len())
        .filter(|&i| is_found(&blocks[i].0, &blocks[i].1))
        .collect();
    let (Some(&first), Some(&last)) = (found.first(), found.last()) else {
        // Nothing matched (cannot happen for a chunk of this source): the
        // chunk alone.
        return Whole::only(&chunk.text);
    };
    let start = first.saturating_sub(context);
    let end = (last + context + 1).min(blocks.len());
    Whole {
        pieces: blocks[start..end]
            .iter()
            .enumerate()
            .map(|(i, (_, text))| Piece {
                text: text.clone(),
                found: (first..=last).contains(&(start + i)),
            })
            .collect(),
        omitted_before: start,
        omitted_after: blocks.len() - end,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn part(id: i64, text: &str, ids: &[&str]) -> Candidate {
        Candidate {
            id,
            bm25: 0.0,
            source_type: SourceType::Conversation,
            source_id: "c1".into(),
            text: text.into(),
            dated_at: Some(0),
            meta: Default::default(),
            message_ids: ids.iter().map(|s| s.to_string()).collect(),
        }
    }

    /// Windows of three messages stepping by two, as the chunker cuts them.
    fn chat() -> Vec<Candidate> {
        vec![
            part(1, "a: one\nb: two\na: three", &["1", "2", "3"]),
            part(2, "a: three\nb: four\na: five", &["3", "4", "5"]),
            part(3, "a: five\nb: six\na: seven", &["5", "6", "7"]),
        ]
    }

    fn texts(w: &Whole) -> Vec<(&str, bool)> {
        w.pieces
            .iter()
            .map(|p| (p.text.as_str(), p.found))
            .collect()
    }

    #[test]
    fn a_conversation_chunk_shows_its_messages_and_the_context_around_them() {
        let parts = chat();
        let view = SourceView::Document {
            chunk: parts[1].clone(),
            parts: parts.clone(),
            recipients: None,
        };
        let w = whole(&view, 1);
        assert_eq!(
            texts(&w),
            [
                ("b: two", false),
                ("a: three", true),
                ("b: four", true),
                ("a: five", true),
                ("b: six", false)
            ]
        );
        assert_eq!((w.omitted_before, w.omitted_after), (1, 1));
        let w = whole(&view, 0);
        assert_eq!(w.pieces.len(), 3);
        assert_eq!(whole(&view, 10).pieces.len(), 7);
    }

    #[test]
    fn multi_line_messages_stay_whole_as_one_block() {
        let parts = vec![
            part(1, "a: hello\nthere\nb: hi", &["1", "2"]),
            part(2, "b: hi\na: bye", &["2", "3"]),
        ];
        let view = SourceView::Document {
            chunk: parts[0].clone(),
            parts: parts.clone(),
            recipients: None,
        };
        let w = whole(&view, 5);
        assert_eq!(
            texts(&w),
            [("a: hello\nthere\nb: hi", true), ("a: bye", false)]
        );
    }

    #[test]
    fn an_email_shows_every_part_with_the_chunks_marked() {
        let mut parts = chat();
        for p in &mut parts {
            p.source_type = SourceType::Email;
            p.message_ids.clear();
        }
        let view = SourceView::Document {
            chunk: parts[2].clone(),
            parts: parts.clone(),
            recipients: None,
        };
        let w = whole(&view, 0);
        assert_eq!(w.pieces.len(), 3);
        assert_eq!(
            w.pieces.iter().map(|p| p.found).collect::<Vec<_>>(),
            [false, false, true]
        );
    }
}
