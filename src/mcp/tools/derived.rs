//! The tools' schemas, derived from the Rust types that parse their
//! arguments and serialise their answers (`schemars`), so that what
//! `tools/list` publishes cannot drift from what a call accepts or returns.
//! A field's doc comment is its description; `#[schemars(length(..))]` and
//! `#[schemars(range(..))]` give the limits `schema::check` enforces.
//!
//! Every subschema is inlined (clients differ in how far they follow
//! `$ref`), the root loses its `$schema` and title (the tool names itself),
//! a doc comment's lines are joined into one, as a model reads a
//! description, and schemars' Rust number formats are left out.

use schemars::JsonSchema;
use schemars::generate::{Contract, SchemaSettings};
use serde_json::{Value, json};

/// A tool's `inputSchema`: what `T` accepts when it parses the arguments.
pub fn input_schema<T: JsonSchema>() -> Value {
    schema_of::<T>(Contract::Deserialize)
}

/// A tool's `outputSchema`: what `T` looks like serialised as the
/// `structuredContent`.
pub fn output_schema<T: JsonSchema>() -> Value {
    schema_of::<T>(Contract::Serialize)
}

fn schema_of<T: JsonSchema>(contract: Contract) -> Value {
    let input = matches!(contract, Contract::Deserialize);
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
    tidy(&mut schema);
    if input {
        optional_without_null(&mut schema);
    }
    schema
}

/// An optional argument (an `Option` field) is left out, not sent as null:
/// its type loses schemars' `"null"`, as a hand-written schema would say.
/// Clients that coerce a typed-in value by the schema's `type` (the MCP
/// Inspector's `--tool-arg ids=[1,2]`) read only a single type.
fn optional_without_null(v: &mut Value) {
    let Some(map) = v.as_object_mut() else { return };
    let required: Vec<String> = map
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|r| r.as_str().map(String::from))
        .collect();
    if let Some(Value::Object(props)) = map.get_mut("properties") {
        for (name, prop) in props.iter_mut() {
            if !required.contains(name)
                && let Some(Value::Array(types)) = prop.get_mut("type")
            {
                types.retain(|t| t != "null");
                if types.len() == 1 {
                    prop["type"] = types[0].clone();
                }
            }
            optional_without_null(prop);
        }
    }
    if let Some(items) = map.get_mut("items") {
        optional_without_null(items);
    }
}

/// Joins each description's lines into one, and drops schemars' `format`
/// of Rust's number types (`uint`, `int64`, `double`...): they are no JSON
/// Schema format, so validators such as the MCP Inspector's warn about each,
/// and `type`, `minimum` and `maximum` already say what a client needs.
fn tidy(v: &mut Value) {
    match v {
        Value::Object(map) => {
            // A string: the keyword, not a property named so.
            if matches!(map.get("format"), Some(Value::String(_))) {
                map.remove("format");
            }
            for (k, v) in map.iter_mut() {
                match v {
                    Value::String(s) if k == "description" => {
                        *s = s.split_whitespace().collect::<Vec<_>>().join(" ");
                    }
                    _ => tidy(v),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(tidy),
        _ => {}
    }
}

/// `#[schemars(schema_with = ...)]` for a field that takes a string or an
/// integer (a message's id and time).
pub fn string_or_integer(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::Schema::try_from(json!({"type": ["string", "integer"]}))
        .expect("an object is a schema")
}

/// The fields a `serde::Deserialize` struct accepts, as serde names them
/// (renames applied): what its derived `deserialize_struct` announces. For
/// the test that a published schema names exactly these.
#[cfg(test)]
pub fn accepted_fields<'de, T: serde::Deserialize<'de>>() -> Vec<&'static str> {
    use serde::de::{self, Visitor};
    use std::fmt;

    #[derive(Debug)]
    struct Fields(Vec<&'static str>);
    impl fmt::Display for Fields {
        fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
            write!(f, "{:?}", self.0)
        }
    }
    impl std::error::Error for Fields {}
    impl de::Error for Fields {
        fn custom<M: fmt::Display>(_: M) -> Self {
            Fields(Vec::new())
        }
    }

    struct Spy;
    impl<'de> de::Deserializer<'de> for Spy {
        type Error = Fields;
        fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Fields> {
            Err(Fields(Vec::new()))
        }
        fn deserialize_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            fields: &'static [&'static str],
            _: V,
        ) -> Result<V::Value, Fields> {
            Err(Fields(fields.to_vec()))
        }
        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
            bytes byte_buf option unit unit_struct newtype_struct seq tuple
            tuple_struct map enum identifier ignored_any
        }
    }

    match T::deserialize(Spy) {
        Err(Fields(fields)) => fields,
        Ok(_) => Vec::new(),
    }
}
