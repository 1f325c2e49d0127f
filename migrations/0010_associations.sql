-- 0010: associations (issue 16). Two chunks recalled, written or meant
-- together are linked; recall follows strong links.
--
-- One row per link (an unordered pair of chunks and a kind), holding its
-- current state: `strength` as of `strength_at`. A `co_recall` or `semantic`
-- link halves every 30 days after that (`rank::association`); a `thread`
-- link is 0.3 for good. `pruned_at` is set when dream prunes a faded link:
-- the row stays, so nothing is deleted.
CREATE TABLE memory_links (
    id            INTEGER PRIMARY KEY,
    low           INTEGER NOT NULL REFERENCES memory_chunks (id),
    high          INTEGER NOT NULL REFERENCES memory_chunks (id),
    kind          TEXT    NOT NULL CHECK (kind IN ('thread', 'co_recall', 'semantic')),
    formed_at     INTEGER NOT NULL,
    strength      REAL    NOT NULL,
    strength_at   INTEGER NOT NULL,
    reinforced_at INTEGER NOT NULL,
    pruned_at     INTEGER,
    CHECK (low < high),
    UNIQUE (low, high, kind)
);
CREATE INDEX memory_links_high ON memory_links (high);

-- Every state a changing link (co_recall, semantic) has held, from `at` on:
-- formed, reinforced, decayed by dream, pruned (strength 0). Append-only, so
-- `--as-of T` reads each link's last row with at <= T. Thread links never
-- change and keep no rows here: `formed_at` is their history.
CREATE TABLE memory_link_history (
    link_id       INTEGER NOT NULL REFERENCES memory_links (id),
    at            INTEGER NOT NULL,
    strength      REAL    NOT NULL,
    reinforced_at INTEGER NOT NULL,
    PRIMARY KEY (link_id, at)
) WITHOUT ROWID;

-- Which message an e-mail answers: its In-Reply-To (or the last of its
-- References), both as normalised Message-IDs. Kept from this version on;
-- a re-run of the import over old mail fills it in (an unchanged message
-- still records whom it answers).
CREATE TABLE email_replies (
    parent TEXT NOT NULL,
    reply  TEXT NOT NULL,
    PRIMARY KEY (parent, reply)
) WITHOUT ROWID;
CREATE INDEX email_replies_reply ON email_replies (reply);

-- Memory indexed before this version: consecutive current chunks of one
-- e-mail, receipt or conversation are threaded, formed when the later was.
INSERT INTO memory_links (low, high, kind, formed_at, strength, strength_at, reinforced_at)
SELECT a.id, b.id, 'thread', max(a.created_at, b.created_at), 0.3,
       max(a.created_at, b.created_at), max(a.created_at, b.created_at)
  FROM memory_chunks a
  JOIN memory_chunks b
    ON b.source_type = a.source_type AND b.source_id = a.source_id AND b.seq = a.seq + 1
 WHERE a.source_type <> 'fact'
   AND a.superseded_at IS NULL AND b.superseded_at IS NULL
   AND a.id < b.id;
