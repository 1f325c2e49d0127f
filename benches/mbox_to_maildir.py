#!/usr/bin/env python3
"""Convert an mbox to a maildir for the notmuch comparison (not timed).
Usage: mbox_to_maildir.py MBOX MAILDIR"""
import mailbox, sys

src, dst = sys.argv[1:3]
md = mailbox.Maildir(dst, create=True)
for msg in mailbox.mbox(src, create=False):
    md.add(msg)
