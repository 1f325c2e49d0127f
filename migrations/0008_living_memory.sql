-- 0008: living memory (issue 15). What is used grows stronger, what is not fades.
--
-- recall_events stays the log of *exposure* (a search listed the chunk). It
-- gains the hit's undecayed relevance, so dream can promote an old message:
-- the decayed score of a 2002 mail is about 0 whatever the match. Rows logged
-- before this migration have NULL and dream falls back to their score.
ALTER TABLE recall_events ADD COLUMN relevance REAL;

-- Who an e-mail was to, for `show` (not searched). NULL for mail indexed
-- before this migration and for other sources.
ALTER TABLE memory_chunks ADD COLUMN recipients TEXT;

-- One row per *genuine* recall: someone read the whole chunk (`show`, MCP
-- `memory_get`) or an agent was handed its full text (MCP `memory_search`).
-- `call_id` groups the chunks recalled together by one call. Append-only, so
-- `--as-of T` sees exactly the rows with at <= T.
CREATE TABLE memory_recalls (
    id       INTEGER PRIMARY KEY,
    chunk_id INTEGER NOT NULL REFERENCES memory_chunks (id),
    at       INTEGER NOT NULL,
    via      TEXT    NOT NULL CHECK (via IN ('show', 'mcp_get', 'mcp_search')),
    call_id  INTEGER NOT NULL
);
CREATE INDEX memory_recalls_chunk ON memory_recalls (chunk_id, at);
CREATE INDEX memory_recalls_at ON memory_recalls (at);

-- A dream fact's confidence lifecycle. `confidence` is the value at
-- `confidence_at`; it halves every (stretched) 60 days after that. `peak` is
-- the most it ever held, for the one second chance. User facts are pinned and
-- never fade. `retracted_reason`: 'forgotten' (`forget`) or 'faded' (dream).
-- `merged_into` is reserved for consolidation (NULL until then): the id of
-- the fact it was merged into.
ALTER TABLE memory_facts ADD COLUMN confidence REAL;
ALTER TABLE memory_facts ADD COLUMN confidence_at INTEGER;
ALTER TABLE memory_facts ADD COLUMN peak_confidence REAL;
ALTER TABLE memory_facts ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0;
ALTER TABLE memory_facts ADD COLUMN reprieved_at INTEGER;
ALTER TABLE memory_facts ADD COLUMN retracted_reason TEXT
    CHECK (retracted_reason IN ('forgotten', 'faded', 'merged'));
ALTER TABLE memory_facts ADD COLUMN merged_into INTEGER;

-- Facts the user taught are pinned. Dream facts promoted before this
-- migration kept no promotion score: they start at the promotion threshold
-- (0.60), the least a promoted chunk can have scored, from the moment they
-- were promoted.
UPDATE memory_facts SET pinned = 1, confidence = 1.0, peak_confidence = 1.0 WHERE method = 'user';
UPDATE memory_facts SET confidence = 0.6, peak_confidence = 0.6,
       confidence_at = (SELECT created_at FROM memory_chunks WHERE id = chunk_id)
 WHERE method = 'dream';
UPDATE memory_facts SET retracted_reason = 'forgotten' WHERE retracted_at IS NOT NULL;
