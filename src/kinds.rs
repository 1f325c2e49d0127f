//! The closed sets of names the memory stores and shows: what kind of source
//! a chunk comes from ([`SourceType`]), how a fact was learned
//! ([`FactMethod`]) and what links two chunks ([`LinkKind`]). Ingesters, the store, search, output and the MCP tools
//! all pass these enums, never the strings: the database column, the JSON
//! field and the text a person reads are the same lowercase name, written
//! once here. A name read from the database that this version does not know
//! (a newer alfred-mem wrote it) is an error naming it, not a panic and not
//! a silent default.

use std::fmt;

use rusqlite::types::{FromSql, FromSqlError, FromSqlResult, ToSql, ToSqlOutput, ValueRef};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Declares a vocabulary: a fieldless enum whose every variant is one
/// lowercase name, with its conversions to and from text, JSON and SQL, and
/// its JSON schema (an `enum` of the names, described for a model to read:
/// the MCP tools' schemas are derived from it).
macro_rules! vocabulary {
    (
        $(#[$doc:meta])*
        $name:ident, $what:literal, schema: $schema:literal {
            $($variant:ident = $text:literal,)+
        }
    ) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
        #[schemars(description = $schema)]
        pub enum $name {
            $(#[serde(rename = $text)] $variant,)+
        }

        impl $name {
            pub const ALL: &'static [$name] = &[$($name::$variant,)+];

            /// Every name, in the order of [`Self::ALL`]: the `enum` of a
            /// JSON schema (the MCP tools').
            pub const NAMES: &'static [&'static str] = &[$($text,)+];

            /// The name as stored, printed and serialised.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text,)+
                }
            }

            /// The variant named exactly `s` (lowercase), if any.
            pub fn parse(s: &str) -> Option<$name> {
                $name::ALL.iter().copied().find(|v| v.as_str() == s)
            }
        }

        impl fmt::Display for $name {
            /// `pad`, so that a table's `{:<12}` aligns the name.
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.pad(self.as_str())
            }
        }

        impl ToSql for $name {
            fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
                Ok(ToSqlOutput::Borrowed(ValueRef::Text(self.as_str().as_bytes())))
            }
        }

        impl FromSql for $name {
            fn column_result(value: ValueRef<'_>) -> FromSqlResult<$name> {
                let s = value.as_str()?;
                $name::parse(s).ok_or_else(|| unknown($what, s))
            }
        }
    };
}

vocabulary! {
    /// What kind of thing a chunk remembers (`memory_chunks.source_type`).
    SourceType, "source type",
    schema: "What kind of item: an email, a bill receipt, a chat conversation, or a \
remembered fact." {
        Email = "email",
        Receipt = "receipt",
        Conversation = "conversation",
        Fact = "fact",
    }
}

vocabulary! {
    /// How a fact was learned (`memory_facts.method`): `user`, taught by the
    /// person or an agent (`remember`); `dream`, promoted from what kept
    /// being recalled; `routine`, a habit `dream` mined from the recall log.
    FactMethod, "fact method",
    schema: "user: taught by the user or an agent; dream: learned from what kept being \
recalled." {
        User = "user",
        Dream = "dream",
        Routine = "routine",
    }
}

vocabulary! {
    /// What joined two chunks (`memory_links.kind`): `thread`, written
    /// together (one e-mail's parts, a reply and what it answers, a
    /// conversation's windows); `co_recall`, read together; `semantic`,
    /// meaning the same to the configured model.
    LinkKind, "link kind",
    schema: "What links two items: thread (written together: parts of one email, a reply and \
what it answers, a conversation's passages), co_recall (read together), semantic (alike in \
meaning)." {
        Thread = "thread",
        CoRecall = "co_recall",
        Semantic = "semantic",
    }
}

/// The error for a stored name outside the vocabulary: rusqlite reports it
/// with the column, as "Conversion error from type Text at index: N, ...".
fn unknown(what: &str, name: &str) -> FromSqlError {
    FromSqlError::Other(
        format!(
            "unknown {what} {:?} in the database (written by a newer alfred-mem?)",
            crate::sanitize::one_line(name)
        )
        .into(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use rusqlite::Connection;

    #[test]
    fn every_name_reads_back_from_sql_json_and_text_as_itself() {
        let conn = Connection::open_in_memory().unwrap();
        for &t in SourceType::ALL {
            let back: SourceType = conn.query_row("SELECT ?1", [t], |r| r.get(0)).unwrap();
            assert_eq!(back, t);
            assert_eq!(serde_json::to_value(t).unwrap(), t.as_str());
            assert_eq!(SourceType::parse(&t.to_string()), Some(t));
        }
        for &m in FactMethod::ALL {
            let back: FactMethod = conn.query_row("SELECT ?1", [m], |r| r.get(0)).unwrap();
            assert_eq!(back, m);
            assert_eq!(serde_json::to_value(m).unwrap(), m.as_str());
        }
        let names_of = |all: &[&str]| all.join(",");
        let source_names: Vec<&str> = SourceType::ALL.iter().map(|t| t.as_str()).collect();
        assert_eq!(names_of(SourceType::NAMES), names_of(&source_names));
        let method_names: Vec<&str> = FactMethod::ALL.iter().map(|m| m.as_str()).collect();
        assert_eq!(names_of(FactMethod::NAMES), names_of(&method_names));
        // The names the database's CHECK constraints allow (0001_init.sql,
        // 0011_night_shift.sql).
        let names = |all: Vec<&str>| all.join(",");
        assert_eq!(
            names(SourceType::ALL.iter().map(|t| t.as_str()).collect()),
            "email,receipt,conversation,fact"
        );
        assert_eq!(
            names(FactMethod::ALL.iter().map(|m| m.as_str()).collect()),
            "user,dream,routine"
        );
    }

    #[test]
    fn an_unknown_stored_name_is_an_error_that_names_it() {
        let conn = Connection::open_in_memory().unwrap();
        for (sql, says) in [
            (
                "SELECT 'memo'",
                "unknown source type \"memo\" in the database",
            ),
            (
                "SELECT 'Email'",
                "unknown source type \"Email\" in the database",
            ),
            ("SELECT 7", "Invalid column type"),
        ] {
            let e = conn
                .query_row(sql, [], |r| r.get::<_, SourceType>(0))
                .unwrap_err();
            assert!(e.to_string().contains(says), "{sql}: {e}");
        }
        let e = conn
            .query_row("SELECT 'habit'", [], |r| r.get::<_, FactMethod>(0))
            .unwrap_err();
        assert!(
            e.to_string().contains("unknown fact method \"habit\""),
            "{e}"
        );
    }

    #[test]
    fn the_display_name_pads_in_tables() {
        assert_eq!(format!("[{:<8}]", SourceType::Email), "[email   ]");
        assert_eq!(format!("[{:>6}]", FactMethod::User), "[  user]");
    }
}
