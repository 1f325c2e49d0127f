-- 0001: the first schema. One table of logical sources (for "is this unchanged?"),
-- one append-only table of chunks (everything that can be recalled), facts as a
-- side table of chunks, the recall log the dream job learns from, and the
-- full-text index. Times are unix seconds, UTC.

CREATE TABLE memory_sources (
    id               INTEGER PRIMARY KEY,
    source_type      TEXT    NOT NULL,
    source_id        TEXT    NOT NULL,
    content_hash     TEXT    NOT NULL,
    first_indexed_at INTEGER NOT NULL,
    last_indexed_at  INTEGER NOT NULL,
    UNIQUE (source_type, source_id)
);

-- Append-only: text is never updated in place (except `forget --purge`, which
-- replaces it with a tombstone on purpose). A changed source marks its old
-- chunks superseded and appends new ones.
CREATE TABLE memory_chunks (
    id            INTEGER PRIMARY KEY,
    source_type   TEXT    NOT NULL CHECK (source_type IN ('email', 'receipt', 'conversation', 'fact')),
    source_id     TEXT    NOT NULL,
    seq           INTEGER NOT NULL,
    text          TEXT    NOT NULL,
    -- NULL means evergreen, and only facts are evergreen.
    dated_at      INTEGER CHECK (dated_at IS NOT NULL OR source_type = 'fact'),
    created_at    INTEGER NOT NULL,
    superseded_at INTEGER,
    subject       TEXT,
    sender        TEXT,
    vendor        TEXT,
    title         TEXT,
    -- JSON array of conversation message ids this chunk covers.
    message_ids   TEXT
);
CREATE INDEX memory_chunks_source ON memory_chunks (source_type, source_id);
CREATE INDEX memory_chunks_dated ON memory_chunks (dated_at);

-- Facts are chunks (so they are searched with everything else) plus how they
-- were learned and whether they were retracted.
CREATE TABLE memory_facts (
    chunk_id      INTEGER PRIMARY KEY REFERENCES memory_chunks (id),
    method        TEXT    NOT NULL CHECK (method IN ('user', 'dream')),
    promoted_from INTEGER REFERENCES memory_chunks (id),
    retracted_at  INTEGER,
    purged_at     INTEGER
);
CREATE UNIQUE INDEX memory_facts_promoted_once ON memory_facts (promoted_from)
    WHERE promoted_from IS NOT NULL;

-- One row per returned search hit; pruned by dream after its window.
CREATE TABLE recall_events (
    id          INTEGER PRIMARY KEY,
    chunk_id    INTEGER NOT NULL,
    query_hash  TEXT    NOT NULL,
    score       REAL    NOT NULL,
    recalled_at INTEGER NOT NULL
);
CREATE INDEX recall_events_at ON recall_events (recalled_at);

CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;

-- Full-text index over chunk text plus the who/what columns, kept in sync by
-- the store (external content: the text is stored once). Superseded chunks
-- and retracted facts stay indexed so `search --as-of` can see the past; the
-- search query filters them out for the present. Purged facts are removed.
CREATE VIRTUAL TABLE memory_fts USING fts5 (
    text, subject, sender, vendor, title,
    content = 'memory_chunks',
    content_rowid = 'id',
    tokenize = 'porter unicode61 remove_diacritics 2'
);
