-- 0005: the messages of conversations written turn by turn, by an agent over
-- MCP (`memory_add_messages`) or by `index-conversations --append`. Chunks
-- hold messages in overlapping windows, which cannot be cut back into
-- messages, so appending keeps each message here to re-chunk the tail from.
-- A file import needs none: the file holds the whole conversation. Only
-- `forget --purge` erases these rows' text, with the chunks'.
CREATE TABLE conversation_messages (
    conversation TEXT    NOT NULL,
    seq          INTEGER NOT NULL,
    message_id   TEXT    NOT NULL,
    speaker      TEXT,
    text         TEXT    NOT NULL,
    at           INTEGER NOT NULL,
    PRIMARY KEY (conversation, seq),
    UNIQUE (conversation, message_id)
) WITHOUT ROWID;
