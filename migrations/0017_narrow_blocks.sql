-- 0017: the packed lengths (0004) and sources (0014) one byte a row where
-- they fit one, in new tables. Each block begins with the width of its
-- slots: 1, or 2 when some value in it does not fit a byte (a chunk of 256
-- tokens or more). A common word's walk reads every block of lengths, and a
-- search with --source every block of sources; a cold search reads them
-- from the disk. At 1M messages each old table was 8.8 MB, a quarter of it
-- the slack of pages holding three 2 KB blobs (src/store/fts/blocks.rs,
-- docs/PERFORMANCE.md "eighth session").
--
-- New names, not the old tables rewritten: an older build still running on
-- this file (an MCP server opened before the upgrade) would otherwise write
-- two-byte blocks that read as one-byte ones. It now finds no table to
-- write its copy to, and its searches ask FTS5 and the chunks instead.
-- Copies: filled by the migration's catch-up, from FTS5's docsize records
-- and the chunks' source types.
CREATE TABLE memory_fts_narrow_lengths (
    block  INTEGER PRIMARY KEY,
    packed BLOB    NOT NULL
);
CREATE TABLE memory_chunk_narrow_sources (
    block  INTEGER PRIMARY KEY,
    packed BLOB    NOT NULL
);
DROP TABLE memory_fts_lengths;
DROP TABLE memory_chunk_sources;
