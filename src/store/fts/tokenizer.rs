//! `alfred_cjk`, the full-text index's tokenizer: FTS5's own (porter over
//! unicode61), plus the words inside Chinese, Japanese and Korean text.
//!
//! unicode61 splits at spaces and punctuation, and CJK writing has neither
//! between words, so a whole run such as `ディレクトリ構造の変更` was one
//! token and no word inside it could be found. Here each token that holds
//! CJK characters is split further, the way Lucene's CJK analyzer does it:
//!
//! - in a document, every CJK character is a token (one position each, so
//!   a row's length is its character count), and the bigram it starts is a
//!   second token at the same position (FTS5's "colocated" token, which
//!   does not count towards the length);
//! - in a query, a CJK run of two characters or more becomes its bigrams,
//!   one per position, and a single character itself. Quoted as a phrase,
//!   `ディレクトリ` is `ディ ィレ レク クト トリ` at consecutive positions,
//!   exactly where the document has them.
//!
//! Every other token passes through untouched (tested on the generated
//! corpus: the index of Latin text is the same, byte for byte), so bm25 on
//! Latin text and LoCoMo are unchanged. The cost is one unigram and one
//! bigram per CJK character (docs/PERFORMANCE.md, round 4).
//!
//! A tokenizer is per connection: [`register`] runs on every connection
//! the store opens, before the migration that builds the index with it. A
//! tool without it (the `sqlite3` shell) can read every table but
//! `memory_fts`.

use std::ffi::{CStr, c_char, c_int, c_void};
use std::ptr;

use anyhow::{Result, bail};
use rusqlite::ffi;

/// The `tokenize` option of `memory_fts` (migration 0006).
#[cfg(test)]
pub const TOKENIZE: &str = "alfred_cjk porter unicode61 remove_diacritics 2";

const NAME: &CStr = c"alfred_cjk";

type TokenCallback =
    unsafe extern "C" fn(*mut c_void, c_int, *const c_char, c_int, c_int, c_int) -> c_int;

/// Makes `alfred_cjk` available through `api` (the connection's FTS5).
///
/// # Safety
/// `api` must be the live `fts5_api` of a connection.
pub(super) unsafe fn register(api: *mut ffi::fts5_api) -> Result<()> {
    let mut tokenizer = ffi::fts5_tokenizer {
        xCreate: Some(create),
        xDelete: Some(delete),
        xTokenize: Some(tokenize),
    };
    // SAFETY: FTS5 copies the struct; the user data is the api itself,
    // which lives as long as the connection.
    let rc = unsafe {
        let create_tokenizer = (*api)
            .xCreateTokenizer
            .expect("fts5_api has xCreateTokenizer");
        create_tokenizer(api, NAME.as_ptr(), api.cast(), &mut tokenizer, None)
    };
    if rc != ffi::SQLITE_OK {
        bail!("could not register the {NAME:?} tokenizer: SQLite error {rc}");
    }
    Ok(())
}

/// One instance: the tokenizer it wraps.
struct Instance {
    parent: ffi::fts5_tokenizer,
    parent_instance: *mut ffi::Fts5Tokenizer,
}

/// `alfred_cjk PARENT ARGS...`: an instance of PARENT (default unicode61)
/// created with ARGS.
unsafe extern "C" fn create(
    api: *mut c_void,
    args: *mut *const c_char,
    n_args: c_int,
    out: *mut *mut ffi::Fts5Tokenizer,
) -> c_int {
    // SAFETY: FTS5 passes the user data given at registration (the api)
    // and `n_args` valid C strings.
    unsafe {
        let api = api.cast::<ffi::fts5_api>();
        let (name, rest, n_rest) = if n_args > 0 {
            (*args, args.add(1), n_args - 1)
        } else {
            (c"unicode61".as_ptr(), args, 0)
        };
        let mut parent_data: *mut c_void = ptr::null_mut();
        let mut parent: ffi::fts5_tokenizer = std::mem::zeroed();
        let find = (*api).xFindTokenizer.expect("fts5_api has xFindTokenizer");
        let rc = find(api, name, &mut parent_data, &mut parent);
        if rc != ffi::SQLITE_OK {
            return rc;
        }
        let (Some(parent_create), Some(_), Some(_)) =
            (parent.xCreate, parent.xDelete, parent.xTokenize)
        else {
            return ffi::SQLITE_ERROR;
        };
        let mut parent_instance = ptr::null_mut();
        let rc = parent_create(parent_data, rest, n_rest, &mut parent_instance);
        if rc != ffi::SQLITE_OK {
            return rc;
        }
        let instance = Box::new(Instance {
            parent,
            parent_instance,
        });
        *out = Box::into_raw(instance).cast();
        ffi::SQLITE_OK
    }
}

unsafe extern "C" fn delete(instance: *mut ffi::Fts5Tokenizer) {
    // SAFETY: `instance` was made by `create` and is deleted once.
    unsafe {
        let instance = Box::from_raw(instance.cast::<Instance>());
        if let Some(delete) = instance.parent.xDelete {
            delete(instance.parent_instance);
        }
    }
}

/// What one `xTokenize` call hands on to FTS5.
struct Call {
    ctx: *mut c_void,
    emit: TokenCallback,
    query: bool,
}

unsafe extern "C" fn tokenize(
    instance: *mut ffi::Fts5Tokenizer,
    ctx: *mut c_void,
    flags: c_int,
    text: *const c_char,
    n_text: c_int,
    emit: Option<TokenCallback>,
) -> c_int {
    // SAFETY: `instance` was made by `create`; the parent tokenizes the
    // same text and calls `split` with the `Call` that outlives it.
    unsafe {
        let instance = &*instance.cast::<Instance>();
        let Some(emit) = emit else {
            return ffi::SQLITE_MISUSE;
        };
        let mut call = Call {
            ctx,
            emit,
            query: flags & ffi::FTS5_TOKENIZE_QUERY != 0,
        };
        let parent = instance.parent.xTokenize.expect("checked in create");
        parent(
            instance.parent_instance,
            (&mut call as *mut Call).cast(),
            flags,
            text,
            n_text,
            Some(split),
        )
    }
}

/// The parent's token `token` at bytes `start..end` of the text: passed on,
/// or split into CJK characters and bigrams.
unsafe extern "C" fn split(
    call: *mut c_void,
    tflags: c_int,
    token: *const c_char,
    n_token: c_int,
    start: c_int,
    end: c_int,
) -> c_int {
    // SAFETY: `call` is the `Call` of `tokenize`; the token is `n_token`
    // bytes that FTS5 keeps valid during the callback.
    unsafe {
        let call = &*call.cast::<Call>();
        let bytes = std::slice::from_raw_parts(token.cast::<u8>(), n_token.max(0) as usize);
        let pieces = match std::str::from_utf8(bytes) {
            Ok(text) if may_hold_cjk(bytes) => pieces(text, call.query),
            _ => None,
        };
        let Some(pieces) = pieces else {
            return (call.emit)(call.ctx, tflags, token, n_token, start, end);
        };
        // Offsets into the text: exact where folding kept the token's
        // length (CJK has no case), else the whole token's.
        let exact = end - start == n_token;
        for (i, p) in pieces.iter().enumerate() {
            let flags = if i == 0 {
                tflags
            } else if p.colocated {
                ffi::FTS5_TOKEN_COLOCATED
            } else {
                0
            };
            let (s, e) = if exact {
                (start + p.start as c_int, start + p.end as c_int)
            } else {
                (start, end)
            };
            let piece = &bytes[p.start..p.end];
            let rc = (call.emit)(
                call.ctx,
                flags,
                piece.as_ptr().cast(),
                piece.len() as c_int,
                s,
                e,
            );
            if rc != ffi::SQLITE_OK {
                return rc;
            }
        }
        ffi::SQLITE_OK
    }
}

/// Every CJK character is U+1100 or above: three bytes or more in UTF-8,
/// led by 0xE1 or higher. Most tokens are rejected by this alone.
fn may_hold_cjk(bytes: &[u8]) -> bool {
    bytes.iter().any(|&b| b >= 0xE1)
}

/// One token handed to FTS5: a byte range of the parent's token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Piece {
    start: usize,
    end: usize,
    colocated: bool,
}

/// `token` split as the module doc says; None when it holds no CJK.
fn pieces(token: &str, query: bool) -> Option<Vec<Piece>> {
    if !token.chars().any(is_cjk) {
        return None;
    }
    let mut out = Vec::new();
    let mut chars = token.char_indices().peekable();
    while let Some(&(start, c)) = chars.peek() {
        if !is_cjk(c) {
            // The other text up to the next CJK character, as one token.
            let mut end = start;
            while let Some(&(i, c)) = chars.peek().filter(|(_, c)| !is_cjk(*c)) {
                end = i + c.len_utf8();
                chars.next();
            }
            out.push(Piece {
                start,
                end,
                colocated: false,
            });
            continue;
        }
        let mut run: Vec<(usize, usize)> = Vec::new();
        while let Some(&(i, c)) = chars.peek().filter(|(_, c)| is_cjk(*c)) {
            run.push((i, i + c.len_utf8()));
            chars.next();
        }
        if query {
            if run.len() == 1 {
                out.push(piece(run[0].0, run[0].1, false));
            }
            for pair in run.windows(2) {
                out.push(piece(pair[0].0, pair[1].1, false));
            }
        } else {
            for (i, &(s, e)) in run.iter().enumerate() {
                out.push(piece(s, e, false));
                if let Some(&(_, next_end)) = run.get(i + 1) {
                    out.push(piece(s, next_end, true));
                }
            }
        }
    }
    Some(out)
}

fn piece(start: usize, end: usize, colocated: bool) -> Piece {
    Piece {
        start,
        end,
        colocated,
    }
}

/// Han ideographs, kana and hangul: the scripts written without spaces
/// between words (Korean has spaces, but particles attach to the noun).
fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x1100..=0x11FF       // Hangul Jamo
        | 0x2E80..=0x2FDF     // CJK and Kangxi radicals
        | 0x3005..=0x3007     // 々 〆 〇
        | 0x3021..=0x3029     // Hangzhou numerals
        | 0x3031..=0x3035     // kana repeat marks
        | 0x3041..=0x309F     // Hiragana
        | 0x30A0..=0x30FF     // Katakana (with ー)
        | 0x3100..=0x312F     // Bopomofo
        | 0x3131..=0x318F     // Hangul compatibility Jamo
        | 0x31A0..=0x31BF     // Bopomofo extended
        | 0x31F0..=0x31FF     // Katakana phonetic extensions
        | 0x3400..=0x4DBF     // CJK extension A
        | 0x4E00..=0x9FFF     // CJK unified ideographs
        | 0xA960..=0xA97F     // Hangul Jamo extended A
        | 0xAC00..=0xD7AF     // Hangul syllables
        | 0xD7B0..=0xD7FF     // Hangul Jamo extended B
        | 0xF900..=0xFAFF     // CJK compatibility ideographs
        | 0xFF66..=0xFF9F     // halfwidth Katakana
        | 0x1B000..=0x1B16F   // kana supplement and extended
        | 0x20000..=0x3134F // CJK extensions B to G, compatibility supplement
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn show(token: &str, query: bool) -> Vec<String> {
        match pieces(token, query) {
            None => vec![token.to_string()],
            Some(ps) => ps
                .iter()
                .map(|p| {
                    let t = &token[p.start..p.end];
                    if p.colocated {
                        format!("+{t}")
                    } else {
                        t.to_string()
                    }
                })
                .collect(),
        }
    }

    #[test]
    fn cjk_runs_split_into_characters_and_bigrams() {
        for (token, document, query) in [
            ("acme", vec!["acme"], vec!["acme"]),
            ("café", vec!["café"], vec!["café"]),
            ("東", vec!["東"], vec!["東"]),
            ("東京", vec!["東", "+東京", "京"], vec!["東京"]),
            (
                "ディレクトリ",
                vec![
                    "デ", "+ディ", "ィ", "+ィレ", "レ", "+レク", "ク", "+クト", "ト", "+トリ", "リ",
                ],
                vec!["ディ", "ィレ", "レク", "クト", "トリ"],
            ),
            (
                "rust入門",
                vec!["rust", "入", "+入門", "門"],
                vec!["rust", "入門"],
            ),
            (
                "入門rust本",
                vec!["入", "+入門", "門", "rust", "本"],
                vec!["入門", "rust", "本"],
            ),
            (
                "서울에서",
                vec!["서", "+서울", "울", "+울에", "에", "+에서", "서"],
                vec!["서울", "울에", "에서"],
            ),
        ] {
            assert_eq!(show(token, false), document, "{token}");
            assert_eq!(show(token, true), query, "{token}");
        }
    }

    #[test]
    fn the_fast_test_lets_every_cjk_character_through() {
        for c in ['\u{1100}', 'ぁ', 'ー', '漢', '한', '\u{20000}', 'ｱ'] {
            assert!(is_cjk(c), "{c}");
            assert!(may_hold_cjk(c.to_string().as_bytes()), "{c}");
        }
        for c in ['a', 'é', 'ß', 'Ω', 'я', 'א', '٣', '→'] {
            assert!(!is_cjk(c), "{c}");
        }
    }
}
