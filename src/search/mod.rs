//! Search: turn the user's words into a safe FTS5 query, fetch candidates
//! inside the time window, rank them like memory, and log what was recalled.

pub mod fts_query;
