-- 0016: two indexes made smaller (issue 21: the database at most 1.5x the
-- mbox it holds).
--
-- `email_replies_reply` was never read: the replies to a message are found
-- by its Message-ID as parent, which is the table's primary key, and nothing
-- looks an answer up by its own ID. 1.7 MB of a 100k-message database.
DROP INDEX IF EXISTS email_replies_reply;

-- A source's chunks are found by `source_type = ? AND source_id = ?`. The
-- type in the index repeated a word (`email`) beside every chunk: the ID
-- alone leads to the few chunks of that ID, whose type is then read from
-- the row. 1.8 MB of a 100k-message database.
DROP INDEX IF EXISTS memory_chunks_source;
CREATE INDEX memory_chunks_source ON memory_chunk_rows (source_id);
