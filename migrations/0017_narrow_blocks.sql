-- 0017: the packed lengths (0004) and sources (0014) one byte a row where
-- they fit one. Each block now begins with the width of its slots: 1, or 2
-- when some value in it does not fit a byte (a chunk of 256 tokens or more).
-- A common word's walk reads every block of lengths, and a search with
-- --source every block of sources; a cold search reads them from the disk.
-- At 1M messages each table was 8.8 MB, a quarter of it the slack of pages
-- holding three 2 KB blobs (src/store/fts/blocks.rs, docs/PERFORMANCE.md
-- "eighth session"). Copies: emptied here, and filled again in the new
-- layout by the migration's catch-up, from FTS5's docsize records and the
-- chunks' source types.
DELETE FROM memory_fts_lengths;
DELETE FROM memory_chunk_sources;
