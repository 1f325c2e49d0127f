//! Email messages: a streaming mbox splitter, then one record per message,
//! with its identity and the date it is remembered at.

pub mod encoded_words;
pub mod html;
pub mod identity;
pub mod message;
pub mod quote;
pub mod split;

pub use message::{Mail, parse_mail, parse_message};
pub use split::{MboxSplitter, RawMessage};

/// The version of what is stored for a message (its text, date and
/// identity). Files and Maildir messages read by another version are read
/// again in full on the next run, so an improvement reaches what was
/// indexed before. Version 2: date fallbacks, joined encoded-words,
/// fingerprints. Version 3: HTML tables without their rules (html.rs), so
/// mail indexed with hundreds of chunks of box drawing is read again.
/// Version 4: what an `<iframe>` holds is not text (html.rs). Version 5:
/// an `<iframe` inside a comment or script no longer takes the text after it.
/// Version 6: tables are rows of text, not a grid laid out and padded
/// (html_tables.rs). Version 7: a style, script or title between a table's
/// rows no longer swallows the rows after it.
pub const READER_VERSION: i64 = 7;
