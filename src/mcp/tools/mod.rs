//! The tools an agent sees: their descriptions (written for a model to
//! read), their schemas (derived from the Rust types that parse the
//! arguments and serialise the answers, `derived.rs`, so they cannot drift),
//! and the calls behind them, one file per tool or family.
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
mod derived;
mod facts;
mod forget;
mod get;
mod messages;
mod related;
mod schema;
mod search;

use anyhow::Result;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

use super::Session;
use super::protocol::RpcError;
use crate::sanitize::one_line;

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
        related::definition(),
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
        "memory_related" => related::call(session, parse(name, args)?),
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
    use crate::kinds::{FactMethod, SourceType};
    use crate::search::MAX_LIMIT;
    use derived::accepted_fields;

    fn tool(name: &str) -> Value {
        definitions()
            .into_iter()
            .find(|t| t["name"] == name)
            .unwrap()
    }

    fn properties(schema: &Value) -> Vec<String> {
        // A tool without arguments publishes no properties at all.
        let mut keys: Vec<String> = schema["properties"]
            .as_object()
            .map(|p| p.keys().cloned().collect())
            .unwrap_or_default();
        keys.sort();
        keys
    }

    fn sorted(mut fields: Vec<&str>) -> Vec<String> {
        fields.sort_unstable();
        fields.into_iter().map(String::from).collect()
    }

    /// Every tool's `inputSchema` names exactly the fields its argument
    /// type accepts (as serde reads them, renames applied): a field the
    /// type takes but the schema leaves out, or one the schema offers but
    /// the type refuses, fails here. The list of tools is checked too, so a
    /// new tool must be added to this table.
    #[test]
    fn every_input_schema_names_exactly_the_fields_its_type_accepts() {
        let table: Vec<(&str, Vec<&str>)> = vec![
            ("memory_search", accepted_fields::<search::SearchArgs>()),
            ("memory_get", accepted_fields::<get::GetArgs>()),
            ("memory_remember", accepted_fields::<facts::RememberArgs>()),
            ("memory_forget", accepted_fields::<forget::ForgetArgs>()),
            (
                "memory_add_messages",
                accepted_fields::<messages::AddMessagesArgs>(),
            ),
            ("memory_list_facts", accepted_fields::<facts::ListArgs>()),
            ("memory_related", accepted_fields::<related::RelatedArgs>()),
            (
                "memory_list_conflicts",
                accepted_fields::<conflicts::Args>(),
            ),
        ];
        let mut listed: Vec<String> = definitions()
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_string())
            .collect();
        listed.sort();
        assert_eq!(listed, sorted(table.iter().map(|(n, _)| *n).collect()));
        for (name, fields) in table {
            let takes_none = name == "memory_list_conflicts";
            assert!(!fields.is_empty() || takes_none, "{name}: no fields read");
            let schema = &tool(name)["inputSchema"];
            assert_eq!(properties(schema), sorted(fields), "{name}");
            assert_eq!(schema["additionalProperties"], false, "{name}");
        }
        let message =
            &tool("memory_add_messages")["inputSchema"]["properties"]["messages"]["items"];
        assert_eq!(
            properties(message),
            sorted(accepted_fields::<messages::MessageArg>())
        );
        assert_eq!(message["additionalProperties"], false);
        assert_eq!(
            accepted_fields::<forget::ForgetArgs>(),
            ["id", "ids", "match", "source"],
            "the spy reads serde's names, renames applied"
        );
    }

    /// The schemas say what the Rust types accept and produce: the
    /// vocabularies' names, the limits, what is required, descriptions from
    /// the doc comments, every subschema inlined.
    #[test]
    fn schemas_are_derived_from_the_argument_and_answer_types() {
        let search = tool("memory_search");
        let input = &search["inputSchema"];
        assert_eq!(input["required"], json!(["query"]));
        assert_eq!(input["properties"]["query"]["minLength"], 1);
        assert_eq!(input["properties"]["limit"]["minimum"], 1);
        assert_eq!(input["properties"]["limit"]["maximum"], MAX_LIMIT);
        assert_eq!(
            input["properties"]["limit"]["default"],
            crate::search::request::DEFAULT_LIMIT
        );
        assert_eq!(
            input["properties"]["source"]["items"]["enum"],
            json!(SourceType::NAMES)
        );
        assert_eq!(input["properties"]["all_chunks"]["type"], "boolean");
        assert_eq!(
            input["properties"]["limit"]["description"],
            "How many results to return."
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
        assert_eq!(
            hit["properties"]["source_type"]["enum"],
            json!(SourceType::NAMES)
        );
        assert!(hit["properties"]["more_chunks"].is_object());

        let forget = tool("memory_forget");
        assert_eq!(forget["inputSchema"]["properties"]["ids"]["minItems"], 1);
        assert!(forget["inputSchema"].get("required").is_none());
        let fact = &forget["outputSchema"]["properties"]["candidates"]["items"];
        assert_eq!(
            fact["properties"]["method"]["enum"],
            json!(FactMethod::NAMES)
        );
        assert_eq!(
            tool("memory_list_facts")["outputSchema"]["properties"]["facts"]["items"],
            *fact
        );
        assert_eq!(
            tool("memory_get")["inputSchema"]["properties"]["ids"]["maxItems"],
            100
        );
        let messages = &tool("memory_add_messages")["inputSchema"]["properties"]["messages"];
        assert_eq!(messages["maxItems"], 1000);
        assert_eq!(
            messages["items"]["properties"]["at"]["type"],
            json!(["string", "integer"])
        );
        // An optional argument is left out, not null: one type, as clients
        // that coerce typed-in values by it expect.
        assert_eq!(forget["inputSchema"]["properties"]["ids"]["type"], "array");
        assert_eq!(forget["inputSchema"]["properties"]["id"]["type"], "integer");
        assert_eq!(input["properties"]["after"]["type"], "string");
        // An answer's field that may be null says so.
        assert_eq!(
            hit["properties"]["dated_at"]["type"],
            json!(["string", "null"])
        );
        for t in definitions() {
            let text = t.to_string();
            assert!(
                !text.contains("$ref")
                    && !text.contains("$schema")
                    && !text.contains("$defs")
                    && !text.contains("\"format\""),
                "{text}"
            );
            assert!(
                !text.contains("\\n"),
                "a description keeps a line break: {text}"
            );
        }
    }

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
