-- 0006: Chinese, Japanese and Korean words inside longer text. unicode61 made
-- one token of a whole CJK run (CJK writing has no spaces), so no word inside
-- it could be found. The index is rebuilt with alfred-mem's own tokenizer,
-- alfred_cjk (src/store/fts/tokenizer.rs): porter and unicode61 as before,
-- plus a token per CJK character and per pair of them. Latin text tokenizes
-- exactly as before. The tokenizer is registered on every connection the
-- store opens; the sqlite3 shell can read every table but this one.
DROP TABLE memory_fts;
CREATE VIRTUAL TABLE memory_fts USING fts5 (
    text, subject, sender, vendor, title,
    content = 'memory_chunks',
    content_rowid = 'id',
    tokenize = 'alfred_cjk porter unicode61 remove_diacritics 2'
);
-- Every chunk row, purged facts' tombstones included, as the writers index them.
INSERT INTO memory_fts (memory_fts) VALUES ('rebuild');
-- The packed copies of the row lengths are copied again from the new index
-- (the migration's code runs fts::catch_up after this file).
DELETE FROM memory_fts_lengths;
