//! What `alfred-mem show` prints: each chunk's whole source for a person
//! (headers, then the text with the chunk's own part marked), or the
//! documented `show --json` array.

use serde_json::{Value, json};

use super::facts::{fact_json, human_line};
use super::rfc3339;
use crate::kinds::SourceType;
use crate::sanitize::{for_terminal, one_line};
use crate::show::Whole;
use crate::store::show::SourceView;

/// One chunk shown: what the store found and the whole text made of it.
pub struct Shown {
    pub view: SourceView,
    pub whole: Whole,
}

/// Between two e-mail or receipt parts; between messages it is one newline.
fn separator(view: &SourceView) -> &'static str {
    if view.chunk().source_type == SourceType::Conversation {
        "\n"
    } else {
        "\n\n"
    }
}

/// The documented `show --json` array.
pub fn json(shown: &[Shown]) -> Value {
    Value::Array(
        shown
            .iter()
            .map(|s| {
                let c = s.view.chunk();
                let recipients = match &s.view {
                    SourceView::Document { recipients, .. } => recipients.as_deref(),
                    SourceView::Fact { .. } => None,
                };
                let mut v = json!({
                    "id": c.id,
                    "source_type": c.source_type,
                    "source_id": c.source_id,
                    "dated_at": c.dated_at.map(rfc3339),
                    "text": s.whole.text(separator(&s.view)),
                    "chunk_text": c.text,
                    "subject": c.meta.subject,
                    "from": c.meta.sender,
                    "to": recipients,
                    "vendor": c.meta.vendor,
                    "title": c.meta.title,
                });
                if let SourceView::Fact { fact, .. } = &s.view {
                    v["fact"] = fact_json(fact);
                }
                v
            })
            .collect(),
    )
}

/// For a person: per chunk a header line, the source's headers, then the
/// text with the chunk's part between `▶`/`◀` marks (`>>>`/`<<<` when not
/// on a terminal). On a terminal, control sequences are removed.
pub fn human(shown: &[Shown], terminal: bool) -> String {
    let clean = |t: &str| {
        if terminal {
            for_terminal(t)
        } else {
            t.to_string()
        }
    };
    let (open, close) = if terminal {
        ("▶ ", "◀")
    } else {
        (">>> ", "<<<")
    };
    let mut out = String::new();
    for (n, s) in shown.iter().enumerate() {
        if n > 0 {
            out.push('\n');
        }
        let c = s.view.chunk();
        let date = c.dated_at.map_or("timeless fact".into(), rfc3339);
        out.push_str(&format!(
            "── chunk {} · {} · {} ──\n",
            c.id,
            c.source_type,
            one_line(&c.source_id)
        ));
        if let SourceView::Fact { fact, .. } = &s.view {
            out.push_str(&human_line(fact));
            continue;
        }
        let to = match &s.view {
            SourceView::Document { recipients, .. } => recipients.clone(),
            SourceView::Fact { .. } => None,
        };
        let labels = [
            ("Subject", &c.meta.subject),
            ("From", &c.meta.sender),
            ("To", &to),
            ("Vendor", &c.meta.vendor),
            ("Title", &c.meta.title),
        ];
        for (label, value) in labels {
            if let Some(v) = value {
                out.push_str(&format!("{label}: {}\n", one_line(v)));
            }
        }
        out.push_str(&format!("Date: {date}\n\n"));
        let w = &s.whole;
        if w.omitted_before > 0 {
            out.push_str(&format!("[{} earlier messages]\n", w.omitted_before));
        }
        let parts = w.pieces.len();
        for (i, p) in w.pieces.iter().enumerate() {
            let text = clean(p.text.trim_end());
            let opens = p.found && (i == 0 || !w.pieces[i - 1].found);
            let closes = p.found && w.pieces.get(i + 1).is_none_or(|q| !q.found);
            if opens {
                if c.source_type == SourceType::Conversation {
                    out.push_str(&format!("{open}the messages found\n"));
                } else if parts > 1 {
                    out.push_str(&format!(
                        "{open}part {} of {parts}, the part found\n",
                        i + 1
                    ));
                }
            }
            out.push_str(&text);
            out.push('\n');
            if closes && (c.source_type == SourceType::Conversation || parts > 1) {
                out.push_str(&format!("{close}\n"));
            }
            if i + 1 < parts && c.source_type != SourceType::Conversation {
                out.push('\n');
            }
        }
        if w.omitted_after > 0 {
            out.push_str(&format!("[{} later messages]\n", w.omitted_after));
        }
    }
    out
}
