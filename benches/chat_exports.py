#!/usr/bin/env python3
"""Rewrite gen-corpus's conversations.jsonl as the chat exports people download,
for the JSON memory benchmark (benches/json_memory.sh):

  OUTDIR/conversations.json   the same conversations as one JSON array (ours)
  OUTDIR/chatgpt-export.zip   a ChatGPT data export: conversations.json with
                              `mapping` trees, plus user.json and chat.html
  OUTDIR/claude-export.zip    a Claude.ai export: conversations.json with
                              `chat_messages`, plus users.json and projects.json

Each array is written and deflated one conversation at a time, so this script
runs in little memory whatever the corpus size. Same input, same bytes.
Usage: chat_exports.py CONVERSATIONS_JSONL OUTDIR
"""
import json, os, sys, zipfile
from datetime import datetime


def epoch(iso):
    return datetime.fromisoformat(iso).timestamp()


def chatgpt(conv):
    mapping = {"root": {"id": "root", "message": None, "parent": None, "children": []}}
    parent = "root"
    for k, m in enumerate(conv["messages"]):
        node = f"{conv['id']}-n{k}"
        mapping[parent]["children"].append(node)
        mapping[node] = {
            "id": node, "parent": parent, "children": [],
            "message": {"id": node, "author": {"role": m["role"], "name": None, "metadata": {}},
                        "create_time": epoch(m["at"]), "update_time": None,
                        "content": {"content_type": "text", "parts": [m["content"]]},
                        "status": "finished_successfully", "metadata": {}},
        }
        parent = node
    first = epoch(conv["messages"][0]["at"])
    return {"title": conv["title"], "create_time": first, "update_time": first,
            "mapping": mapping, "current_node": parent, "conversation_id": conv["id"], "id": conv["id"]}


def claude(conv):
    return {"uuid": conv["id"], "name": conv["title"], "created_at": conv["messages"][0]["at"],
            "updated_at": conv["messages"][-1]["at"],
            "chat_messages": [{"uuid": f"{conv['id']}-m{k}", "text": m["content"],
                               "content": [{"type": "text", "text": m["content"]}],
                               "sender": "human" if m["role"] == "user" else "assistant",
                               "created_at": m["at"], "attachments": [], "files": []}
                              for k, m in enumerate(conv["messages"])]}


def write_array(out, convs, shape):
    out.write(b"[")
    for i, conv in enumerate(convs):
        if i:
            out.write(b",\n")
        out.write(json.dumps(shape(conv)).encode())
    out.write(b"]\n")


def conversations(path):
    with open(path) as f:
        for line in f:
            if line.strip():
                yield json.loads(line)


def main():
    src, outdir = sys.argv[1], sys.argv[2]
    os.makedirs(outdir, exist_ok=True)
    with open(os.path.join(outdir, "conversations.json"), "wb") as out:
        write_array(out, conversations(src), lambda c: c)
    exports = [("chatgpt-export.zip", chatgpt, {"user.json": '{"id": "user-1"}', "chat.html": "<html></html>"}),
               ("claude-export.zip", claude, {"users.json": "[]", "projects.json": "[]"})]
    for name, shape, others in exports:
        with zipfile.ZipFile(os.path.join(outdir, name), "w", zipfile.ZIP_DEFLATED) as z:
            with z.open("conversations.json", "w", force_zip64=True) as out:
                write_array(out, conversations(src), shape)
            for member, text in others.items():
                z.writestr(member, text)
    for name in ["conversations.json", "chatgpt-export.zip", "claude-export.zip"]:
        print(name, os.path.getsize(os.path.join(outdir, name)))


if __name__ == "__main__":
    main()
