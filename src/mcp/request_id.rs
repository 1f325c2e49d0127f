//! Finding a request's id in a message that cannot be parsed whole: a line
//! over the size limit, or JSON broken after its first few fields. JSON-RPC
//! answers such a message with an error, and a client matches that error to
//! its request by the id; `null` leaves it waiting until its own timeout.
//! So the id is read whenever it can be: the scanner walks the bytes as they
//! stream past (nothing is buffered beyond the id itself) and keeps the
//! value of the top-level `"id"` member, wherever it sits in the object.

use serde_json::Value;

/// The longest id value kept; MCP ids are short strings or integers.
const MAX_ID_BYTES: usize = 256;
/// The longest member name looked at; only `"id"` matters.
const MAX_KEY_BYTES: usize = 8;

/// Scans a JSON object byte by byte for its top-level `"id"`.
#[derive(Debug, Default)]
pub struct IdScanner {
    /// Object and array nesting; the members that count are at depth 1.
    depth: usize,
    in_string: bool,
    escaped: bool,
    /// At depth 1, the next string is a member name (not a value).
    want_key: bool,
    key: Vec<u8>,
    key_done: bool,
    /// The raw bytes of the `"id"` value while it is being read.
    value: Option<Vec<u8>>,
    found: Option<Value>,
    /// The text is not a JSON object, or the id value was unreadable.
    hopeless: bool,
}

impl IdScanner {
    pub fn new() -> IdScanner {
        IdScanner::default()
    }

    /// The id of the text fed so far, if it was a string or an integer.
    pub fn id(&self) -> Value {
        self.found.clone().unwrap_or(Value::Null)
    }

    /// Whether feeding more can change the answer.
    pub fn done(&self) -> bool {
        self.found.is_some() || self.hopeless
    }

    pub fn feed(&mut self, bytes: &[u8]) {
        for &b in bytes {
            if self.done() {
                return;
            }
            self.step(b);
        }
    }

    fn step(&mut self, b: u8) {
        if let Some(v) = &mut self.value {
            // Inside the id's value: a string's bytes, or a bare scalar.
            if v.is_empty() && b.is_ascii_whitespace() {
                return;
            }
            let is_string = v.first() == Some(&b'"');
            let ends_scalar = !is_string && (b == b',' || b == b'}' || b.is_ascii_whitespace());
            if ends_scalar {
                self.finish_value();
                return self.step_structure(b);
            }
            v.push(b);
            if is_string && v.len() > 1 && !self.escaped && b == b'"' {
                return self.finish_value();
            }
            self.escaped = is_string && !self.escaped && b == b'\\';
            if v.len() > MAX_ID_BYTES {
                self.hopeless = true;
            }
            return;
        }
        self.step_structure(b);
    }

    fn step_structure(&mut self, b: u8) {
        if self.in_string {
            if self.escaped {
                self.escaped = false;
            } else if b == b'\\' {
                self.escaped = true;
            } else if b == b'"' {
                self.in_string = false;
                self.key_done = self.want_key;
                return;
            }
            if self.want_key && self.depth == 1 && self.key.len() <= MAX_KEY_BYTES {
                self.key.push(b);
            }
            return;
        }
        match b {
            b'"' => {
                self.in_string = true;
                if self.want_key && self.depth == 1 {
                    self.key.clear();
                }
            }
            b'{' | b'[' => {
                if self.depth == 0 && b == b'[' {
                    self.hopeless = true;
                }
                self.depth += 1;
                self.want_key = self.depth == 1;
            }
            b'}' | b']' => self.depth = self.depth.saturating_sub(1),
            b',' if self.depth == 1 => self.want_key = true,
            b':' if self.depth == 1 => {
                self.want_key = false;
                if self.key_done && self.key == b"id" {
                    self.value = Some(Vec::new());
                }
                self.key_done = false;
            }
            b if b.is_ascii_whitespace() => {}
            _ if self.depth == 0 => self.hopeless = true,
            _ => {}
        }
    }

    fn finish_value(&mut self) {
        let raw = self.value.take().unwrap_or_default();
        self.escaped = false;
        match serde_json::from_slice::<Value>(&raw) {
            Ok(v) if v.is_string() || v.is_i64() || v.is_u64() => self.found = Some(v),
            _ => self.hopeless = true,
        }
    }
}

/// The id of a whole message that did not parse.
pub fn scan(bytes: &[u8]) -> Value {
    let mut s = IdScanner::new();
    s.feed(bytes);
    s.id()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_top_level_id_is_read_from_broken_or_cut_messages() {
        let cases: [(&str, Value); 12] = [
            (
                r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"#,
                json!(7),
            ),
            (r#"{"id" : "a\"b" , "method": 1"#, json!("a\"b")),
            (r#"{"params":{"id":1,"x":[{"id":2}]},"id":3,"#, json!(3)),
            (
                r#"{"params":{"text":"\"id\":9"},"id":"req-4"}"#,
                json!("req-4"),
            ),
            (r#"{"method":"ping","id":12}"#, json!(12)),
            (r#"{"jsonrpc":"2.0","id":5}"#, json!(5)),
            (r#"{"jsonrpc":"2.0","id":null,"method""#, Value::Null),
            (r#"{"jsonrpc":"2.0","id":1.5,"#, Value::Null),
            (r#"{"jsonrpc":"2.0","id":{"a":1},"#, Value::Null),
            (r#"[{"id":1}]"#, Value::Null),
            (r#"not json, "id": 3"#, Value::Null),
            (r#"{"jsonrpc":"2.0","params":{"#, Value::Null),
        ];
        for (text, want) in cases {
            assert_eq!(scan(text.as_bytes()), want, "{text}");
        }
    }

    #[test]
    fn the_id_is_found_when_fed_in_pieces() {
        let text = br#"{"jsonrpc":"2.0","params":{"text":"xxxxxxxx"},"id":"abc-123"}"#;
        for cut in 1..text.len() {
            let mut s = IdScanner::new();
            s.feed(&text[..cut]);
            s.feed(&text[cut..]);
            assert_eq!(s.id(), json!("abc-123"), "cut at {cut}");
        }
    }
}
