-- 0002: a covering index of what search filters on (date window, source type,
-- superseded/created times), keyed by chunk id. A windowed search checks every
-- full-text match against these columns; read from this compact index instead
-- of the chunk rows (which carry the text), that check costs half as much.
CREATE INDEX memory_chunks_visibility
    ON memory_chunks (id, dated_at, superseded_at, created_at, source_type);
