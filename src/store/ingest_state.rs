//! What `index-mbox` remembers between runs (migration 0005): each file read
//! and how far, each Maildir folder's stamp, each Maildir message read.
//! Written inside the batch that indexed the messages they vouch for, so a
//! crash never records as read what was not stored.

use std::collections::HashSet;

use anyhow::Result;
use rusqlite::{OptionalExtension, params};

use super::Store;
use super::records::Batch;
use crate::ingest::mailbox::maildir::Stamp;
use crate::ingest::mailbox::resume::{FileState, Stat};

impl Store {
    pub fn file_state(&self, path: &str) -> Result<Option<FileState>> {
        Ok(self
            .conn
            .prepare_cached(
                "SELECT device, inode, size, mtime_ns, consumed, head_hash, tail_hash,
                        whole, reader, messages
                 FROM ingest_files WHERE path = ?1",
            )?
            .query_row([path], |r| {
                Ok(FileState {
                    path: path.to_string(),
                    stat: Stat {
                        device: r.get::<_, i64>(0)? as u64,
                        inode: r.get::<_, i64>(1)? as u64,
                        size: r.get::<_, i64>(2)? as u64,
                        mtime_ns: r.get(3)?,
                    },
                    consumed: r.get::<_, i64>(4)? as u64,
                    head_hash: r.get(5)?,
                    tail_hash: r.get(6)?,
                    whole: r.get(7)?,
                    reader: r.get(8)?,
                    messages: r.get::<_, i64>(9)? as u64,
                })
            })
            .optional()?)
    }

    /// The stamp and reader version recorded for a Maildir folder.
    pub fn maildir_folder(&self, path: &str) -> Result<Option<(Stamp, i64)>> {
        Ok(self
            .conn
            .prepare_cached(
                "SELECT cur_mtime_ns, new_mtime_ns, reader FROM maildir_folders WHERE path = ?1",
            )?
            .query_row([path], |r| {
                Ok((
                    Stamp {
                        cur_mtime_ns: r.get(0)?,
                        new_mtime_ns: r.get(1)?,
                    },
                    r.get(2)?,
                ))
            })
            .optional()?)
    }

    /// Name hashes of the Maildir messages read by reader version `reader`.
    pub fn maildir_messages_read(&self, reader: i64) -> Result<HashSet<i64>> {
        let mut stmt = self
            .conn
            .prepare("SELECT name_hash FROM maildir_messages WHERE reader = ?1")?;
        let rows = stmt.query_map([reader], |r| r.get(0))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }
}

impl Batch<'_> {
    pub fn save_file_state(&self, s: &FileState) -> Result<()> {
        self.tx
            .prepare_cached(
                "INSERT OR REPLACE INTO ingest_files
                   (path, device, inode, size, mtime_ns, consumed, head_hash, tail_hash,
                    whole, reader, messages, read_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
            )?
            .execute(params![
                s.path,
                s.stat.device as i64,
                s.stat.inode as i64,
                s.stat.size as i64,
                s.stat.mtime_ns,
                s.consumed as i64,
                s.head_hash,
                s.tail_hash,
                s.whole,
                s.reader,
                s.messages as i64,
                self.now,
            ])?;
        Ok(())
    }

    pub fn save_maildir_folder(&self, path: &str, stamp: Stamp, reader: i64) -> Result<()> {
        self.tx
            .prepare_cached(
                "INSERT OR REPLACE INTO maildir_folders
                   (path, cur_mtime_ns, new_mtime_ns, reader, read_at)
                 VALUES (?1, ?2, ?3, ?4, ?5)",
            )?
            .execute(params![
                path,
                stamp.cur_mtime_ns,
                stamp.new_mtime_ns,
                reader,
                self.now
            ])?;
        Ok(())
    }

    pub fn mark_maildir_message_read(&self, name_hash: i64, reader: i64) -> Result<()> {
        self.tx
            .prepare_cached(
                "INSERT OR REPLACE INTO maildir_messages (name_hash, reader) VALUES (?1, ?2)",
            )?
            .execute(params![name_hash, reader])?;
        Ok(())
    }
}
