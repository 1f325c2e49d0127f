//! The tools an agent sees: their descriptions and schemas (written for a
//! model to read), and the calls behind them. Each call goes through the
//! same logic as the matching command and returns the command's `--json`
//! as `structuredContent`, with a plain-text rendering beside it for the
//! clients that only show `content` to the model.
//!
//! Two kinds of failure, as MCP separates them: arguments that do not fit
//! the schema (a missing field, a wrong type, an unknown name) are a
//! JSON-RPC invalid-params error; a call that fits but cannot be done (a
//! date that is not a date, an unknown fact id) is a result with
//! `isError: true`, so the model reads the message and can try again.

mod facts;
mod get;
mod search;

use anyhow::Result;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

use super::Session;
use super::protocol::RpcError;
use crate::sanitize::one_line;

/// The `source_type` of every chunk, as the JSON and the `source` argument spell it.
const SOURCE_TYPES: [&str; 4] = ["email", "receipt", "conversation", "fact"];

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
        let mut r = json!({"content": [{"type": "text", "text": self.text}]});
        if let Some(s) = self.structured {
            r["structuredContent"] = s;
        }
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
        facts::forget_definition(),
        facts::list_definition(),
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
        "memory_search" => search::call(session, parse(name, args)?),
        "memory_get" => get::call(session, parse(name, args)?),
        "memory_remember" => facts::remember(session, parse(name, args)?),
        "memory_forget" => facts::forget(session, parse(name, args)?),
        "memory_list_facts" => facts::list(session, parse(name, args)?),
        _ => {
            return Err(RpcError::invalid_params(format!(
                "unknown tool {:?}; call tools/list for the available tools",
                one_line(name)
            )));
        }
    };
    let output = output.unwrap_or_else(|e| {
        let message = format!("{e:#}");
        eprintln!("alfred-mem mcp: {name}: {}", one_line(&message));
        ToolOutput {
            text: message,
            structured: None,
            is_error: true,
        }
    });
    Ok(output.into_result())
}

fn parse<T: DeserializeOwned>(tool: &str, args: Value) -> Result<T, RpcError> {
    serde_json::from_value(args)
        .map_err(|e| RpcError::invalid_params(format!("invalid arguments for {tool}: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

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
