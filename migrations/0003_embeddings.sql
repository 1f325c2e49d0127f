-- 0003: semantic recall. A vector is keyed by the hash of the text it was
-- computed from and by the model that computed it, so unchanged text is never
-- embedded twice and switching models re-embeds. Chunks reach their vectors
-- through chunk_text_hashes, which `embed` fills; ingest writes nothing here
-- and memory_chunks gets no new index, so indexing stays as fast as before.

-- One row per model ever used: its identity and the length of its vectors.
CREATE TABLE embedding_models (
    id         INTEGER PRIMARY KEY,
    name       TEXT    NOT NULL UNIQUE,
    dimension  INTEGER NOT NULL CHECK (dimension > 0),
    created_at INTEGER NOT NULL
);

-- `dimension` little-endian f32 values, L2-normalised. A rowid table, not
-- WITHOUT ROWID: a 1.5 KB vector fits inside a rowid table's page but would
-- spill to an overflow page in an index b-tree, doubling the reads of a scan.
CREATE TABLE embeddings (
    id        INTEGER PRIMARY KEY,
    model_id  INTEGER NOT NULL REFERENCES embedding_models (id),
    text_hash BLOB    NOT NULL,
    vector    BLOB    NOT NULL,
    UNIQUE (model_id, text_hash)
);

-- sha256 of a chunk's text, written when the chunk is first embedded.
CREATE TABLE chunk_text_hashes (
    chunk_id  INTEGER PRIMARY KEY REFERENCES memory_chunks (id),
    text_hash BLOB    NOT NULL
);
CREATE INDEX chunk_text_hashes_hash ON chunk_text_hashes (text_hash);
