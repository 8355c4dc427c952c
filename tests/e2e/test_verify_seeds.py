#!/usr/bin/env python3
"""`hashjack verify` on a committed-cards log (docs/PROTOCOL.md section 15,
docs/VERIFY.md), EVM.

    python3 tests/e2e/test_verify_seeds.py --hashjack build/release/hashjack \\
        [--keep] [--timeout S]

No dealer daemon (hashjackd cannot deal committed cards until it keeps a
seed chain): anvil mines the blocks, the dealer's Commit is a real
transaction from the dealer address to itself (block 3: the chain of 6
seeds for blocks 5 to 10), and this test writes the card log a dealer
would, line by line, with Python's hashlib and hmac (the seeds, the keyed
cards, the commit event).  `hashjack verify -c` must agree with every line
(exit 0), and name the block and what is wrong in copies tampered once
each: a wrong seed, a chain of seeds that is not the committed one, a card
that is not the HMAC's, a seed where no chain is in force, a seed left
out, a commit event for a Commit another account sent (block 13); under
--follow a wrong seed is one failure and the seeds after it agree.  A log
that begins after the Commit: without [chain] start_height its first seed
has no chain (1, with a hint); with it, blocks of the chain before the log
cannot be dealt (65); a log that begins at the chain's first block, with
the blocks before it dealt from the node, agrees (0).

One line per check, then "N passed, M failed"; exit status 1 on failure.
"""

import argparse
import hashlib
import json
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cards import card_of, commit_payload, keyed_card  # noqa: E402
from checks import Failed, WorkDir, check, check_eq  # noqa: E402
from evm_node import Anvil  # noqa: E402
from procs import close_all, install_cleanup  # noqa: E402
from tool import VerifyFollower, find_hashjack, verify  # noqa: E402

MIN_BET = 10**15
MAX_BET = 10**17
H, L = 5, 6          # the dealer's chain: blocks 5 to 10
COMMIT_BLOCK = 3
FORGED_BLOCK = 13    # another account's Commit
LAST = 18


def seed_chain(secret, length):
    """[s_0 .. s_L] from s_L = SHA-256(secret)."""
    s = [hashlib.sha256(secret).digest()]
    for _ in range(length):
        s.append(hashlib.sha256(s[-1]).digest())
    return s[::-1]


def compact(j):
    return json.dumps(j, separators=(",", ":"))


def line(block, seed=None, card=None, events=()):
    """A block's line under cards = committed: keyed by seed (bytes), or
    void without one; card overrides the card object."""
    j = {"v": 2, "chain": "evm", "height": int(block["number"], 16),
         "hash": block["hash"], "parent": block["parentHash"]}
    if seed is not None:
        j["seed"] = seed.hex()
        c = card if card is not None else keyed_card(seed.hex(), block["hash"])
        if c is None:
            j["void"] = True
        else:
            j["card"] = c
    else:
        j["void"] = True
    j["events"] = list(events)
    return compact(j)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--hashjack", default=None)
    ap.add_argument("--hashjackd", default=None)  # hj_e2e_test passes it
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--timeout", type=float, default=120)
    a = ap.parse_args()
    install_cleanup(a.timeout)
    hashjack = find_hashjack(a.hashjack)
    wd = WorkDir("hj-verify-seeds-", a.keep)
    results = []

    anvil = Anvil(workdir=os.path.join(wd.path, "anvil"))
    anvil.start()
    dealer = anvil.accounts[9]
    other = anvil.accounts[1]
    chain = seed_chain(b"the dealer's secret", L)
    forged = seed_chain(b"another account's secret", 3)

    anvil.mine_empty(COMMIT_BLOCK - 1)
    tx = anvil.send(dealer, dealer.address, "0x" + commit_payload(H, L, chain[0].hex()))
    anvil.mine(expect=[tx])
    anvil.mine_empty(FORGED_BLOCK - 1 - COMMIT_BLOCK)
    tx_other = anvil.send(other, dealer.address,
                          "0x" + commit_payload(FORGED_BLOCK + 2, 3, forged[0].hex()))
    anvil.mine(expect=[tx_other])
    anvil.mine_empty(LAST - FORGED_BLOCK)
    blocks = [anvil.block(n) for n in range(LAST + 1)]

    def seed_at(n):
        return chain[n - H + 1] if H <= n < H + L else None

    commit_ev = {"type": "commit", "tx": tx, "txIndex": 0, "from": dealer.address,
                 "start": H, "length": L, "commitment": chain[0].hex()}
    honest = [line(blocks[n], seed_at(n),
                   events=[commit_ev] if n == COMMIT_BLOCK else [])
              for n in range(FORGED_BLOCK)]

    conf = os.path.join(wd.path, "dealer.conf")
    with open(conf, "w") as f:
        f.write("[chain]\nfamily = evm\nrpc_url = %s\nconfirmations = 2\n\n"
                "[dealer]\naddress = %s\n\n"
                "[rules]\npreset = bethash\nmin_bet = %d\nmax_bet = %d\n"
                "timeout_blocks = 4\ncards = committed\n"
                % (anvil.url, dealer.address, MIN_BET, MAX_BET))

    def write(name, lines):
        p = os.path.join(wd.path, name + ".jsonl")
        with open(p, "w") as f:
            f.write("".join(l + "\n" for l in lines))
        return p

    def fails_at(name, lines, want, *args, status=1):
        rc, out, err = verify(hashjack, conf, write(name, lines), *args)
        check_eq(rc, status, "exit status (stdout %r, stderr %r)" % (out[:600], err[:600]))
        first = out.splitlines()[0] if out else ""
        check_eq(first, want, "verify's first line")
        return first, out, err

    def case(name, fn):
        try:
            detail = fn()
            results.append((name, True))
            print("ok   %s: %s" % (name, detail))
        except Failed as e:
            results.append((name, False))
            print("FAIL %s: %s" % (name, e))
        sys.stdout.flush()

    def clean():
        rc, out, err = verify(hashjack, conf, write("clean", honest))
        check_eq(rc, 0, "exit status (stdout %r, stderr %r)" % (out, err))
        check_eq(out, "verified blocks 0 to %d: every line agrees\n"
                 % (FORGED_BLOCK - 1), "stdout")
        check("\"seed\":\"%s\"" % chain[1].hex() in honest[H], "block 5 reveals s_1")
        return out.strip()

    def wrong_seed():
        # A seed of the dealer's choosing at block 7, its card keyed by it.
        m = list(honest)
        m[7] = line(blocks[7], hashlib.sha256(b"chosen").digest())
        return fails_at("wrong_seed", m,
                        "block 7: seed: SHA-256 of seed 3 is not the seed before it "
                        "(seed 3 is block 7's, the last seed checked block 6's, of "
                        "the chain committed in block 3 (blocks 5 to 10))")[0]

    def unchained():
        # Every seed of another chain, consistent with itself.
        fake = seed_chain(b"not the committed secret", L)
        m = list(honest)
        for n in range(H, H + L):
            m[n] = line(blocks[n], fake[n - H + 1])
        return fails_at("unchained", m,
                        "block 5: seed: SHA-256 of seed 1 is not the commitment "
                        "(seed 1 is block 5's, of the chain committed in block 3 "
                        "(blocks 5 to 10), whose commitment is in that block's "
                        "commit event)")[0]

    def wrong_card():
        # The right seed, but the card of the bare hash (or another one).
        n = 8
        c = card_of(blocks[n]["hash"])
        keyed = json.loads(honest[n]).get("card")
        if c is None or keyed is None or c["code"] == keyed["code"]:
            c = dict(keyed or card_of("0x" + "1" * 64))
            c["code"] = "KS" if c["code"] != "KS" else "QS"
        m = list(honest)
        m[n] = line(blocks[n], seed_at(n), card=c)
        rc, out, err = verify(hashjack, conf, write("wrong_card", m))
        check_eq(rc, 1, "exit status (stdout %r, stderr %r)" % (out[:600], err[:600]))
        first = out.splitlines()[0] if out else ""
        check(first.startswith("block 8: card"), first)
        return first

    def seed_no_commit():
        # Block 4: the Commit's chain starts at 5; nothing is in force.
        m = list(honest)
        m[4] = line(blocks[4], chain[1])
        return fails_at("seed_no_commit", m,
                        "block 4: seed: the dealer's \"%s\", the protocol's nothing "
                        "(it deals this block without a seed: no chain of seeds of a "
                        "valid Commit is in force at it, or cards = hash)"
                        % chain[1].hex())[0]

    def missing_seed():
        m = list(honest)
        j = json.loads(m[9])
        del j["seed"]
        m[9] = compact(j)
        first, out, err = fails_at(
            "missing_seed", m,
            "block 9: seed: the dealer's nothing: cards are committed and block 9 "
            "is dealt with seed 5 of the chain committed in block 3 (blocks 5 to 10)")
        check("  node:" not in out, "no line of the protocol's: %r" % out)
        return first

    def forged_commit():
        # The dealer's log takes another account's Commit for its own.
        ev = {"type": "commit", "tx": tx_other, "txIndex": 0, "from": other.address,
              "start": FORGED_BLOCK + 2, "length": 3, "commitment": forged[0].hex()}
        m = list(honest) + [line(blocks[FORGED_BLOCK], events=[ev])]
        for n in range(FORGED_BLOCK + 1, LAST + 1):
            i = n - (FORGED_BLOCK + 2) + 1
            m.append(line(blocks[n], forged[i] if 1 <= i <= 3 else None))
        first, out, err = fails_at("forged_commit", m,
                                   "block 13: events[0].type: the dealer's \"commit\", "
                                   "the protocol's \"reject\"")
        check("\"reason\":\"not_dealer\"" in out, out)
        return first

    def follow_wrong_seed():
        # --follow: one failure, and the seeds after it checked against
        # the last one that chained (they agree).
        m = list(honest)
        m[7] = line(blocks[7], hashlib.sha256(b"chosen").digest())
        f = VerifyFollower(hashjack, conf, write("follow_wrong_seed", m))
        f.wait_verified(FORGED_BLOCK - 1)
        rc = f.stop()
        check_eq(rc, 1, "exit status (stdout %r)" % f.out)
        check_eq(f.out, "block 7: seed: SHA-256 of seed 3 is not the seed before it "
                 "(seed 3 is block 7's, the last seed checked block 6's, of the chain "
                 "committed in block 3 (blocks 5 to 10))\n"
                 "verified blocks 0 to 12, 1 failure\n", "stdout")
        return f.out.strip().replace("\n", "; ")

    def late_no_start():
        first, out, err = fails_at(
            "late", honest[7:],
            "block 7: seed: the dealer's \"%s\", the protocol's nothing (it deals "
            "this block without a seed: no chain of seeds of a valid Commit is in "
            "force at it, or cards = hash)" % chain[3].hex())
        check("verify checks the seeds of a chain whose Commit it has dealt" in out, out)
        return first

    def late_with_start():
        rc, out, err = verify(hashjack, conf, write("late", honest[7:]),
                              "--chain.start_height=0")
        check_eq(rc, 65, "exit status (stdout %r, stderr %r)" % (out, err))
        want = ("hashjack: verify: block 5: cards are committed, and its seed (seed 1 "
                "of the chain committed in block 3, blocks 5 to 10) is in the dealer's "
                "log alone, which begins at block 7")
        check(want in err, err)
        return err.strip().splitlines()[-1]

    def from_chain_start():
        rc, out, err = verify(hashjack, conf, write("from5", honest[H:]),
                              "--chain.start_height=0")
        check_eq(rc, 0, "exit status (stdout %r, stderr %r)" % (out, err))
        check_eq(out, "verified blocks 5 to 12: every line agrees (blocks 0 to 4 "
                 "before it dealt from the node, unchecked)\n", "stdout")
        return out.strip()

    for name, fn in [("clean", clean), ("wrong_seed", wrong_seed),
                     ("unchained", unchained), ("wrong_card", wrong_card),
                     ("seed_no_commit", seed_no_commit), ("missing_seed", missing_seed),
                     ("forged_commit", forged_commit),
                     ("follow_wrong_seed", follow_wrong_seed), ("late_no_start", late_no_start),
                     ("late_with_start", late_with_start),
                     ("from_chain_start", from_chain_start)]:
        case(name, fn)
    close_all(anvil.stop)
    passed = sum(1 for _, ok in results if ok)
    wd.close(passed != len(results))
    print("%d passed, %d failed" % (passed, len(results) - passed))
    return 0 if passed == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
