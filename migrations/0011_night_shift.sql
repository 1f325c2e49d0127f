-- 0010: the night shift (issue 17). Dream learns routines, merges facts that
-- say the same thing, and flags facts that contradict each other.
--
-- memory_facts is rebuilt (SQLite cannot widen a CHECK in place) so that
-- `method` may be 'routine', and gains `routine_key`: the weekday, time band
-- and focus a routine fact was mined from ("tue-morning vendor:tnb"), so one
-- habit is never learned twice while its fact is active.
CREATE TABLE memory_facts_new (
    chunk_id         INTEGER PRIMARY KEY REFERENCES memory_chunks (id),
    method           TEXT    NOT NULL CHECK (method IN ('user', 'dream', 'routine')),
    promoted_from    INTEGER REFERENCES memory_chunks (id),
    retracted_at     INTEGER,
    purged_at        INTEGER,
    confidence       REAL,
    confidence_at    INTEGER,
    peak_confidence  REAL,
    pinned           INTEGER NOT NULL DEFAULT 0,
    reprieved_at     INTEGER,
    retracted_reason TEXT CHECK (retracted_reason IN ('forgotten', 'faded', 'merged')),
    merged_into      INTEGER,
    routine_key      TEXT
);
INSERT INTO memory_facts_new
    (chunk_id, method, promoted_from, retracted_at, purged_at, confidence, confidence_at,
     peak_confidence, pinned, reprieved_at, retracted_reason, merged_into)
SELECT chunk_id, method, promoted_from, retracted_at, purged_at, confidence, confidence_at,
       peak_confidence, pinned, reprieved_at, retracted_reason, merged_into
FROM memory_facts;
DROP TABLE memory_facts;
ALTER TABLE memory_facts_new RENAME TO memory_facts;
CREATE UNIQUE INDEX memory_facts_promoted_once ON memory_facts (promoted_from)
    WHERE promoted_from IS NOT NULL;
CREATE UNIQUE INDEX memory_facts_one_routine ON memory_facts (routine_key)
    WHERE routine_key IS NOT NULL AND retracted_at IS NULL;

-- Contradiction candidates: two facts (fact_a < fact_b, chunk ids) that speak
-- about the same thing with different values, found by dream. A pair is open
-- while both facts are active and nobody marked it compatible
-- (`facts --compatible A B`); it is never found twice.
CREATE TABLE fact_conflicts (
    id            INTEGER PRIMARY KEY,
    fact_a        INTEGER NOT NULL REFERENCES memory_chunks (id),
    fact_b        INTEGER NOT NULL REFERENCES memory_chunks (id),
    reason        TEXT    NOT NULL,
    found_at      INTEGER NOT NULL,
    compatible_at INTEGER,
    CHECK (fact_a < fact_b),
    UNIQUE (fact_a, fact_b)
);
