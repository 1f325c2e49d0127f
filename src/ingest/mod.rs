//! Ingestion: one module per source turns raw input into `Record`s (one
//! `Result` per record); `run` drives an import into the store.

pub mod chunk;
pub mod conversations;
pub mod json_input;
pub mod mailbox;
pub mod mbox;
pub mod receipts;
pub mod record;
pub mod run;
