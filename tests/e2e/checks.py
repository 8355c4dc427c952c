"""What the end-to-end tests check, shared by both chain families.

Python 3, standard library only.  The harness's modules drive the
processes: the nodes (evm_node.py, btc_node.py), the daemon (daemon.py),
`hashjack replay` (tool.py).  This module holds what the test files do
with them, the same on anvil and on litecoind:

- failures and assertions: Failed, Skipped, check(), check_eq(),
  check_bytes() (with the first differing line);
- card logs, stderr and the daemon's process: log_bytes(), heights_of() /
  check_heights() (the log's "chain" given), summary(), error_lines(),
  stderr_since(), wait_log_height(), settle_quiet(), sigterm_measured(),
  run_tracked();
- the daemon's database: db_rows() (read from a copy), check_db_equal(),
  check_log_matches_cursor(), wait_cursor();
- the fault tests' checks: Kills (kill -9 again and again, each kill
  checked), check_as_uninterrupted(), check_reorg_refused(),
  check_retries();
- running cases (the fault and harness tests): Cases, WorkDir, fault_main();
  the game suites' command line, game_args(); the payout tests'
  PayoutRunner (one line per check) and payout_args();
- the game tests' expectation model: card totals, Tx / Blk / Round (and
  the rounds that send their player's actions: EvmRound, calldata from
  the player's account; SignedRound, the Bitcoin family's, signed at its
  seq through its session's PlayerTool, `hashjack player`), the expected
  events and table rows of a session (SessionModel: its two parameters
  are the hex prefix the log writes and the database does not, "0x" on
  EVM, and whether a transaction paying the dealer nothing that names no
  open round is seen),
  line_bytes() (docs/LOG.md's line, the chain given), and GameRunner
  (LitecoindBlocks: its hooks for a session on litecoind), which plays the
  scenarios and checks each session's card log byte for byte against the
  model and `hashjack replay`, and its database against the ledger the
  model implies (the scenarios are tests/e2e/book.py's and each family's
  own);
- the payout tests' end: batch_problems() (each payout in exactly one
  confirmed batch, each batch's outputs what its payouts add up to).

A check that fails raises Failed (the game runner reports instead and goes
on); anything else that escapes a case is a broken test (a traceback).
"""

import argparse
import collections
import json
import os
import random
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cards import card_of  # noqa: E402
from daemon import find_hashjackd, metric  # noqa: E402
from evm_node import PAYLOADS  # noqa: E402
from logs import LOG_VERSION, last_logged_height, read_cardlog  # noqa: E402
from procs import (add_exit_hook, install_cleanup, kill_children, track, untrack,  # noqa: E402
                   wait_until)
from tool import find_hashjack, replay, verify  # noqa: E402

ERROR_PRIORITIES = ("<0>", "<1>", "<2>", "<3>")     # sd-daemon prefixes: emerg..err


# --------------------------------------------------------------------------
# Failures and assertions

class Failed(Exception):
    pass


class Skipped(Exception):
    pass


def check(cond, msg):
    if not cond:
        raise Failed(msg)


def short_repr(x, limit=600):
    s = repr(x)
    return s[:limit] + "..." if len(s) > limit else s


def check_eq(got, want, what, show=short_repr):
    """got == want, else Failed naming what, with both values as show()
    writes them (repr cut at 600 characters; the harness tests give str)."""
    if got != want:
        raise Failed("%s:\n  got  %s\n  want %s" % (what, show(got), show(want)))


def first_diff(a, b):
    """Where two byte strings part: (line number, line of a, line of b)."""
    la, lb = a.splitlines(), b.splitlines()
    for i in range(max(len(la), len(lb))):
        x = la[i] if i < len(la) else b"<none>"
        y = lb[i] if i < len(lb) else b"<none>"
        if x != y:
            return i + 1, x[:300], y[:300]
    return None


def check_bytes(got, want, what):
    if got != want:
        d = first_diff(got, want) or (0, b"", b"")
        raise Failed("%s differ (%d vs %d bytes), first at line %s:\n  got  %s\n  want %s"
                     % (what, len(got), len(want), d[0], d[1], d[2]))


# --------------------------------------------------------------------------
# Files and card logs

def file_size(path):
    try:
        return os.path.getsize(path)
    except FileNotFoundError:
        return 0


def log_bytes(path):
    """All of a file (a card log, also a last line not complete yet)."""
    try:
        with open(path, "rb") as f:
            return f.read()
    except FileNotFoundError:
        return b""


def tail_text(text, n):
    return "\n".join(text.splitlines()[-n:])


def heights_of(data, chain):
    """The heights of the lines of a card log (bytes) that begin as
    docs/LOG.md says for this chain ("evm", "bitcoin")."""
    line = (rb'^\{"v":%d,"chain":"' % LOG_VERSION + re.escape(chain.encode())
            + rb'","height":(\d+),')
    return [int(m.group(1)) for m in re.finditer(line, data, re.M)]


def check_heights(data, first, last, what, chain):
    """Every line of the log is a line of this chain and the heights are
    first..last, each exactly once."""
    hs = heights_of(data, chain)
    check(data.count(b"\n") == len(hs), "%s: a line without the expected prefix" % what)
    if hs != list(range(first, last + 1)):
        dup = sorted(h for h, n in collections.Counter(hs).items() if n > 1)
        missing = sorted(set(range(first, last + 1)) - set(hs))
        raise Failed("%s: heights are not %d..%d exactly once: %d lines, duplicates %s, "
                     "missing %s" % (what, first, last, len(hs), dup[:10], missing[:10]))


def summary(data):
    """Counts of what a card log holds: actions by name, rejections (also
    by reason), and the other event types."""
    c = collections.Counter()
    for l in data.splitlines():
        for e in json.loads(l)["events"]:
            t = e["type"]
            if t == "action":
                c[e["action"]] += 1
            elif t == "reject":
                c["reject"] += 1
                c["reject:" + e["reason"]] += 1
            else:
                c[t] += 1
    return c


def fmt_counts(c, keys):
    return " ".join("%s=%d" % (k, c[k]) for k in keys if c[k])


def dumps(x):
    """Compact JSON, as the card log writes it."""
    return json.dumps(x, separators=(",", ":"))


def line_bytes(blk, events, chain):
    """The card log line docs/LOG.md defines for an exported block (its
    "height", "hash", "parent") and these events, compact, keys in its
    order."""
    o = {"v": LOG_VERSION, "chain": chain, "height": blk["height"], "hash": blk["hash"],
         "parent": blk["parent"]}
    c = card_of(blk["hash"])
    if c is None:
        o["void"] = True
    else:
        o["card"] = c
    o["events"] = events
    return json.dumps(o, separators=(",", ":")) + "\n"


# --------------------------------------------------------------------------
# The daemon's process and its stderr

def stderr_size(dm):
    try:
        return os.path.getsize(dm.stderr_path)
    except OSError:
        return 0


def stderr_since(dm, offset):
    """What daemon.Hashjackd dm wrote to its stderr file from byte offset on."""
    try:
        with open(dm.stderr_path, "rb") as f:
            f.seek(offset)
            return f.read().decode("utf-8", "replace")
    except OSError:
        return ""


def error_lines(text):
    """The lines of a daemon's stderr at priority error or worse."""
    return [l for l in text.splitlines() if l.startswith(ERROR_PRIORITIES)]


def wait_log_height(dm, h, timeout=30):
    """Until dm's card log has a line for height h; Failed when the daemon
    exits first or the deadline passes (with the last logged height and
    the end of its stderr)."""
    def done():
        if not dm.running():
            raise Failed("hashjackd exited with %s while waiting for height %d:\n%s"
                         % (dm.proc.returncode, h, tail_text(dm.stderr(), 12)))
        last = last_logged_height(dm.card_log)
        return last is not None and last >= h
    try:
        wait_until(done, timeout, "hashjackd to log height %d" % h)
    except TimeoutError as e:
        raise Failed("%s (last logged %s); stderr:\n%s"
                     % (e, last_logged_height(dm.card_log), tail_text(dm.stderr(), 8)))


def settle_quiet(dm, seconds=0.3):
    """Checks the daemon logs nothing more for a while (it is at the edge)."""
    before = log_bytes(dm.card_log)
    time.sleep(seconds)
    return log_bytes(dm.card_log) == before


def sigterm_measured(dm, limit=2.0):
    """SIGTERM; returns (exit status, seconds until it exited)."""
    t = time.monotonic()
    os.kill(dm.proc.pid, signal.SIGTERM)
    try:
        rc = dm.proc.wait(timeout=limit + 10)
    except subprocess.TimeoutExpired:
        dm.kill9()
        raise Failed("hashjackd still running %.0fs after SIGTERM" % (limit + 10))
    dt = time.monotonic() - t
    dm.stop()   # forget the process (it has exited)
    return rc, dt


def run_tracked(argv, timeout=30):
    """Runs a command to its end (killed at the deadline and at the test's
    own end); returns (status, stdout, stderr)."""
    p = track(subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, start_new_session=True))
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
        untrack(p)
        raise Failed("%s still running after %ss:\n%s"
                     % (" ".join(argv[:3]), timeout, err.decode("utf-8", "replace")[-800:]))
    untrack(p)
    return p.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace")


# --------------------------------------------------------------------------
# The daemon's database

TABLES = ("meta", "cursor", "txs", "rounds", "payouts")


def db_rows(state_dir, scratch, with_file_id=False):
    """The daemon's database as plain rows: meta, cursor, txs, rounds,
    payouts (all [] before the schema exists: a daemon killed while
    creating its database), and the cursor's "height" (None: no cursor)
    and "offset" (0: no cursor).  Read from a copy of the database and its
    WAL (not the -shm: the copy rebuilds it), so that nothing of the
    daemon's files is touched, also after a kill -9."""
    tmp = tempfile.mkdtemp(prefix="db-", dir=scratch)
    try:
        for sfx in ("", "-wal"):
            src = os.path.join(state_dir, "hashjackd.sqlite" + sfx)
            if os.path.exists(src):
                shutil.copyfile(src, os.path.join(tmp, "hashjackd.sqlite" + sfx))
        con = sqlite3.connect(os.path.join(tmp, "hashjackd.sqlite"))
        try:
            cols = "height, hash, log_offset" + (", log_dev, log_ino" if with_file_id else "")
            out = {
                "meta": con.execute("SELECT family, chain, dealer, rules FROM meta").fetchall(),
                "cursor": con.execute("SELECT %s FROM cursor" % cols).fetchall(),
                "txs": con.execute("SELECT * FROM txs ORDER BY txid").fetchall(),
                "rounds": con.execute("SELECT * FROM rounds ORDER BY id").fetchall(),
                "payouts": con.execute("SELECT * FROM payouts ORDER BY id").fetchall(),
            }
        except sqlite3.OperationalError as e:
            if "no such table" not in str(e):
                raise
            out = {k: [] for k in TABLES}
        finally:
            con.close()
        c = out["cursor"][0] if out["cursor"] else None
        out["height"] = None if c is None else (c[0] if c[0] >= 0 else c[0] + 2 ** 64)
        out["offset"] = 0 if c is None else c[2]
        return out
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def check_db_equal(got, want, what):
    for k in TABLES:
        if got[k] != want[k]:
            g, w = set(got[k]), set(want[k])
            raise Failed("%s: table %s differs (%d vs %d rows); only in first: %s; "
                         "only in second: %s" % (what, k, len(got[k]), len(want[k]),
                                                 sorted(map(repr, g - w))[:3],
                                                 sorted(map(repr, w - g))[:3]))


def check_log_matches_cursor(dm, scratch, what):
    """After a clean stop: the log ends exactly at the committed offset and
    its last line is the cursor's block.  Returns db_rows()."""
    r = db_rows(dm.state_dir, scratch)
    check_eq(os.path.getsize(dm.card_log), r["offset"],
             "%s: card log size vs committed log_offset" % what)
    check_eq(last_logged_height(dm.card_log), r["height"],
             "%s: last logged height vs cursor" % what)
    return r


def wait_cursor(dm, h, scratch, timeout=15):
    """Until the daemon's committed cursor is at height h; returns its
    db_rows() (the cursor with the log's dev and inode)."""
    def done():
        r = db_rows(dm.state_dir, scratch, with_file_id=True)
        return r if r["height"] == h else None
    return wait_until(done, timeout, "cursor at %d" % h, interval=0.05)


def reorg_want(dm, fork, first_hashes, unit):
    """The six lines `hashjack reorg -c` must begin with after a
    reorganisation whose fork point is block fork, worked out here apart:
    the events of the card log's lines after it, the payouts those blocks
    created and the open rounds, from the files as the daemon left them;
    first_hashes is (dealt, node's) of block fork + 1."""
    ev = collections.Counter()
    refunds = returns = 0
    heights = []
    with open(dm.card_log) as f:
        for line in f:
            o = json.loads(line)
            if o["height"] <= fork:
                continue
            heights.append(o["height"])
            for e in o["events"]:
                t = e["type"]
                if t == "action":
                    ev["bet" if e["action"] == "Bet" else "action"] += 1
                elif t == "reject":
                    ev["reject"] += 1
                    refunds += int(e.get("refund", "0"))
                elif t in ("settle", "sidebets"):
                    ev["settle"] += 1
                    returns += int(e["payout"])
    db = sqlite3.connect("file:%s?mode=ro" % os.path.join(dm.state_dir, "hashjackd.sqlite"),
                         uri=True)
    try:
        pay = collections.Counter()
        amt = collections.Counter()
        for state, amount in db.execute("SELECT state, amount FROM payouts WHERE "
                                        "created_height > ?", (fork,)):
            pay[state] += 1
            amt[state] += int(amount)
        n_open = db.execute("SELECT count(*) FROM rounds").fetchone()[0]
        late = db.execute("SELECT count(*) FROM rounds WHERE bet_height > ?",
                          (fork,)).fetchone()[0]
    finally:
        db.close()
    return ["reorganisation after block %d: " % fork,
            "  fork point      block %d, " % fork,
            "  left the chain  blocks %d to %d (%d dealt); block %d was dealt as %s, the node "
            "has %s" % (fork + 1, heights[-1], len(heights), fork + 1, first_hashes[0],
                        first_hashes[1]),
            "  their events    %d Bets, %d other actions, %d rejections (refunds %d %s), %d "
            "settlements and side bets (returns %d %s)" % (
                ev["bet"], ev["action"], ev["reject"], refunds, unit, ev["settle"], returns,
                unit),
            "  their payouts   %d owed (%d %s), %d in flight (%d), %d confirmed (%d)" % (
                pay["owed"], amt["owed"], unit, pay["submitted"], amt["submitted"],
                pay["confirmed"], amt["confirmed"]),
            "  open rounds     %d now; %d of them opened after the fork point" % (n_open, late)]


def check_no_reorg(hashjack, dm, h):
    """`hashjack reorg -c` of dm while the node has its blocks: exit 0,
    naming block h, the last dealt."""
    r = subprocess.run([hashjack, "reorg", "-c", dm.conf], capture_output=True, text=True,
                       timeout=60)
    check(r.returncode == 0 and
          r.stdout.startswith("no reorganisation: the node has block %d" % h),
          "hashjack reorg before the reorg: %d %r %r" % (r.returncode, r.stdout, r.stderr))


def check_reorg_report(hashjack, dm, fork, first_hashes, unit):
    """`hashjack reorg -c` of dm after a reorganisation whose fork point is
    block fork: exit 1 and the six lines reorg_want works out.  Returns
    those lines."""
    want = reorg_want(dm, fork, first_hashes, unit)
    r = subprocess.run([hashjack, "reorg", "-c", dm.conf], capture_output=True, text=True,
                       timeout=60)
    lines = r.stdout.splitlines()
    check(r.returncode == 1 and len(lines) == 6 and
          all(ln.startswith(w) for ln, w in zip(lines, want)),
          "hashjack reorg after the fork at block %d: %d\n%s\nwanted lines starting:\n%s"
          % (fork, r.returncode, r.stdout + r.stderr, "\n".join(want)))
    return want


def check_committed_reorg(C, hashjack, reorg):
    """A reorganisation deeper than the confirmations under committed cards
    (docs/OPERATION.md, "Money"), the same on both
    families.  C is a committed-cards case (dm, db(), commits(),
    mine_until(), check_lines(), workdir); reorg(fork, y, ev) replaces the
    blocks after fork by a branch whose block y holds the Commit ev again,
    mines one block more and returns the depth.

    The blocks taken hold a Commit and keyed blocks of two chains.
    hashjackd stops (exit 3); `hashjack reorg` counts the seeds the lines
    that left the chain published and the Commit dealt in them; --rewind
    removes that Commit with its block and keeps the dealer's seed chains.
    Restarted, the daemon deals the new branch: the Commit again, and every
    block whose line had a seed the same seed (a chain's seeds are the same
    on any branch), each card the HMAC of the new block's hash.  The lines
    kept aside, after the log's lines before them, verify up to the fork
    point (exit 3)."""
    if not C.dm.running():
        C.dm.start()
    n0 = len(C.commits())
    C.mine_until(lambda: len(C.commits()) > n0, "a Commit dealt", limit=80)
    y, ev = C.commits()[-1]
    C.mine_until(lambda: C.dm.last_height() >= ev["start"] + 1, "the new chain's second block")
    fork = y - 1
    old = {ln["height"]: ln for ln in C.dm.lines() if ln["height"] > fork}
    seeded = sorted(h for h, ln in old.items() if "seed" in ln)
    check(seeded and seeded[-1] >= ev["start"], "keyed lines above the fork point: %s" % seeded)
    chains = C.db("SELECT id, hex(commitment), start, length, state FROM seed_chains ORDER BY id")
    depth = reorg(fork, y, ev)
    rc = C.dm.wait_exit(20)
    check(rc == 3, "exit status after a reorganisation of depth %d: %s" % (depth, rc))
    rep = subprocess.run([hashjack, "reorg", "-c", C.dm.conf], capture_output=True, text=True,
                         timeout=60)
    want = ("  seeds           %d published with these lines (blocks %d to %d)"
            % (len(seeded), seeded[0], seeded[-1]))
    check(rep.returncode == 1 and "fork point      block %d" % fork in rep.stdout
          and want in rep.stdout and "  Commits         1 dealt in these blocks" in rep.stdout,
          "hashjack reorg: exit %s\n%s%s" % (rep.returncode, rep.stdout, rep.stderr))
    rw = subprocess.run([hashjack, "reorg", "-c", C.dm.conf, "--rewind"], capture_output=True,
                        text=True, timeout=60)
    m = re.search(r"rewound to block (\d+) .*\n.*kept aside in (\S+);", rw.stdout)
    check(rw.returncode == 0 and m and int(m.group(1)) == fork
          and "  Commits         1 removed with their blocks" in rw.stdout,
          "--rewind: exit %s\n%s%s" % (rw.returncode, rw.stdout, rw.stderr))
    check(C.db("SELECT count(*) FROM commits WHERE height > ?", fork) == [(0,)],
          "a Commit above the fork point left in commits")
    check(C.db("SELECT id, hex(commitment), start, length, state FROM seed_chains ORDER BY id")
          == chains, "seed_chains changed by the rewind")
    C.dm.start()
    top = max(old)
    C.mine_until(lambda: C.dm.last_height() >= top + 1, "the new branch dealt past the old")
    new = {ln["height"]: ln for ln in C.dm.lines() if ln["height"] > fork}
    again = [(h, e["commitment"]) for h, e in C.commits() if h > fork]
    check(again == [(y, ev["commitment"])], "the Commit dealt again in block %d: %s" % (y, again))
    diff = [h for h in seeded if new[h].get("seed") != old[h]["seed"]
            or new[h]["hash"] == old[h]["hash"]]
    check(not diff, "blocks whose new line has another seed, or the same hash: %s" % diff)
    keyed = C.check_lines()
    check(C.db("SELECT state FROM seed_chains WHERE lower(hex(commitment)) = ?",
               ev["commitment"].lower()) == [("dealt",)], "the chain not dealt")
    # The lines aside begin within a chain: verified after the log's lines
    # before them (docs/VERIFY.md, "A log after a reorganisation").
    joined = os.path.join(C.workdir, "before-rewind.jsonl")
    with open(joined, "wb") as out:
        subprocess.run(["sed", '/"height":%d,/,$d' % (fork + 1), C.dm.card_log], stdout=out,
                       check=True)
        with open(m.group(2), "rb") as f:
            out.write(f.read())
    vrc, vout, verr = verify(hashjack, C.dm.conf, joined)
    check(vrc == 3 and ("both after block %d: the log leaves your node's chain there" % fork)
          in vout, "verify on the log with the lines kept aside: exit %s\n%s%s"
          % (vrc, vout[-600:], verr[-300:]))
    return ("fork point %d, depth %d: %d seeds of the old lines dealt again on new blocks; "
            "%d keyed lines check" % (fork, depth, len(seeded), keyed))


def hexcol(c):
    """A BLOB column as lower-case hex, NULL kept (hex(NULL) is '')."""
    return "CASE WHEN %s IS NULL THEN NULL ELSE lower(hex(%s)) END" % (c, c)


# --------------------------------------------------------------------------
# The fault tests' checks: kill -9 sessions, reorganisations, node down

class Kills:
    """kill -9 of a daemon T again and again (restart() after each), each
    checked: T was still running; the phase it was in, from what it logged
    since its last start (following, catch-up, startup); its restart
    resumed exactly at the commit of the kill before (height, log offset),
    when it said so; no error logged; its card log never shorter than the
    committed offset (torn: longer, lines beyond the commit).  size0: the
    committed offset at the last kill."""

    RESUMED = re.compile(r"resuming after block (\d+), \d+ open rounds, card log at (\d+) bytes")

    def __init__(self, T, scratch):
        self.T = T
        self.scratch = scratch
        self.kills = []
        self.phases = collections.Counter()
        self.torn = 0
        self.resumes_checked = 0
        self.expect_resume = None      # (height, offset) committed at the last kill
        self.t_off = 0                 # T's stderr size at its last start
        self.size0 = 0

    def kill(self):
        T = self.T
        run_err = stderr_since(T, self.t_off)
        if not T.running():
            raise Failed("T exited by itself with %s:\n%s"
                         % (T.proc.returncode, tail_text(run_err, 8)))
        T.kill9()
        run_err = stderr_since(T, self.t_off)
        ph = ("following" if "caught up" in run_err else
              "catch-up" if ("resuming " in run_err or "first start" in run_err)
              else "startup")
        self.phases[ph] += 1
        self.kills.append(ph)
        if self.expect_resume is not None:
            self._check_resume(run_err, "kill %d" % len(self.kills))
        bad = error_lines(run_err)
        check(not bad, "T logged an error: %s" % bad[:3])
        r = db_rows(T.state_dir, self.scratch)
        size = file_size(T.card_log)
        check(size >= r["offset"], "kill %d: card log %d bytes, shorter than the committed %d"
              % (len(self.kills), size, r["offset"]))
        if size > r["offset"]:
            self.torn += 1
        self.expect_resume = (r["height"], r["offset"])
        self.size0 = r["offset"]

    def restart(self):
        self.t_off = stderr_size(self.T)
        self.T.start()

    def check_last_resume(self):
        """The last restart (T running to the end) resumed at the commit."""
        self._check_resume(stderr_since(self.T, self.t_off), "last restart")

    def _check_resume(self, err, what):
        m = self.RESUMED.search(err)
        if m:
            check_eq((int(m.group(1)), int(m.group(2))), self.expect_resume,
                     "%s: resumed at (height, log offset) vs the commit" % what)
            self.resumes_checked += 1

    def describe(self):
        return ("%d kills (%s), %d left lines beyond the commit, %d restarts checked to "
                "resume at the commit" % (
                    len(self.kills), ", ".join("%s %d" % kv for kv in sorted(self.phases.items())),
                    self.torn, self.resumes_checked))

    def check_count(self):
        check(len(self.kills) >= 20, "only %d kills before the deadline (a hang?)" % len(self.kills))
        check(self.phases["catch-up"] >= 5, "only %d kills during catch-up (%s)"
              % (self.phases["catch-up"], dict(self.phases)))


def check_as_uninterrupted(T, R, first, last, replay, scratch, chain):
    """The end of a kill -9 session: daemon T (killed again and again) and
    R (uninterrupted, same chain) exit 0 on SIGTERM; T's card log holds
    first..last once each and equals R's and replay() (`hashjack replay`
    of the blocks); the databases hold the same rows; neither logged an
    error.  Returns (T's log, T's db_rows)."""
    check_eq(T.stop(), 0, "T exit status on SIGTERM")
    check_eq(R.stop(), 0, "R exit status on SIGTERM")
    t_data, r_data = log_bytes(T.card_log), log_bytes(R.card_log)
    check_heights(t_data, first, last, "T's card log", chain)
    check_bytes(t_data, r_data, "card logs of the killed and the uninterrupted daemon")
    check_bytes(t_data, replay(), "T's card log vs replay")
    t_db, r_db = db_rows(T.state_dir, scratch), db_rows(R.state_dir, scratch)
    check_db_equal(t_db, r_db, "databases of the killed and the uninterrupted daemon")
    for name, dm in (("T", T), ("R", R)):
        bad = error_lines(dm.stderr())
        check(not bad, "%s logged errors: %s" % (name, bad[:3]))
    return t_data, t_db


def check_reorg_refused(dm, tip, hashes, before, log_before, scratch):
    """After dm exited 3 on a reorganisation that replaced block tip - 1
    (hashes: its old and new hash): one message at priority error naming
    tip, tip - 1 and both hashes; card log and database rows (before:
    db_rows() with the file id) unchanged; a restart exits 3 again, still
    unchanged.  Returns the message."""
    old_h, new_h = hashes
    err = [l for l in dm.stderr().splitlines() if "reorganisation" in l]
    check(len(err) == 1, "one reorganisation message: %s" % err)
    msg = err[0]
    for want in (str(tip), str(tip - 1), old_h, new_h):
        check(want in msg, "message lacks %s: %s" % (want, msg))
    check(msg.startswith("<3>"), "message priority: %s" % msg)
    check_bytes(log_bytes(dm.card_log), log_before, "card log after exit 3")
    check_db_equal(db_rows(dm.state_dir, scratch, with_file_id=True), before,
                   "database after exit 3")
    dm.start()
    try:
        rc2 = dm.wait_exit(10)
    except TimeoutError:
        raise Failed("hashjackd restarted after the reorg keeps running")
    dm.stop()
    check_eq(rc2, 3, "exit status of a restart after the reorg")
    check_bytes(log_bytes(dm.card_log), log_before, "card log after the restart")
    check_db_equal(db_rows(dm.state_dir, scratch, with_file_id=True), before,
                   "database after the restart")
    return msg


def check_retries(dm, off, timeout=40):
    """The retries daemon dm logged (its stderr from byte off) while its
    node was down, once it answers again (docs/OPERATION.md, "A hosted
    endpoint's limits"): a failed attempt said in full (at info, or
    warning from its third attempt) when its cause was not said in the
    minute, the others counted (a summary line per cause and minute at
    most), and "node: answering again, after N failed attempts" (N >= 3)
    at notice.  Returns the retry lines."""
    wait_until(lambda: "node: answering again" in stderr_since(dm, off), timeout,
               "hashjackd to say its node answers again")
    err = stderr_since(dm, off)
    lines = err.splitlines()
    retries = [l for l in lines if "retrying in" in l]
    summaries = [l for l in lines if re.search(r"node: \d+ more retr", l)]
    back = [l for l in lines if "node: answering again" in l]
    check(all(l.startswith(("<6>", "<4>")) for l in retries),
          "retries said at priority info or warning: %s" % retries[:3])
    m = re.search(r"after (\d+) failed attempts? in ([0-9.]+) s", back[0])
    check(m is not None and int(m.group(1)) >= 3 and back[0].startswith("<5>"),
          "the node's return said at notice with its failed attempts: %s" % back[0])
    minutes = 1 + int(float(m.group(2)) // 60)
    check(len(retries) + len(summaries) <= 2 * 9 * minutes,
          "retries summarised (at most a line and a summary per cause and minute): "
          "%d lines in %s s" % (len(retries) + len(summaries), m.group(2)))
    return retries


# --------------------------------------------------------------------------
# Running cases, the work directory

class WorkDir:
    """A temporary directory for a test run, removed at the end, also when
    a signal or the overall deadline ends the run, unless keep (--keep) or
    a check failed; close() says when it is kept."""

    def __init__(self, prefix, keep=False):
        self.path = tempfile.mkdtemp(prefix=prefix)
        self.keep = keep
        add_exit_hook(self._remove)

    def _remove(self):
        if not self.keep:
            shutil.rmtree(self.path, ignore_errors=True)

    def close(self, failed):
        if failed:
            self.keep = True
        if self.keep:
            print("work directory kept: %s" % self.path)
        else:
            shutil.rmtree(self.path, ignore_errors=True)


class Cases:
    """Runs test cases (functions case_NAME(ctx) returning a one-line
    detail) and counts them: one line each, "ok", "skip" (Skipped) or
    "FAIL" (with a traceback unless it is a Failed), the name padded to
    width."""

    def __init__(self, width):
        self.width = width
        self.passed = self.failed = self.skipped = 0

    def run(self, ctx, cases, only=(), after_each=None):
        """Each case whose name (less "case_") contains one of only (all
        when empty); after_each() after each (e.g. procs.kill_children)."""
        w = self.width
        for case in cases:
            name = case.__name__[len("case_"):]
            if only and not any(k in name for k in only):
                continue
            t = time.monotonic()
            try:
                detail = case(ctx)
                self.passed += 1
                print("ok   %-*s %5.1fs  %s" % (w, name, time.monotonic() - t, detail or ""),
                      flush=True)
            except Skipped as e:
                self.skipped += 1
                print("skip %-*s        %s" % (w, name, e), flush=True)
            except Exception as e:  # noqa: BLE001 - report and go on
                self.failed += 1
                print("FAIL %-*s %5.1fs  %s" % (w, name, time.monotonic() - t, e), flush=True)
                if not isinstance(e, Failed):
                    traceback.print_exc()
            finally:
                if after_each:
                    after_each()


class PayoutRunner:
    """What the payout tests' runners share: the tools (--hashjack,
    --hashjackd), rng (random.Random(--seed)), one line per check ("ok" or
    "FAIL", the name padded to WIDTH, the detail) counted in passed and
    failed, and close(): the proxies and sessions appended to it, each
    closed even when another fails, then forgotten."""

    WIDTH = 62

    def __init__(self, args, workdir):
        self.args = args
        self.workdir = workdir
        self.hashjack = find_hashjack(args.hashjack)
        self.hashjackd = find_hashjackd(args.hashjackd)
        self.rng = random.Random(args.seed)
        self.passed = self.failed = 0
        self.sessions = []
        self.proxies = []

    def report(self, ok, name, detail=""):
        if ok:
            self.passed += 1
        else:
            self.failed += 1
        print("%s %-*s %s" % ("ok  " if ok else "FAIL", self.WIDTH, name, detail), flush=True)

    def close(self):
        for x in self.proxies + self.sessions:
            try:
                x.close()
            except Exception:  # noqa: BLE001
                traceback.print_exc()
        self.proxies, self.sessions = [], []


def game_args(doc, timeout, add=None):
    """The command line every game suite takes (--hashjack, --hashjackd,
    -k NAME, --keep, --timeout S), plus what add(parser) adds; parses it,
    installs the cleanup with the run's deadline and returns the args."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--hashjack", help="the hashjack tool (default build/release/hashjack)")
    ap.add_argument("--hashjackd", help="hashjackd (default build/release/hashjackd)")
    ap.add_argument("-k", dest="only", action="append", default=[],
                    help="only scenarios whose name contains this (repeatable)")
    ap.add_argument("--keep", action="store_true", help="keep the work directory")
    ap.add_argument("--timeout", type=int, default=timeout,
                    help="deadline for the whole run in seconds (default %d)" % timeout)
    if add:
        add(ap)
    args = ap.parse_args()
    install_cleanup(args.timeout)
    return args


def payout_args(doc, only, timeout):
    """The payout tests' command line: --hashjack, --hashjackd, -k (only:
    what it selects), --kills, --seed (default: a random one), --keep,
    --timeout (this default)."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--hashjack", help="the hashjack tool (default build/release/hashjack)")
    ap.add_argument("--hashjackd", help="hashjackd (default build/release/hashjackd)")
    ap.add_argument("-k", dest="only", action="append", default=[], help=only)
    ap.add_argument("--kills", type=int, default=30, help="kill -9 rounds (default 30)")
    ap.add_argument("--seed", type=int, default=None, help="random seed (default: random)")
    ap.add_argument("--keep", action="store_true", help="keep the work directory")
    ap.add_argument("--timeout", type=int, default=timeout,
                    help="deadline for the whole run in seconds (default %d)" % timeout)
    args = ap.parse_args()
    if args.seed is None:
        args.seed = random.randrange(1 << 30)
    return args


def fault_main(doc, cases, prefix, width, timeout, make_ctx, check_tools=None,
               after_each=None):
    """main() of the fault tests: the command line (--hashjack, --hashjackd,
    -k, --keep, --seed, --timeout with this default), the work directory
    (prefix), make_ctx(hashjack, hashjackd, workdir, seed), each case with
    every process killed after it; "N passed, M failed" with the seed.
    check_tools(): a clear message early when the node is missing.
    after_each(ctx): what ends a case instead (a suite whose node lives
    from case to case).  Returns the exit status."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--hashjack", help="path to hashjack (default build/release/hashjack)")
    ap.add_argument("--hashjackd", help="path to hashjackd (default build/release/hashjackd)")
    ap.add_argument("-k", dest="only", action="append", default=[],
                    help="run only cases whose name contains this (repeatable)")
    ap.add_argument("--keep", action="store_true", help="keep the work directory")
    ap.add_argument("--seed", type=int, default=None, help="random seed (default: from time)")
    ap.add_argument("--timeout", type=int, default=timeout,
                    help="deadline for the whole run (s)")
    args = ap.parse_args()
    install_cleanup(args.timeout)
    if check_tools:
        check_tools()
    hashjack = find_hashjack(args.hashjack)
    hashjackd = find_hashjackd(args.hashjackd)
    seed = args.seed if args.seed is not None else int(time.time()) % 100000
    wd = WorkDir(prefix, args.keep)
    ctx = make_ctx(hashjack, hashjackd, wd.path, seed)
    print("seed %d" % seed, flush=True)
    res = Cases(width)
    t_all = time.monotonic()
    try:
        res.run(ctx, cases, args.only,
                after_each=(lambda: after_each(ctx)) if after_each else kill_children)
    finally:
        kill_children()
        wd.close(res.failed)
    print("%d passed, %d failed (%.0fs, seed %d)" % (res.passed, res.failed,
                                                     time.monotonic() - t_all, seed))
    return 1 if res.failed else 0


# --------------------------------------------------------------------------
# Cards and totals

def card_value(code):
    r = code[:-1]
    return 1 if r == "A" else 10 if r in ("10", "J", "Q", "K") else int(r)


def hand_total(codes):
    """(total, soft): an Ace counts 11 when that does not bust (soft)."""
    t = sum(card_value(c) for c in codes)
    if any(c[:-1] == "A" for c in codes) and t + 10 <= 21:
        return t + 10, True
    return t, False


def best_total(codes):
    """The log's total: an Ace counts 11 when that does not bust."""
    return hand_total(codes)[0]


def bj(s, n=6, d=5):
    """Blackjack return: stake + floor(stake * n / d); bethash's 6:5 by
    default."""
    return s + (s * n) // d


def makes_bj(up, card):
    """Whether card behind the dealer's up card makes a blackjack."""
    return sorted((card_value(up), card_value(card))) == [1, 10]


# --------------------------------------------------------------------------
# Side bets (docs/PROTOCOL.md section 7.2), worked out here from the cards
# so that a scenario that grinds the wrong card breaks instead of expecting
# a wrong result.

_ORDER = {"A": 1, "J": 11, "Q": 12, "K": 13}
PP_STATUSES = ("perfectPair", "colouredPair", "mixedPair")
T3_STATUSES = ("suitedTrips", "straightFlush", "threeOfAKind", "straight", "flush")


def _rank_suit(code):
    r = code[:-1]
    return _ORDER.get(r) or int(r), code[-1]


def perfect_pairs(a, b):
    """Perfect Pairs of the player's first two cards (codes)."""
    (ra, sa), (rb, sb) = _rank_suit(a), _rank_suit(b)
    if ra != rb:
        return "sidebetLost"
    if sa == sb:
        return "perfectPair"
    black = ("C", "S")
    return "colouredPair" if (sa in black) == (sb in black) else "mixedPair"


def twenty_one_plus_three(a, b, up):
    """21+3 of the player's first two cards and the dealer's up card: the
    first matching row of docs/PROTOCOL.md section 7.2's table (the Ace high
    or low)."""
    cs = [_rank_suit(c) for c in (a, b, up)]
    ranks = sorted(r for r, _ in cs)
    suited = len({s for _, s in cs}) == 1
    trips = len(set(ranks)) == 1
    run = (ranks[0] + 1 == ranks[1] and ranks[1] + 1 == ranks[2]) or ranks == [1, 12, 13]
    if trips:
        return "suitedTrips" if suited else "threeOfAKind"
    if run:
        return "straightFlush" if suited else "straight"
    return "flush" if suited else "sidebetLost"


# --------------------------------------------------------------------------
# The game tests' expectation model

class Tx:
    """A transaction of a scenario: txid as the log writes it, value (paid
    to the dealer), payload (the action's data, None for none), sender (the
    log's "from": an EVM address, the Bitcoin family's Bet key P, or None);
    h and idx (block and position) once mined."""

    def __init__(self, txid, value, payload, sender=None):
        self.txid = txid
        self.value = value
        self.payload = payload
        self.sender = sender
        self.h = None
        self.idx = None


class Blk:
    def __init__(self, h, hash, card):
        self.h = h
        self.hash = hash
        self.card = card
        self.code = card["code"] if card else None


class Round:
    """Tracks the cards and stakes of one round (what the settle event
    repeats) and writes its expected events and rows into the session S;
    results and returns are written by each scenario from the rules.  It
    refuses what the protocol cannot give (a peek card whose verdict is not
    the scenario's, a skip that is no skip, a dealer's second card after a
    clear peek that would have been skipped): a scenario that grinds the
    wrong card breaks instead of writing down a wrong expectation.
    player: the log's "player" (an EVM address, the Bitcoin family's key
    P)."""

    def __init__(self, S, player, tx, stake, pp=None, t3=None):
        self.S = S
        self.player = player
        self.tx = tx
        self.id = tx.txid
        self.bet = stake            # the main stake
        self.pp = pp or 0           # side stakes (the Bet's value adds them)
        self.t3 = t3 or 0
        self.hands = [{"cards": [], "stake": stake}]
        self.dealer = []
        self.ins = None
        self.peek_clear = False     # a peek found no blackjack (set aside)
        S.round_key[self.id] = player

    def accepted_bet(self):
        t = self.tx
        if t.value != self.bet + self.pp + self.t3:
            raise Failed("Bet of %d for a stake of %d and sides %d, %d"
                         % (t.value, self.bet, self.pp, self.t3))
        e = {"type": "action", "action": "Bet", "round": self.id, "player": self.player,
             "tx": t.txid, "txIndex": t.idx, "stake": str(self.bet)}
        if self.pp:
            e["perfectPairs"] = str(self.pp)
        if self.t3:
            e["poker"] = str(self.t3)
        self.S.add(t.h, e)
        self.S.txrow(t, "accepted", "Bet", None, self.id)

    def draw(self, b, hand):
        if b.code is None:
            raise Failed("draw from void block %d" % b.h)
        if hand == "D":
            if self.second_due() and makes_bj(self.dealer[0], b.code):
                raise Failed("block %d: %s behind the dealer's %s after a clear peek is "
                             "skipped, not drawn" % (b.h, b.code, self.dealer[0]))
            self.dealer.append(b.code)
            e = {"type": "draw", "round": self.id, "handOwner": "Dealer", "card": b.code}
        else:
            self.hands[hand]["cards"].append(b.code)
            e = {"type": "draw", "round": self.id, "handOwner": "Player",
                 "handIndex": hand, "card": b.code}
        self.S.add(b.h, e)

    def second_due(self):
        """The dealer's second card, after a peek that found no blackjack,
        is still to come: a block whose card would make a blackjack is
        skipped for it (docs/PROTOCOL.md section 4.7)."""
        return self.peek_clear and len(self.dealer) == 1

    def peek(self, b, dbj):
        """The peek card at b (the block after a Peek, or after its default
        by timeout; under peek = ace_ten also X+4 by itself behind a
        10-valued up card): dbj says whether it makes a dealer blackjack
        with the up card, as the scenario wants it (a card that says
        otherwise is a broken scenario).  With a blackjack it is the
        dealer's second card (the settle shows it); else it is set aside,
        never the dealer's, and the dealer's second card comes in dealer
        play (draw(), skip())."""
        if b.code is None:
            raise Failed("peek card from void block %d" % b.h)
        if len(self.dealer) != 1 or card_value(self.dealer[0]) not in (1, 10) \
                or self.peek_clear:
            raise Failed("block %d: no peek is due (dealer %s)" % (b.h, self.dealer))
        if makes_bj(self.dealer[0], b.code) != dbj:
            raise Failed("block %d: peek card %s %s a blackjack" % (
                b.h, b.code, "is not" if dbj else "makes"))
        if dbj:
            self.dealer.append(b.code)
        else:
            self.peek_clear = True
        self.S.add(b.h, {"type": "peek", "round": self.id, "card": b.code,
                         "dealerBlackjack": dbj})

    def skip(self, b):
        """b's card would give the dealer a blackjack behind its Ace after a
        clear peek: skipped for the dealer's second card (for this round
        only; any other round still takes the card)."""
        if b.code is None:
            raise Failed("skip of void block %d (a void block has no event)" % b.h)
        if not self.second_due() or not makes_bj(self.dealer[0], b.code):
            raise Failed("block %d: %s is no skip (dealer %s, clear peek %s)"
                         % (b.h, b.code, self.dealer, self.peek_clear))
        self.S.add(b.h, {"type": "skip", "round": self.id, "card": b.code})

    def sidebets(self, b, pp=None, t3=None):
        """The side bets settled with the third card at b (right after its
        draw): pp and t3 are the statuses the scenario wants (docs/LOG.md,
        "sidebets": its words, "sidebetLost" included), each checked
        against the cards; the returns come from the session's paytables
        (S.PP_PAYS, S.T3_PAYS)."""
        cards = self.hands[0]["cards"]
        if len(cards) != 2 or len(self.dealer) != 1:
            raise Failed("block %d: side bets before the third card" % b.h)
        e = {"type": "sidebets", "round": self.id, "player": self.player}
        paid = 0
        for key, stake, want, got, names, pays in (
                ("perfectPairs", self.pp, pp, perfect_pairs(*cards), PP_STATUSES,
                 self.S.PP_PAYS),
                ("poker", self.t3, t3, twenty_one_plus_three(cards[0], cards[1],
                                                            self.dealer[0]),
                 T3_STATUSES, self.S.T3_PAYS)):
            if not stake:
                if want is not None:
                    raise Failed("%s wanted without a stake" % key)
                continue
            if got != want:
                raise Failed("block %d: %s of %s up %s is %s, not %s" % (
                    b.h, key, cards, self.dealer[0], got, want))
            ret = 0 if got == "sidebetLost" else stake + stake * pays[names.index(got)]
            e[key] = {"betAmount": str(stake), "status": got, "payout": str(ret)}
            paid += ret
        if not self.pp and not self.t3:
            raise Failed("sidebets of a round without side stakes")
        e["betAmount"] = str(self.pp + self.t3)
        e["payout"] = str(paid)
        self.S.add(b.h, e)
        return paid

    def act(self, t, action, hand=None, insurance=None):
        e = {"type": "action", "action": action, "round": self.id,
             "player": self.player, "tx": t.txid, "txIndex": t.idx}
        if hand is not None:
            e["handIndex"] = hand
        if insurance is not None:
            e["insurance"] = insurance
        e["stake"] = str(t.value)
        self.S.add(t.h, e)
        self.S.txrow(t, "accepted", action, None, self.id)
        if action == "Double":
            self.hands[hand]["stake"] += t.value
        elif action == "Split":
            h = self.hands[hand]
            new = {"cards": [h["cards"][1]], "stake": t.value}
            h["cards"] = h["cards"][:1]
            self.hands.insert(hand + 1, new)
        elif action == "Peek" and insurance:
            self.ins = t.value

    def timeout(self, b, action, hand=None):
        e = {"type": "timeout", "round": self.id, "action": action}
        if hand is not None:
            e["handIndex"] = hand
        self.S.add(b.h, e)

    def settle(self, b, results, ins_payout=None):
        """results: [(status, return)] for hand 0, 1, ..."""
        if len(results) != len(self.hands):
            raise Failed("settle: %d results for %d hands" % (len(results), len(self.hands)))
        hands = []
        stake = paid = 0
        for i, (h, (status, ret)) in enumerate(zip(self.hands, results)):
            hands.append({"handIndex": i, "cards": list(h["cards"]),
                          "total": best_total(h["cards"]), "betAmount": str(h["stake"]),
                          "status": status, "payout": str(ret)})
            stake += h["stake"]
            paid += ret
        e = {"type": "settle", "round": self.id, "player": self.player,
             "dealerHand": {"cards": list(self.dealer), "total": best_total(self.dealer)},
             "playerHands": hands}
        if self.ins is not None:
            e["insurance"] = {"betAmount": str(self.ins), "payout": str(ins_payout or 0)}
            stake += self.ins
            paid += ins_payout or 0
        e["betAmount"] = str(stake)
        e["payout"] = str(paid)
        self.S.add(b.h, e)
        return paid


class EvmRound(Round):
    """A Round of EVM: its player (self.who, an evm_node.Account; the log's
    "player" is its address) sends each action from its account with the
    action's calldata (evm_node.PAYLOADS); nothing is signed, so a seq means
    nothing here.  The session gives send(who, payload, value)."""

    def __init__(self, S, player, tx, stake, pp=None, t3=None):
        super().__init__(S, player.address, tx, stake, pp, t3)
        self.who = player

    def payload(self, action, insurance=None):
        """The action's calldata (hex, "0x")."""
        return PAYLOADS["PeekInsured" if action == "Peek" and insurance else action]

    def send(self, action, value=0, seq=None, insurance=None, extra=()):
        """An action of this round from the player's account.  seq is the
        Bitcoin family's (see SignedRound.send) and is not used; extra
        must be empty (a transaction pays one address)."""
        if extra:
            raise Failed("an EVM transaction pays one address: extra %s" % (extra,))
        return self.S.send(self.who, self.payload(action, insurance), value)


class PlayerTool:
    """`hashjack player` for a session of the Bitcoin family (self.hashjack:
    the tool; self.genesis: the chain's genesis hash): tool(*args), its
    stdout (Failed when it fails), and sign(), what SignedRound asks of its
    session."""

    def tool(self, *args):
        r = subprocess.run([self.hashjack, "player"] + list(args), stdin=subprocess.DEVNULL,
                           capture_output=True, text=True, timeout=30)
        if r.returncode != 0:
            raise Failed("hashjack player %s: exit %d: %s"
                         % (args[0], r.returncode, r.stderr.strip()))
        return r.stdout

    def sign(self, player, action, round_id, seq, insurance=None, genesis=None):
        """The payload of round_id's action signed by player at seq (over
        genesis, by default the chain's)."""
        args = [action.lower(), "--key", player.key, "--genesis", genesis or self.genesis,
                "--round", round_id, "--seq", str(seq)]
        if action == "Peek":
            args += ["--insurance", "yes" if insurance else "no"]
        p = self.tool(*args).strip()
        want = 77 if action == "Peek" else 76
        if len(p) != 2 * want:
            raise Failed("hashjack player %s printed %d bytes" % (action.lower(), len(p) // 2))
        return p


class SignedRound(Round):
    """A Round of the Bitcoin family: its player (self.who, with .P, .key,
    .wallet; the log's "player" is its key P) signs each action at the
    round's seq, the count of its accepted or timed-out actions (act() and
    timeout() move it).  The session gives sign(player, action, round id,
    seq, insurance, genesis) (PlayerTool's) and send(who, payload, value,
    extra)."""

    def __init__(self, S, player, tx, stake, pp=None, t3=None):
        super().__init__(S, player.P, tx, stake, pp, t3)
        self.who = player
        self.seq = 0

    # -- sending ------------------------------------------------------------

    def sign(self, action, seq=None, insurance=None, signer=None, genesis=None):
        """The payload `hashjack player` prints for this round."""
        return self.S.sign(signer or self.who, action, self.id,
                           self.seq if seq is None else seq, insurance, genesis)

    def payload(self, action, insurance=None):
        """The action's payload, signed at the round's seq now (what
        EvmRound.payload is on EVM)."""
        return self.sign(action, insurance=insurance)

    def send(self, action, value=0, seq=None, insurance=None, signer=None, genesis=None,
             extra=(), mutate=None):
        """An action of this round, signed at seq (default: the round's seq
        now), from the player's wallet.  value: an int, or a list (the value
        split over that many outputs to the dealer)."""
        p = self.sign(action, seq, insurance, signer, genesis)
        if mutate:
            p = mutate(p)
        return self.S.send(self.who, p, value, extra)

    # -- expectations (an accepted action or a timeout moves the seq) --------

    def act(self, t, action, hand=None, insurance=None):
        super().act(t, action, hand, insurance)
        self.seq += 1

    def timeout(self, b, action, hand=None):
        super().timeout(b, action, hand)
        self.seq += 1


class SessionModel:
    """What a game session expects: the events of each height (exp) and the
    rows of the transactions table (rows), written by the scenarios through
    Round, rej(), rej_unpaid() and the family's own dep(); expected_payouts()
    is the ledger they imply.  A family's Session derives from it and sets
    HEX_PREFIX: what the log writes before a hash, an address or a key and
    the database's BLOB columns do not hold ("0x" on EVM), and SEES_UNPAID
    (below)."""

    HEX_PREFIX = ""

    # Whether a transaction that pays the dealer nothing and names none of
    # its open rounds is seen: on EVM every transaction to the dealer
    # address is; on the Bitcoin family it is not the dealer's business
    # and gives no event (docs/BITCOIN.md).
    SEES_UNPAID = True

    # blackjack_pays of each preset (docs/PROTOCOL.md section 7.1), as (N, D)
    PRESET_BJ = {"bethash": (6, 5), "annakai": (3, 2), "cryptogames": (6, 5)}

    def __init__(self, ctx, name, preset=None, rules=None):
        self.ctx = ctx
        self.name = name
        # The dealer's rule set: preset (None: bethash, written nowhere) and
        # rule keys over it, as text ({"perfect_pairs": "25,12,5"}); the
        # same go to the daemon's [rules] and to the replay document.
        self.preset = preset
        self.rule_keys = dict(rules or {})
        n, d = self.PRESET_BJ[preset or "bethash"]
        if "blackjack_pays" in self.rule_keys:
            n, d = (int(x) for x in self.rule_keys["blackjack_pays"].split(":"))
        self.BJ = (n, d)
        self.PP_PAYS = self._pays("perfect_pairs")
        self.T3_PAYS = self._pays("twenty_one_plus_three")
        self.workdir = os.path.join(ctx.workdir, name)
        self.pending = []
        self.exp = collections.defaultdict(list)   # height -> [events]
        self.rows = {}                             # txid -> expected txs row
        self.round_key = {}                        # round id -> the round's player

    def _pays(self, key):
        v = self.rule_keys.get(key, "off")
        return None if v == "off" else tuple(int(x) for x in v.split(","))

    def bj(self, s):
        """A natural's return under this session's blackjack_pays."""
        return bj(s, *self.BJ)

    def db_hex(self, x):
        """A hash, address or key of the log as the database's hex() gives
        it (None stays None)."""
        return None if x is None else x[len(self.HEX_PREFIX):]

    def at(self, t):
        """The block that holds transaction t (for events after it)."""
        return Blk(t.h, None, None)

    def add(self, h, e):
        self.exp[h].append(e)

    def txrow(self, t, outcome, action, reason, round_id):
        u = self.db_hex
        self.rows[t.txid] = (u(t.txid), t.h, t.idx, u(t.sender), str(t.value), outcome,
                             action, reason, u(round_id))

    def table(self, who, first, up, second):
        """One Bet each by who (players), in one block; the three cards of
        the deal (the same for all).  Returns the rounds."""
        rs = [self.bet(p, self.stake()) for p in who]
        self.mine()
        for r in rs:
            r.accepted_bet()
        for want, hand in ((first, 0), (up, "D"), (second, 0)):
            b = self.mine(want)
            for r in rs:
                r.draw(b, hand)
        return rs

    def mine_n(self, k):
        """k blocks without transactions."""
        if self.pending:
            raise Failed("mine_n with transactions pending")
        for _ in range(k):
            self.mine()

    def rej_unpaid(self, t, reason, action):
        """t pays the dealer nothing and names no open round: rejected for
        reason (no round named, nothing owed) where such a transaction is
        seen (SEES_UNPAID), else no event and no row."""
        if t.value != 0:
            raise Failed("rej_unpaid of a transaction paying %d" % t.value)
        if self.SEES_UNPAID:
            self.rej(t, reason, action)

    def rej(self, t, reason, action=None, r=None):
        e = {"type": "reject", "tx": t.txid, "txIndex": t.idx}
        if t.sender:
            e["from"] = t.sender
        if action is not None:
            e["action"] = action
        if r is not None:
            e["round"] = r.id
        e["reason"] = reason
        e["refund"] = str(t.value)
        self.add(t.h, e)
        self.txrow(t, "rejected", action, reason, r.id if r else None)

    def expected_payouts(self):
        """The ledger the expected events imply (docs/STATE.md, payouts):
        a refund goes to the rejection's "from" (on EVM every rejection has
        one; on the Bitcoin family a rejected Bet's key), else to the named
        round's player, else to nobody known (NULL)."""
        u = self.db_hex
        out = {}
        for h, evs in self.exp.items():
            for e in evs:
                if e["type"] == "reject" and e["refund"] != "0":
                    tx = u(e["tx"])
                    to = e.get("from") or (self.round_key[e["round"]] if "round" in e else None)
                    out["refund:" + tx] = ("refund:" + tx, "refund", u(e.get("round")), None,
                                           tx, u(to), e["refund"], "owed", h)
                elif e["type"] == "settle":
                    rid = u(e["round"])
                    for hand in e["playerHands"]:
                        if hand["payout"] != "0":
                            pid = "return:%s:%d" % (rid, hand["handIndex"])
                            out[pid] = (pid, "return", rid, hand["handIndex"], None,
                                        u(e["player"]), hand["payout"], "owed", h)
                    ins = e.get("insurance")
                    if ins and ins["payout"] != "0":
                        pid = "insurance:" + rid
                        out[pid] = (pid, "insurance", rid, None, None, u(e["player"]),
                                    ins["payout"], "owed", h)
                elif e["type"] == "sidebets":
                    rid = u(e["round"])
                    for key, name in (("perfectPairs", "perfectpairs"), ("poker", "poker")):
                        if key in e and e[key]["payout"] != "0":
                            pid = "sidebet:%s:%s" % (rid, name)
                            out[pid] = (pid, "sidebet", rid, None, None, u(e["player"]),
                                        e[key]["payout"], "owed", h)
        return out


class LitecoindBlocks:
    """What GameRunner asks of a session on one litecoind (self.node, an
    btc_node.Litecoind; the session's own mine() makes a checked block):
    height(), mine_plain() and mine_leftovers()."""

    def height(self):
        return self.node.height()

    def mine_plain(self):
        self.node.mine(1)

    def mine_leftovers(self):
        if self.node.mempool():
            self.node.mine(1)


class GameRunner:
    """Plays the scenarios of a game test in sessions and checks each
    session at its end, one line per check ("ok" / "FAIL"): every line of
    the card log byte for byte against the model, the log against `hashjack
    replay` of the blocks exported from the node, the database against the
    model's rows and ledger, no error on stderr, exit 0 on SIGTERM.

    A family's Runner sets CHAIN (the log's "chain") and CONFIRMATIONS and
    may override scenario_detail(), check_chain(), check_db_head() and
    payouts_detail().  Its sessions (SessionModel) give height(),
    mine_plain() (one block, no checks), mine_leftovers() (a block for what
    a broken scenario left in the mempool), export(first, last), close(),
    and first (the first dealt block), dm (the daemon.Hashjackd)."""

    CHAIN = None
    CONFIRMATIONS = None

    def __init__(self, args, workdir):
        self.args = args
        self.workdir = workdir
        self.hashjack = find_hashjack(args.hashjack)
        self.hashjackd = find_hashjackd(args.hashjackd)
        self.passed = 0
        self.failed = 0

    def report(self, ok, name, detail, t0=None):
        took = "%5.1fs" % (time.monotonic() - t0) if t0 is not None else "      "
        if ok:
            self.passed += 1
            print("ok   %-44s %s  %s" % (name, took, detail), flush=True)
        else:
            self.failed += 1
            print("FAIL %-44s %s  %s" % (name, took, detail), flush=True)

    def report_diff(self, what, got, want, detail):
        if got == want:
            self.report(True, what, detail)
            return
        missing = [want[k] for k in want if k not in got]
        extra = [got[k] for k in got if k not in want]
        wrong = [(got[k], want[k]) for k in want if k in got and got[k] != want[k]]
        msg = "%d missing, %d unexpected, %d different" % (len(missing), len(extra), len(wrong))
        for m in missing[:3]:
            msg += "\n      missing    %s" % (m,)
        for x in extra[:3]:
            msg += "\n      unexpected %s" % (x,)
        for g, w in wrong[:3]:
            msg += "\n      got        %s\n      want       %s" % (g, w)
        self.report(False, what, msg)

    def run(self, sessions, workdir, t0):
        """Runs sessions() (the test's sessions one after another), then
        kills what is left and closes the work directory; prints the
        closing "N passed, M failed" and returns the exit status."""
        try:
            sessions()
        except Exception as e:  # noqa: BLE001
            self.report(False, "session", "%s: %s" % (type(e).__name__, e))
            traceback.print_exc()
        finally:
            kill_children()
            workdir.close(self.failed)
        print("%d passed, %d failed (%.0fs)" % (self.passed, self.failed, time.monotonic() - t0))
        return 1 if self.failed or not self.passed else 0

    def select(self, scenarios):
        """The scenarios -k names (all without -k)."""
        return [sc for sc in scenarios
                if not self.args.only or any(k in sc.__name__ for k in self.args.only)]

    def play(self, S, scenarios):
        """Plays each scenario sc_NAME(S) in S; returns [(NAME, first block,
        last block, detail, error, seconds)].  A scenario that breaks is
        recorded with its error and leaves a clean mempool to the next one:
        what it left pending goes into a block of its own range."""
        played = []
        for sc in scenarios:
            h0 = S.height()
            t0 = time.monotonic()
            try:
                detail = sc(S)
                err = None
            except Exception as e:  # noqa: BLE001 - report, go on
                detail, err = None, e
                if not isinstance(e, Failed):
                    traceback.print_exc()
                S.pending = []
                try:
                    S.mine_leftovers()
                except Exception:  # noqa: BLE001
                    pass
            played.append((sc.__name__[3:], h0 + 1, S.height(), detail, err,
                           time.monotonic() - t0))
        return played

    # -- hooks ----------------------------------------------------------------

    def scenario_detail(self, detail, h0, h1, took):
        """What the "ok" line of a scenario says after its summary."""
        return "%s (blocks %d..%d)" % (detail, h0, h1)

    def check_chain(self, S, doc, got_line, last):
        """The family's own checks of the session's log."""

    def check_db_head(self, S, q, last):
        """The family's checks of the database's meta and cursor (q:
        execute)."""

    def payouts_detail(self, want, kinds):
        return "%d rows (%s)" % (len(want), ", ".join(
            "%d %s" % (n, k) for k, n in sorted(kinds.items())))

    # -- the end of a session ---------------------------------------------------

    def finish(self, S, played):
        name = S.name
        t0 = time.monotonic()
        # the last scenario block is processed once the tip is one above it
        S.mine_plain()
        last = S.height() - (self.CONFIRMATIONS - 1)
        try:
            S.dm.wait_height(last, timeout=60)
        except Exception as e:  # noqa: BLE001
            self.report(False, "%s: daemon catches up" % name, str(e), t0)
            return
        time.sleep(0.3)
        raw = S.dm.log_bytes()
        text = raw.decode()
        lines = text.splitlines(keepends=True)
        heights = [json.loads(l)["height"] for l in lines]
        ok = heights == list(range(S.first, last + 1))
        self.report(ok, "%s: card log holds blocks %d..%d once each" % (name, S.first, last),
                    "%d lines; the unconfirmed tip %d is not dealt" % (len(lines), last + 1)
                    if ok else "heights %s" % heights[-5:])
        doc = S.export(S.first, last)
        by_h = {b["height"]: b for b in doc["blocks"]}
        got_line = {json.loads(l)["height"]: l for l in lines}

        # every scenario: every line of its blocks, byte for byte
        covered = set()
        for sname, h0, h1, detail, err, took in played:
            covered.update(range(h0, h1 + 1))
            if err is not None:
                self.report(False, "%s: %s" % (name, sname), "scenario broke: %s" % err)
                continue
            bad = []
            for h in range(h0, h1 + 1):
                want = line_bytes(by_h[h], S.exp.get(h, []), self.CHAIN)
                got = got_line.get(h)
                if got != want:
                    bad.append((h, got, want))
            if bad:
                h, got, want = bad[0]
                gl = json.loads(got) if got else None
                wl = json.loads(want)
                msg = "block %d (%d of %d blocks differ)" % (h, len(bad), h1 - h0 + 1)
                if gl and gl["events"] != wl["events"]:
                    msg += ":\n      got  events %s\n      want events %s" % (
                        dumps(gl["events"]), dumps(wl["events"]))
                elif gl and dumps(gl["events"]) != dumps(wl["events"]):
                    msg += ": same events, different key order:\n      got  %s\n      want %s" % (
                        got.strip(), want.strip())
                else:
                    msg += ":\n      got  %s\n      want %s" % ((got or "(none)").strip(),
                                                              want.strip())
                self.report(False, "%s: %s" % (name, sname), msg)
            else:
                self.report(True, "%s: %s" % (name, sname),
                            self.scenario_detail(detail, h0, h1, took), None)
        outside = [h for h in range(S.first, last + 1) if h not in covered]
        others = [h for h in outside if got_line.get(h) != line_bytes(by_h[h], [], self.CHAIN)]
        self.report(not others, "%s: blocks outside scenarios are plain cards" % name,
                    "%d blocks" % len(outside) if not others else "differ: %s" % others[:5])
        self.check_chain(S, doc, got_line, last)

        # (a) the log equals hashjack replay of the same blocks
        try:
            _, rtext = replay(doc, self.hashjack, S.workdir)
            same = rtext == text
            if same:
                detail = "%d lines, %d bytes identical" % (len(lines), len(raw))
            else:
                rl = rtext.splitlines(keepends=True)
                k = next((i for i, (x, y) in enumerate(zip(rl, lines)) if x != y),
                         min(len(rl), len(lines)))
                detail = "first difference at line %d:\n      daemon %s\n      replay %s" % (
                    k, lines[k].strip() if k < len(lines) else "(none)",
                    rl[k].strip() if k < len(rl) else "(none)")
            self.report(same, "%s: card log == hashjack replay" % name, detail)
        except Exception as e:  # noqa: BLE001
            self.report(False, "%s: card log == hashjack replay" % name, str(e))

        # (b) the database
        self.check_db(S, last)
        if S.PP_PAYS or S.T3_PAYS:
            self.check_ledger_sidebets(S)

        if S.dm.metrics_on:
            self.check_metrics(S, lines, last)

        # the daemon: no error on stderr, SIGTERM exits 0
        errs = error_lines(S.dm.stderr())
        self.report(not errs, "%s: daemon stderr has no error line" % name,
                    "" if not errs else errs[0])
        rc = S.dm.stop()
        self.report(rc == 0, "%s: hashjackd exits 0 on SIGTERM" % name, "status %s" % rc)

    def check_metrics(self, S, lines, last):
        """hashjackd's /metrics against what the session did: every count
        against the card log's events (the daemon ran once, from the
        session's first block), the heights against the chain, no lag."""
        name = S.name
        try:
            samples, _, _ = S.dm.metrics()
        except Exception as e:  # noqa: BLE001
            self.report(False, "%s: /metrics" % name, str(e))
            return
        ev = [e for l in lines for e in json.loads(l)["events"]]
        kinds = collections.Counter(e["type"] for e in ev)
        reasons = collections.Counter(e["reason"] for e in ev if e["type"] == "reject")
        want = {
            "hashjackd_blocks_total": len(lines),
            "hashjackd_actions_accepted_total": kinds["action"],
            "hashjackd_deposits_total": kinds["deposit"],
            "hashjackd_failed_transactions_total": kinds["ignored"],
            "hashjackd_timeouts_total": kinds["timeout"],
            "hashjackd_rounds_settled_total": kinds["settle"],
            "hashjackd_side_bets_settled_total": kinds["sidebets"],
            "hashjackd_block_height": last,
            "hashjackd_lag_blocks": 0,
        }
        got = {k: metric(samples, k) for k in want if (k, frozenset()) in samples}
        rej = {dict(l)["reason"]: v for (n, l), v in samples.items()
               if n == "hashjackd_actions_rejected_total" and v}
        # Every transaction read makes an event but, on the Bitcoin
        # family, another dealer's zero-value action (docs/BITCOIN.md).
        txs = metric(samples, "hashjackd_transactions_total")
        evented = sum(kinds[k] for k in ("action", "reject", "deposit", "ignored"))
        got["transactions (events)"] = txs if self.CHAIN == "evm" else min(txs, evented)
        want["transactions (events)"] = evented
        ok = S.dm.starts == 1 and got == want and rej == dict(reasons)
        self.report(ok, "%s: /metrics counts what the card log holds" % name,
                    "%d blocks, %d accepted, %d rejected (%d reasons), %d settled"
                    % (len(lines), kinds["action"], sum(reasons.values()), len(reasons),
                       kinds["settle"]) if ok else
                    "started %d times; got %s\n      want %s\n      rejected %s, "
                    "the log %s" % (S.dm.starts, got, want, rej, dict(reasons)))

    def check_ledger_sidebets(self, S):
        """`hashjack ledger --kind sidebet --json`, what an operator reads:
        exactly the side bets' payouts the log owes, to the round's
        player, and their sum."""
        name = S.name
        path = os.path.join(S.dm.state_dir, "hashjackd.sqlite")
        want = {k: v for k, v in S.expected_payouts().items() if v[1] == "sidebet"}
        rc, out, err = run_tracked([self.hashjack, "ledger", "--db", path, "--kind", "sidebet",
                                    "--json"])
        if rc != 0:
            self.report(False, "%s: hashjack ledger --kind sidebet" % name,
                        "exit %d: %s" % (rc, err.strip()))
            return
        got = {}
        for line in out.splitlines():
            x = json.loads(line)
            who = x["recipientKey"] or x["recipient"]
            got[x["id"]] = (x["id"], x["kind"], S.db_hex(x["round"]), x["handIndex"], x["tx"],
                            S.db_hex(who), x["amount"], x["state"], x["createdHeight"])
        total = sum(int(v[6]) for v in want.values())
        self.report_diff("%s: hashjack ledger --kind sidebet" % name, got, want,
                         "%d side bets won, %d owed in all" % (len(want), total))

    def check_db(self, S, last):
        name = S.name
        path = os.path.join(S.dm.state_dir, "hashjackd.sqlite")
        try:
            db = sqlite3.connect("file:%s?mode=ro" % path, uri=True, timeout=5)
        except sqlite3.Error as e:
            self.report(False, "%s: database opens read-only" % name, str(e))
            return
        try:
            q = db.execute
            self.check_db_head(S, q, last)
            rows = q("SELECT %s, height, tx_index, %s, value, outcome, action, reason, %s "
                     "FROM txs" % (hexcol("txid"), hexcol("sender"), hexcol("round"))).fetchall()
            got = {r[0]: r for r in rows}
            want = {v[0]: v for v in S.rows.values()}
            self.report_diff("%s: txs: every transaction to the dealer" % name, got, want,
                             "%d rows (%s)" % (len(want), ", ".join(
                                 "%d %s" % (n, o) for o, n in sorted(collections.Counter(
                                     v[5] for v in want.values()).items()))))
            rows = q("SELECT id, kind, %s, hand, %s, %s, amount, state, created_height "
                     "FROM payouts" % (hexcol("round"), hexcol("txid"),
                                       hexcol("recipient"))).fetchall()
            got = {r[0]: r for r in rows}
            want = S.expected_payouts()
            kinds = collections.Counter(v[1] for v in want.values())
            self.report_diff("%s: payouts: exactly the returns, insurance and refunds owed"
                             % name, got, want, self.payouts_detail(want, kinds))
            n = q("SELECT count(*) FROM rounds").fetchone()[0]
            self.report(n == 0, "%s: no open round left" % name, "%d open" % n)
            ic = q("PRAGMA integrity_check").fetchall()
            fk = q("PRAGMA foreign_key_check").fetchall()
            self.report(ic == [("ok",)] and fk == [], "%s: database integrity" % name,
                        "integrity %s, foreign keys %s" % (ic[0][0], fk or "ok"))
        except sqlite3.Error as e:
            self.report(False, "%s: database query" % name, str(e))
        finally:
            db.close()


# --------------------------------------------------------------------------
# The payout tests' end (the EVM payer and the Bitcoin family's alike)

OPEN_BATCH = ("planned", "sent")


def batch_problems(q, want, paying=("confirmed",)):
    """A paying daemon's payout batches (q(sql): rows of its database)
    against want, {payout id: (address, amount)}, the address None for a
    payout nobody can be paid (unattributed): each payout with an address
    in exactly one confirmed batch and in no open one (planned, sent), one
    without in neither; no batch holds a payout that is not in want; each
    batch in a state of paying has one output to each address its payouts
    go to, of exactly what they add up to, and no other.  Returns (the
    problems, {batch: its outputs [(address, amount)], sorted})."""
    state = dict(q("SELECT id, state FROM payout_batches"))
    of_payout = collections.defaultdict(list)
    for bid, pid in q("SELECT batch, payout FROM payout_batch_items"):
        of_payout[pid].append(bid)
    bad = []
    for pid, (to, _) in want.items():
        cs = [b for b in of_payout.get(pid, []) if state[b] == "confirmed"]
        live = [b for b in of_payout.get(pid, []) if state[b] in OPEN_BATCH]
        if len(cs) != (1 if to else 0) or live:
            bad.append("%s in confirmed batches %s, open %s" % (pid[:24], cs, live))
    bad += ["%s batched, not owed" % p[:24] for p in of_payout if p not in want]
    owes = collections.defaultdict(collections.Counter)    # batch -> address -> sum
    for pid, bids in of_payout.items():
        to, amount = want.get(pid, (None, 0))
        for b in bids:
            if to:
                owes[b][to.lower()] += int(amount)
    outs = collections.defaultdict(list)
    for bid, ad, am in q("SELECT batch, address, amount FROM payout_batch_outputs"):
        outs[bid].append((ad.lower(), int(am)))
    for bid in sorted(state):
        outs[bid].sort()
        if state[bid] in paying and outs[bid] != sorted(owes[bid].items()):
            bad.append("batch %d: outputs %s, its payouts add up to %s"
                       % (bid, outs[bid], sorted(owes[bid].items())))
    return bad, dict(outs)


# --------------------------------------------------------------------------
# `hashjack verify --payouts`

def log_debts(path):
    """What a card log says the dealer owes, read here on its own (the
    rules of docs/LOG.md, not the tool's code): ({recipient as the log
    writes it: litoshis or wei owed}, [(tx, height, refund)] of the
    unattributed refunds).  A settlement's and a side bet's payout go to
    the round's player; a rejection's refund to its `from`, else to the
    player of the round it names, else to nobody."""
    owed = collections.Counter()
    unattributed = []
    players = {}                        # open round -> its player
    for line in read_cardlog(path):
        for e in line["events"]:
            t = e["type"]
            if t == "action" and e["action"] == "Bet":
                players[e["round"]] = e["player"]
            elif t in ("settle", "sidebets"):
                if int(e["payout"]):
                    owed[e["player"]] += int(e["payout"])
                if t == "settle":
                    players.pop(e["round"], None)
            elif t == "reject" and int(e["refund"]):
                to = e.get("from") or players.get(e.get("round"))
                if to:
                    owed[to] += int(e["refund"])
                else:
                    unattributed.append((e["tx"], line["height"], int(e["refund"])))
    return dict(owed), unattributed


def verify_payouts(hashjack, conf, log, *args, timeout=300):
    """`hashjack verify -c CONF --card-log LOG --payouts --json ARGS`:
    (exit status, the report parsed or None, stdout, stderr)."""
    p = subprocess.run([hashjack, "verify", "-c", conf, "--card-log", log, "--payouts",
                        "--json"] + list(args), stdin=subprocess.DEVNULL,
                       capture_output=True, text=True, timeout=timeout)
    try:
        report = json.loads(p.stdout)
    except ValueError:
        report = None
    return p.returncode, report, p.stdout, p.stderr


def payouts_problems(report, owed, received, later=None):
    """A --payouts report against what it must say: every recipient of owed
    ({recipient: amount due}) and later ({recipient: amount owed within
    the grace period}) and no other, each with received[recipient] (0 when
    absent), its difference and verdict as docs/VERIFY.md defines them.
    Returns the problems (empty when it says exactly that)."""
    later = later or {}
    if not isinstance(report, dict):
        return ["no JSON report"]
    rows = {r["recipient"]: r for r in report.get("recipients", [])}
    bad = []
    names = set(owed) | set(later)
    if set(rows) != names:
        bad.append("recipients %s, expected %s" % (sorted(rows), sorted(names)))
    counts = collections.Counter()
    for who in sorted(names & set(rows)):
        o, l, got = owed.get(who, 0), later.get(who, 0), received.get(who, 0)
        if got < o:
            status, diff = "short", got - o
        elif got - o > l:
            status, diff = "over", got - o - l
        else:
            status, diff = "even", 0
        counts[status] += 1
        want = {"owed": str(o), "later": str(l), "received": str(got),
                "difference": str(diff), "status": status}
        have = {k: rows[who].get(k) for k in want}
        if have != want:
            bad.append("%s: %s, expected %s" % (who, have, want))
    for k in ("short", "even", "over"):
        if report.get(k) != counts[k]:
            bad.append("%s: %s, expected %d" % (k, report.get(k), counts[k]))
    return bad


def check_verify_paid(R, name, conf, log, model, unattributed=None):
    """After every payout is final: `hashjack verify --payouts --grace 0`
    over the dealer's log exits 0 with every recipient even, each owed
    and received exactly what the log says (log_debts) and what the
    model says (model: {recipient as the log writes it: amount}), the
    unattributed refunds listed (unattributed: [(tx, height, amount)],
    when given).  Reports one line through R.report."""
    rc, rep, out, err = verify_payouts(R.hashjack, conf, log, "--grace", "0")
    owed, unat = log_debts(log)
    bad = payouts_problems(rep, owed, owed)
    model = {k: v for k, v in model.items() if v}
    if owed != model:
        bad.append("the log owes %s, the model %s" % (sorted(owed.items())[:4],
                                                     sorted(model.items())[:4]))
    if rep is not None:
        listed = sorted((u["tx"], u["height"], int(u["refund"])) for u in rep["unattributed"])
        if listed != sorted(unat) or (unattributed is not None and
                                      listed != sorted(unattributed)):
            bad.append("unattributed %s, the log's %s" % (listed, sorted(unat)))
    R.report(rc == 0 and not bad and rep["short"] == rep["over"] == 0,
             "%s: verify --payouts: every recipient even" % name,
             "%d recipients, %s owed and received; %d unattributed" % (
                 len(owed), rep["owed"], len(rep["unattributed"]))
             if rc == 0 and not bad else "exit %d, %s; %s" % (rc, bad[:3], err.strip()[-400:]))
