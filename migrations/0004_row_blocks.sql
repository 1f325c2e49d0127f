-- 0004: per-row numbers that ranking needs for every full-text match, packed
-- 1,024 rows per blob so a common word reads a few blobs instead of one row
-- lookup per match (src/store/fts/blocks.rs):
--   memory_fts_lengths: each full-text row's length in tokens (u16 LE), for
--     alfred_bm25(); FTS5 keeps the same in memory_fts_docsize.
--   memory_chunk_dates: each chunk's UTC day (u16 LE days since 1970-01-01;
--     1 = no date), for alfred_dated_in(), the time-window test.
-- 0 in a slot means not known: the reader asks the source table. Copies:
-- writers bring them up to date before they commit.
CREATE TABLE memory_fts_lengths (
    block  INTEGER PRIMARY KEY,
    packed BLOB    NOT NULL
);
CREATE TABLE memory_chunk_dates (
    block  INTEGER PRIMARY KEY,
    packed BLOB    NOT NULL
);
