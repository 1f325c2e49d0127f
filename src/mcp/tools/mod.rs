//! The tools an agent sees: their descriptions (written for a model to
//! read), their schemas (derived from the Rust types that parse the
//! arguments and serialise the answers, so they cannot drift), and the
//! calls behind them. Each call goes through the
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
mod search;

use anyhow::Result;
use schemars::JsonSchema;
use schemars::generate::{Contract, SchemaSettings};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

use super::Session;
use super::protocol::RpcError;
use crate::sanitize::one_line;

/// A tool's `inputSchema`: what `T` accepts when it parses the arguments.
fn input_schema<T: JsonSchema>() -> Value {
    schema_of::<T>(Contract::Deserialize)
}

/// A tool's `outputSchema`: what `T` looks like serialised as the
/// `structuredContent`.
fn output_schema<T: JsonSchema>() -> Value {
    schema_of::<T>(Contract::Serialize)
}

/// The JSON schema of `T`, every subschema inlined (clients differ in how
/// they follow `$ref`), without the root's `$schema` and title (the tool
/// names itself). The lines of a doc comment are joined into one, as a
/// model reads a description.
fn schema_of<T: JsonSchema>(contract: Contract) -> Value {
    let settings = SchemaSettings::draft2020_12().with(|s| {
        s.inline_subschemas = true;
        s.meta_schema = None;
        s.contract = contract;
    });
    let mut schema = settings
        .into_generator()
        .into_root_schema_for::<T>()
        .to_value();
    if let Some(root) = schema.as_object_mut() {
        root.remove("title");
        root.remove("description");
    }
    one_line_descriptions(&mut schema);
    schema
}

fn one_line_descriptions(v: &mut Value) {
    match v {
        Value::Object(map) => {
            for (k, v) in map.iter_mut() {
                match v {
                    Value::String(s) if k == "description" => *s = s.replace('\n', " "),
                    _ => one_line_descriptions(v),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(one_line_descriptions),
        _ => {}
    }
}

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
    use crate::kinds::{FactMethod, SourceType};
    use crate::search::MAX_LIMIT;

    fn tool(name: &str) -> Value {
        definitions()
            .into_iter()
            .find(|t| t["name"] == name)
            .unwrap()
    }

    /// The schemas say what the Rust types accept and produce: the
    /// vocabularies' names, the limits, what is required, no stray field.
    #[test]
    fn schemas_are_derived_from_the_argument_and_answer_types() {
        let sources: Vec<&str> = SourceType::ALL.iter().map(|t| t.as_str()).collect();
        let methods: Vec<&str> = FactMethod::ALL.iter().map(|m| m.as_str()).collect();

        let search = tool("memory_search");
        let input = &search["inputSchema"];
        assert_eq!(input["required"], json!(["query"]));
        assert_eq!(input["additionalProperties"], false);
        assert_eq!(input["properties"]["query"]["minLength"], 1);
        assert_eq!(input["properties"]["limit"]["maximum"], MAX_LIMIT);
        assert_eq!(
            input["properties"]["source"]["items"]["enum"],
            json!(sources)
        );
        let hit = &search["outputSchema"]["properties"]["hits"]["items"];
        assert_eq!(
            hit["required"],
            json!([
                "id",
                "source_type",
                "source_id",
                "dated_at",
                "score",
                "text"
            ])
        );
        assert_eq!(hit["properties"]["source_type"]["enum"], json!(sources));

        let forget = tool("memory_forget");
        let keys = |v: &Value| -> Vec<String> {
            v["properties"]
                .as_object()
                .unwrap()
                .keys()
                .cloned()
                .collect()
        };
        assert_eq!(keys(&forget["inputSchema"]), ["id", "match"]);
        let fact = &forget["outputSchema"]["properties"]["candidates"]["items"];
        assert_eq!(fact["properties"]["method"]["enum"], json!(methods));
        assert_eq!(
            fact["properties"]["promoted_from"]["properties"]["source_type"]["enum"],
            json!(sources)
        );
        assert_eq!(
            tool("memory_list_facts")["outputSchema"]["properties"]["facts"]["items"],
            *fact
        );
        for t in definitions() {
            let text = t.to_string();
            assert!(
                !text.contains("$ref") && !text.contains("$schema"),
                "{text}"
            );
            assert!(
                !text.contains("\\n"),
                "a description keeps a line break: {text}"
            );
        }
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
