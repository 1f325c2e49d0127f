//! The integration suite: one binary, one module per area, all running the
//! real `alfred-mem` executable against a temporary database.

mod mcp;
mod search;
