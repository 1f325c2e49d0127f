-- 0011: `to:` searches who an e-mail was to. The To header is kept in
-- memory_chunks.recipients since 0008 (for `show`); the full-text index gains
-- it as a sixth column, so `to:alice` is a column filter as `from:alice` is,
-- and plain words match recipients as they match the sender. FTS5 cannot add
-- a column to a table, so the index is built again from the chunk rows, as
-- 0006 did (a few seconds at 100k messages). Mail indexed before 0008 has
-- NULL recipients: it has nothing in the new column, and re-running
-- index-mbox does not fill it (unchanged mail is not read again).
DROP TABLE memory_fts;
CREATE VIRTUAL TABLE memory_fts USING fts5 (
    text, subject, sender, vendor, title, recipients,
    content = 'memory_chunks',
    content_rowid = 'id',
    tokenize = 'alfred_cjk porter unicode61 remove_diacritics 2'
);
INSERT INTO memory_fts (memory_fts) VALUES ('rebuild');
-- The packed row lengths now count the recipients too; they are copied
-- again from the new index (the migration's code runs fts::catch_up).
DELETE FROM memory_fts_lengths;
