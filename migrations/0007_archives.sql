-- 0007: real mail archives (issue 18). Different messages that share a
-- Message-ID are all kept, messages dated by a fallback can be counted, and
-- a nightly re-run reads only what changed since the last one.

-- A fingerprint of the message's raw form (src/ingest/mbox/identity.rs, 8
-- bytes as an integer) tells apart e-mails that share a Message-ID: the
-- second one is stored as `<id>#<fingerprint in hex>`. NULL for rows
-- written before this migration and for other source types.
ALTER TABLE memory_sources ADD COLUMN fingerprint INTEGER;
-- Where an e-mail's date came from when its Date: header was missing or
-- implausible: 'received', 'envelope' or 'import'. NULL: its own header.
ALTER TABLE memory_sources ADD COLUMN dated_by TEXT;
-- `status` counts the fallbacks; the index holds only those rows.
CREATE INDEX memory_sources_dated_by ON memory_sources (dated_by)
    WHERE dated_by IS NOT NULL;

-- One row per file read by `index-mbox` (an mbox, an .eml, an MH message, a
-- compressed file): what it looked like, and how far it was read. A file
-- whose device, inode, size and mtime are unchanged is not read again; one
-- that only grew (its first bytes and the bytes before `consumed` hash the
-- same) is read from `consumed`, a message boundary.
CREATE TABLE ingest_files (
    path       TEXT    PRIMARY KEY,   -- canonical absolute path
    device     INTEGER NOT NULL,
    inode      INTEGER NOT NULL,
    size       INTEGER NOT NULL,      -- when the run that wrote this row started
    mtime_ns   INTEGER NOT NULL,
    consumed   INTEGER NOT NULL,      -- bytes read up to a message boundary
    head_hash  BLOB    NOT NULL,      -- sha256 of the first bytes (up to 4 KiB)
    tail_hash  BLOB    NOT NULL,      -- sha256 of the bytes before `consumed` (up to 16 KiB)
    whole      INTEGER NOT NULL,      -- 1: read as a whole (compressed, or one message): any change means a full re-read
    reader     INTEGER NOT NULL,      -- mail reader version; another version reads it again
    messages   INTEGER NOT NULL,      -- messages read from it in all
    read_at    INTEGER NOT NULL
) WITHOUT ROWID;

-- A Maildir folder whose cur/ and new/ have the mtimes recorded here has
-- had no message added, renamed or removed since it was last read.
CREATE TABLE maildir_folders (
    path         TEXT    PRIMARY KEY, -- canonical path of the folder holding cur/ and new/
    cur_mtime_ns INTEGER NOT NULL,    -- 0: not to be trusted (changed as it was listed)
    new_mtime_ns INTEGER NOT NULL,
    reader       INTEGER NOT NULL,
    read_at      INTEGER NOT NULL
) WITHOUT ROWID;

-- Maildir message files already read, by 64 bits of the unique part of the
-- file name (before ":2,"), so a message moving from new/ to cur/ or
-- gaining a flag is not read again.
CREATE TABLE maildir_messages (
    name_hash INTEGER PRIMARY KEY,
    reader    INTEGER NOT NULL
);
