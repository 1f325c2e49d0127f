//! Checks a tool's arguments against the `inputSchema` it publishes, so that
//! what `tools/list` promises is exactly what `tools/call` enforces: an
//! argument outside the schema (a wrong type, a limit below its minimum, a
//! source not in the enum, a field the tool does not take) is always a
//! JSON-RPC invalid-params error, never sometimes a tool error.
//!
//! Only the JSON Schema keywords our schemas use are understood: `type`
//! (one or a list), `properties`, `required`, `additionalProperties: false`,
//! `items`, `enum`, `minimum`, `maximum`, `minLength`, `maxLength`,
//! `minItems` and `maxItems`, beside the annotations `description`,
//! `default` and `title`. Others are ignored; a test checks that every
//! published schema uses no other keyword.

use serde_json::{Map, Value};

/// The keywords [`check`] understands, plus the ones that only annotate.
#[cfg(test)]
pub const KNOWN_KEYWORDS: [&str; 15] = [
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "enum",
    "minimum",
    "maximum",
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
    "description",
    "default",
    "title",
];

/// Why `value` does not fit `schema`, naming the argument (`limit: ...`).
pub fn check(value: &Value, schema: &Value) -> Result<(), String> {
    check_at("", value, schema)
}

fn check_at(path: &str, value: &Value, schema: &Value) -> Result<(), String> {
    let Some(schema) = schema.as_object() else {
        return Ok(());
    };
    let name = if path.is_empty() { "arguments" } else { path };
    if let Some(t) = schema.get("type") {
        let types: Vec<&str> = match t {
            Value::String(s) => vec![s.as_str()],
            Value::Array(list) => list.iter().filter_map(Value::as_str).collect(),
            _ => vec![],
        };
        if !types.is_empty() && !types.iter().any(|t| is_type(value, t)) {
            return Err(format!(
                "{name}: expected {}, got {}",
                types.join(" or "),
                type_name(value)
            ));
        }
    }
    if let Some(Value::Array(allowed)) = schema.get("enum")
        && !allowed.contains(value)
    {
        let allowed: Vec<String> = allowed.iter().map(Value::to_string).collect();
        return Err(format!(
            "{name}: {} is not one of {}",
            short(value),
            allowed.join(", ")
        ));
    }
    match value {
        Value::Number(n) => check_number(name, n.as_f64().unwrap_or(0.0), schema),
        Value::String(s) => check_length(name, s.chars().count(), schema, "Length", "character"),
        Value::Array(items) => {
            check_length(name, items.len(), schema, "Items", "item")?;
            if let Some(item_schema) = schema.get("items") {
                for (i, item) in items.iter().enumerate() {
                    check_at(&format!("{name}[{i}]"), item, item_schema)?;
                }
            }
            Ok(())
        }
        Value::Object(members) => check_object(path, members, schema),
        _ => Ok(()),
    }
}

fn check_object(
    path: &str,
    members: &Map<String, Value>,
    schema: &Map<String, Value>,
) -> Result<(), String> {
    let empty = Map::new();
    let properties = schema
        .get("properties")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let at = |key: &str| {
        if path.is_empty() {
            key.to_string()
        } else {
            format!("{path}.{key}")
        }
    };
    for key in schema
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
    {
        if !members.contains_key(key) {
            return Err(format!("{}: missing", at(key)));
        }
    }
    let closed = schema.get("additionalProperties") == Some(&Value::Bool(false));
    for (key, value) in members {
        match properties.get(key) {
            Some(s) => check_at(&at(key), value, s)?,
            None if closed => {
                let mut known: Vec<&str> = properties.keys().map(String::as_str).collect();
                known.sort_unstable();
                return Err(format!(
                    "{}: unknown argument (this tool takes {})",
                    at(&crate::sanitize::one_line(key)),
                    known.join(", ")
                ));
            }
            None => {}
        }
    }
    Ok(())
}

fn check_number(name: &str, n: f64, schema: &Map<String, Value>) -> Result<(), String> {
    let bound = |k: &str| schema.get(k).and_then(Value::as_f64);
    if let Some(min) = bound("minimum")
        && n < min
    {
        return Err(format!("{name}: {n} is below the minimum of {min}"));
    }
    if let Some(max) = bound("maximum")
        && n > max
    {
        return Err(format!("{name}: {n} is above the maximum of {max}"));
    }
    Ok(())
}

/// `minLength`/`maxLength` or `minItems`/`maxItems`.
fn check_length(
    name: &str,
    len: usize,
    schema: &Map<String, Value>,
    suffix: &str,
    unit: &str,
) -> Result<(), String> {
    let bound = |k: String| schema.get(&k).and_then(Value::as_u64);
    if let Some(min) = bound(format!("min{suffix}"))
        && (len as u64) < min
    {
        return Err(format!("{name}: needs at least {min} {unit}(s)"));
    }
    if let Some(max) = bound(format!("max{suffix}"))
        && (len as u64) > max
    {
        return Err(format!("{name}: takes at most {max} {unit}(s), got {len}"));
    }
    Ok(())
}

fn is_type(v: &Value, t: &str) -> bool {
    match t {
        "integer" => v.is_i64() || v.is_u64(),
        "number" => v.is_number(),
        "string" => v.is_string(),
        "boolean" => v.is_boolean(),
        "array" => v.is_array(),
        "object" => v.is_object(),
        "null" => v.is_null(),
        _ => true,
    }
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "an integer",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// A value as an error message quotes it: one line, not too long.
fn short(v: &Value) -> String {
    let s = crate::sanitize::one_line(&v.to_string());
    match s.char_indices().nth(60) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn arguments_are_held_to_the_published_schema() {
        let schema = json!({
            "type": "object",
            "properties": {
                "query": {"type": "string", "minLength": 1},
                "limit": {"type": "integer", "minimum": 1, "maximum": 50},
                "source": {"type": "array", "items": {"type": "string", "enum": ["email", "fact"]}},
                "ids": {"type": "array", "items": {"type": "integer"}, "minItems": 1},
                "at": {"type": ["string", "integer"]},
            },
            "required": ["query"],
            "additionalProperties": false,
        });
        let cases = [
            (json!({"query": "x"}), Ok(())),
            (
                json!({"query": "x", "limit": 50, "source": ["fact"], "ids": [3], "at": 5}),
                Ok(()),
            ),
            (json!({}), Err("query: missing")),
            (json!("x"), Err("arguments: expected object, got a string")),
            (
                json!({"query": ""}),
                Err("query: needs at least 1 character(s)"),
            ),
            (
                json!({"query": "x", "limit": 0}),
                Err("limit: 0 is below the minimum of 1"),
            ),
            (
                json!({"query": "x", "limit": -5}),
                Err("limit: -5 is below the minimum of 1"),
            ),
            (
                json!({"query": "x", "limit": 51}),
                Err("limit: 51 is above the maximum of 50"),
            ),
            (
                json!({"query": "x", "limit": 2.5}),
                Err("limit: expected integer, got a number"),
            ),
            (
                json!({"query": "x", "source": ["mail"]}),
                Err("source[0]: \"mail\" is not one of \"email\", \"fact\""),
            ),
            (
                json!({"query": "x", "ids": []}),
                Err("ids: needs at least 1 item(s)"),
            ),
            (
                json!({"query": "x", "at": true}),
                Err("at: expected string or integer, got a boolean"),
            ),
            (
                json!({"query": "x", "when": 1}),
                Err("when: unknown argument (this tool takes at, ids, limit, query, source)"),
            ),
        ];
        for (args, want) in cases {
            assert_eq!(check(&args, &schema), want.map_err(String::from), "{args}");
        }
    }
}
