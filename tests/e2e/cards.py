"""A block's card: docs/PROTOCOL.md section 2 in Python.

Python 3, standard library only.  card_of() gives the card of a block hash
as the card log's "card" object; card_matcher() turns a wish ("9", "10S",
"T", "void", ...) into the predicate that the nodes' grind() mines for.
"""

import re

_QUALIFIED = "123456789abcd"
_RANKS = {"1": "A", "2": "2", "3": "3", "4": "4", "5": "5", "6": "6", "7": "7",
          "8": "8", "9": "9", "a": "10", "b": "J", "c": "Q", "d": "K"}
SUITS = ("Clubs", "Diamonds", "Hearts", "Spades")


def card_of(block_hash):
    """The card of a block hash as the log's "card" object (same keys, same
    order), or None for a void block."""
    d = block_hash[2:] if block_hash.startswith("0x") else block_hash
    d = d.lower()
    if len(d) != 64 or any(c not in "0123456789abcdef" for c in d):
        raise ValueError("not a 32-byte hash: %r" % block_hash)
    for i in range(63, 0, -1):
        if d[i] in _QUALIFIED:
            rank = _RANKS[d[i]]
            suit = SUITS[int(d[i - 1], 16) % 4]
            value = 1 if rank == "A" else 10 if rank in ("10", "J", "Q", "K") else int(rank)
            return {"rank": rank, "suit": suit, "value": value,
                    "code": rank + suit[0], "pos": i, "rankDigit": d[i],
                    "colorDigit": d[i - 1]}
    return None


def card_matcher(want):
    """A predicate over card_of() results.  want is:
    "void"; "any" (any non-void card); a rank "A" "2".."10" "J" "Q" "K";
    a code "9H", "10S" (rank and suit); "T" (any 10-valued card); an int
    value 1..10 (1 = Ace, 10 = any 10-valued); a list of those (any of);
    or a callable taking the card (None when void)."""
    if callable(want):
        return want
    if isinstance(want, (list, tuple, set)):
        ms = [card_matcher(w) for w in want]
        return lambda c: any(m(c) for m in ms)
    if want == "void":
        return lambda c: c is None
    if want == "any":
        return lambda c: c is not None
    if isinstance(want, int):
        return lambda c: c is not None and c["value"] == want
    if want == "T":
        return lambda c: c is not None and c["value"] == 10
    if want in _RANKS.values():
        return lambda c: c is not None and c["rank"] == want
    m = re.fullmatch(r"(A|[2-9]|10|J|Q|K)([CDHS])", want or "")
    if m:
        return lambda c: c is not None and c["code"] == want
    raise ValueError("bad card wish %r" % (want,))
