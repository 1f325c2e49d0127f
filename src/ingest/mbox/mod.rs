//! Email from mbox files: a streaming splitter, then one record per message.

pub mod html;
pub mod message;
pub mod quote;
pub mod split;

pub use message::parse_message;
pub use split::{MboxSplitter, RawMessage};
