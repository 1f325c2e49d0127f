# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_alfred_mem_global_optspecs
    string join \n db= h/help V/version
end

function __fish_alfred_mem_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_alfred_mem_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_alfred_mem_using_subcommand
    set -l cmd (__fish_alfred_mem_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c alfred-mem -n "__fish_alfred_mem_needs_command" -l db -d 'The database file. Resolved in this order: --db, then $ALFRED_MEM_DB, then <per-user data dir>/alfred-mem/memory.db (on Linux $XDG_DATA_HOME or ~/.local/share).' -r -F
complete -c alfred-mem -n "__fish_alfred_mem_needs_command" -s h -l help -d 'Print help'
complete -c alfred-mem -n "__fish_alfred_mem_needs_command" -s V -l version -d 'Print version'
complete -c alfred-mem -n "__fish_alfred_mem_needs_command" -f -a "index-mbox" -d 'Index e-mail: mbox files, Maildir and MH folders, .eml files, any of them gzip, bzip2, xz or zstd compressed (`-` reads stdin; a folder is searched for all of these). Re-runs read only what changed'
complete -c alfred-mem -n "__fish_alfred_mem_needs_command" -f -a "index-mail" -d 'Index e-mail: mbox files, Maildir and MH folders, .eml files, any of them gzip, bzip2, xz or zstd compressed (`-` reads stdin; a folder is searched for all of these). Re-runs read only what changed'
complete -c alfred-mem -n "__fish_alfred_mem_needs_command" -f -a "index-receipts" -d 'Index bill receipts from JSON (an array, one object, or JSON Lines; or a zip)'
complete -c alfred-mem -n "__fish_alfred_mem_needs_command" -f -a "index-conversations" -d 'Index chat conversations: our JSON, or a ChatGPT or Claude.ai export (.zip or folder)'
complete -c alfred-mem -n "__fish_alfred_mem_needs_command" -f -a "search" -d 'Search everything, ranked by relevance and the forgetting curve'
complete -c alfred-mem -n "__fish_alfred_mem_needs_command" -f -a "show" -d 'Read what search found: the whole e-mail, receipt, conversation or fact of each chunk id. Reading is a genuine recall: it strengthens what is read (unless --no-log or --as-of)'
complete -c alfred-mem -n "__fish_alfred_mem_needs_command" -f -a "remember" -d 'Teach a fact that never fades (it is pinned); or pin/unpin a fact by id. The words are joined; with none, reads stdin'
complete -c alfred-mem -n "__fish_alfred_mem_needs_command" -f -a "forget" -d 'Retract facts by id (or by --match). History is kept unless --purge'
complete -c alfred-mem -n "__fish_alfred_mem_needs_command" -f -a "facts" -d 'List what alfred-mem knows about you: every active fact'
complete -c alfred-mem -n "__fish_alfred_mem_needs_command" -f -a "dream" -d 'Consolidate: promote chunks recalled often, by different queries, into facts; decay and prune the links between chunks'
complete -c alfred-mem -n "__fish_alfred_mem_needs_command" -f -a "related" -d 'List a chunk\'s links to other chunks, strongest first: what it was written, read or meant together with'
complete -c alfred-mem -n "__fish_alfred_mem_needs_command" -f -a "status" -d 'Show the database path, size, counts, the last index and dream times, and the model'
complete -c alfred-mem -n "__fish_alfred_mem_needs_command" -f -a "model" -d 'Configure semantic recall: the embedding model search uses beside the full-text index'
complete -c alfred-mem -n "__fish_alfred_mem_needs_command" -f -a "embed" -d 'Embed every chunk that has no vector from the configured model yet (resumable): recalled chunks first, then facts, then the rest newest first'
complete -c alfred-mem -n "__fish_alfred_mem_needs_command" -f -a "mcp" -d 'Serve this memory to an AI agent over MCP: stdin/stdout, or HTTP with --http'
complete -c alfred-mem -n "__fish_alfred_mem_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand index-mbox" -l db -d 'The database file. Resolved in this order: --db, then $ALFRED_MEM_DB, then <per-user data dir>/alfred-mem/memory.db (on Linux $XDG_DATA_HOME or ~/.local/share).' -r -F
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand index-mbox" -l json -d 'Print one JSON document on stdout instead of human output'
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand index-mbox" -s h -l help -d 'Print help'
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand index-mail" -l db -d 'The database file. Resolved in this order: --db, then $ALFRED_MEM_DB, then <per-user data dir>/alfred-mem/memory.db (on Linux $XDG_DATA_HOME or ~/.local/share).' -r -F
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand index-mail" -l json -d 'Print one JSON document on stdout instead of human output'
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand index-mail" -s h -l help -d 'Print help'
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand index-receipts" -l db -d 'The database file. Resolved in this order: --db, then $ALFRED_MEM_DB, then <per-user data dir>/alfred-mem/memory.db (on Linux $XDG_DATA_HOME or ~/.local/share).' -r -F
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand index-receipts" -l json -d 'Print one JSON document on stdout instead of human output'
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand index-receipts" -l month-first -d 'Read ambiguous numeric dates such as 02/01/2018 as month first (default: day first)'
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand index-receipts" -s h -l help -d 'Print help'
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand index-conversations" -l append -d 'Append messages to this one conversation, creating it if needed, as an agent does over MCP: one message per line, {"id"?, "role"|"speaker", "content"|"text", "at"?}; a message already stored is skipped' -r
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand index-conversations" -l title -d 'With --append: the conversation\'s title, taken when it is created' -r
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand index-conversations" -l db -d 'The database file. Resolved in this order: --db, then $ALFRED_MEM_DB, then <per-user data dir>/alfred-mem/memory.db (on Linux $XDG_DATA_HOME or ~/.local/share).' -r -F
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand index-conversations" -l json -d 'Print one JSON document on stdout instead of human output'
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand index-conversations" -s h -l help -d 'Print help'
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand search" -l after -d 'Only items dated at or after WHEN (YYYY, YYYY-MM, YYYY-MM-DD, RFC 3339, "2 weeks ago")' -r
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand search" -l before -d 'Only items dated before WHEN (the window is half-open: [after, before))' -r
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand search" -l as-of -d 'Answer from memory as it stood at WHEN (nothing is logged)' -r
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand search" -s n -l limit -d 'How many results to return' -r
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand search" -l source -d 'Only these source types: email, receipt, conversation, fact (comma-separated)' -r
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand search" -l half-life -d 'Forgetting-curve half-life in days (0 turns decay off), for every source, or per source as SOURCE=DAYS,...: e.g. receipt=365,conversation=45. Facts never decay' -r
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand search" -l db -d 'The database file. Resolved in this order: --db, then $ALFRED_MEM_DB, then <per-user data dir>/alfred-mem/memory.db (on Linux $XDG_DATA_HOME or ~/.local/share).' -r -F
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand search" -l all-chunks -d 'Every matching chunk its own hit; by default one hit per e-mail message, its best chunk, with how many more of its chunks matched'
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand search" -l explain -d 'Show the FTS5 query and, per hit, bm25, cosine, relevance, decay, recalls and MMR score'
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand search" -l lexical -d 'Rank by the full-text index alone, even with a model configured'
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand search" -l semantic -d 'Rank by vector similarity alone (needs a model: see `model use`)'
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand search" -l no-log -d 'Do not record this search in the recall log'
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand search" -l no-expand -d 'Do not add the chunks linked to the first hits (associative recall)'
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand search" -l expand-all -d 'Follow thread and semantic links too when expanding (for measuring)'
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand search" -l json -d 'Print one JSON document on stdout instead of human output'
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand search" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand show" -l context -d 'Messages shown before and after a conversation chunk\'s own' -r
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand show" -l as-of -d 'Show memory as it stood at WHEN (nothing is logged)' -r
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand show" -l db -d 'The database file. Resolved in this order: --db, then $ALFRED_MEM_DB, then <per-user data dir>/alfred-mem/memory.db (on Linux $XDG_DATA_HOME or ~/.local/share).' -r -F
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand show" -l no-log -d 'Do not record this reading as a recall (nothing grows stronger)'
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand show" -l json -d 'Print one JSON document on stdout instead of human output'
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand show" -s h -l help -d 'Print help'
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand remember" -l pin -d 'Pin the fact with this id (e.g. one dream promoted): it will never fade' -r
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand remember" -l unpin -d 'Unpin the fact with this id: unused, it fades like a dream fact' -r
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand remember" -l db -d 'The database file. Resolved in this order: --db, then $ALFRED_MEM_DB, then <per-user data dir>/alfred-mem/memory.db (on Linux $XDG_DATA_HOME or ~/.local/share).' -r -F
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand remember" -l json -d 'Print one JSON document on stdout instead of human output'
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand remember" -s h -l help -d 'Print help'
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand forget" -l match -d 'Find the fact by search instead: forgotten only if exactly one matches' -r
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand forget" -l source -d 'Forget a whole e-mail, receipt or conversation instead of a fact: email:MESSAGE-ID, receipt:ID or conversation:ID (as `search --json` gives source_type and source_id). Repeat for several' -r
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand forget" -l db -d 'The database file. Resolved in this order: --db, then $ALFRED_MEM_DB, then <per-user data dir>/alfred-mem/memory.db (on Linux $XDG_DATA_HOME or ~/.local/share).' -r -F
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand forget" -l purge -d 'Erase the text from the store and the index, leaving only a tombstone'
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand forget" -l json -d 'Print one JSON document on stdout instead of human output'
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand forget" -s h -l help -d 'Print help'
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand facts" -l compatible -d 'Close the conflict between facts A and B: both are true, and the pair is never flagged again. (Forgetting either fact closes it too.)' -r
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand facts" -l db -d 'The database file. Resolved in this order: --db, then $ALFRED_MEM_DB, then <per-user data dir>/alfred-mem/memory.db (on Linux $XDG_DATA_HOME or ~/.local/share).' -r -F
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand facts" -l all -d 'Include retracted facts, with their retraction time (and what a merged fact was merged into)'
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand facts" -l conflicts -d 'List the open contradiction candidates dream found: pairs of facts that say different things about the same thing'
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand facts" -l stale -d 'List important facts (confidence at least 0.7, or recalled 3 times) untouched for 30 days or more: the session-start briefing'
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand facts" -l json -d 'Print one JSON document on stdout instead of human output'
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand facts" -s h -l help -d 'Print help'
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand dream" -l db -d 'The database file. Resolved in this order: --db, then $ALFRED_MEM_DB, then <per-user data dir>/alfred-mem/memory.db (on Linux $XDG_DATA_HOME or ~/.local/share).' -r -F
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand dream" -l dry-run -d 'Show each candidate\'s components and verdict; change nothing'
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand dream" -s q -l quiet -d 'Print nothing unless there is an error'
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand dream" -l json -d 'Print one JSON document on stdout instead of human output'
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand dream" -s h -l help -d 'Print help'
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand related" -l db -d 'The database file. Resolved in this order: --db, then $ALFRED_MEM_DB, then <per-user data dir>/alfred-mem/memory.db (on Linux $XDG_DATA_HOME or ~/.local/share).' -r -F
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand related" -l json -d 'Print one JSON document on stdout instead of human output'
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand related" -s h -l help -d 'Print help'
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand status" -l db -d 'The database file. Resolved in this order: --db, then $ALFRED_MEM_DB, then <per-user data dir>/alfred-mem/memory.db (on Linux $XDG_DATA_HOME or ~/.local/share).' -r -F
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand status" -l json -d 'Print one JSON document on stdout instead of human output'
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand status" -s h -l help -d 'Print help'
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand model; and not __fish_seen_subcommand_from use status off help" -l db -d 'The database file. Resolved in this order: --db, then $ALFRED_MEM_DB, then <per-user data dir>/alfred-mem/memory.db (on Linux $XDG_DATA_HOME or ~/.local/share).' -r -F
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand model; and not __fish_seen_subcommand_from use status off help" -s h -l help -d 'Print help'
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand model; and not __fish_seen_subcommand_from use status off help" -f -a "use" -d 'Use a model: a sentence-transformers folder (config.json, tokenizer.json, model.safetensors) run in-process, or an OpenAI-compatible http(s):// endpoint'
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand model; and not __fish_seen_subcommand_from use status off help" -f -a "status" -d 'Show the configured model and how many chunks have its vectors'
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand model; and not __fish_seen_subcommand_from use status off help" -f -a "off" -d 'Turn semantic recall off (stored vectors are kept for a later `model use`)'
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand model; and not __fish_seen_subcommand_from use status off help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand model; and __fish_seen_subcommand_from use" -l name -d 'The model name sent to an endpoint (required for a URL)' -r
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand model; and __fish_seen_subcommand_from use" -l key-env -d 'The environment variable holding the endpoint\'s API key, read when it is used' -r
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand model; and __fish_seen_subcommand_from use" -l db -d 'The database file. Resolved in this order: --db, then $ALFRED_MEM_DB, then <per-user data dir>/alfred-mem/memory.db (on Linux $XDG_DATA_HOME or ~/.local/share).' -r -F
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand model; and __fish_seen_subcommand_from use" -l json -d 'Print one JSON document on stdout instead of human output'
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand model; and __fish_seen_subcommand_from use" -s h -l help -d 'Print help'
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand model; and __fish_seen_subcommand_from status" -l db -d 'The database file. Resolved in this order: --db, then $ALFRED_MEM_DB, then <per-user data dir>/alfred-mem/memory.db (on Linux $XDG_DATA_HOME or ~/.local/share).' -r -F
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand model; and __fish_seen_subcommand_from status" -l json -d 'Print one JSON document on stdout instead of human output'
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand model; and __fish_seen_subcommand_from status" -s h -l help -d 'Print help'
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand model; and __fish_seen_subcommand_from off" -l db -d 'The database file. Resolved in this order: --db, then $ALFRED_MEM_DB, then <per-user data dir>/alfred-mem/memory.db (on Linux $XDG_DATA_HOME or ~/.local/share).' -r -F
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand model; and __fish_seen_subcommand_from off" -l json -d 'Print one JSON document on stdout instead of human output'
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand model; and __fish_seen_subcommand_from off" -s h -l help -d 'Print help'
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand model; and __fish_seen_subcommand_from help" -f -a "use" -d 'Use a model: a sentence-transformers folder (config.json, tokenizer.json, model.safetensors) run in-process, or an OpenAI-compatible http(s):// endpoint'
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand model; and __fish_seen_subcommand_from help" -f -a "status" -d 'Show the configured model and how many chunks have its vectors'
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand model; and __fish_seen_subcommand_from help" -f -a "off" -d 'Turn semantic recall off (stored vectors are kept for a later `model use`)'
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand model; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand embed" -l budget -d 'Stop after this long (90s, 45m, 2h, 1h30m), keeping every chunk embedded so far; the next run goes on with the rest. For a nightly job over a big archive' -r
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand embed" -l db -d 'The database file. Resolved in this order: --db, then $ALFRED_MEM_DB, then <per-user data dir>/alfred-mem/memory.db (on Linux $XDG_DATA_HOME or ~/.local/share).' -r -F
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand embed" -l json -d 'Print one JSON document on stdout instead of human output'
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand embed" -s h -l help -d 'Print help'
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand mcp" -l half-life -d 'Forgetting-curve half-life in days for memory_search (0 turns decay off), for every source or per source as SOURCE=DAYS,...: e.g. receipt=365,conversation=45' -r
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand mcp" -l http -d 'Serve MCP\'s streamable HTTP transport at http://ADDR/mcp instead of stdin/stdout, e.g. 127.0.0.1:8765 (port 0 picks a free one). Only loopback addresses, unless --allow-remote' -r
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand mcp" -l token-env -d 'With --http: the environment variable holding a bearer token that every request must send (Authorization: Bearer TOKEN)' -r
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand mcp" -l db -d 'The database file. Resolved in this order: --db, then $ALFRED_MEM_DB, then <per-user data dir>/alfred-mem/memory.db (on Linux $XDG_DATA_HOME or ~/.local/share).' -r -F
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand mcp" -l allow-remote -d 'With --http: listen on a non-loopback address. Requires --token-env'
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand mcp" -s h -l help -d 'Print help'
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand help; and not __fish_seen_subcommand_from index-mbox index-receipts index-conversations search show remember forget facts dream related status model embed mcp help" -f -a "index-mbox" -d 'Index e-mail: mbox files, Maildir and MH folders, .eml files, any of them gzip, bzip2, xz or zstd compressed (`-` reads stdin; a folder is searched for all of these). Re-runs read only what changed'
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand help; and not __fish_seen_subcommand_from index-mbox index-receipts index-conversations search show remember forget facts dream related status model embed mcp help" -f -a "index-receipts" -d 'Index bill receipts from JSON (an array, one object, or JSON Lines; or a zip)'
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand help; and not __fish_seen_subcommand_from index-mbox index-receipts index-conversations search show remember forget facts dream related status model embed mcp help" -f -a "index-conversations" -d 'Index chat conversations: our JSON, or a ChatGPT or Claude.ai export (.zip or folder)'
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand help; and not __fish_seen_subcommand_from index-mbox index-receipts index-conversations search show remember forget facts dream related status model embed mcp help" -f -a "search" -d 'Search everything, ranked by relevance and the forgetting curve'
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand help; and not __fish_seen_subcommand_from index-mbox index-receipts index-conversations search show remember forget facts dream related status model embed mcp help" -f -a "show" -d 'Read what search found: the whole e-mail, receipt, conversation or fact of each chunk id. Reading is a genuine recall: it strengthens what is read (unless --no-log or --as-of)'
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand help; and not __fish_seen_subcommand_from index-mbox index-receipts index-conversations search show remember forget facts dream related status model embed mcp help" -f -a "remember" -d 'Teach a fact that never fades (it is pinned); or pin/unpin a fact by id. The words are joined; with none, reads stdin'
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand help; and not __fish_seen_subcommand_from index-mbox index-receipts index-conversations search show remember forget facts dream related status model embed mcp help" -f -a "forget" -d 'Retract facts by id (or by --match). History is kept unless --purge'
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand help; and not __fish_seen_subcommand_from index-mbox index-receipts index-conversations search show remember forget facts dream related status model embed mcp help" -f -a "facts" -d 'List what alfred-mem knows about you: every active fact'
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand help; and not __fish_seen_subcommand_from index-mbox index-receipts index-conversations search show remember forget facts dream related status model embed mcp help" -f -a "dream" -d 'Consolidate: promote chunks recalled often, by different queries, into facts; decay and prune the links between chunks'
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand help; and not __fish_seen_subcommand_from index-mbox index-receipts index-conversations search show remember forget facts dream related status model embed mcp help" -f -a "related" -d 'List a chunk\'s links to other chunks, strongest first: what it was written, read or meant together with'
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand help; and not __fish_seen_subcommand_from index-mbox index-receipts index-conversations search show remember forget facts dream related status model embed mcp help" -f -a "status" -d 'Show the database path, size, counts, the last index and dream times, and the model'
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand help; and not __fish_seen_subcommand_from index-mbox index-receipts index-conversations search show remember forget facts dream related status model embed mcp help" -f -a "model" -d 'Configure semantic recall: the embedding model search uses beside the full-text index'
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand help; and not __fish_seen_subcommand_from index-mbox index-receipts index-conversations search show remember forget facts dream related status model embed mcp help" -f -a "embed" -d 'Embed every chunk that has no vector from the configured model yet (resumable): recalled chunks first, then facts, then the rest newest first'
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand help; and not __fish_seen_subcommand_from index-mbox index-receipts index-conversations search show remember forget facts dream related status model embed mcp help" -f -a "mcp" -d 'Serve this memory to an AI agent over MCP: stdin/stdout, or HTTP with --http'
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand help; and not __fish_seen_subcommand_from index-mbox index-receipts index-conversations search show remember forget facts dream related status model embed mcp help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand help; and __fish_seen_subcommand_from model" -f -a "use" -d 'Use a model: a sentence-transformers folder (config.json, tokenizer.json, model.safetensors) run in-process, or an OpenAI-compatible http(s):// endpoint'
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand help; and __fish_seen_subcommand_from model" -f -a "status" -d 'Show the configured model and how many chunks have its vectors'
complete -c alfred-mem -n "__fish_alfred_mem_using_subcommand help; and __fish_seen_subcommand_from model" -f -a "off" -d 'Turn semantic recall off (stored vectors are kept for a later `model use`)'
