#!/usr/bin/env python3
"""End-to-end game scenarios under the other rule sets (docs/PROTOCOL.md
sections 7.1 and 7.2) on the Bitcoin family: hashjackd against a real
litecoind in regtest, as tests/e2e/test_ltc_game.py (its Session and
Runner, the checks of tests/e2e/checks.py), with dealers that run
`annakai` and `cryptogames` and offer both side bets; the Bets are
written by `hashjack player bet --perfect-pairs N --21plus3 N`.

    python3 tests/e2e/test_ltc_rules.py --hashjack build/hashjack \\
        --hashjackd build/hashjackd [-k NAME] [--keep] [--timeout S]

Two daemon sessions, each on its own node (MWEB off, confirmations 2,
timeout_blocks 3, min_bet 10000, max_bet 10^8 litoshis), the daemon's
[rules] and the replay document's "rules" alike (preset, perfect_pairs =
25,12,5, twenty_one_plus_three = 100,40,30,10,5): "annakai" plays
tests/e2e/book.py's ANNAKAI, "cryptogames" book.CRYPTOGAMES (the stories
of tests/e2e/test_rules.py, which says what they cover).  At the end of
each session: the card log byte for byte against the expectations and
against `hashjack replay` of the exported blocks under the same rules, and
the database's ledger (returns, refunds, side bets of kind `sidebet`)
against what the log owes.

One line per check, then "N passed, M failed"; exit status 1 on failure.
"""

import os
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import book  # noqa: E402
import test_ltc_game  # noqa: E402
from btc_node import find_litecoind  # noqa: E402
from checks import WorkDir, game_args  # noqa: E402


def main():
    args = game_args(__doc__, 600)
    find_litecoind()      # a clear message when it is missing
    wd = WorkDir("hj-e2e-ltc-rules-", args.keep)
    t0 = time.monotonic()
    R = test_ltc_game.Runner(args, wd.path)
    return R.run(lambda: book.rule_set_sessions(R), wd, t0)


if __name__ == "__main__":
    sys.exit(main())
