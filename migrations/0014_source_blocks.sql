-- 0014: each chunk's source type, packed like 0004's blocks (u16 LE per row,
-- 1,024 rows per blob: 1 email, 2 receipt, 3 conversation, 4 fact; 0 not
-- known), so that a search filtered by source tests every full-text match
-- on a packed value instead of joining it to its chunk row
-- (src/store/fts/blocks.rs, filter.rs). A copy: writers bring it up to date
-- before they commit; the migration fills it for the rows already there.
CREATE TABLE memory_chunk_sources (
    block  INTEGER PRIMARY KEY,
    packed BLOB    NOT NULL
);
