//! Finds where one JSON value ends without parsing it, so the splitter can
//! cut records out of a stream: brackets are matched on a stack (no
//! recursion, so nesting costs a byte a level), string bodies are skipped with
//! memchr, and a bare scalar ends at a delimiter.

use memchr::memchr2;

/// The state of one value being scanned, fed a buffer at a time.
#[derive(Default)]
pub(super) struct Scan {
    stack: Vec<u8>,
    in_string: bool,
    escaped: bool,
    /// The value is a bare number, `true`, `false` or `null`: it ends at a
    /// delimiter, or at the end of the input.
    pub(super) scalar: bool,
}

impl Scan {
    /// How many bytes of `buf` belong to the value and whether it ended there;
    /// `Err(i)` when byte `i` closes a bracket that is not open.
    pub(super) fn feed(&mut self, buf: &[u8]) -> Result<(usize, bool), usize> {
        let mut i = 0;
        while i < buf.len() {
            if self.escaped {
                self.escaped = false;
                i += 1;
                continue;
            }
            if self.in_string {
                let Some(j) = memchr2(b'"', b'\\', &buf[i..]) else {
                    return Ok((buf.len(), false));
                };
                i += j;
                if buf[i] == b'\\' {
                    self.escaped = true;
                } else {
                    self.in_string = false;
                    if self.stack.is_empty() {
                        return Ok((i + 1, true));
                    }
                }
                i += 1;
                continue;
            }
            let b = buf[i];
            if self.scalar {
                if matches!(b, b',' | b']' | b'}') || b.is_ascii_whitespace() {
                    return Ok((i, true));
                }
                i += 1;
                continue;
            }
            match b {
                b'"' => self.in_string = true,
                b'{' | b'[' => self.stack.push(b),
                b'}' | b']' => {
                    let open = if b == b'}' { b'{' } else { b'[' };
                    if self.stack.pop() != Some(open) {
                        return Err(i);
                    }
                    if self.stack.is_empty() {
                        return Ok((i + 1, true));
                    }
                }
                _ if self.stack.is_empty() => self.scalar = true,
                _ => {}
            }
            i += 1;
        }
        Ok((buf.len(), false))
    }
}
