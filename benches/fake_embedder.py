#!/usr/bin/env python3
"""A fast, deterministic, OpenAI-compatible `/v1/embeddings` endpoint for
benches (not tests: tests/cli/fake_embedder.rs is the test one).

Vectors have structure, so an approximate index's recall means something:
each word (lower-cased, 3+ letters, not a stop word) is hashed to 8 of 384
dimensions with signs (a sparse random projection of the bag of words),
weighted 1 + log(count), and the sum is L2-normalised. Texts that share
words are near each other; uniform random vectors would not be what a
real model gives, and would make any approximate index look bad.

    python3 benches/fake_embedder.py --port 8765 &
    alfred-mem model use http://127.0.0.1:8765/v1 --name fake384
"""
import argparse
import hashlib
import json
import math
import re
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

DIM = 384
NONZERO = 8
STOP = set(
    "the and for that this with you your are was were have has had not but from "
    "they them their what when will would can could should there here which who "
    "about into our out all any its just been more some than then also over".split()
)
WORD = re.compile(r"[^\W\d_]{3,}", re.UNICODE)
_cache = {}


def word_dims(w):
    d = _cache.get(w)
    if d is None:
        h = hashlib.blake2b(w.encode(), digest_size=2 * NONZERO).digest()
        d = [((h[2 * i] << 8 | h[2 * i + 1]) % DIM, 1.0 if h[2 * i] & 1 else -1.0)
             for i in range(NONZERO)]
        if len(_cache) < 2_000_000:
            _cache[w] = d
    return d


def embed(text):
    counts = {}
    for w in WORD.findall(text.lower()):
        if w not in STOP:
            counts[w] = counts.get(w, 0) + 1
    v = [0.0] * DIM
    for w, n in counts.items():
        weight = 1.0 + math.log(n)
        for i, s in word_dims(w):
            v[i] += s * weight
    norm = math.sqrt(sum(x * x for x in v))
    if norm == 0:
        v[0] = 1.0
        return v
    return [round(x / norm, 6) for x in v]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        try:
            req = json.loads(body)
            texts = req["input"]
            if isinstance(texts, str):
                texts = [texts]
            data = [{"object": "embedding", "index": i, "embedding": embed(t)}
                    for i, t in enumerate(texts)]
            out = json.dumps({"object": "list", "data": data,
                              "model": req.get("model", "fake")}).encode()
            self.send_response(200)
        except Exception as e:  # a bench tool: say what was wrong
            out = json.dumps({"error": str(e)}).encode()
            self.send_response(400)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)

    def log_message(self, *args):
        pass


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, default=8765)
    args = ap.parse_args()
    ThreadingHTTPServer(("127.0.0.1", args.port), Handler).serve_forever()


if __name__ == "__main__":
    main()
