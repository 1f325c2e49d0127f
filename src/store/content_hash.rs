//! How `memory_sources.content_hash` is stored. The importer's hash is a
//! SHA-256 hex digest (`ingest::record::content_hash`); it is written as its
//! 32 bytes, half the 64 of the hex text (3.2 MB of a 100k-message
//! database). Rows written by earlier builds hold the hex text and are read
//! as they are: nothing is rewritten, and both forms read back the same.

use rusqlite::ToSql;
use rusqlite::types::{FromSql, FromSqlError, FromSqlResult, ToSqlOutput, Value, ValueRef};

/// A content hash on its way into the database.
pub(super) struct Stored<'a>(pub &'a str);

impl ToSql for Stored<'_> {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(match digest_bytes(self.0) {
            Some(bytes) => ToSqlOutput::Owned(Value::Blob(bytes)),
            None => ToSqlOutput::Borrowed(ValueRef::Text(self.0.as_bytes())),
        })
    }
}

/// A content hash read back, as the importer spells it (lowercase hex for
/// a stored digest; any other text as it was written).
pub(super) struct Read(pub String);

impl FromSql for Read {
    fn column_result(value: ValueRef<'_>) -> FromSqlResult<Self> {
        match value {
            ValueRef::Blob(bytes) => Ok(Read(hex::encode(bytes))),
            ValueRef::Text(_) => String::column_result(value).map(Read),
            _ => Err(FromSqlError::InvalidType),
        }
    }
}

/// The 32 bytes of a lowercase SHA-256 hex digest, or None for any other
/// text, which is stored as text so that reading it back gives it unchanged
/// (uppercase hex would come back lowercase).
fn digest_bytes(hash: &str) -> Option<Vec<u8>> {
    let lower_hex = |b: u8| b.is_ascii_digit() || (b'a'..=b'f').contains(&b);
    if hash.len() != 64 || !hash.bytes().all(lower_hex) {
        return None;
    }
    hex::decode(hash).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rusqlite::Connection;

    fn round_trip(hash: &str) -> (String, String) {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute("CREATE TABLE t (h)", []).unwrap();
        conn.execute("INSERT INTO t VALUES (?1)", [Stored(hash)])
            .unwrap();
        conn.query_row("SELECT typeof(h), h FROM t", [], |r| {
            Ok((r.get(0)?, r.get::<_, Read>(1)?.0))
        })
        .unwrap()
    }

    #[test]
    fn a_digest_is_stored_as_its_bytes_and_read_back_as_hex() {
        let digest = crate::ingest::record::sha256_hex(b"hello");
        assert_eq!(round_trip(&digest), ("blob".to_string(), digest));
    }

    #[test]
    fn any_other_text_is_kept_as_text() {
        let upper = "AC34A3171E732EC69517877207FB4516CBE5E28101A14D69B902A5F7E304EB7D";
        for hash in ["", "abc", upper, &"g".repeat(64), &"a".repeat(63)] {
            assert_eq!(round_trip(hash), ("text".to_string(), hash.to_string()));
        }
    }

    #[test]
    fn hex_text_from_an_older_build_reads_as_the_same_hash() {
        let conn = Connection::open_in_memory().unwrap();
        let digest = crate::ingest::record::sha256_hex(b"old row");
        let read: Read = conn
            .query_row("SELECT ?1", [&digest], |r| r.get(0))
            .unwrap();
        assert_eq!(read.0, digest);
    }
}
