"""A block's card: docs/PROTOCOL.md section 2 in Python, and its keyed form
of docs/PROTOCOL.md section 15 (committed cards).

Python 3, standard library only.  card_of() gives the card of a block hash
as the card log's "card" object; card_matcher() turns a wish ("9", "10S",
"T", "void", ...) into the predicate that the nodes' grind() mines for.
"""

import hashlib
import hmac
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


# -- committed cards (docs/PROTOCOL.md section 15) ---------------------------

def keyed_card(seed_hex, block_hash):
    """The card log's card object of a block under a seed (None: void):
    the rule of docs/PROTOCOL.md section 2 read on HMAC-SHA256(seed, the
    hash's 32 bytes)."""
    h = block_hash[2:] if block_hash.startswith("0x") else block_hash
    return card_of(hmac.new(bytes.fromhex(seed_hex), bytes.fromhex(h),
                            hashlib.sha256).hexdigest())


def seed_prev(seed_hex):
    """SHA-256 of a seed: the seed of the block before, or the commitment."""
    return hashlib.sha256(bytes.fromhex(seed_hex)).hexdigest()


def commit_payload(start, length, commitment_hex):
    """A Commit's 48 bytes in hex (no 0x)."""
    return "484a0108" + "%016x" % start + "%08x" % length + commitment_hex


def committed_lines(lines):
    """Checks a committed dealer's card log lines: heights in a row; under
    the chain in force (the commit events seen so far: the greatest start at
    or below the height) a seed that chains to the one before or to the
    commitment, and the HMAC's card; elsewhere void and no seed.  Returns
    (keyed lines, None), or (keyed so far, what is wrong)."""
    chains = []  # (start, length, commitment) in log order
    last_seed = {}
    keyed = 0
    prev = None
    for ln in lines:
        h = ln["height"]
        if prev is not None and h != prev + 1:
            return keyed, "line %d follows %s" % (h, prev)
        prev = h
        force = None
        for c in chains:
            if c[0] <= h and (force is None or c[0] >= force[0]):
                force = c
        if force is None or h >= force[0] + force[1]:
            if "seed" in ln or ln.get("void") is not True:
                return keyed, "block %d: no chain in force, yet %s" % (h, ln.get("seed"))
        else:
            i = h - force[0] + 1
            s = ln.get("seed")
            if s is None:
                return keyed, "block %d: no seed under chain %s" % (h, force[2][:16])
            want_prev = last_seed.get(force[2], (0, force[2]))
            if want_prev[0] != i - 1 or seed_prev(s) != want_prev[1]:
                return keyed, "block %d: seed %d does not chain" % (h, i)
            last_seed[force[2]] = (i, s)
            want = keyed_card(s, ln["hash"])
            if want is None and (ln.get("void") is not True or "card" in ln):
                return keyed, "block %d: keyed void, line %s" % (h, ln.get("card"))
            if want is not None and ln.get("card") != want:
                return keyed, "block %d: card %s, HMAC gives %s" % (h, ln.get("card"), want)
            keyed += 1
        for e in ln["events"]:
            if e["type"] == "commit":
                chains.append((e["start"], e["length"], e["commitment"]))
    return keyed, None
