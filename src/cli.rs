//! The command-line interface as clap types, and nothing else: this file imports
//! nothing from the crate, so completions and the man page are generated from it alone.

use std::path::PathBuf;

use clap::{ArgGroup, Args, Parser, Subcommand};

const DB_HELP: &str = "The database file. Resolved in this order: --db, then $ALFRED_MEM_DB, \
then <per-user data dir>/alfred-mem/memory.db (on Linux $XDG_DATA_HOME or ~/.local/share).";

const AFTER_HELP: &str = "\
Environment:
  ALFRED_MEM_DB          the database file, when --db is not given
  ALFRED_MEM_NOW         RFC 3339 instant used as \"now\" everywhere (tests, replays)
  ALFRED_MEM_HALF_LIFE   forgetting-curve half-life in days (default 30, 0 = off), for
                         every source or per source: receipt=365,conversation=45

Exit status: 0 success, 1 search found nothing, 2 error or bad usage,
3 indexed what it could but rejected some records (they are named on stderr).";

/// The query grammar, shown by `search --help` and in its man page.
const SEARCH_SYNTAX: &str = "\
Query syntax (optional; plain words and whole questions need none):
  word word          any of the words; rows with more of them rank first
  \"exact phrase\"     the words next to each other, in order
  prefix*            words starting so
  from:alice         the sender (name or address); also subject:, vendor:
                     (receipts), title: (conversations); field:\"a b\",
                     field:pre*, subject:(a b) (both words in the subject)
  source:receipt     only that source type (email, receipt, conversation,
                     fact); -source:fact leaves one out; applies to the
                     whole query
  to:bob             a recipient (name or address in the To header; not
                     Cc); mail indexed before recipients were kept has
                     none: index it into a fresh --db to find it
  -word, NOT word    without it (also -\"a phrase\", -from:bob)
  a AND b            both
  a OR b             either
  ( ... )            grouping
Precedence: -/NOT, then AND (written, or items side by side), then OR.
Beside a field, a group or AND, plain words are still optional (any of).
What cannot be syntax is read as text: a stray quote or parenthesis, an
operator with nothing on one side, `from: x`. Operators are in capitals.
Chinese, Japanese and Korean words are found inside longer text.
A query that starts with -word goes after --: search -- -spam invoice.
--explain prints the query as read and the FTS5 query run.";

/// A personal memory that behaves like a human one: mail, receipts, chats and
/// facts in one index, ranked by relevance and a forgetting curve.
#[derive(Debug, Parser)]
#[command(name = "alfred-mem", version, about, after_help = AFTER_HELP)]
pub struct Cli {
    #[arg(long, global = true, value_name = "PATH", help = DB_HELP)]
    pub db: Option<PathBuf>,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Index e-mail: mbox files, Maildir and MH folders, .eml files, any of them
    /// gzip, bzip2, xz or zstd compressed (`-` reads stdin; a folder is searched
    /// for all of these). Re-runs read only what changed.
    #[command(visible_alias = "index-mail")]
    IndexMbox(IndexArgs),
    /// Index bill receipts from JSON (an array, one object, or JSON Lines; or a zip).
    IndexReceipts(IndexReceiptsArgs),
    /// Index chat conversations: our JSON, or a ChatGPT or Claude.ai export (.zip or folder).
    IndexConversations(IndexConversationsArgs),
    /// Search everything, ranked by relevance and the forgetting curve.
    #[command(after_long_help = SEARCH_SYNTAX)]
    Search(SearchArgs),
    /// Read what search found: the whole e-mail, receipt, conversation or fact of each chunk id.
    /// Reading is a genuine recall: it strengthens what is read (unless --no-log or --as-of).
    Show(ShowArgs),
    /// Teach a fact that never fades (it is pinned); or pin/unpin a fact by id.
    /// The words are joined; with none, reads stdin.
    Remember(RememberArgs),
    /// Retract facts by id (or by --match). History is kept unless --purge.
    Forget(ForgetArgs),
    /// List what alfred-mem knows about you: every active fact.
    Facts(FactsArgs),
    /// Consolidate: promote chunks recalled often, by different queries, into facts;
    /// decay and prune the links between chunks.
    Dream(DreamArgs),
    /// List a chunk's links to other chunks, strongest first: what it was
    /// written, read or meant together with.
    Related(RelatedArgs),
    /// Show the database path, size, counts, the last index and dream times, and the model.
    Status(JsonArgs),
    /// Configure semantic recall: the embedding model search uses beside the full-text index.
    #[command(subcommand)]
    Model(ModelCommand),
    /// Embed every chunk that has no vector from the configured model yet (resumable):
    /// recalled chunks first, then facts, then the rest newest first.
    Embed(EmbedArgs),
    /// Serve this memory to an AI agent over MCP: stdin/stdout, or HTTP with --http.
    Mcp(McpArgs),
}

#[derive(Debug, Args)]
pub struct JsonArgs {
    /// Print one JSON document on stdout instead of human output.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct IndexArgs {
    /// Files or directories to index; `-` reads standard input.
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,

    #[command(flatten)]
    pub out: JsonArgs,
}

#[derive(Debug, Args)]
pub struct IndexConversationsArgs {
    /// Files or directories to index; `-` reads standard input. With
    /// --append: JSON Lines of messages (standard input when none is given).
    #[arg(required_unless_present = "append", value_name = "FILE")]
    pub files: Vec<PathBuf>,

    /// Append messages to this one conversation, creating it if needed, as an
    /// agent does over MCP: one message per line, {"id"?, "role"|"speaker",
    /// "content"|"text", "at"?}; a message already stored is skipped.
    #[arg(long, value_name = "CONVERSATION_ID")]
    pub append: Option<String>,

    /// With --append: the conversation's title, taken when it is created.
    #[arg(long, requires = "append", value_name = "TITLE")]
    pub title: Option<String>,

    #[command(flatten)]
    pub out: JsonArgs,
}

#[derive(Debug, Args)]
pub struct IndexReceiptsArgs {
    #[command(flatten)]
    pub index: IndexArgs,

    /// Read ambiguous numeric dates such as 02/01/2018 as month first (default: day first).
    #[arg(long)]
    pub month_first: bool,
}

#[derive(Debug, Args)]
pub struct SearchArgs {
    /// What to look for: plain words (no quoting needed), or the query syntax below.
    #[arg(required = true, value_name = "QUERY")]
    pub query: Vec<String>,

    /// Only items dated at or after WHEN (YYYY, YYYY-MM, YYYY-MM-DD, RFC 3339, "2 weeks ago").
    #[arg(long, value_name = "WHEN")]
    pub after: Option<String>,

    /// Only items dated before WHEN (the window is half-open: [after, before)).
    #[arg(long, value_name = "WHEN")]
    pub before: Option<String>,

    /// Answer from memory as it stood at WHEN (nothing is logged).
    #[arg(long, value_name = "WHEN")]
    pub as_of: Option<String>,

    /// How many results to return.
    #[arg(long, short = 'n', default_value_t = 10, value_name = "N")]
    pub limit: usize,

    /// Only these source types: email, receipt, conversation, fact (comma-separated).
    #[arg(long, value_delimiter = ',', value_name = "TYPE")]
    pub source: Vec<String>,

    /// Forgetting-curve half-life in days (0 turns decay off), for every source, or per
    /// source as SOURCE=DAYS,...: e.g. receipt=365,conversation=45. Facts never decay.
    #[arg(long, value_name = "DAYS", env = "ALFRED_MEM_HALF_LIFE")]
    pub half_life: Option<String>,

    /// Every matching chunk its own hit; by default one hit per e-mail message,
    /// its best chunk, with how many more of its chunks matched.
    #[arg(long)]
    pub all_chunks: bool,

    /// Show the FTS5 query and, per hit, bm25, cosine, relevance, decay, recalls and MMR score.
    #[arg(long)]
    pub explain: bool,

    /// Rank by the full-text index alone, even with a model configured.
    #[arg(long, conflicts_with = "semantic")]
    pub lexical: bool,

    /// Rank by vector similarity alone (needs a model: see `model use`).
    #[arg(long)]
    pub semantic: bool,

    /// Do not record this search in the recall log.
    #[arg(long)]
    pub no_log: bool,

    /// Do not add the chunks linked to the first hits (associative recall).
    #[arg(long)]
    pub no_expand: bool,

    /// Follow thread and semantic links too when expanding (for measuring).
    #[arg(long, hide = true, conflicts_with = "no_expand")]
    pub expand_all: bool,

    #[command(flatten)]
    pub out: JsonArgs,
}

#[derive(Debug, Args)]
pub struct ShowArgs {
    /// Chunk ids, as search prints them.
    #[arg(required = true, value_name = "ID")]
    pub ids: Vec<i64>,

    /// Messages shown before and after a conversation chunk's own.
    #[arg(long, default_value_t = 2, value_name = "N")]
    pub context: usize,

    /// Show memory as it stood at WHEN (nothing is logged).
    #[arg(long, value_name = "WHEN")]
    pub as_of: Option<String>,

    /// Do not record this reading as a recall (nothing grows stronger).
    #[arg(long)]
    pub no_log: bool,

    #[command(flatten)]
    pub out: JsonArgs,
}

#[derive(Debug, Subcommand)]
pub enum ModelCommand {
    /// Use a model: a sentence-transformers folder (config.json, tokenizer.json,
    /// model.safetensors) run in-process, or an OpenAI-compatible http(s):// endpoint.
    Use(ModelUseArgs),
    /// Show the configured model and how many chunks have its vectors.
    Status(JsonArgs),
    /// Turn semantic recall off (stored vectors are kept for a later `model use`).
    Off(JsonArgs),
}

#[derive(Debug, Args)]
pub struct ModelUseArgs {
    /// A model folder, or an endpoint URL such as http://localhost:11434/v1.
    #[arg(value_name = "PATH|URL")]
    pub target: String,

    /// The model name sent to an endpoint (required for a URL).
    #[arg(long, value_name = "MODEL")]
    pub name: Option<String>,

    /// The environment variable holding the endpoint's API key, read when it is used.
    #[arg(long, value_name = "VAR")]
    pub key_env: Option<String>,

    #[command(flatten)]
    pub out: JsonArgs,
}

#[derive(Debug, Args)]
pub struct RememberArgs {
    /// The fact, as words (joined with spaces). Reads stdin when empty.
    #[arg(value_name = "TEXT", conflicts_with_all = ["pin", "unpin"])]
    pub text: Vec<String>,

    /// Pin the fact with this id (e.g. one dream promoted): it will never fade.
    #[arg(long, value_name = "ID", conflicts_with = "unpin")]
    pub pin: Option<i64>,

    /// Unpin the fact with this id: unused, it fades like a dream fact.
    #[arg(long, value_name = "ID")]
    pub unpin: Option<i64>,

    #[command(flatten)]
    pub out: JsonArgs,
}

/// Ids, `--match` or `--source`, exactly one of the three. The usage shows
/// every form, so that `forget` alone names them all.
#[derive(Debug, Args)]
#[command(
    group(ArgGroup::new("which").required(true).args(["ids", "matching", "source"])),
    override_usage = "alfred-mem forget [OPTIONS] <ID>...\n       alfred-mem forget [OPTIONS] --match <TEXT>\n       alfred-mem forget [OPTIONS] --source <TYPE:ID>..."
)]
pub struct ForgetArgs {
    /// Fact ids to retract.
    #[arg(value_name = "ID")]
    pub ids: Vec<i64>,

    /// Find the fact by search instead: forgotten only if exactly one matches.
    #[arg(long = "match", value_name = "TEXT")]
    pub matching: Option<String>,

    /// Forget a whole e-mail, receipt or conversation instead of a fact:
    /// email:MESSAGE-ID, receipt:ID or conversation:ID (as `search --json`
    /// gives source_type and source_id). Repeat for several.
    #[arg(long, value_name = "TYPE:ID")]
    pub source: Vec<String>,

    /// Erase the text from the store and the index, leaving only a tombstone.
    #[arg(long)]
    pub purge: bool,

    #[command(flatten)]
    pub out: JsonArgs,
}

#[derive(Debug, Args)]
pub struct FactsArgs {
    /// Include retracted facts, with their retraction time (and what a merged
    /// fact was merged into).
    #[arg(long, conflicts_with_all = ["conflicts", "stale", "compatible"])]
    pub all: bool,

    /// List the open contradiction candidates dream found: pairs of facts
    /// that say different things about the same thing.
    #[arg(long, conflicts_with_all = ["stale", "compatible"])]
    pub conflicts: bool,

    /// List important facts (confidence at least 0.7, or recalled 3 times)
    /// untouched for 30 days or more: the session-start briefing.
    #[arg(long, conflicts_with = "compatible")]
    pub stale: bool,

    /// Close the conflict between facts A and B: both are true, and the pair
    /// is never flagged again. (Forgetting either fact closes it too.)
    #[arg(long, num_args = 2, value_names = ["A", "B"])]
    pub compatible: Option<Vec<i64>>,

    #[command(flatten)]
    pub out: JsonArgs,
}

#[derive(Debug, Args)]
pub struct EmbedArgs {
    /// Stop after this long (90s, 45m, 2h, 1h30m), keeping every chunk embedded so far;
    /// the next run goes on with the rest. For a nightly job over a big archive.
    #[arg(long, value_name = "DURATION")]
    pub budget: Option<String>,

    #[command(flatten)]
    pub out: JsonArgs,
}

#[derive(Debug, Args)]
pub struct DreamArgs {
    /// Show each candidate's components and verdict; change nothing.
    #[arg(long)]
    pub dry_run: bool,

    /// Print nothing unless there is an error.
    #[arg(long, short, conflicts_with_all = ["json", "dry_run"])]
    pub quiet: bool,

    #[command(flatten)]
    pub out: JsonArgs,
}

#[derive(Debug, Args)]
pub struct RelatedArgs {
    /// A chunk id, as search prints it.
    #[arg(value_name = "ID")]
    pub id: i64,

    #[command(flatten)]
    pub out: JsonArgs,
}

#[derive(Debug, Args)]
pub struct McpArgs {
    /// Forgetting-curve half-life in days for memory_search (0 turns decay off), for every
    /// source or per source as SOURCE=DAYS,...: e.g. receipt=365,conversation=45.
    #[arg(long, value_name = "DAYS", env = "ALFRED_MEM_HALF_LIFE")]
    pub half_life: Option<String>,

    /// Serve MCP's streamable HTTP transport at http://ADDR/mcp instead of
    /// stdin/stdout, e.g. 127.0.0.1:8765 (port 0 picks a free one). Only
    /// loopback addresses, unless --allow-remote.
    #[arg(long, value_name = "ADDR")]
    pub http: Option<std::net::SocketAddr>,

    /// With --http: listen on a non-loopback address. Requires --token-env.
    #[arg(long, requires_all = ["http", "token_env"])]
    pub allow_remote: bool,

    /// With --http: the environment variable holding a bearer token that
    /// every request must send (Authorization: Bearer TOKEN).
    #[arg(long, value_name = "NAME", requires = "http")]
    pub token_env: Option<String>,
}
