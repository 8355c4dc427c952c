#!/usr/bin/env python3
"""End-to-end game scenarios under the other rule sets (docs/PROTOCOL.md
sections 7.1 and 7.2) on EVM: hashjackd against a real anvil, as
tests/e2e/test_game.py (its Session and Runner, the checks of
tests/e2e/checks.py), with dealers that run `annakai` and `cryptogames`
and offer both side bets.

    python3 tests/e2e/test_rules.py --hashjack build/release/hashjack \\
        --hashjackd build/release/hashjackd [-k NAME] [--keep] [--timeout S]

Two daemon sessions, each on its own anvil (confirmations 2, timeout_blocks
3, min_bet 1000, max_bet 10^18), the daemon's [rules] and the replay
document's "rules" alike (preset, perfect_pairs = 25,12,5,
twenty_one_plus_three = 100,40,30,10,5):

- "annakai": tests/e2e/book.py's ANNAKAI (resplits to four hands, split
  aces taking one card, the peek card at X+4 behind a 10 with and without
  a blackjack, a 3:2 natural);
- "cryptogames": book.CRYPTOGAMES (split aces hit and a split 21 paid as a
  blackjack, early surrender against an Ace, a dealer blackjack found in
  dealer play taking split and doubled stakes, side-stake limits).

Side bets won (perfect, coloured and mixed pairs, a straight, a flush) and
lost.  At the end of each session: the card log byte for byte against the
scenarios' expectations and against `hashjack replay` of the exported
blocks under the same rules, and the database's ledger (returns, refunds,
and the side bets' payouts of kind `sidebet`) against what the log owes.

One line per check, then "N passed, M failed"; exit status 1 on failure.
"""

import os
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import book  # noqa: E402
import test_game  # noqa: E402
from checks import WorkDir, game_args  # noqa: E402


def main():
    args = game_args(__doc__, 300)
    wd = WorkDir("hj-e2e-rules-", args.keep)
    t0 = time.monotonic()
    R = test_game.Runner(args, wd.path)
    return R.run(lambda: book.rule_set_sessions(R), wd, t0)


if __name__ == "__main__":
    sys.exit(main())
