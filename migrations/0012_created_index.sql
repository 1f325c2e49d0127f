-- 0012: chunks by creation time, with their dates (issue 21). Search measures
-- ages from the newest thing memory held at its reference time: the latest
-- date of a chunk created by then. When every chunk was created by then (the
-- usual case) that is one seek in memory_chunks_dated; when the reference
-- time is older than some chunks (`--as-of`, or a clock set back), the
-- chunks created by then are read from this index alone instead of walking
-- every newer-dated chunk row (1.4 s at 100k messages, before).
CREATE INDEX memory_chunks_created ON memory_chunks (created_at, dated_at);
