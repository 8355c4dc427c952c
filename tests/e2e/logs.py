"""Reading a card log (docs/LOG.md) as a test does.

Python 3, standard library only.  read_cardlog(): its complete lines, parsed
or as bytes; CardLogTail: the new lines since the last read, across a
logrotate and a file cut back; last_logged_height(): the height of its
last line, from its tail only; events(): the events of parsed lines,
filtered.  LOG_VERSION is every line's "v".
"""

import json
import os
import re

# The card log's format version, every line's "v" (docs/LOG.md): 2 since
# protocol v1.1 (the Peek's card is a "peek" event, "skip" events).
LOG_VERSION = 2


def read_cardlog(path, raw=False):
    """The complete lines of a card log (a last line without its newline is
    not complete yet and is left out).  Parsed dicts, or the raw bytes of
    the complete part with raw=True."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        return b"" if raw else []
    end = data.rfind(b"\n") + 1
    if raw:
        return data[:end]
    return [json.loads(l) for l in data[:end].splitlines()]


class CardLogTail:
    """Incremental reader: new complete lines since the last call.  Across a
    logrotate-style move the moved file is read to its end before the new
    one (the daemon writes no more to the old file once it reopened); a
    file that shrinks (cut back on a restart) is read again from the top.
    strict: a line that is not JSON raises instead of being skipped."""

    def __init__(self, path, strict=False):
        self.path = path
        self.strict = strict
        self.f = None
        self.buf = b""

    def read(self):
        if self.f is None:
            try:
                self.f = open(self.path, "rb")
            except FileNotFoundError:
                return []
        while True:
            if os.fstat(self.f.fileno()).st_size < self.f.tell():
                self.f.seek(0)
                self.buf = b""
            self.buf += self.f.read()
            try:
                st = os.stat(self.path)
            except FileNotFoundError:
                break
            if st.st_ino == os.fstat(self.f.fileno()).st_ino:
                break
            self.buf += self.f.read()
            self.f.close()
            self.f = open(self.path, "rb")
        end = self.buf.rfind(b"\n") + 1
        lines, self.buf = self.buf[:end], self.buf[end:]
        out = []
        for l in lines.splitlines():
            try:
                out.append(json.loads(l))
            except ValueError:
                if self.strict:
                    raise
        return out

    def close(self):
        if self.f:
            self.f.close()
            self.f = None


def last_logged_height(path):
    """The height of the last complete line of a card log, reading only its
    tail (cheap for big logs); None when there is none."""
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            f.seek(max(0, f.tell() - 65536))
            tail = f.read()
    except FileNotFoundError:
        return None
    end = tail.rfind(b"\n")
    if end < 0:
        return None
    start = tail.rfind(b"\n", 0, end) + 1
    m = re.match(rb'\{"v":%d,"chain":"[a-z0-9-]+","height":(\d+),' % LOG_VERSION,
                 tail[start:end])
    return int(m.group(1)) if m else None


def events(lines, height=None, type=None, round=None):
    """The events of parsed log lines, filtered."""
    out = []
    for l in lines:
        if height is not None and l["height"] != height:
            continue
        for e in l["events"]:
            if type is not None and e["type"] != type:
                continue
            if round is not None and e.get("round") != round:
                continue
            out.append(e)
    return out
