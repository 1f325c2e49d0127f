//! `memory_add_messages`: a conversation taken in as it happens. The agent
//! appends turns to a conversation id; they are chunked as
//! `index-conversations` chunks a whole file and found by the next search.

use anyhow::{Result, bail};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::ToolOutput;
use super::derived::{input_schema, output_schema, string_or_integer};
use crate::ingest::conversations::append::{self, Appended, read_message};
use crate::mcp::Session;

/// The most messages one call takes; a longer history goes in several calls
/// (or through `index-conversations`).
const MAX_MESSAGES: usize = 1000;

pub fn definition() -> Value {
    json!({
        "name": "memory_add_messages",
        "title": "Add conversation messages",
        "description": "Append messages of a conversation to the user's memory as it happens, \
    so that later searches find what was said, when, and by whom. Call it with the new turns \
    of the current conversation (each call appends; send only what is new, though a message \
    sent twice is stored once). Use one conversation_id per conversation and keep it for every \
    call. Dates are kept: a turn is ranked by when it was said, like an email by its date. \
    Use memory_remember instead for a lasting fact that should never fade.",
        "inputSchema": input_schema::<AddMessagesArgs>(),
        "outputSchema": output_schema::<Appended>(),
        "annotations": {
            "title": "Add conversation messages",
            "readOnlyHint": false,
            "destructiveHint": false,
            "idempotentHint": true,
            "openWorldHint": false,
        },
    })
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AddMessagesArgs {
    /// A stable id for this conversation; created on first use.
    #[schemars(length(min = 1))]
    conversation_id: String,
    /// The conversation's title, taken when it is created.
    title: Option<String>,
    /// The messages to append, oldest first.
    #[schemars(length(min = 1, max = MAX_MESSAGES))]
    messages: Vec<MessageArg>,
}

/// One message: what was said (content or text), and optionally its id,
/// who said it and when.
// Read on by `read_message`, which `index-conversations --append` shares.
#[derive(Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct MessageArg {
    /// The message's id in your system. A message sent again with the same
    /// id is not stored twice; without an id, the same speaker and text is
    /// recognised.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "string_or_integer")]
    id: Option<Value>,
    /// Who spoke: user, assistant, or a name.
    #[serde(skip_serializing_if = "Option::is_none")]
    role: Option<String>,
    /// The same as role; a name reads best.
    #[serde(skip_serializing_if = "Option::is_none")]
    speaker: Option<String>,
    /// What was said.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1))]
    content: Option<String>,
    /// The same as content.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1))]
    text: Option<String>,
    /// When it was said: RFC 3339 or unix seconds. Now when left out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "string_or_integer")]
    at: Option<Value>,
}

pub fn call(session: &mut Session, args: AddMessagesArgs) -> Result<ToolOutput> {
    let mut new = Vec::with_capacity(args.messages.len());
    for (i, m) in args.messages.iter().enumerate() {
        let Value::Object(m) = serde_json::to_value(m)? else {
            bail!("messages[{i}]: not an object");
        };
        match read_message(&m) {
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
