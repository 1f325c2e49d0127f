-- 0017: the packed lengths (0004) one byte a row where a block's lengths
-- all fit one. Each block now begins with the width of its slots (1, or 2
-- when some length in it is 256 tokens or more). A common word's walk reads
-- every block, and a cold search reads them from the disk: at 1M messages
-- they were 8.8 MB, a quarter of it the slack of pages holding three 2 KB
-- blobs (src/store/fts/blocks.rs, docs/PERFORMANCE.md "eighth session").
-- A copy: emptied here, and filled again from FTS5's docsize records by the
-- migration's catch-up, in the new layout.
DELETE FROM memory_fts_lengths;
