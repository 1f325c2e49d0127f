//! Cleaning of untrusted text before it is written to a terminal.
//!
//! Indexed mail, chats and receipts are attacker-controlled: an email body can
//! carry escape sequences that clear the screen, retitle the window, write to
//! the clipboard (OSC 52), or reorder what the reader sees with bidi controls.
//! Everything printed to a TTY goes through [`for_terminal`] (or [`one_line`]
//! for table cells) so that only plain visible text, newlines and tabs remain.

/// The escape character that starts every 7-bit control sequence.
const ESC: char = '\u{1b}';
/// Bell: one of the two terminators of an OSC string.
const BEL: char = '\u{07}';
/// Cancel and substitute: terminals abort any control string on these.
const CAN: char = '\u{18}';
/// See [`CAN`].
const SUB: char = '\u{1a}';
/// 8-bit Control Sequence Introducer (the single-char form of `ESC [`).
const CSI_8BIT: char = '\u{9b}';
/// 8-bit String Terminator (the single-char form of `ESC \`).
const ST_8BIT: char = '\u{9c}';
/// 8-bit introducers of control strings that run until a terminator:
/// DCS, SOS, OSC, PM and APC.
const STRING_INTRODUCERS_8BIT: [char; 5] = ['\u{90}', '\u{98}', '\u{9d}', '\u{9e}', '\u{9f}'];
/// Second characters after ESC that open a control string (DCS, SOS, OSC, PM,
/// APC), whose body runs until a terminator rather than a single final byte.
const STRING_INTRODUCERS_7BIT: [char; 5] = ['P', 'X', ']', '^', '_'];
/// Bidirectional formatting controls. They can make `evil.exe` display as
/// `exe.live` or hide part of a line, so none may reach the reader.
const BIDI_CONTROLS: [char; 12] = [
    '\u{061C}', '\u{200E}', '\u{200F}', '\u{202A}', '\u{202B}', '\u{202C}', '\u{202D}', '\u{202E}',
    '\u{2066}', '\u{2067}', '\u{2068}', '\u{2069}',
];

/// Returns `s` with every terminal control sequence and control character
/// removed, keeping the visible text, `\n` and `\t`.
///
/// `\r` is removed too: a bare carriage return lets later text overwrite what
/// came before on the same line, which is as misleading as an escape.
pub fn for_terminal(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    // Set when a control string was ended by an ESC that starts a new
    // sequence; that ESC is already consumed, so it is replayed here rather
    // than by recursion (hostile input could nest strings without limit).
    let mut replay_esc = false;
    loop {
        let c = if replay_esc {
            replay_esc = false;
            ESC
        } else {
            match chars.next() {
                Some(c) => c,
                None => break,
            }
        };
        match c {
            ESC => match chars.peek().copied() {
                Some('[') => {
                    chars.next();
                    skip_csi_body(&mut chars);
                }
                Some(n) if STRING_INTRODUCERS_7BIT.contains(&n) => {
                    chars.next();
                    replay_esc = skip_control_string(&mut chars);
                }
                // Two-char (or intermediate-carrying, e.g. `ESC ( B`) sequence:
                // intermediates 0x20..=0x2F then one final byte 0x30..=0x7E.
                Some(_) => {
                    while chars
                        .next_if(|n| ('\u{20}'..='\u{2f}').contains(n))
                        .is_some()
                    {}
                    chars.next_if(|n| ('\u{30}'..='\u{7e}').contains(n));
                }
                None => {}
            },
            CSI_8BIT => skip_csi_body(&mut chars),
            c if STRING_INTRODUCERS_8BIT.contains(&c) => {
                replay_esc = skip_control_string(&mut chars);
            }
            '\n' | '\t' => out.push(c),
            c if is_forbidden(c) => {}
            c => out.push(c),
        }
    }
    out
}

/// [`for_terminal`], then every whitespace run (including newlines and tabs)
/// collapsed to one space and the ends trimmed, for single-line table cells.
pub fn one_line(s: &str) -> String {
    let clean = for_terminal(s);
    let mut out = String::with_capacity(clean.len());
    for word in clean.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// True for characters that must never be printed: C0 controls other than
/// `\n` and `\t` (so `\r` too), DEL, all C1 controls, and bidi controls.
pub fn is_forbidden(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t') || BIDI_CONTROLS.contains(&c)
}

/// Consumes the rest of a CSI sequence (after `ESC [` or U+009B): parameter
/// bytes 0x30..=0x3F, intermediates 0x20..=0x2F, then one final byte
/// 0x40..=0x7E. Anything else aborts the sequence and is left for the caller,
/// so a malformed sequence cannot swallow the text that follows it.
fn skip_csi_body(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    while chars
        .next_if(|c| ('\u{20}'..='\u{3f}').contains(c))
        .is_some()
    {}
    chars.next_if(|c| ('\u{40}'..='\u{7e}').contains(c));
}

/// Consumes the body of an OSC/DCS/SOS/PM/APC string up to and including its
/// terminator: BEL, `ESC \`, or the 8-bit ST. CAN and SUB abort the string (as
/// terminals do) and are consumed; any other ESC ends the string and is left
/// for the caller to parse as a new sequence. An unterminated string swallows
/// the rest of the input, which is what a terminal would do with it too.
///
/// Returns true when it consumed an ESC that the caller must treat as the
/// start of a new sequence.
fn skip_control_string(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) -> bool {
    while let Some(c) = chars.next() {
        match c {
            BEL | ST_8BIT | CAN | SUB => return false,
            ESC => return chars.next_if_eq(&'\\').is_none(),
            _ => {}
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Asserts none of the dangerous classes survived.
    fn assert_clean(out: &str) {
        for c in out.chars() {
            assert!(!is_forbidden(c), "forbidden char {:?} in {:?}", c, out);
        }
        assert!(!out.as_bytes().contains(&0x1b));
    }

    #[test]
    fn table_of_hostile_inputs() {
        let cases: &[(&str, &str)] = &[
            ("Hello \x1b[31mred\x1b[0m world", "Hello red world"),
            ("a\x1b[2J\x1b[Hb", "ab"),
            ("copy\x1b]52;c;SGVsbG8=\x07 me", "copy me"),
            ("title\x1b]0;pwned\x1b\\ done", "title done"),
            (
                "osc8 \x1b]8;;http://evil\x1b\\link\x1b]8;;\x1b\\ end",
                "osc8 link end",
            ),
            ("\u{202E}evil", "evil"),
            ("a\u{2066}b\u{2069}c\u{200E}d\u{200F}e\u{061C}f", "abcdef"),
            ("\u{9b}31mred", "red"),
            ("x\u{9d}0;title\u{9c}y", "xy"),
            ("x\u{9d}0;title\x07y", "xy"),
            ("dcs\x1bPq#0;2;0;0;0\x1b\\ok", "dcsok"),
            ("apc\x1b_payload\x1b\\ok", "apcok"),
            ("pm\x1b^payload\x1b\\ok", "pmok"),
            ("sos\x1bXpayload\x1b\\ok", "sosok"),
            ("charset\x1b(Bok", "charsetok"),
            ("dec\x1b#8ok", "decok"),
            ("save\x1b7restore\x1b8", "saverestore"),
            ("ring\x07bell", "ringbell"),
            ("over\rwrite", "overwrite"),
            ("keep\nlines\tand tabs", "keep\nlines\tand tabs"),
            ("nul\0byte", "nulbyte"),
            ("del\x7fete", "delete"),
            ("c1\u{85}next\u{80}\u{9f}", "c1next"),
            ("trailing esc\x1b", "trailing esc"),
            ("trailing csi\x1b[", "trailing csi"),
            ("unterminated\x1b]0;swallowed", "unterminated"),
            ("csi aborted\x1b[12\nnext", "csi aborted\nnext"),
            ("osc then csi\x1b]0;t\x1b[31mred", "osc then csired"),
            ("can\x1b]0;t\x18after", "canafter"),
            ("café 東京 🎉", "café 東京 🎉"),
        ];
        for (input, want) in cases {
            let got = for_terminal(input);
            assert_clean(&got);
            assert_eq!(&got, want, "input {:?}", input);
        }
    }

    #[test]
    fn one_line_collapses_whitespace() {
        assert_eq!(one_line("  a\n\n b\t\tc \r\n"), "a b c");
        assert_eq!(one_line("x\x1b[2J\n\x1b]52;c;AA==\x07y"), "x y");
        assert_eq!(one_line(""), "");
        assert_eq!(one_line(" \n\t "), "");
    }

    /// Characters that make up hostile sequences, so the generator hits them
    /// far more often than a uniform `any::<char>()` would.
    fn nasty_char() -> impl Strategy<Value = char> {
        prop_oneof![
            3 => prop::sample::select(vec![
                '\x1b', '[', ']', '\\', '\x07', '\r', '\n', '\t', '\0', '\x7f', ';', 'P', '_', '^',
                'X', '(', '#', 'm', '0', '\u{9b}', '\u{9c}', '\u{9d}', '\u{90}', '\u{85}',
                '\u{202E}', '\u{2066}', '\u{200F}', '\u{061C}', '\x18', 'a', ' ',
            ]),
            1 => any::<char>(),
        ]
    }

    proptest! {
        #[test]
        fn output_never_has_forbidden_chars(s in any::<String>()) {
            let out = for_terminal(&s);
            assert_clean(&out);
            let line = one_line(&s);
            assert_clean(&line);
            prop_assert!(!line.contains('\n') && !line.contains('\t'));
        }

        #[test]
        fn nasty_mixtures_are_cleaned(v in prop::collection::vec(nasty_char(), 0..80)) {
            let s: String = v.into_iter().collect();
            assert_clean(&for_terminal(&s));
            assert_clean(&one_line(&s));
        }

        #[test]
        fn plain_text_is_unchanged(s in "[a-zA-Z0-9 .,!?\n\t\u{e9}\u{6771}]{0,60}") {
            prop_assert_eq!(for_terminal(&s), s);
        }
    }
}
