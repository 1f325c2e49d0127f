//! The one integration test binary: each module drives the real `alfred-mem`
//! executable against a temp data dir (see `util::TestEnv`).

mod util;

mod associations;
mod bombs;
mod chat_exports;
mod completion;
mod concurrency;
mod crash;
mod crash_dream;
mod dream;
mod embed_budget;
mod encoded_words;
mod expand_ages;
mod facts;
mod fake_embedder;
mod faults;
mod forget_sources;
mod fts;
mod generated;
mod gold;
mod https;
mod incremental;
mod index;
mod labels_once;
mod lean_storage;
mod live_conversations;
mod living;
mod mail_formats;
mod mcp;
mod mcp_http;
mod mcp_python;
mod mcp_spec;
mod messages;
mod misdated;
mod night;
mod permissions;
mod private;
mod recipients;
mod search;
mod semantic;
mod shared_archives;
mod shared_corpora;
mod syntax;
mod vector_index;
