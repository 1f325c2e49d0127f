-- 0004: every full-text row's length in tokens, 1,024 rows per blob
-- (little-endian u16 each, 0 = not known), for alfred_bm25(): ranking a
-- common word reads these few blobs instead of one memory_fts_docsize row per
-- match. A copy of what FTS5 keeps: writers bring it up to date before they
-- commit (src/store/lengths.rs), and a length it lacks is read from FTS5.
CREATE TABLE memory_fts_lengths (
    block   INTEGER PRIMARY KEY,
    lengths BLOB    NOT NULL
);
