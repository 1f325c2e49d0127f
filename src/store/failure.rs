//! What a failed write to the database means for the person at the
//! terminal. SQLite reports a full disk as "database or disk is full: Error
//! code 13", a file size limit as "disk I/O error: Error code 778", and a
//! read-only file as "attempt to write a readonly database": none of them
//! says which file, and two of them do not say what to do. `explain` turns
//! them into one line naming the database; `describe` writes any error as
//! the one line a person reads, each cause said once.

use std::io::ErrorKind;
use std::path::Path;

use rusqlite::{ErrorCode, ffi};

/// How a database write failed, when it failed for a reason the user can fix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteFailure {
    /// SQLITE_FULL, or ENOSPC/EFBIG from our own file calls.
    DiskFull,
    /// An I/O error while writing, growing or syncing a file. With a file
    /// size limit (`ulimit -f`) SQLite sees EFBIG and reports only this.
    WriteIo,
    /// The file, or the folder it needs for its -wal and -shm, is read-only.
    ReadOnly,
}

/// The extended I/O error codes that come from writing, not reading.
const WRITE_IOERRS: [i32; 6] = [
    ffi::SQLITE_IOERR_WRITE,
    ffi::SQLITE_IOERR_FSYNC,
    ffi::SQLITE_IOERR_DIR_FSYNC,
    ffi::SQLITE_IOERR_TRUNCATE,
    ffi::SQLITE_IOERR_SHMSIZE,
    ffi::SQLITE_IOERR_SHMMAP,
];

/// The write failure anywhere in `e`'s chain, if there is one.
pub fn write_failure(e: &anyhow::Error) -> Option<WriteFailure> {
    e.chain().find_map(|cause| {
        if let Some(rusqlite::Error::SqliteFailure(f, _)) = cause.downcast_ref() {
            return match f.code {
                ErrorCode::DiskFull => Some(WriteFailure::DiskFull),
                ErrorCode::ReadOnly => Some(WriteFailure::ReadOnly),
                ErrorCode::SystemIoFailure if WRITE_IOERRS.contains(&f.extended_code) => {
                    Some(WriteFailure::WriteIo)
                }
                _ => None,
            };
        }
        match cause.downcast_ref::<std::io::Error>()?.kind() {
            ErrorKind::StorageFull | ErrorKind::FileTooLarge => Some(WriteFailure::DiskFull),
            _ => None,
        }
    })
}

/// `e` as one plain line naming `db` when it is a write failure; otherwise
/// `e` unchanged. Nothing is lost by the rewording: SQLite rolled the failed
/// transaction back, and what was committed before stays.
pub fn explain(e: anyhow::Error, db: &Path) -> anyhow::Error {
    let db = db.display();
    match write_failure(&e) {
        Some(WriteFailure::DiskFull) => {
            anyhow::anyhow!("disk full writing {db}; what was saved before is kept")
        }
        Some(WriteFailure::WriteIo) => anyhow::anyhow!(
            "could not write {db} (disk full, or a file size limit?); what was saved before is kept"
        ),
        Some(WriteFailure::ReadOnly) => anyhow::anyhow!("database is read-only: {db}"),
        None => e,
    }
}

/// `e` and its causes as one line, each said once: what `{e:#}` prints,
/// less the repeats. rusqlite keeps SQLite's message in its error and puts
/// SQLite's code and generic wording behind it as the source, so `{e:#}`
/// says "file is not a database: Error code 26: file is not a database".
/// The code adds nothing for the person reading (the message is SQLite's own
/// account of the same failure), and a cause whose words are already in the
/// line would only repeat them.
pub fn describe(e: &anyhow::Error) -> String {
    let mut line = String::new();
    let mut after_sqlite_message = false;
    for cause in e.chain() {
        let told_already = after_sqlite_message && cause.is::<ffi::Error>();
        after_sqlite_message = matches!(
            cause.downcast_ref(),
            Some(rusqlite::Error::SqliteFailure(_, Some(_)))
        );
        let text = cause.to_string();
        if told_already || text.is_empty() || line.contains(&text) {
            continue;
        }
        if !line.is_empty() {
            line.push_str(": ");
        }
        line.push_str(&text);
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sqlite(code: i32) -> anyhow::Error {
        anyhow::Error::new(rusqlite::Error::SqliteFailure(
            ffi::Error::new(code),
            Some("raw sqlite text".into()),
        ))
        .context("could not write the batch")
    }

    #[test]
    fn write_failures_are_told_apart_from_other_errors() {
        let cases = [
            (ffi::SQLITE_FULL, Some(WriteFailure::DiskFull)),
            (ffi::SQLITE_IOERR_WRITE, Some(WriteFailure::WriteIo)),
            (ffi::SQLITE_IOERR_SHMSIZE, Some(WriteFailure::WriteIo)),
            (ffi::SQLITE_IOERR_READ, None),
            (ffi::SQLITE_READONLY, Some(WriteFailure::ReadOnly)),
            (ffi::SQLITE_READONLY_DBMOVED, Some(WriteFailure::ReadOnly)),
            (ffi::SQLITE_BUSY, None),
            (ffi::SQLITE_CONSTRAINT_UNIQUE, None),
        ];
        for (code, want) in cases {
            assert_eq!(write_failure(&sqlite(code)), want, "code {code}");
        }
        let enospc = anyhow::Error::new(std::io::Error::from(ErrorKind::StorageFull));
        assert_eq!(write_failure(&enospc), Some(WriteFailure::DiskFull));
    }

    #[test]
    fn the_explanation_is_one_line_naming_the_database() {
        let db = Path::new("/data/memory.db");
        let full = explain(sqlite(ffi::SQLITE_FULL), db).to_string();
        assert_eq!(
            full,
            "disk full writing /data/memory.db; what was saved before is kept"
        );
        let ro = format!("{:#}", explain(sqlite(ffi::SQLITE_READONLY), db));
        assert_eq!(ro, "database is read-only: /data/memory.db");
        let other = format!("{:#}", explain(sqlite(ffi::SQLITE_BUSY), db));
        assert!(other.starts_with("could not write the batch: "), "{other}");
    }

    #[test]
    fn each_cause_is_said_once() {
        let not_a_db = rusqlite::Error::SqliteFailure(
            ffi::Error::new(ffi::SQLITE_NOTADB),
            Some("file is not a database".into()),
        );
        let e = anyhow::Error::new(not_a_db).context("could not open database: /tmp/notes.txt");
        assert_eq!(
            format!("{e:#}"),
            "could not open database: /tmp/notes.txt: file is not a database: \
             Error code 26: file is not a database",
            "what rusqlite and anyhow say without help"
        );
        assert_eq!(
            describe(&e),
            "could not open database: /tmp/notes.txt: file is not a database"
        );
        // Without a message of its own, SQLite's wording is said once.
        let full = anyhow::Error::new(rusqlite::Error::SqliteFailure(
            ffi::Error::new(ffi::SQLITE_FULL),
            None,
        ));
        assert_eq!(describe(&full), "Error code 13: database or disk is full");
        // A more specific message keeps its words, and drops only the code.
        assert_eq!(
            describe(&sqlite(ffi::SQLITE_BUSY)),
            "could not write the batch: raw sqlite text"
        );
        let io = anyhow::Error::new(std::io::Error::from(ErrorKind::NotFound))
            .context("could not read a.mbox");
        assert_eq!(
            describe(&io),
            format!(
                "could not read a.mbox: {}",
                std::io::Error::from(ErrorKind::NotFound)
            )
        );
    }
}
