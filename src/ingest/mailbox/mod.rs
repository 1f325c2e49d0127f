//! Mail in every form people keep it: mbox files, Maildir folders (mbsync,
//! offlineimap, notmuch, mu, Dovecot), MH folders and single `.eml` files,
//! any of them compressed with gzip, bzip2, xz or zstd; named directly, met
//! in a folder, or on standard input. `find` turns the command line into
//! sources, `sniff` and `decompress` open each for what its bytes are,
//! `plan` and `resume` decide what a re-run must read, `reader` parses on a
//! worker thread and `import` writes.

pub mod decompress;
pub mod find;
pub mod import;
pub mod maildir;
mod plan;
mod reader;
pub mod resume;
pub mod sniff;
