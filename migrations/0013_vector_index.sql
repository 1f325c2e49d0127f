-- 0012: the vector index (issue 23): an inverted-file (IVF) index over each
-- model's vectors, kept in SQLite so that it changes in the same
-- transactions as the vectors themselves: nothing to rebuild after a crash,
-- nothing to go stale. See docs/ARCHITECTURE.md, "The vector index".

-- One row per indexed model: when the lists were trained and over how many
-- chunks (the index is retrained when it has grown well past that).
CREATE TABLE vector_indexes (
    model_id        INTEGER PRIMARY KEY REFERENCES embedding_models (id),
    lists           INTEGER NOT NULL CHECK (lists > 0),
    trained_chunks  INTEGER NOT NULL,
    trained_at      INTEGER NOT NULL
);

-- The lists' centroids: `dimension` little-endian f32 values, unit length.
CREATE TABLE vector_lists (
    model_id  INTEGER NOT NULL REFERENCES vector_indexes (model_id),
    list_id   INTEGER NOT NULL,
    centroid  BLOB    NOT NULL,
    PRIMARY KEY (model_id, list_id)
) WITHOUT ROWID;

-- One row per embedded chunk, clustered by list so a probe reads a list
-- as a run of pages. `code` is the vector quantised to int8 (a 4-byte f32
-- scale, then one byte per dimension): a quarter of the f32 vector, fitting
-- in the b-tree page. The chunk's date and source are copied here (neither
-- ever changes) so a window or a source filter applies while a list is
-- read; visibility (superseded, retracted, purged, --as-of) is checked on
-- the few hundred best, against memory_chunks, as the exact scan does.
CREATE TABLE vector_postings (
    model_id     INTEGER NOT NULL,
    list_id      INTEGER NOT NULL,
    chunk_id     INTEGER NOT NULL,
    dated_at     INTEGER,
    source_type  TEXT    NOT NULL,
    code         BLOB    NOT NULL,
    PRIMARY KEY (model_id, list_id, chunk_id)
) WITHOUT ROWID;
CREATE INDEX vector_postings_chunk ON vector_postings (chunk_id);
