//! `memory_add_messages`: a conversation taken in as it happens. The agent
//! appends turns to a conversation id; they are chunked as
//! `index-conversations` chunks a whole file and found by the next search.

use anyhow::{Result, bail};
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::ToolOutput;
use crate::ingest::conversations::append::{self, read_message};
use crate::mcp::Session;

/// The most messages one call takes; a longer history goes in several calls
/// (or through `index-conversations`).
const MAX_MESSAGES: usize = 1000;

pub fn definition() -> Value {
    let message = json!({
        "type": "object",
        "properties": {
            "id": {
                "type": ["string", "integer"],
                "description": "The message's id in your system. A message sent again with \
    the same id is not stored twice; without an id, the same speaker and text is recognised.",
            },
            "role": {"type": "string", "description": "Who spoke: user, assistant, or a name."},
            "speaker": {"type": "string", "description": "The same as role; a name reads best."},
            "content": {"type": "string", "minLength": 1, "description": "What was said."},
            "text": {"type": "string", "minLength": 1, "description": "The same as content."},
            "at": {
                "type": ["string", "integer"],
                "description": "When it was said: RFC 3339 or unix seconds. Now when left out.",
            },
        },
        "additionalProperties": false,
    });
    json!({
        "name": "memory_add_messages",
        "title": "Add conversation messages",
        "description": "Append messages of a conversation to the user's memory as it happens, \
    so that later searches find what was said, when, and by whom. Call it with the new turns \
    of the current conversation (each call appends; send only what is new, though a message \
    sent twice is stored once). Use one conversation_id per conversation and keep it for every \
    call. Dates are kept: a turn is ranked by when it was said, like an email by its date. \
    Use memory_remember instead for a lasting fact that should never fade.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "conversation_id": {
                    "type": "string",
                    "minLength": 1,
                    "description": "A stable id for this conversation; created on first use.",
                },
                "title": {
                    "type": "string",
                    "description": "The conversation's title, taken when it is created.",
                },
                "messages": {
                    "type": "array",
                    "items": message,
                    "minItems": 1,
                    "maxItems": MAX_MESSAGES,
                    "description": "The messages to append, oldest first.",
                },
            },
            "required": ["conversation_id", "messages"],
            "additionalProperties": false,
        },
        "outputSchema": {
            "type": "object",
            "properties": {
                "conversation_id": {"type": "string"},
                "created": {"type": "boolean"},
                "messages_added": {"type": "integer"},
                "duplicates": {"type": "integer"},
                "empty": {"type": "integer"},
                "chunks_written": {"type": "integer"},
                "messages_total": {"type": "integer"},
            },
            "required": ["conversation_id", "created", "messages_added", "duplicates",
                         "empty", "chunks_written", "messages_total"],
        },
        "annotations": {
            "title": "Add conversation messages",
            "readOnlyHint": false,
            "destructiveHint": false,
            "idempotentHint": true,
            "openWorldHint": false,
        },
    })
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AddMessagesArgs {
    conversation_id: String,
    title: Option<String>,
    messages: Vec<Map<String, Value>>,
}

pub fn call(session: &mut Session, args: AddMessagesArgs) -> Result<ToolOutput> {
    let mut new = Vec::with_capacity(args.messages.len());
    for (i, m) in args.messages.iter().enumerate() {
        match read_message(m) {
            Ok(m) => new.push(m),
            Err(reason) => bail!("messages[{i}]: {reason}; nothing was added"),
        }
    }
    let now = session.config.now_per_call().timestamp();
    let done = append::append(
        &mut session.store,
        &args.conversation_id,
        args.title.as_deref(),
        new,
        now,
    )?;
    let prose = crate::output::import::appended(&done);
    Ok(ToolOutput::ok(prose, serde_json::to_value(&done)?))
}
