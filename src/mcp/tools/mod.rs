//! The tools an agent sees: their descriptions and schemas (written for a
//! model to read), and the calls behind them, one file per tool or family.
//! Each call goes through the same logic as the matching command and
//! returns the command's `--json` as `structuredContent`. Its `content`
//! holds that same JSON serialized in a first text block (as MCP 2025-06-18
//! asks of tools with structured output, for clients that read only
//! `content`), then a plain-text rendering written for a model to read.
//!
//! Two kinds of failure, as MCP 2025-06-18 separates them: arguments that
//! do not fit the published `inputSchema` (a missing field, a wrong type, a
//! number out of range, an unknown name; see `schema`) are a JSON-RPC
//! invalid-params error; a call that fits but cannot be done (a date that is
//! not a date, an unknown fact id) is a result with `isError: true`, so the
//! model reads the message and can try again.

mod conflicts;
mod facts;
mod forget;
mod get;
mod messages;
mod schema;
mod search;

use anyhow::Result;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

use super::Session;
use super::protocol::RpcError;
use crate::kinds::SourceType;
use crate::sanitize::one_line;

/// The `source_type` of every chunk, as the JSON and the `source` argument
/// spell it: the names of [`SourceType`], so the schemas cannot drift from it.
const SOURCE_TYPES: &[&str] = SourceType::NAMES;

/// What a tool call produced, before it is framed as a `CallToolResult`.
struct ToolOutput {
    text: String,
    structured: Option<Value>,
    is_error: bool,
}

impl ToolOutput {
    fn ok(text: String, structured: Value) -> ToolOutput {
        ToolOutput {
            text,
            structured: Some(structured),
            is_error: false,
        }
    }

    fn into_result(self) -> Value {
        let prose = json!({"type": "text", "text": self.text});
        let mut r = match self.structured {
            Some(s) => json!({
                "content": [{"type": "text", "text": s.to_string()}, prose],
                "structuredContent": s,
            }),
            None => json!({"content": [prose]}),
        };
        if self.is_error {
            r["isError"] = json!(true);
        }
        r
    }
}

/// The `tools/list` answer.
pub fn definitions() -> Vec<Value> {
    vec![
        search::definition(),
        get::definition(),
        facts::remember_definition(),
        forget::definition(),
        messages::definition(),
        facts::list_definition(),
        conflicts::definition(),
    ]
}

/// Runs `tools/call`.
pub fn call(session: &mut Session, params: &Map<String, Value>) -> Result<Value, RpcError> {
    let name = match params.get("name") {
        Some(Value::String(s)) => s.as_str(),
        _ => return Err(RpcError::invalid_params("tools/call needs a \"name\"")),
    };
    let args = match params.get("arguments") {
        None | Some(Value::Null) => Value::Object(Map::new()),
        Some(a @ Value::Object(_)) => a.clone(),
        Some(_) => {
            return Err(RpcError::invalid_params("\"arguments\" must be an object"));
        }
    };
    let output = match name {
        "memory_search" => search::call(session, parse(name, search::lenient(args))?),
        "memory_get" => get::call(session, parse(name, args)?),
        "memory_remember" => facts::remember(session, parse(name, args)?),
        "memory_forget" => forget::call(session, parse(name, args)?),
        "memory_add_messages" => messages::call(session, parse(name, args)?),
        "memory_list_facts" => facts::list(session, parse(name, args)?),
        "memory_list_conflicts" => conflicts::call(session, parse(name, args)?),
        _ => {
            return Err(RpcError::invalid_params(format!(
                "unknown tool {:?}; call tools/list for the available tools",
                one_line(name)
            )));
        }
    };
    let output = output.unwrap_or_else(|e| {
        let message = format!("{e:#}");
        super::log(&format!("{name}: {}", one_line(&message)));
        ToolOutput {
            text: message,
            structured: None,
            is_error: true,
        }
    });
    Ok(output.into_result())
}

/// The arguments of `tool`, checked against its published `inputSchema`
/// and then read into the tool's own type (which can only add rules a
/// schema cannot state, such as "exactly one of").
fn parse<T: DeserializeOwned>(tool: &str, args: Value) -> Result<T, RpcError> {
    let invalid = |e: &dyn std::fmt::Display| {
        RpcError::invalid_params(format!("invalid arguments for {tool}: {e}"))
    };
    if let Some(def) = definitions().into_iter().find(|d| d["name"] == tool) {
        schema::check(&args, &def["inputSchema"]).map_err(|e| invalid(&e))?;
    }
    serde_json::from_value(args).map_err(|e| invalid(&e))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every keyword of every published schema, recursively.
    fn keywords(schema: &Value, out: &mut Vec<String>) {
        let Some(m) = schema.as_object() else { return };
        for (k, v) in m {
            out.push(k.clone());
            match k.as_str() {
                "properties" => v
                    .as_object()
                    .into_iter()
                    .flatten()
                    .for_each(|(_, p)| keywords(p, out)),
                "items" => keywords(v, out),
                _ => {}
            }
        }
    }

    #[test]
    fn input_schemas_use_only_keywords_the_checker_enforces() {
        for t in definitions() {
            let mut found = Vec::new();
            keywords(&t["inputSchema"], &mut found);
            for k in found {
                assert!(
                    schema::KNOWN_KEYWORDS.contains(&k.as_str()),
                    "{}: {k}",
                    t["name"]
                );
            }
        }
    }

    #[test]
    fn a_result_carries_its_structured_content_as_json_text_then_prose() {
        let r = ToolOutput::ok("Two hits.".into(), json!({"hits": [1, 2]})).into_result();
        let first: Value = serde_json::from_str(r["content"][0]["text"].as_str().unwrap()).unwrap();
        assert_eq!(first, r["structuredContent"]);
        assert_eq!(r["content"][1]["text"], "Two hits.");
        assert!(r.get("isError").is_none());
    }

    #[test]
    fn every_listed_tool_has_an_object_schema_and_a_description() {
        for t in definitions() {
            assert_eq!(t["inputSchema"]["type"], "object", "{}", t["name"]);
            assert!(t["description"].as_str().unwrap().len() > 80);
            if let Some(out) = t.get("outputSchema") {
                assert_eq!(out["type"], "object", "{}", t["name"]);
            }
        }
    }
}
