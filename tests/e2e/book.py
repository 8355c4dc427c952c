"""The game scenarios both chain families play, each written once.

Python 3, standard library only.  tests/e2e/test_game.py plays this book on
anvil and tests/e2e/test_ltc_game.py on litecoind regtest, each followed by
its family's own scenarios (void blocks and failed receipts on EVM;
signatures, values over several outputs, OP_RETURN forms and MWEB on the
Bitcoin family; each its own malformed payloads and deposits).  The payout
tests (tests/e2e/test_payouts.py, test_ltc_payouts.py) play the tables of
several players at the end of this file, test_payouts.py the game
scenarios too.  A scenario sends real transactions through its session,
mines blocks with the cards it wants and writes down, block by block, the
exact events the protocol gives and the rows of the transactions table
(checks.SessionModel); the family's runner (checks.GameRunner) then checks
the daemon's card log against them byte for byte, against `hashjack
replay`, and its database.

What a scenario asks of its session S (test_game.Session on EVM,
test_ltc_game.Session on the Bitcoin family):

- S.player(): a player with no round yet.
- S.bet(p, stake, pp=None, t3=None): p's Bet of main stake `stake`, its
  side stakes written in the payload (also a stake of 0) and added to the
  value; returns its round r.
  S.send_bet(p, value, pp=None, t3=None): a Bet that opens no round (a
  second one, a rejected one).  S.stray(p, action, value=0,
  insurance=None): an action of p that names no round of the dealer.
  S.send(p, payload, value): any payload (hex, as r.payload() writes it).
- S.mine(want=None): the next block with every transaction sent since the
  last one, in the order sent; with want ("10", "A", ...) a block whose
  card has that rank.  Returns the block (b.h, b.code).  S.mine_n(k): k
  blocks without transactions.
- S.rej(t, reason, action=None, r=None): t is rejected (refund: its
  value); S.rej_unpaid(t, reason, action): t pays nothing and names no
  open round, which only EVM sees (checks.SessionModel.SEES_UNPAID).
  S.at(t): the block of t, for a settlement right after it.
- The dealer's rule set (checks.SessionModel): S.bj(s), a natural's
  return under its blackjack_pays; S.PP_PAYS and S.T3_PAYS, the side
  bets' paytables (None when not offered).
- What differs by family, as values: S.T (timeout_blocks), S.MIN_BET,
  S.MAX_BET; S.STAKE, to which each round adds a number of its own (10^15
  wei, 10^6 litoshis); S.SMALL_STAKE, a stake whose 6:5 and halves are
  easy to follow (10^3, 10^5); S.LITTLE, the unit of a small value such as
  a wrong one (1 wei; 1000 litoshis, above the dust limit).
- What only one family has, as functions that give nothing on the other:
  S.parts(value, n), value paid in n outputs to the dealer (the Bitcoin
  family; EVM: value); S.elsewhere(value), outputs paying value to another
  address, for r.send's extra (the Bitcoin family; EVM: none);
  S.stale(r, action, seq), r's action signed at seq, which the round is
  past (bad_signature; EVM: None, nothing is signed).

A round r (checks.EvmRound, checks.SignedRound) sends its player's actions:
r.send(action, value=0, seq=None, insurance=None, extra=()), where seq
(the Bitcoin family's; EVM sends no signature) is the seq the round will
have when the action is looked at, by default its seq now; an action sent
after one of the same round that the same block will accept is given the
next seq (seq=1 in the stories below).  r.payload(action) is the payload
alone.  What the protocol gives is written through r.accepted_bet(),
r.draw(b, hand), r.peek(b, dbj), r.skip(b), r.act(t, action, hand,
insurance), r.timeout(b, action, hand), r.sidebets(b, pp, t3) (the side
bets settled with the third card, right after its draw: the statuses
wanted, checked against the cards) and r.settle(b, [(status, return)],
ins_payout) (checks.Round).

The Peek (protocol v1.1): the block after a Peek gives the peek card, a
"peek" event with its verdict (r.peek(b, dbj)).  With a dealer blackjack
it is the dealer's second card and the round settles there; otherwise it
is set aside, the window opens at Peek+2 and the dealer's second card is
drawn in dealer play, where a block whose card would make a blackjack
behind the Ace is a "skip" event for that round (r.skip(b)) and still a
card for any other round.

X is the Bet's block, W the opening of an action window, Y the block of a
Split or a Peek (docs/PROTOCOL.md).  Each scenario returns a one-line
summary.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import Failed, bj  # noqa: E402


# --------------------------------------------------------------------------
# The game tests' scenarios (test_game.MAIN, test_ltc_game.MAIN)

def deal(S, r, first, up, second):
    """Mines r's Bet and the three cards of its deal; returns the block of
    the second card."""
    S.mine()
    r.accepted_bet()
    r.draw(S.mine(first), 0)
    r.draw(S.mine(up), "D")
    b = S.mine(second)
    r.draw(b, 0)
    return b


def sc_win_stand(S):
    """10+9 = 19 against 7; in the window a Split of a non-pair
    (not_allowed), a Stand payload with one byte too many paying the dealer
    (too_long: no round can be read from it, none in the rejection; on the
    Bitcoin family its refund is unattributed) and the Stand, which on the
    Bitcoin family also pays another address but nothing to the dealer
    (stake 0, accepted); the dealer draws K at W+1: hard 17 stands: Win, 2 x
    stake.  The Bet writes its perfect-pairs side stake as 0 (accepted: 12
    bytes on EVM, 44 on the Bitcoin family)."""
    p = S.player()
    s = S.STAKE + 1
    r = S.bet(p, s, pp=0)
    deal(S, r, "10", "7", "9")
    sp = r.send("Split", s)
    bad = S.send(p, r.payload("Stand") + "ff", 9 * S.LITTLE)
    st = r.send("Stand", extra=S.elsewhere(5 * S.LITTLE))
    S.mine()
    S.rej(sp, "not_allowed", "Split", r)
    S.rej(bad, "too_long", "Stand")
    r.act(st, "Stand", 0)
    b = S.mine("K"); r.draw(b, "D")
    r.settle(b, [("Win", 2 * s)])
    return "19 vs 7+K: Win %d" % (2 * s)


def sc_lose_dealer_play(S):
    """10+7 = 17 against 2; Stand at W, then in the same block a Hit (signed
    at seq 1) is not_allowed: the dealer is playing, checked before
    premature; the dealer draws 9 (11), a Hit with a value in that block is
    not_allowed and refunded, then 8: 19.  Lose, return 0.  The Bet writes
    both side stakes as 0 (accepted: 20 bytes on EVM, 52 on the Bitcoin
    family)."""
    p = S.player()
    s = S.STAKE + 2
    r = S.bet(p, s, pp=0, t3=0)
    deal(S, r, "10", "2", "7")
    st = r.send("Stand")
    h1 = r.send("Hit", seq=1)
    S.mine()
    r.act(st, "Stand", 0)
    S.rej(h1, "not_allowed", "Hit", r)
    h2 = r.send("Hit", 3 * S.LITTLE)
    b = S.mine("9"); r.draw(b, "D")
    S.rej(h2, "not_allowed", "Hit", r)
    b = S.mine("8"); r.draw(b, "D")
    r.settle(b, [("Lose", 0)])
    return "17 vs 2+9+8 = 19: Lose"


def sc_push_min_bet_second_bet(S):
    """Bet of exactly min_bet; a second Bet by the same player while it is
    open (with a side stake and a value below min_bet: second_round is
    checked first; the rejection names the open round, its refund goes to
    the player); 10+8 against 8, Stand, dealer 10: 18 each, Push, stake
    back."""
    p = S.player()
    s = S.MIN_BET
    r = S.bet(p, s)
    S.mine(); r.accepted_bet()
    again = S.send_bet(p, S.MIN_BET - 1, pp=5)
    b = S.mine("10"); r.draw(b, 0)
    S.rej(again, "second_round", "Bet", r)
    r.draw(S.mine("8"), "D")
    r.draw(S.mine("8"), 0)
    st = r.send("Stand")
    S.mine(); r.act(st, "Stand", 0)
    b = S.mine("10"); r.draw(b, "D")
    r.settle(b, [("Push", s)])
    return "18 vs 18: Push %d" % s


def sc_bust_premature(S):
    """A Hit with a value in the block of the second card: premature (before
    wrong_value; where actions are signed its signature is good), refunded;
    at W a Hit with a value (wrong_value), then a Hit; a second Hit in the
    same block (signed at seq 1) is premature (one action per window); 16 +
    9 busts: settled in that block, the dealer (Q up) never draws."""
    p = S.player()
    s = S.STAKE + 4
    r = S.bet(p, s)
    S.mine(); r.accepted_bet()
    r.draw(S.mine("10"), 0)
    r.draw(S.mine("Q"), "D")
    early = r.send("Hit", 5 * S.LITTLE)
    b = S.mine("6"); r.draw(b, 0)
    S.rej(early, "premature", "Hit", r)
    wv = r.send("Hit", 3 * S.LITTLE)
    hit = r.send("Hit")
    twice = r.send("Hit", seq=1)
    S.mine()
    S.rej(wv, "wrong_value", "Hit", r)
    r.act(hit, "Hit", 0)
    S.rej(twice, "premature", "Hit", r)
    b = S.mine("9"); r.draw(b, 0)
    r.settle(b, [("Bust", 0)])
    return "16 + 9: Bust, dealer shows one card"


def sc_hit_to_21_dealer_busts(S):
    """5+6 = 11 against 6; Hit: 10 makes 21, the hand stands by itself; a
    Stand in the next block is not_allowed (dealer play); the dealer draws
    10 (16) and K: bust.  Win."""
    p = S.player()
    s = S.STAKE + 5
    r = S.bet(p, s)
    deal(S, r, "5", "6", "6")
    hit = r.send("Hit")
    S.mine(); r.act(hit, "Hit", 0)
    r.draw(S.mine("10"), 0)
    st = r.send("Stand")
    b = S.mine("10"); r.draw(b, "D")
    S.rej(st, "not_allowed", "Stand", r)
    b = S.mine("K"); r.draw(b, "D")
    r.settle(b, [("Win", 2 * s)])
    return "21 by a Hit vs 6+10+K bust: Win"


def sc_h17(S):
    """Dealer H17: 10+7 against 6; Stand; the dealer draws A: soft 17, must
    hit; 2: soft 19, stands.  17 vs 19: Lose (a dealer standing on soft 17
    would have pushed)."""
    p = S.player()
    s = S.STAKE + 6
    r = S.bet(p, s)
    deal(S, r, "10", "6", "7")
    st = r.send("Stand")
    S.mine(); r.act(st, "Stand", 0)
    r.draw(S.mine("A"), "D")
    b = S.mine("2"); r.draw(b, "D")
    r.settle(b, [("Lose", 0)])
    return "dealer 6+A (soft 17) hits, 2: 19 beats 17"


def sc_bj_vs_5_then_bet_and_surrender_vs_9(S):
    """Player blackjack (A, K) against 5 with a small odd stake (1007 on
    EVM): settles at X+3, s + floor(6s/5) (2215).  In that block, after the
    draw settled the round, a Stand paying nothing (no_round, nothing owed;
    on the Bitcoin family it names a closed round: no event) and a Stand
    with a value (no_round, no round in the rejection, refunded; on the
    Bitcoin family unattributed); a new Bet by the same player is accepted.
    The new round: 10+6 against 9, late Surrender at its W: settles at
    once, floor(stake/2) of an odd stake."""
    p = S.player()
    s = S.SMALL_STAKE + 7
    r = S.bet(p, s)
    S.mine(); r.accepted_bet()
    r.draw(S.mine("A"), 0)
    r.draw(S.mine("5"), "D")
    unpaid = r.send("Stand")
    st = r.send("Stand", 3 * S.LITTLE)
    s2 = S.STAKE + 7
    r2 = S.bet(p, s2)
    b = S.mine("K"); r.draw(b, 0)
    r.settle(b, [("Blackjack", bj(s))])
    S.rej_unpaid(unpaid, "no_round", "Stand")
    S.rej(st, "no_round", "Stand")
    r2.accepted_bet()
    r2.draw(S.mine("10"), 0)
    r2.draw(S.mine("9"), "D")
    r2.draw(S.mine("6"), 0)
    su = r2.send("Surrender")
    b = S.mine(); r2.act(su, "Surrender", 0)
    r2.settle(b, [("Surrender", s2 // 2)])
    return "BJ vs 5: %d -> %d; then 16 vs 9 Surrender: %d" % (s, bj(s), s2 // 2)


def sc_bj_vs_2(S):
    """Blackjack J, A against 2: settles at X+3, stake + floor(6s/5)."""
    p = S.player()
    s = S.STAKE + 3
    r = S.bet(p, s)
    b = deal(S, r, "J", "2", "A")
    r.settle(b, [("Blackjack", bj(s))])
    return "%d -> %d" % (s, bj(s))


def sc_bj_vs_ten_win(S):
    """Blackjack against K: the dealer's second card comes at X+4 without
    any action (a Stand at X+3 is not_allowed: the dealer is drawing); 7:
    no dealer blackjack, Blackjack paid: 1000001 -> 2200002."""
    p = S.player()
    s = 1000001
    r = S.bet(p, s)
    S.mine(); r.accepted_bet()
    r.draw(S.mine("A"), 0)
    r.draw(S.mine("K"), "D")
    st = r.send("Stand")
    b = S.mine("Q"); r.draw(b, 0)
    S.rej(st, "not_allowed", "Stand", r)
    b = S.mine("7"); r.draw(b, "D")
    r.settle(b, [("Blackjack", bj(s))])
    return "BJ vs K+7: %d" % bj(s)


def sc_bj_vs_ten_push(S):
    """Blackjack (10, A) against J; X+4 gives the dealer an A: dealer
    blackjack, Push.  A Hit paying nothing in X+4 finds the round settled:
    no_round (on the Bitcoin family it names a closed round: no event)."""
    p = S.player()
    s = S.STAKE + 9
    r = S.bet(p, s)
    deal(S, r, "10", "J", "A")
    hit = r.send("Hit")
    b = S.mine("A"); r.draw(b, "D")
    r.settle(b, [("Push", s)])
    S.rej_unpaid(hit, "no_round", "Hit")
    return "BJ vs J+A: Push"


def sc_bj_vs_ace_even_money(S):
    """Blackjack against an Ace: at W a Stand is not_allowed (Peek due), a
    Peek with insurance carrying floor(bet/2)+1 and a Peek without insurance
    carrying a value are wrong_value, then Peek with insurance (floor(s/2)
    of a small odd stake: 500 of 1001 on EVM); the peek card Q makes a
    dealer blackjack (a peek event with the verdict; Q is the dealer's
    second card): Push s + insurance 3 x floor(s/2)."""
    p = S.player()
    s = S.SMALL_STAKE + 1
    i = s // 2
    r = S.bet(p, s)
    deal(S, r, "A", "A", "K")
    st = r.send("Stand")
    w1 = r.send("Peek", i + 1, insurance=True)
    w2 = r.send("Peek", 3 * S.LITTLE, insurance=False)
    pk = r.send("Peek", i, insurance=True)
    S.mine()
    S.rej(st, "not_allowed", "Stand", r)
    S.rej(w1, "wrong_value", "Peek", r)
    S.rej(w2, "wrong_value", "Peek", r)
    r.act(pk, "Peek", insurance=True)
    b = S.mine("Q"); r.peek(b, True)
    r.settle(b, [("Push", s)], ins_payout=3 * i)
    return "even money: staked %d, returned %d" % (s + i, s + 3 * i)


def sc_bj_vs_ace_no_dbj(S):
    """Blackjack Q, A against an Ace: Peek without insurance, the peek card
    4 is no blackjack and is set aside: Blackjack paid at Peek+1, the
    dealer's hand only its Ace."""
    p = S.player()
    s = S.STAKE + 11
    r = S.bet(p, s)
    deal(S, r, "Q", "A", "A")
    pk = r.send("Peek", insurance=False)
    S.mine(); r.act(pk, "Peek", insurance=False)
    b = S.mine("4"); r.peek(b, False)
    r.settle(b, [("Blackjack", bj(s))])
    return "BJ vs A, peek 4 clear: %d" % bj(s)


def sc_bj_vs_ace_insured_no_dbj(S):
    """Blackjack against an Ace, insured, peek card 9: no blackjack (set
    aside, the dealer shows its Ace alone), insurance lost (payout 0), the
    blackjack paid 6:5 at Peek+1."""
    p = S.player()
    s = S.STAKE + 13
    i = s // 2
    r = S.bet(p, s)
    deal(S, r, "K", "A", "A")
    pk = r.send("Peek", i, insurance=True)
    S.mine(); r.act(pk, "Peek", insurance=True)
    b = S.mine("9"); r.peek(b, False)
    r.settle(b, [("Blackjack", bj(s))], ins_payout=0)
    return "BJ vs A, peek 9 clear, insurance lost: %d for %d" % (bj(s), s + i)


def sc_peek_insured_dbj(S):
    """19 against an Ace with a stake of exactly max_bet: a Peek in the
    block of the second card is premature; Peek with insurance at W; peek
    card K: dealer blackjack, the hand loses, insurance returns 3 x
    floor(bet/2)."""
    p = S.player()
    s = S.MAX_BET
    i = s // 2
    r = S.bet(p, s)
    S.mine(); r.accepted_bet()
    r.draw(S.mine("10"), 0)
    r.draw(S.mine("A"), "D")
    early = r.send("Peek", i, insurance=True)
    b = S.mine("9"); r.draw(b, 0)
    S.rej(early, "premature", "Peek", r)
    pk = r.send("Peek", i, insurance=True)
    S.mine(); r.act(pk, "Peek", insurance=True)
    b = S.mine("K"); r.peek(b, True)
    r.settle(b, [("Lose", 0)], ins_payout=3 * i)
    return "insurance %d returns %d" % (i, 3 * i)


def sc_peek_dbj(S):
    """17 against an Ace, Peek without insurance, peek card 10: dealer
    blackjack, Lose at Peek+1, no insurance in the settlement."""
    p = S.player()
    s = S.STAKE + 15
    r = S.bet(p, s)
    deal(S, r, "9", "A", "8")
    pk = r.send("Peek", insurance=False)
    S.mine(); r.act(pk, "Peek", insurance=False)
    b = S.mine("10"); r.peek(b, True)
    r.settle(b, [("Lose", 0)])
    return "A+10 at the Peek: Lose"


def sc_peek_insured_clear_skip(S):
    """19 against an Ace, insured Peek; the peek card 7 is no blackjack and
    is set aside (the dealer keeps its Ace alone); a Stand in that block is
    premature (window at Peek+2).  Stand at Peek+2, and in that block
    another player Q bets.  Dealer play from Peek+3: K would give the dealer
    a blackjack behind its Ace, so that block is skipped for its second
    card, and Q's round still takes the K as its first card; Peek+4 7 is
    the dealer's second card (A+7 soft 18 stands: Win, insurance 0) and
    Q's up card; Peek+5 A: Q's K+A is a blackjack against 7, paid 6:5."""
    p, q = S.player(), S.player()
    s = S.STAKE + 17
    i = s // 2
    r = S.bet(p, s)
    deal(S, r, "10", "A", "9")
    pk = r.send("Peek", i, insurance=True)
    S.mine(); r.act(pk, "Peek", insurance=True)
    early = r.send("Stand")
    b = S.mine("7"); r.peek(b, False)
    S.rej(early, "premature", "Stand", r)
    st = r.send("Stand")
    sq = S.STAKE + 69
    rq = S.bet(q, sq)
    S.mine()
    r.act(st, "Stand", 0)
    rq.accepted_bet()
    b = S.mine("K")
    r.skip(b)
    rq.draw(b, 0)
    b = S.mine("7")
    r.draw(b, "D"); r.settle(b, [("Win", 2 * s)], ins_payout=0)
    rq.draw(b, "D")
    b = S.mine("A"); rq.draw(b, 0)
    rq.settle(b, [("Blackjack", bj(sq))])
    return "19 vs A (peek 7 clear), K skipped (Q's first card), 7: Win, insurance lost"


def sc_peek_h17_ace(S):
    """PROTOCOL.md round 3, as protocol v1.1 plays it, on a real node: 8+4
    against an Ace, Peek without insurance, peek card 4: no blackjack, set
    aside; at W a Peek is not_allowed (none due), then Stand; dealer play:
    6 is the dealer's second card, A+6 soft 17, hits (H17); 8: hard 15,
    hits; J: bust.  Win."""
    p = S.player()
    s = S.STAKE + 19
    r = S.bet(p, s)
    deal(S, r, "8", "A", "4")
    pk = r.send("Peek", insurance=False)
    S.mine(); r.act(pk, "Peek", insurance=False)
    r.peek(S.mine("4"), False)
    pk2 = r.send("Peek", insurance=False)
    st = r.send("Stand")
    S.mine()
    S.rej(pk2, "not_allowed", "Peek", r)
    r.act(st, "Stand", 0)
    r.draw(S.mine("6"), "D")
    r.draw(S.mine("8"), "D")
    b = S.mine("J"); r.draw(b, "D")
    r.settle(b, [("Win", 2 * s)])
    return "12 vs A (peek 4 clear) +6+8+J (bust): Win"


def sc_double_9(S):
    """Hard 9 (5+4) against 6: a Double carrying stake-1 is wrong_value,
    then Double with the stake (on the Bitcoin family split over two outputs
    to the dealer: the value is their sum); 10 makes 19, the hand stands;
    dealer 10 (16) and K: bust.  Win 2 x 2s."""
    p = S.player()
    s = S.STAKE + 21
    r = S.bet(p, s)
    deal(S, r, "5", "6", "4")
    wv = r.send("Double", s - 1)
    db = r.send("Double", S.parts(s, 2))
    S.mine()
    S.rej(wv, "wrong_value", "Double", r)
    r.act(db, "Double", 0)
    r.draw(S.mine("10"), 0)
    r.draw(S.mine("10"), "D")
    b = S.mine("K"); r.draw(b, "D")
    r.settle(b, [("Win", 4 * s)])
    return "doubled 9 -> 19 vs bust: %d" % (4 * s)


def sc_double_10(S):
    """Hard 10 (6+4) against 9, Double, 2: 12; dealer 8: 17.  Lose both
    stakes."""
    p = S.player()
    s = S.STAKE + 23
    r = S.bet(p, s)
    deal(S, r, "6", "9", "4")
    db = r.send("Double", s)
    S.mine(); r.act(db, "Double", 0)
    r.draw(S.mine("2"), 0)
    b = S.mine("8"); r.draw(b, "D")
    r.settle(b, [("Lose", 0)])
    return "doubled 10 -> 12 vs 17: Lose 2s"


def sc_double_11(S):
    """Hard 11 (7+4) against 5, Double, K: 21; dealer 10 (15) and 2: 17.
    Win 4s."""
    p = S.player()
    s = S.STAKE + 25
    r = S.bet(p, s)
    deal(S, r, "7", "5", "4")
    db = r.send("Double", s)
    S.mine(); r.act(db, "Double", 0)
    r.draw(S.mine("K"), 0)
    r.draw(S.mine("10"), "D")
    b = S.mine("2"); r.draw(b, "D")
    r.settle(b, [("Win", 4 * s)])
    return "doubled 11 -> 21 vs 17: %d" % (4 * s)


def sc_double_soft_not_allowed(S):
    """A+8 is a soft 19, not a 9: Double not_allowed (its value refunded);
    Stand; dealer 7+10 = 17: Win."""
    p = S.player()
    s = S.STAKE + 27
    r = S.bet(p, s)
    deal(S, r, "A", "7", "8")
    db = r.send("Double", s)
    st = r.send("Stand")
    S.mine()
    S.rej(db, "not_allowed", "Double", r)
    r.act(st, "Stand", 0)
    b = S.mine("10"); r.draw(b, "D")
    r.settle(b, [("Win", 2 * s)])
    return "no Double on soft 19; 19 vs 17 Win"


def sc_double_hit_surrender_not_allowed(S):
    """2+3 = hard 5 against 9: Double not_allowed; Hit; 5: hard 10 on three
    cards: Double not_allowed; Surrender after a decision not_allowed;
    Stand; dealer 8: 17.  Lose."""
    p = S.player()
    s = S.STAKE + 29
    r = S.bet(p, s)
    deal(S, r, "2", "9", "3")
    d1 = r.send("Double", s)
    hit = r.send("Hit")
    S.mine()
    S.rej(d1, "not_allowed", "Double", r)
    r.act(hit, "Hit", 0)
    r.draw(S.mine("5"), 0)
    d2 = r.send("Double", s)
    su = r.send("Surrender")
    st = r.send("Stand")
    S.mine()
    S.rej(d2, "not_allowed", "Double", r)
    S.rej(su, "not_allowed", "Surrender", r)
    r.act(st, "Stand", 0)
    b = S.mine("8"); r.draw(b, "D")
    r.settle(b, [("Lose", 0)])
    return "Double on 5 and on 3 cards, Surrender after Hit: not_allowed"


def sc_double_dealer_bj(S):
    """Original bets only after a Double: 6+4 against K, Double, 8: 18;
    the dealer's A is a blackjack found late: DealerBlackjack, the hand
    (stake 2s) returns 2s - s = s."""
    p = S.player()
    s = S.STAKE + 31
    r = S.bet(p, s)
    deal(S, r, "6", "K", "4")
    db = r.send("Double", s)
    S.mine(); r.act(db, "Double", 0)
    r.draw(S.mine("8"), 0)
    b = S.mine("A"); r.draw(b, "D")
    r.settle(b, [("DealerBlackjack", s)])
    return "doubled vs K+A: loses only %d" % s


def sc_split_order(S):
    """8,8 against 6: a Split carrying s+1 is wrong_value, then Split (on the
    Bitcoin family both over two outputs to the dealer: their sum is the
    value); Y+1 completes hand 0 (10: 18), Y+2 hand 1 (3: 11); a Hit at Y+1
    is premature.  Hand 1 plays first: Double (no double after split),
    Surrender (split hand) not_allowed; Hit 5, Hit K: bust.  Hand 0: Stand.
    The dealer: 10 (16), 9: bust.  Hand 0 Win, hand 1 Bust (a busted hand
    loses even when the dealer busts)."""
    p = S.player()
    s = S.STAKE + 33
    r = S.bet(p, s)
    deal(S, r, "8", "6", "8")
    wv = r.send("Split", S.parts(s + 1, 2))
    sp = r.send("Split", S.parts(s, 2))
    S.mine()
    S.rej(wv, "wrong_value", "Split", r)
    r.act(sp, "Split", 0)
    early = r.send("Hit")
    b = S.mine("10"); r.draw(b, 0)
    S.rej(early, "premature", "Hit", r)
    r.draw(S.mine("3"), 1)
    db = r.send("Double", s)
    su = r.send("Surrender")
    hit = r.send("Hit")
    S.mine()
    S.rej(db, "not_allowed", "Double", r)
    S.rej(su, "not_allowed", "Surrender", r)
    r.act(hit, "Hit", 1)
    r.draw(S.mine("5"), 1)
    hit = r.send("Hit")
    S.mine(); r.act(hit, "Hit", 1)
    r.draw(S.mine("K"), 1)
    st = r.send("Stand")
    S.mine(); r.act(st, "Stand", 0)
    r.draw(S.mine("10"), "D")
    b = S.mine("9"); r.draw(b, "D")
    r.settle(b, [("Win", 2 * s), ("Bust", 0)])
    return "hand 1 first: Bust; hand 0 18: Win"


def sc_split_by_value(S):
    """10 and J split (pairs by value) against 9; hand 0 gets A: a two-card
    21 on a split hand stands by itself and is not a blackjack; hand 1 gets
    Q (20): a second Split is not_allowed (one split), Stand; dealer A:
    9+A = 20.  Hand 0 Win 2s (not 6:5), hand 1 Push."""
    p = S.player()
    s = S.STAKE + 35
    r = S.bet(p, s)
    deal(S, r, "10", "9", "J")
    sp = r.send("Split", s)
    S.mine(); r.act(sp, "Split", 0)
    r.draw(S.mine("A"), 0)
    r.draw(S.mine("Q"), 1)
    sp2 = r.send("Split", s)
    st = r.send("Stand")
    S.mine()
    S.rej(sp2, "not_allowed", "Split", r)
    r.act(st, "Stand", 1)
    b = S.mine("A"); r.draw(b, "D")
    r.settle(b, [("Win", 2 * s), ("Push", s)])
    return "split 21 paid 1:1, 20 vs 20 Push"


def sc_split_aces_not_allowed(S):
    """A,A against 5: Split not_allowed (aces never split); Stand on soft
    12; dealer 10 (15), 3: 18.  Lose."""
    p = S.player()
    s = S.STAKE + 37
    r = S.bet(p, s)
    deal(S, r, "A", "5", "A")
    sp = r.send("Split", s)
    st = r.send("Stand")
    S.mine()
    S.rej(sp, "not_allowed", "Split", r)
    r.act(st, "Stand", 0)
    r.draw(S.mine("10"), "D")
    b = S.mine("3"); r.draw(b, "D")
    r.settle(b, [("Lose", 0)])
    return "no split of aces"


def sc_split_dealer_bj(S):
    """Original bets only after a Split: 9,9 against Q; hand 0 9 (18), hand
    1 5 (14), Hit K: hand 1 busts; hand 0 Stand; the dealer's A is a late
    blackjack: hand 0 returns s - s = 0, hand 1 (busted) its stake s."""
    p = S.player()
    s = S.STAKE + 39
    r = S.bet(p, s)
    deal(S, r, "9", "Q", "9")
    sp = r.send("Split", s)
    S.mine(); r.act(sp, "Split", 0)
    r.draw(S.mine("9"), 0)
    r.draw(S.mine("5"), 1)
    hit = r.send("Hit")
    S.mine(); r.act(hit, "Hit", 1)
    r.draw(S.mine("K"), 1)
    st = r.send("Stand")
    S.mine(); r.act(st, "Stand", 0)
    b = S.mine("A"); r.draw(b, "D")
    r.settle(b, [("DealerBlackjack", 0), ("DealerBlackjack", s)])
    return "split vs Q+A: loses only %d" % s


def sc_stand_dealer_bj(S):
    """10+8 against J, Stand; the dealer's second card A: late dealer
    blackjack, DealerBlackjack with return s - s = 0 (no return owed)."""
    p = S.player()
    s = S.STAKE + 41
    r = S.bet(p, s)
    deal(S, r, "10", "J", "8")
    st = r.send("Stand")
    S.mine(); r.act(st, "Stand", 0)
    b = S.mine("A"); r.draw(b, "D")
    r.settle(b, [("DealerBlackjack", 0)])
    return "18 vs J+A: DealerBlackjack, 0"


def sc_surrender_vs_ten(S):
    """10+6 against K, Surrender; a Stand after it in the same block (signed
    at seq 1) is not_allowed (the dealer's second card is due); Y+1 7: no
    blackjack, Surrender floor(s/2)."""
    p = S.player()
    s = S.STAKE + 43
    r = S.bet(p, s)
    deal(S, r, "10", "K", "6")
    su = r.send("Surrender")
    st = r.send("Stand", seq=1)
    S.mine()
    r.act(su, "Surrender", 0)
    S.rej(st, "not_allowed", "Stand", r)
    b = S.mine("7"); r.draw(b, "D")
    r.settle(b, [("Surrender", s // 2)])
    return "vs K+7: %d back" % (s // 2)


def sc_surrender_vs_ten_dbj(S):
    """10+5 against 10, Surrender; Y+1 A: dealer blackjack takes the whole
    stake (Lose, 0)."""
    p = S.player()
    s = S.STAKE + 45
    r = S.bet(p, s)
    deal(S, r, "10", "10", "5")
    su = r.send("Surrender")
    S.mine(); r.act(su, "Surrender", 0)
    b = S.mine("A"); r.draw(b, "D")
    r.settle(b, [("Lose", 0)])
    return "vs 10+A: Lose"


def sc_surrender_vs_ace(S):
    """10+6 against an Ace: Surrender before the Peek is not_allowed; Peek
    (no insurance), peek card 5: no blackjack, set aside; Surrender at
    Peek+2 settles at once: floor(s/2), the dealer's hand its Ace alone."""
    p = S.player()
    s = S.STAKE + 47
    r = S.bet(p, s)
    deal(S, r, "10", "A", "6")
    su = r.send("Surrender")
    pk = r.send("Peek", insurance=False)
    S.mine()
    S.rej(su, "not_allowed", "Surrender", r)
    r.act(pk, "Peek", insurance=False)
    r.peek(S.mine("5"), False)
    su = r.send("Surrender")
    b = S.mine(); r.act(su, "Surrender", 0)
    r.settle(b, [("Surrender", s // 2)])
    return "after Peek (5 clear): %d back" % (s // 2)


def sc_timeout_stand_last_block(S):
    """Two players bet in one block (same cards: 10, 7 up, 9).  B stands in
    the last block of the window (W+timeout): accepted; A says nothing: the
    default Stand is applied at the end of that block.  Both dealers draw 10
    at the next block: 17, both Win, in opening order."""
    pa, pb = S.player(), S.player()
    s = S.STAKE + 49
    ra = S.bet(pa, s)
    rb = S.bet(pb, s + 2)
    S.mine(); ra.accepted_bet(); rb.accepted_bet()
    for want, hand in (("10", 0), ("7", "D"), ("9", 0)):
        b = S.mine(want)
        ra.draw(b, hand)
        rb.draw(b, hand)
    w = b.h + 1
    S.mine_n(S.T)
    st = rb.send("Stand")
    b = S.mine()
    if b.h != w + S.T:
        raise Failed("window arithmetic: %d != %d" % (b.h, w + S.T))
    rb.act(st, "Stand", 0)
    ra.timeout(b, "Stand", 0)
    b = S.mine("10")
    ra.draw(b, "D"); ra.settle(b, [("Win", 2 * s)])
    rb.draw(b, "D"); rb.settle(b, [("Win", 2 * (s + 2))])
    return "timeout Stand at W+%d, action at W+%d accepted" % (S.T, S.T)


def sc_timeout_peek_then_stand_h17(S):
    """10+9 against an Ace, no action at all: default Peek at W+timeout (it
    counts as an action: seq 1); peek card 3: no blackjack, set aside; where
    actions are signed, a Stand signed at seq 0, as if the timeout had not
    counted, is bad_signature; default Stand timeout_blocks after the new
    window; dealer play: Q would make a blackjack behind the Ace: skipped;
    6 is the dealer's second card, soft 17, hits (H17); 10, drawn as the
    third card (only the second card skips): hard 17.  Win."""
    p = S.player()
    s = S.STAKE + 53
    r = S.bet(p, s)
    deal(S, r, "10", "A", "9")
    S.mine_n(S.T)
    b = S.mine(); r.timeout(b, "Peek")
    r.peek(S.mine("3"), False)
    stale = S.stale(r, "Stand", 0)
    S.mine()
    if stale is not None:
        S.rej(stale, "bad_signature", "Stand", r)
    S.mine_n(S.T - 1)
    b = S.mine(); r.timeout(b, "Stand", 0)
    r.skip(S.mine("Q"))
    r.draw(S.mine("6"), "D")
    b = S.mine("10"); r.draw(b, "D")
    r.settle(b, [("Win", 2 * s)])
    return "default Peek (3 clear), %sdefault Stand, Q skipped, dealer A+6+10" % (
        "stale seq refused, " if stale is not None else "")


def sc_timeout_peek_dbj(S):
    """9+9 against an Ace, no action: default Peek; peek card K: dealer
    blackjack, Lose."""
    p = S.player()
    s = S.STAKE + 55
    r = S.bet(p, s)
    deal(S, r, "9", "A", "9")
    S.mine_n(S.T)
    b = S.mine(); r.timeout(b, "Peek")
    b = S.mine("K"); r.peek(b, True)
    r.settle(b, [("Lose", 0)])
    return "default Peek finds A+K"


def sc_timeout_split_hands(S):
    """7,7 against 5, Split (seq 0); hand 0 gets 10 (17), hand 1 gets 2 (9);
    no more actions: hand 1 is stood by timeout (seq 1), then hand 0 gets
    its own window from the next block (where actions are signed, a Stand
    signed at seq 1 is bad_signature: the timeout counted) and is stood by
    timeout too; dealer 10 (15), 10: bust.  Both Win."""
    p = S.player()
    s = S.STAKE + 57
    r = S.bet(p, s)
    deal(S, r, "7", "5", "7")
    sp = r.send("Split", s)
    S.mine(); r.act(sp, "Split", 0)
    r.draw(S.mine("10"), 0)
    r.draw(S.mine("2"), 1)
    S.mine_n(S.T)
    b = S.mine(); r.timeout(b, "Stand", 1)
    stale = S.stale(r, "Stand", 1)
    S.mine()
    if stale is not None:
        S.rej(stale, "bad_signature", "Stand", r)
    S.mine_n(S.T - 1)
    b = S.mine(); r.timeout(b, "Stand", 0)
    r.draw(S.mine("10"), "D")
    b = S.mine("10"); r.draw(b, "D")
    r.settle(b, [("Win", 2 * s), ("Win", 2 * s)])
    return "two default Stands, one window each"


def sc_players_same_blocks(S):
    """Three players bet in one block and get the same cards (10, 6 up, 6):
    at W, A stands, B hits, C surrenders (settled at once).  W+1 (5): A's
    dealer 11, B's hand 21 (stands by itself), in opening order.  W+2 (10):
    A's dealer 21, A loses; A bets again in that block (accepted).  W+3 (4):
    B's dealer 20, B wins 21 vs 20; A's new round takes the same 4.  A's new
    round: 9 up, 10: 14, Surrender."""
    pa, pb, pc = S.player(), S.player(), S.player()
    sa, sb, sc = S.STAKE + 59, S.STAKE + 61, S.STAKE + 63
    ra, rb, rc = S.bet(pa, sa), S.bet(pb, sb), S.bet(pc, sc)
    S.mine()
    for r in (ra, rb, rc):
        r.accepted_bet()
    for want, hand in (("10", 0), ("6", "D"), ("6", 0)):
        b = S.mine(want)
        for r in (ra, rb, rc):
            r.draw(b, hand)
    st, hit, su = ra.send("Stand"), rb.send("Hit"), rc.send("Surrender")
    S.mine()
    ra.act(st, "Stand", 0)
    rb.act(hit, "Hit", 0)
    rc.act(su, "Surrender", 0)
    rc.settle(S.at(su), [("Surrender", sc // 2)])
    b = S.mine("5")
    ra.draw(b, "D")
    rb.draw(b, 0)
    s2 = S.STAKE + 65
    ra2 = S.bet(pa, s2)
    b = S.mine("10")
    ra.draw(b, "D"); ra.settle(b, [("Lose", 0)])
    rb.draw(b, "D")
    ra2.accepted_bet()
    b = S.mine("4")
    rb.draw(b, "D"); rb.settle(b, [("Win", 2 * sb)])
    ra2.draw(b, 0)
    ra2.draw(S.mine("9"), "D")
    ra2.draw(S.mine("10"), 0)
    su2 = ra2.send("Surrender")
    b = S.mine(); ra2.act(su2, "Surrender", 0)
    ra2.settle(b, [("Surrender", s2 // 2)])
    return "3 rounds sharing cards; a new Bet in the settling block"


def sc_bet_rejections(S):
    """Bets rejected without a round, refunded to their player: below
    min_bet, above max_bet, a perfect-pairs side stake, a 21+3 side stake
    with a value also out of limits (side bets are checked first).  Actions
    naming no round of the player: a Hit with a value, no_round (refunded;
    on the Bitcoin family unattributed).  A Bet and an insured Peek paying
    nothing: bet_out_of_limits and no_round with nothing owed on EVM; on the
    Bitcoin family not the dealer's business, no event."""
    p1, p2, p3 = S.player(), S.player(), S.player()
    t = [S.send_bet(p1, S.MIN_BET - 1), S.send_bet(p1, S.MAX_BET + 1),
         S.send_bet(p2, 5000, pp=1000), S.send_bet(p2, S.MIN_BET - 1, pp=0, t3=1),
         S.stray(p3, "Hit", 7 * S.LITTLE)]
    unpaid_bet = S.send_bet(p3, 0)
    unpaid_peek = S.stray(p3, "Peek", insurance=True)
    S.mine()
    S.rej(t[0], "bet_out_of_limits", "Bet")
    S.rej(t[1], "bet_out_of_limits", "Bet")
    S.rej(t[2], "side_bets_not_offered", "Bet")
    S.rej(t[3], "side_bets_not_offered", "Bet")
    S.rej(t[4], "no_round", "Hit")
    S.rej_unpaid(unpaid_bet, "bet_out_of_limits", "Bet")
    S.rej_unpaid(unpaid_peek, "no_round", "Peek")
    return "limits, side bets, no_round; a Bet and a Peek paying nothing"


BOOK = [sc_win_stand, sc_lose_dealer_play, sc_push_min_bet_second_bet, sc_bust_premature,
        sc_hit_to_21_dealer_busts, sc_h17, sc_bj_vs_5_then_bet_and_surrender_vs_9,
        sc_bj_vs_2, sc_bj_vs_ten_win, sc_bj_vs_ten_push, sc_bj_vs_ace_even_money,
        sc_bj_vs_ace_no_dbj, sc_bj_vs_ace_insured_no_dbj, sc_peek_insured_dbj, sc_peek_dbj,
        sc_peek_insured_clear_skip, sc_peek_h17_ace, sc_double_9, sc_double_10,
        sc_double_11, sc_double_soft_not_allowed, sc_double_hit_surrender_not_allowed,
        sc_double_dealer_bj, sc_split_order, sc_split_by_value, sc_split_aces_not_allowed,
        sc_split_dealer_bj, sc_stand_dealer_bj, sc_surrender_vs_ten, sc_surrender_vs_ten_dbj,
        sc_surrender_vs_ace, sc_timeout_stand_last_block, sc_timeout_peek_then_stand_h17,
        sc_timeout_peek_dbj, sc_timeout_split_hands, sc_players_same_blocks,
        sc_bet_rejections]


# --------------------------------------------------------------------------
# Tables of several players, played by both payout tests' sessions
# (test_payouts.GameSession, test_ltc_payouts.ModelSession), whose few
# players play many rounds.  They ask of the session take(n) (n different
# players), stake() (a new odd stake), bet(p, stake), send_bet(p, value),
# table(players, first, up, second) (a Bet each in one block, then the
# deal: checks.SessionModel.table), mine(want), rej(), at(), and
# forged(r, action, value): r's action paying value with a bad signature
# (the Bitcoin family), or None where actions are not signed (EVM).

def sc_vs9_lose_bust_surrender(S):
    """Six rounds 10+6 against 9.  In X+3 a Hit of e paying 5000 is
    premature.  At W: a Stands; b Hits; d's Double (16) is not_allowed,
    d's Stand with a flipped signature paying 4000 is bad_signature (where
    actions are signed), then d Stands; e Stands; f's Surrender paying
    4000 is wrong_value, f Stands; c Surrenders (settled at once,
    floor(s/2)).  W+1 (10): b busts, the dealer's 19 beats a, d, e, f."""
    ra, rb, rc, rd, re_, rf = rs = [S.bet(p, S.stake()) for p in S.take(6)]
    S.mine()
    for r in rs:
        r.accepted_bet()
    for want, hand in (("10", 0), ("9", "D")):
        b = S.mine(want)
        for r in rs:
            r.draw(b, hand)
    early = re_.send("Hit", 5000)
    b = S.mine("6")
    for r in rs:
        r.draw(b, 0)
    S.rej(early, "premature", "Hit", re_)
    st_a = ra.send("Stand")
    hit_b = rb.send("Hit")
    db_d = rd.send("Double", rd.bet)
    forged = S.forged(rd, "Stand", 4000)
    st_d = rd.send("Stand")
    st_e = re_.send("Stand")
    wv_f = rf.send("Surrender", 4000)
    st_f = rf.send("Stand")
    su_c = rc.send("Surrender")
    S.mine()
    ra.act(st_a, "Stand", 0)
    rb.act(hit_b, "Hit", 0)
    S.rej(db_d, "not_allowed", "Double", rd)
    if forged is not None:
        S.rej(forged, "bad_signature", "Stand", rd)
    rd.act(st_d, "Stand", 0)
    re_.act(st_e, "Stand", 0)
    S.rej(wv_f, "wrong_value", "Surrender", rf)
    rf.act(st_f, "Stand", 0)
    rc.act(su_c, "Surrender", 0)
    rc.settle(S.at(su_c), [("Surrender", rc.bet // 2)])
    b = S.mine("10")
    ra.draw(b, "D"); ra.settle(b, [("Lose", 0)])
    rb.draw(b, 0); rb.settle(b, [("Bust", 0)])
    for r in (rd, re_, rf):
        r.draw(b, "D"); r.settle(b, [("Lose", 0)])
    return "6 rounds: 4 Lose, Bust, Surrender; premature, not_allowed, %swrong_value" % (
        "bad_signature, " if forged is not None else "")


def sc_vs7_push_win_bust(S):
    """Five rounds 10+8 against 7.  At W: a Stands; b and c Hit; d's Split
    of a non-pair is not_allowed, d Stands; a second Bet of e is
    second_round (refunded to e), e Stands.  W+1 (A): the dealer's soft 18
    stands: a, d, e Push; b and c hold 19.  W+2: b Stands, c Hits.  W+3
    (10): b's dealer 17, b Wins; c busts."""
    ra, rb, rc, rd, re_ = S.table(S.take(5), "10", "7", "8")
    st_a = ra.send("Stand")
    hit_b = rb.send("Hit")
    hit_c = rc.send("Hit")
    sp_d = rd.send("Split", rd.bet)
    st_d = rd.send("Stand")
    again = S.send_bet(re_.who, 20001)
    st_e = re_.send("Stand")
    S.mine()
    ra.act(st_a, "Stand", 0)
    rb.act(hit_b, "Hit", 0)
    rc.act(hit_c, "Hit", 0)
    S.rej(sp_d, "not_allowed", "Split", rd)
    rd.act(st_d, "Stand", 0)
    S.rej(again, "second_round", "Bet", re_)
    re_.act(st_e, "Stand", 0)
    b = S.mine("A")
    ra.draw(b, "D"); ra.settle(b, [("Push", ra.bet)])
    rb.draw(b, 0)
    rc.draw(b, 0)
    for r in (rd, re_):
        r.draw(b, "D"); r.settle(b, [("Push", r.bet)])
    st_b = rb.send("Stand")
    hit_c = rc.send("Hit")
    S.mine()
    rb.act(st_b, "Stand", 0)
    rc.act(hit_c, "Hit", 0)
    b = S.mine("10")
    rb.draw(b, "D"); rb.settle(b, [("Win", 2 * rb.bet)])
    rc.draw(b, 0); rc.settle(b, [("Bust", 0)])
    return "5 rounds: 3 Push, Win, Bust; not_allowed Split, second_round"


def sc_bj_vs_ace(S):
    """Four blackjacks A, K against an Ace.  At W: a Peeks insured (even
    money), b without; W+1 (Q): the peek card makes a dealer blackjack: a
    Push + 3 x insurance, b Push; c Peeks without, d insured.  W+2 (4): a
    clear peek card, set aside: Blackjack paid 6:5 (the dealer's hand its
    Ace alone), d's insurance lost."""
    ra, rb, rc, rd = S.table(S.take(4), "A", "A", "K")
    pk_a = ra.send("Peek", ra.bet // 2, insurance=True)
    pk_b = rb.send("Peek", insurance=False)
    S.mine()
    ra.act(pk_a, "Peek", insurance=True)
    rb.act(pk_b, "Peek", insurance=False)
    pk_c = rc.send("Peek", insurance=False)
    pk_d = rd.send("Peek", rd.bet // 2, insurance=True)
    b = S.mine("Q")
    ra.peek(b, True); ra.settle(b, [("Push", ra.bet)], ins_payout=3 * (ra.bet // 2))
    rb.peek(b, True); rb.settle(b, [("Push", rb.bet)])
    rc.act(pk_c, "Peek", insurance=False)
    rd.act(pk_d, "Peek", insurance=True)
    b = S.mine("4")
    rc.peek(b, False); rc.settle(b, [("Blackjack", bj(rc.bet))])
    rd.peek(b, False); rd.settle(b, [("Blackjack", bj(rd.bet))], ins_payout=0)
    return "4 rounds: even money, Push, 2 Blackjacks (one insured)"


# --------------------------------------------------------------------------
# Rule sets and side bets (docs/PROTOCOL.md sections 7.1 and 7.2): the
# sessions of tests/e2e/test_rules.py and test_ltc_rules.py, whose dealers
# run the preset named in each list's name with both side bets offered
# (SIDE_BETS).  S.bj(s) is a natural's return under the session's
# blackjack_pays; r.sidebets(b, pp, t3) writes the side bets settled with
# the third card (statuses checked against the cards, returns from the
# paytables).  Side stakes are a tenth of the main stake or so.

SIDE_BETS = {"perfect_pairs": "25,12,5", "twenty_one_plus_three": "100,40,30,10,5"}


def side_stake(S, k):
    return S.STAKE // 10 + k


def sc_ak_resplit_to_four_hands(S):
    """annakai: 8H, 6S up, 8H with both side bets: a perfect pair (25:1),
    21+3 lost.  Split (hands 8,8 and 8,8); hand 1 splits again (8,3 and
    8,2: three hands, the new ones take their cards in index order); on
    hand 2 a Double is not_allowed (no double after split), Stand; hand 1
    Stands; hand 0 splits again: four hands (8,8 and 8,9; hands above
    shift up); hand 1 Stands; hand 0 is a pair once more: its Split is
    not_allowed (max_hands 4), Stand.  Dealer 6+10+K busts: four Wins."""
    p = S.player()
    s = S.STAKE + 201
    r = S.bet(p, s, pp=side_stake(S, 1), t3=side_stake(S, 3))
    S.mine(); r.accepted_bet()
    r.draw(S.mine("8H"), 0)
    r.draw(S.mine("6S"), "D")
    b = S.mine("8H"); r.draw(b, 0)
    r.sidebets(b, pp="perfectPair", t3="sidebetLost")
    sp = r.send("Split", s)
    S.mine(); r.act(sp, "Split", 0)
    r.draw(S.mine("8"), 0)
    r.draw(S.mine("8"), 1)
    sp = r.send("Split", s)
    S.mine(); r.act(sp, "Split", 1)
    r.draw(S.mine("3"), 1)
    r.draw(S.mine("2"), 2)
    db = r.send("Double", s)
    st = r.send("Stand")
    S.mine()
    S.rej(db, "not_allowed", "Double", r)
    r.act(st, "Stand", 2)
    st = r.send("Stand")
    S.mine(); r.act(st, "Stand", 1)
    sp = r.send("Split", s)
    S.mine(); r.act(sp, "Split", 0)
    r.draw(S.mine("8"), 0)
    r.draw(S.mine("9"), 1)
    st = r.send("Stand")
    S.mine(); r.act(st, "Stand", 1)
    sp = r.send("Split", s)
    st = r.send("Stand")
    S.mine()
    S.rej(sp, "not_allowed", "Split", r)
    r.act(st, "Stand", 0)
    r.draw(S.mine("10"), "D")
    b = S.mine("K"); r.draw(b, "D")
    r.settle(b, [("Win", 2 * s)] * 4)
    return "perfect pair; 4 hands (16, 17, 11, 10) vs 6+10+K: 4 Wins"


def sc_ak_split_aces_one_card(S):
    """annakai: A, 6 up, A: Split; hand 0 takes K (21, not a blackjack) and
    stands; hand 1 takes A (soft 12) and stands: a Split and a Hit in that
    block are not_allowed (the dealer plays).  Dealer 6+10+2 = 18: hand 0
    Wins, hand 1 Loses."""
    p = S.player()
    s = S.STAKE + 203
    r = S.bet(p, s)
    deal(S, r, "A", "6", "A")
    sp = r.send("Split", s)
    S.mine(); r.act(sp, "Split", 0)
    r.draw(S.mine("K"), 0)
    sp = r.send("Split", s)
    hit = r.send("Hit")
    b = S.mine("A"); r.draw(b, 1)
    S.rej(sp, "not_allowed", "Split", r)
    S.rej(hit, "not_allowed", "Hit", r)
    r.draw(S.mine("10"), "D")
    b = S.mine("2"); r.draw(b, "D")
    r.settle(b, [("Win", 2 * s), ("Lose", 0)])
    return "split aces, one card each: A+K Wins 21 vs 18, A+A Loses"


def sc_ak_peek_ten_dealer_bj(S):
    """annakai (peek = ace_ten): QH, KS up, J with a 21+3 stake: a straight
    (10:1).  X+4 is the peek card by itself: A, a dealer blackjack: 20
    Loses there; a Stand paying nothing in that block finds no round (on
    the Bitcoin family no event)."""
    p = S.player()
    s = S.STAKE + 205
    r = S.bet(p, s, t3=side_stake(S, 5))
    S.mine(); r.accepted_bet()
    r.draw(S.mine("QH"), 0)
    r.draw(S.mine("KS"), "D")
    b = S.mine("J"); r.draw(b, 0)
    r.sidebets(b, t3="straight")
    st = r.send("Stand")
    b = S.mine("A"); r.peek(b, True)
    r.settle(b, [("Lose", 0)])
    S.rej_unpaid(st, "no_round", "Stand")
    return "straight won; peek card at X+4 finds K+A: Lose"


def sc_ak_peek_ten_clear_skip(S):
    """annakai: 10, 7 against J; X+4 is the peek card 5: no blackjack, set
    aside (a Stand in that block is premature: the window opens at X+5).
    Stand at X+5; dealer play: A would make a blackjack behind the J:
    skipped; 7: 17.  Push."""
    p = S.player()
    s = S.STAKE + 207
    r = S.bet(p, s)
    deal(S, r, "10", "J", "7")
    early = r.send("Stand")
    b = S.mine("5"); r.peek(b, False)
    S.rej(early, "premature", "Stand", r)
    st = r.send("Stand")
    S.mine(); r.act(st, "Stand", 0)
    r.skip(S.mine("A"))
    b = S.mine("7"); r.draw(b, "D")
    r.settle(b, [("Push", s)])
    return "peek card 5 clear at X+4, A skipped, J+7: Push"


def sc_ak_blackjack_3_to_2_sides_lost(S):
    """annakai: AS, 5 up, KH with an odd stake and both side bets: both
    lost (no pair; A-5-K no straight, two suits); the natural settles at
    X+3 paying 3:2 rounded down."""
    p = S.player()
    s = S.SMALL_STAKE + 9
    side = S.SMALL_STAKE // 10
    r = S.bet(p, s, pp=side, t3=side + 1)
    S.mine(); r.accepted_bet()
    r.draw(S.mine("AS"), 0)
    r.draw(S.mine("5"), "D")
    b = S.mine("KH"); r.draw(b, 0)
    r.sidebets(b, pp="sidebetLost", t3="sidebetLost")
    r.settle(b, [("Blackjack", S.bj(s))])
    return "sides lost; natural %d -> %d" % (s, S.bj(s))


ANNAKAI = [sc_ak_resplit_to_four_hands, sc_ak_split_aces_one_card, sc_ak_peek_ten_dealer_bj,
           sc_ak_peek_ten_clear_skip, sc_ak_blackjack_3_to_2_sides_lost]


def sc_cg_side_bet_limits(S):
    """cryptogames with side bets offered: Bets refunded whole,
    bet_out_of_limits: a perfect-pairs stake above the main stake; a value
    below its side stakes; a main stake below min_bet once the sides are
    taken off."""
    p1, p2, p3 = S.player(), S.player(), S.player()
    m = S.MIN_BET
    t = [S.send_bet(p1, m + m + 1, pp=m + 1), S.send_bet(p2, m, pp=m, t3=1),
         S.send_bet(p3, m - 1 + 2, pp=1, t3=1)]
    S.mine()
    for x in t:
        S.rej(x, "bet_out_of_limits", "Bet")
    return "3 Bets out of limits with side stakes"


def sc_cg_split_aces_hit_split_21(S):
    """cryptogames (peek = none, split aces hit, split 21 = blackjack): AH,
    6S up, AD with both side bets: a coloured pair (12:1), 21+3 lost.  At
    X+4 a Peek is not_allowed, Split; hand 0 takes K: a split 21, stands;
    hand 1 takes 5 (soft 16), Hits: 4, soft 20, Stands.  Dealer 6+10+5 =
    21 in three cards: hand 0 is paid as a blackjack (6:5), hand 1
    Loses."""
    p = S.player()
    s = S.STAKE + 211
    r = S.bet(p, s, pp=side_stake(S, 11), t3=side_stake(S, 13))
    S.mine(); r.accepted_bet()
    r.draw(S.mine("AH"), 0)
    r.draw(S.mine("6S"), "D")
    b = S.mine("AD"); r.draw(b, 0)
    r.sidebets(b, pp="colouredPair", t3="sidebetLost")
    pk = r.send("Peek", insurance=False)
    sp = r.send("Split", s)
    S.mine()
    S.rej(pk, "not_allowed", "Peek", r)
    r.act(sp, "Split", 0)
    r.draw(S.mine("K"), 0)
    r.draw(S.mine("5"), 1)
    hit = r.send("Hit")
    S.mine(); r.act(hit, "Hit", 1)
    r.draw(S.mine("4"), 1)
    st = r.send("Stand")
    S.mine(); r.act(st, "Stand", 1)
    r.draw(S.mine("10"), "D")
    b = S.mine("5"); r.draw(b, "D")
    r.settle(b, [("Blackjack", S.bj(s)), ("Lose", 0)])
    return "coloured pair; split A+K paid %d against a three-card 21" % S.bj(s)


def sc_cg_early_surrender_vs_ace(S):
    """cryptogames: 10D, AD up, 6D with a 21+3 stake: a flush (5:1).  No
    Peek: the window opens at X+4, where an early Surrender against the
    Ace settles at once, floor(s/2) of an odd stake, no card drawn."""
    p = S.player()
    s = S.STAKE + 213
    r = S.bet(p, s, t3=side_stake(S, 15))
    S.mine(); r.accepted_bet()
    r.draw(S.mine("10D"), 0)
    r.draw(S.mine("AD"), "D")
    b = S.mine("6D"); r.draw(b, 0)
    r.sidebets(b, t3="flush")
    su = r.send("Surrender")
    b = S.mine(); r.act(su, "Surrender", 0)
    r.settle(b, [("Surrender", s // 2)])
    return "flush won; early Surrender vs A: %d back" % (s // 2)


def sc_cg_dealer_bj_takes_every_stake(S):
    """cryptogames (peek = none): 8H, 10 up, 8S with a perfect-pairs stake:
    a mixed pair (5:1).  Split: hand 0 takes 3 (11), hand 1 takes 2 (10),
    Doubles (after a split): 9, 19; hand 0 Stands.  The dealer's second
    card A: a blackjack found in dealer play takes every stake, the double
    and the split included: Lose, Lose, return 0 of 4 stakes."""
    p = S.player()
    s = S.STAKE + 215
    r = S.bet(p, s, pp=side_stake(S, 17))
    S.mine(); r.accepted_bet()
    r.draw(S.mine("8H"), 0)
    r.draw(S.mine("10"), "D")
    b = S.mine("8S"); r.draw(b, 0)
    r.sidebets(b, pp="mixedPair")
    sp = r.send("Split", s)
    S.mine(); r.act(sp, "Split", 0)
    r.draw(S.mine("3"), 0)
    r.draw(S.mine("2"), 1)
    db = r.send("Double", s)
    S.mine(); r.act(db, "Double", 1)
    r.draw(S.mine("9"), 1)
    st = r.send("Stand")
    S.mine(); r.act(st, "Stand", 0)
    b = S.mine("A"); r.draw(b, "D")
    r.settle(b, [("Lose", 0), ("Lose", 0)])
    return "mixed pair; split + double vs 10+A: all %d lost" % (4 * s)


CRYPTOGAMES = [sc_cg_side_bet_limits, sc_cg_split_aces_hit_split_21,
               sc_cg_early_surrender_vs_ace, sc_cg_dealer_bj_takes_every_stake]


def rule_set_sessions(R):
    """The sessions tests/e2e/test_rules.py and test_ltc_rules.py play on
    their family's Runner: annakai and cryptogames, both side bets on."""
    R.session("annakai", ANNAKAI, preset="annakai", rules=SIDE_BETS)
    R.session("cryptogames", CRYPTOGAMES, preset="cryptogames", rules=SIDE_BETS)
