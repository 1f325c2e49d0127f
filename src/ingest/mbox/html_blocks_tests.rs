use super::super::tables::{TABLE_END, TABLE_START};
use super::*;

#[test]
fn short_blocks_in_a_table_join_their_neighbours() {
    let s = TABLE_START;
    let e = TABLE_END;
    let long = "a block long enough to be kept on its own by the chunker";
    for (text, want) in [
        // Outside a table nothing changes.
        ("Hi\n\nThanks\n".to_string(), "Hi\n\nThanks\n".to_string()),
        // Labels join what follows until the block is long enough.
        (
            format!(
                "Top\n\n{s}In Utilities:\n\nESftp 4.1\n\nIn Audio:\n\n{long}\n\n{long}{e}\n\nBye\n"
            ),
            format!("Top\n\nIn Utilities:\nESftp 4.1\nIn Audio:\n{long}\n\n{long}\n\nBye\n"),
        ),
        // A short last block joins the one before; a table of only short
        // blocks is one block.
        (
            format!("{s}{long}\n\n$42.00{e}\n"),
            format!("{long}\n$42.00\n"),
        ),
        (format!("{s}a\n\nb\n\n\n\nc{e}"), "a\nb\nc".to_string()),
        // A line of spaces parts blocks, as it does for the chunker.
        (
            format!("{s}  ASP PHP\n  \n  Webmail{e}"),
            "  ASP PHP\n  Webmail".to_string(),
        ),
        // The line ends around a table stay.
        (
            format!("x\n{s}\n\na\n\nb\n\n\n{e} y"),
            "x\n\na\nb\n\n\n y".to_string(),
        ),
        // A mark alone on its line leaves no blank line behind.
        (
            format!("x\n{s}\n{long}\n{e}\nThanks\n"),
            format!("x\n{long}\nThanks\n"),
        ),
        // A table never closed runs to the end.
        (format!("x\n{s}a\n\nb"), "x\na\nb".to_string()),
    ] {
        assert_eq!(join_short_blocks(&text), want, "{text:?}");
    }
}
