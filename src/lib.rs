//! alfred-mem: a personal memory over one SQLite file. See README.md for the
//! tour; the file tree is the architecture: cli -> config -> cmd, which calls
//! search/ingest/dream (over store and rank) and prints through output;
//! dates serves every date read on the way.

pub mod ann;
pub mod cli;
pub mod cmd;
pub mod config;
pub mod dates;
pub mod dream;
pub mod embed;
pub mod fast_hash;
pub mod ingest;
pub mod kinds;
#[doc(hidden)]
pub mod lcg;
pub mod mcp;
pub mod output;
pub mod rank;
pub mod sanitize;
pub mod search;
pub mod show;
pub mod store;

/// A write to a closed pipe (`alfred-mem search x | head -1`) is not an error.
pub fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
