#!/usr/bin/env python3
"""Search latency inside one long-lived MCP server (`alfred-mem mcp`), as an
agent pays it: no process start, no database open per query.

Usage: benches/mcp_latency.py QUERIES [--first N] LABEL=BINARY:DB [LABEL=BINARY:DB ...]

Each LABEL starts one server over stdio on its DB, initializes it, then every
query of QUERIES is sent to each server in turn as a `tools/call` of
`memory_search` (limit 10), timing the round trip from the request's write to
the response's last byte. A search over MCP is logged as recalled, so give
each server its own copy of the database (a shared benchmark database would
rank differently afterwards). Prints the median, p95 and max per label.
ALFRED_MEM_NOW is passed through.
"""
import json, os, statistics, subprocess, sys, time


def start(binary, db, env):
    p = subprocess.Popen([binary, "--db", db, "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, env=env)
    send(p, {"jsonrpc": "2.0", "id": 0, "method": "initialize",
             "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                        "clientInfo": {"name": "mcp_latency", "version": "1"}}})
    read(p)
    send(p, {"jsonrpc": "2.0", "method": "notifications/initialized"})
    return p


def send(p, message):
    p.stdin.write((json.dumps(message) + "\n").encode())
    p.stdin.flush()


def read(p):
    line = p.stdout.readline()
    if not line:
        sys.exit("the server closed its output")
    return json.loads(line)


def main():
    args = sys.argv[1:]
    first = None
    if "--first" in args:
        i = args.index("--first")
        first = int(args[i + 1])
        del args[i:i + 2]
    queries_path, specs = args[0], args[1:]
    queries = [q.strip() for q in open(queries_path, encoding="utf-8") if q.strip()][:first]
    env = dict(os.environ)
    servers = []
    for spec in specs:
        label, rest = spec.split("=", 1)
        binary, db = rest.split(":", 1)
        servers.append((label, start(binary, db, env), []))
    for n, q in enumerate(queries, 1):
        for label, p, times in servers:
            t0 = time.perf_counter()
            send(p, {"jsonrpc": "2.0", "id": n, "method": "tools/call",
                     "params": {"name": "memory_search", "arguments": {"query": q, "limit": 10}}})
            answer = read(p)
            times.append((time.perf_counter() - t0) * 1000)
            if "error" in answer or answer.get("result", {}).get("isError"):
                sys.exit(f"{label}: {q!r} failed: {answer}")
    for label, p, times in servers:
        p.stdin.close()
        p.wait()
        times.sort()
        p95 = times[int(0.95 * (len(times) - 1))]
        print(f"{label}: queries {len(times)}  median {statistics.median(times):.1f} ms  "
              f"p95 {p95:.1f} ms  max {times[-1]:.1f} ms")


if __name__ == "__main__":
    main()
