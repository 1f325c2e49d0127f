//! The one integration test binary: each module drives the real `alfred-mem`
//! executable against a temp data dir (see `util::TestEnv`).

mod util;

mod bombs;
mod crash;
mod dream;
mod facts;
mod fake_embedder;
mod generated;
mod gold;
mod index;
mod mcp;
mod private;
mod search;
mod semantic;
mod shared_corpora;
