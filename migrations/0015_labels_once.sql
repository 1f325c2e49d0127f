-- 0015: a message's labels (subject, sender, vendor, title, recipients) are
-- stored once per version, on its first chunk, instead of on every chunk:
-- at 100k generated messages they were 24 MB of copies, 7 % of the file.
--
-- The rows move to memory_chunk_rows, which gains `labels_from`: NULL means
-- the row holds its own labels (every row written before 0015, facts, first
-- chunks); otherwise it is the id of the chunk that holds them, and the
-- row's own label columns are NULL. memory_chunks becomes a view with the
-- old shape, each row's labels restored, so readers (and FTS5, whose
-- external content it is: `delete` and `rebuild` read it) see what they saw.
-- Writers write memory_chunk_rows. What FTS5 indexes does not change, so
-- neither does any score.
--
-- Rows written before 0015 are not rewritten: the upgrade takes no time, and
-- their copies stay until they are superseded. The rename rewrites the other
-- tables' REFERENCES to memory_chunk_rows; later migrations name it too (a
-- view cannot be referenced or altered).
ALTER TABLE memory_chunks RENAME TO memory_chunk_rows;
ALTER TABLE memory_chunk_rows ADD COLUMN labels_from INTEGER;
CREATE VIEW memory_chunks AS
SELECT c.id, c.source_type, c.source_id, c.seq, c.text, c.dated_at, c.created_at,
       c.superseded_at, c.message_ids,
       CASE WHEN c.labels_from IS NULL THEN c.subject
            ELSE (SELECT f.subject FROM memory_chunk_rows f WHERE f.id = c.labels_from) END
           AS subject,
       CASE WHEN c.labels_from IS NULL THEN c.sender
            ELSE (SELECT f.sender FROM memory_chunk_rows f WHERE f.id = c.labels_from) END
           AS sender,
       CASE WHEN c.labels_from IS NULL THEN c.vendor
            ELSE (SELECT f.vendor FROM memory_chunk_rows f WHERE f.id = c.labels_from) END
           AS vendor,
       CASE WHEN c.labels_from IS NULL THEN c.title
            ELSE (SELECT f.title FROM memory_chunk_rows f WHERE f.id = c.labels_from) END
           AS title,
       CASE WHEN c.labels_from IS NULL THEN c.recipients
            ELSE (SELECT f.recipients FROM memory_chunk_rows f WHERE f.id = c.labels_from) END
           AS recipients
  FROM memory_chunk_rows c;
