#!/usr/bin/env python3
"""Writes tests/replay/ok/*.json: sample sessions with crafted block hashes.

Block hashes are random 32-byte values whose last digits are chosen so that
the block yields the wanted card (docs/PROTOCOL.md section 2.1): a color
digit c with c mod 4 = suit, the rank digit, then 0..3 skipped digits from
{0, e, f}.  A void block has only 0, e, f after its first digit.  Seeded:
reruns give the same files.
"""
import json, random, sys, os

OUT = sys.argv[1] if len(sys.argv) > 1 else 'ok'
RANKS = {'A': 1, '2': 2, '3': 3, '4': 4, '5': 5, '6': 6, '7': 7, '8': 8,
         '9': 9, '10': 10, 'J': 11, 'Q': 12, 'K': 13}
SUITS = {'C': 0, 'D': 1, 'H': 2, 'S': 3}
HEX = '0123456789abcdef'

BET, HIT, STAND, DOUBLE, SPLIT, SURRENDER = (
    '0x484a0101', '0x484a0102', '0x484a0103', '0x484a0104', '0x484a0105',
    '0x484a0106')
PEEK_INS, PEEK_NO = '0x484a010701', '0x484a010700'
E18 = 10**18


class Doc:
    def __init__(self, name, start, min_bet='1000',
                 max_bet='1000000000000000000000', timeout=None,
                 preset=True):
        self.name = name
        self.rng = random.Random(name)
        self.dealer = self.addr()
        self.height = start
        self.parent = self.hash32()
        self.blocks = []
        self.rules = {}
        if preset:
            self.rules['preset'] = 'bethash'
        self.rules['min_bet'] = min_bet
        self.rules['max_bet'] = max_bet
        if timeout is not None:
            self.rules['timeout_blocks'] = timeout

    def hexs(self, n):
        return ''.join(self.rng.choice(HEX) for _ in range(n))

    def addr(self):
        return '0x' + self.hexs(40)

    def hash32(self):
        return '0x' + self.hexs(64)

    def card_hash(self, card):
        if card == 'void':
            return '0x' + self.rng.choice(HEX) + ''.join(
                self.rng.choice('0ef') for _ in range(63))
        rank, suit = RANKS[card[:-1]], SUITS[card[-1]]
        ntrail = self.rng.choice([0, 0, 0, 1, 1, 2, 3])
        trail = ''.join(self.rng.choice('0ef') for _ in range(ntrail))
        color = self.rng.choice([c for c in range(16) if c % 4 == suit])
        head = self.hexs(64 - ntrail - 2)
        return '0x' + head + HEX[color] + HEX[rank] + trail

    def block(self, card, *txs):
        h = self.card_hash(card)
        self.blocks.append({'height': self.height, 'hash': h,
                            'parent': self.parent, 'txs': list(txs),
                            '_card': card})
        self.parent = h
        self.height += 1

    def tx(self, frm, inp, value=0, to=None, status=None, upper_to=False):
        t = {'hash': self.hash32(), 'from': frm,
             'to': self.dealer if to is None else to,
             'value': str(value), 'input': inp}
        if upper_to and t['to']:
            t['to'] = '0x' + t['to'][2:].upper()
        if status is not None:
            t['status'] = status
        return t

    def other(self, frm):
        """A transfer between two other accounts: not the dealer's."""
        return self.tx(frm, '0x', 5 * 10**15, to=self.addr())

    def create(self, frm):
        """A contract creation: "to" is null."""
        return self.tx(frm, '0x6080604052348015600f57600080fd5b50', 0,
                       to=None) | {'to': None}

    def write(self):
        blocks = []
        for b in self.blocks:
            b = dict(b)
            del b['_card']
            blocks.append(b)
        doc = {'chain': 'evm', 'dealer': self.dealer, 'rules': self.rules,
               'blocks': blocks}
        with open(os.path.join(OUT, self.name + '.json'), 'w') as f:
            json.dump(doc, f, indent=1)
            f.write('\n')
        with open(os.path.join(OUT + '_cards', self.name + '.cards'), 'w') as f:
            for b in self.blocks:
                f.write('%d %s %s\n' % (b['height'], b['_card'], b['hash']))


def win():
    d = Doc('win', 19000000)
    p1, p2 = d.addr(), d.addr()
    d.block('4C', d.other(p2))
    # X: Bet behind a transfer to someone else and a contract creation;
    # the dealer address is written in upper case (case-insensitive).
    d.block('7D', d.other(p2), d.create(p2),
            d.tx(p1, BET, E18, upper_to=True))
    d.block('10S')   # X+1 player
    d.block('9H')    # X+2 dealer up
    d.block('9C')    # X+3 player: 19
    d.block('2D', d.tx(p1, STAND))  # X+4 Stand
    d.block('8D')    # X+5 dealer 17: settle, Win 2 ETH
    d.block('QS')    # nothing
    d.write()


def bust():
    d = Doc('bust', 19100000)
    p1 = d.addr()
    d.block('3S', d.tx(p1, BET, 5 * 10**16))
    d.block('10C')
    d.block('7D')
    d.block('6H')    # 16
    d.block('5S', d.tx(p1, HIT))
    d.block('KS')    # 26: Bust, settles, dealer does not play
    d.block('2C')
    d.write()


def blackjack():
    d = Doc('blackjack', 19200000)
    p1, p2, p3 = d.addr(), d.addr(), d.addr()
    d.block('5D', d.tx(p1, BET, 1001))
    d.block('AS')    # p1 card 1
    d.block('9D')    # dealer up 9
    d.block('KH')    # blackjack vs 9: settles now, 1001 + 1201
    d.block('2S', d.tx(p2, BET, 2500))
    d.block('AC')    # p2 card 1
    d.block('QD')    # dealer up 10-valued
    d.block('JS')    # blackjack; dealer's second card next block
    d.block('7H')    # dealer Q7, no blackjack: 2500 + 3000
    d.block('3C', d.tx(p3, BET, 3000))
    d.block('AH')
    d.block('KD')
    d.block('QC')    # blackjack
    d.block('AD')    # dealer blackjack too: Push
    d.write()


def split():
    d = Doc('split', 19300000)
    p1 = d.addr()
    d.block('6C', d.tx(p1, BET, E18))
    d.block('8S')    # X+1
    d.block('6H')    # X+2 dealer up
    d.block('8D')    # X+3 pair of 8s
    d.block('KC', d.tx(p1, SPLIT, E18))        # X+4 Split
    d.block('3C')    # X+5 hand 0: 8S 3C
    d.block('10H')   # X+6 hand 1: 8D 10H = 18; window opens X+7
    d.block('4D', d.tx(p1, STAND))             # X+7 hand 1 stands
    # X+8: no double after split (refunded), then Hit hand 0
    d.block('5C', d.tx(p1, DOUBLE, E18), d.tx(p1, HIT))
    d.block('9S')    # X+9 hand 0: 20
    d.block('7S', d.tx(p1, STAND))             # X+10 hand 0 stands
    d.block('10C')   # X+11 dealer 16
    d.block('9D')    # X+12 dealer 25: both hands win
    d.write()


def double():
    d = Doc('double', 19400000)
    p1 = d.addr()
    d.block('JH', d.tx(p1, BET, 2 * 10**17))
    d.block('5S')
    d.block('6D')
    d.block('6C')    # hard 11
    # X+4: a Double with the wrong value (refunded), then the right one
    d.block('3H', d.tx(p1, DOUBLE, 10**17), d.tx(p1, DOUBLE, 2 * 10**17))
    d.block('KH')    # 21, doubled: stands
    d.block('10S')   # dealer 16
    d.block('7C')    # dealer 23: Win 4 * stake
    d.write()


def original_bets():
    d = Doc('original_bets', 19500000)
    p1, p2 = d.addr(), d.addr()
    d.block('8H', d.tx(p1, BET, 1000000))
    d.block('6S')
    d.block('KD')    # 10-valued up card
    d.block('5C')    # 11
    d.block('4S', d.tx(p1, DOUBLE, 1000000))
    d.block('2H')    # 13, doubled
    d.block('AS')    # dealer blackjack: only the original stake is lost
    d.block('7C', d.tx(p2, BET, 40000))
    d.block('9S')
    d.block('10H')   # up 10
    d.block('9D')    # pair of 9s
    d.block('6D', d.tx(p2, SPLIT, 40000))
    d.block('2C')    # hand 0: 9S 2C
    d.block('KS')    # hand 1: 9D KS
    d.block('3D', d.tx(p2, STAND))  # hand 1
    d.block('8C', d.tx(p2, STAND))  # hand 0
    d.block('AC')    # dealer blackjack: the split stake comes back
    d.write()


def surrender():
    d = Doc('surrender', 19600000)
    p1, p2, p3 = d.addr(), d.addr(), d.addr()
    d.block('2H', d.tx(p1, BET, 1001))
    d.block('10S')
    d.block('9H')    # up 9
    d.block('6D')    # 16
    d.block('5H', d.tx(p1, SURRENDER))  # settles now: 500
    d.block('4H', d.tx(p2, BET, 1001))
    d.block('10C')
    d.block('QH')    # up 10-valued
    d.block('6S')
    d.block('9C', d.tx(p2, SURRENDER))  # dealer's second card next block
    d.block('7D')    # no blackjack: 500
    d.block('JC', d.tx(p3, BET, 3000))
    d.block('9C')
    d.block('KS')    # up 10-valued
    d.block('7H')
    d.block('2D', d.tx(p3, SURRENDER))
    d.block('AD')    # dealer blackjack: the whole stake is lost
    d.write()


def peek():
    d = Doc('peek', 19700000)
    p1, p2 = d.addr(), d.addr()
    d.block('QD', d.tx(p1, BET, 1000))
    d.block('10S')
    d.block('AH')    # up Ace: Peek due
    d.block('9C')    # 19
    # Hit is not allowed before Peek (refunded), then Peek with insurance
    d.block('8H', d.tx(p1, HIT), d.tx(p1, PEEK_INS, 500))
    d.block('KD')    # peek card K: dealer blackjack, insurance 1500
    d.block('5C', d.tx(p2, BET, 1000))
    d.block('10D')
    d.block('AC')    # up Ace
    d.block('8S')    # 18
    d.block('4C', d.tx(p2, PEEK_INS, 500))
    d.block('7H')    # peek card 7: no blackjack, set aside; window opens
    d.block('2C', d.tx(p2, STAND))  # the dealer plays from the next block
    d.block('KD')    # A+K would be a blackjack: skipped for the second card
    d.block('7S')    # dealer A7, soft 18 stands: Push, insurance lost
    p3, p4 = d.addr(), d.addr()
    d.block('6D', d.tx(p3, BET, 1000))
    d.block('AS')
    d.block('AH')    # up Ace
    d.block('KC')    # player blackjack: Peek first (even money)
    d.block('3S', d.tx(p3, PEEK_INS, 500))
    d.block('9D')    # peek card 9, no dealer blackjack: Blackjack 2200
    d.block('8C', d.tx(p4, BET, 1000))
    d.block('AD')
    d.block('AC')    # up Ace
    d.block('QS')    # player blackjack
    d.block('10C', d.tx(p4, PEEK_INS, 500))
    d.block('JH')    # peek card J, dealer blackjack: Push 1000 + 1500
    d.write()


def void():
    d = Doc('void', 19800000)
    p1 = d.addr()
    d.block('9H', d.tx(p1, BET, 7 * 10**16))
    d.block('7S')    # X+1 player card 1
    d.block('void')  # X+2 void: the dealer's up card moves on
    d.block('10D')   # X+3 dealer up
    d.block('void')  # X+4 void
    d.block('4H', d.tx(p1, HIT))   # X+5 player card 2 (11); Hit premature
    d.block('3S', d.tx(p1, HIT))   # X+6 Hit
    d.block('void')  # X+7 void
    d.block('9C')    # X+8 20
    d.block('JD', d.tx(p1, STAND))
    d.block('void')
    d.block('8S')    # dealer 18: Win
    d.write()


def rejects():
    d = Doc('rejects', 19900000, min_bet='1000',
            max_bet='1000000000000000000')
    p = [d.addr() for _ in range(10)]
    d.block('4D',
            d.tx(p[0], '0x', 123),                        # deposit
            d.tx(p[1], BET, 5000, status='0x0'),          # failed receipt
            d.tx(p[2], HIT, 7),                           # no_round
            d.tx(p[3], '0x484a0201', 1000),               # bad_version
            d.tx(p[3], '0x484a0109', 1000),               # unknown_action
            d.tx(p[3], '0x484a010100', 1000),             # bad_length
            d.tx(p[3], '0x484a01', 1),                    # truncated
            d.tx(p[4], BET + '0000000000000001', 2000),   # side bets
            d.tx(p[5], BET, 999),                         # below min_bet
            d.tx(p[5], BET, 10**18 + 1),                  # above max_bet
            d.tx(p[6], BET, 5000),                        # accepted
            d.tx(p[6], BET, 5000),                        # second_round
            d.tx(p[7], '0x484a010702', 0),                # bad_field
            d.tx(p[8], '0xa9059cbb00000000', 0),          # deposit
            d.tx(p[9], '0x484a0103' + '00', 0, status='0x1'))  # too_long
    d.block('10S', d.tx(p[6], HIT))                       # premature
    d.block('7H', d.tx(p[6], STAND))                      # premature
    d.block('8C')                                         # 18
    d.block('2S', d.tx(p[6], STAND, 1), d.tx(p[6], STAND))  # wrong value
    # dealer 17: settles; a Bet in the settling block is accepted
    d.block('JD', d.tx(p[6], BET, 5000))
    d.block('3H')
    d.write()


def timeout():
    d = Doc('timeout', 20000000, timeout=3)
    p1, p2 = d.addr(), d.addr()
    d.block('6C', d.tx(p1, BET, 1000))
    d.block('10S')   # X+1
    d.block('7D')    # X+2 up
    d.block('5C')    # X+3: 15; window opens X+4
    d.block('9H')    # X+4
    d.block('QH')    # X+5
    d.block('2H')    # X+6
    d.block('3D')    # X+7 = X+4+3: Stand by timeout
    d.block('10H')   # dealer 17: Lose
    d.block('KC', d.tx(p2, BET, 2000))
    d.block('9S')    # Y+1
    d.block('AD')    # Y+2 up Ace
    d.block('9H')    # Y+3: 18; window Y+4
    d.block('6S')
    d.block('6H')
    d.block('2D')
    d.block('JS')    # Y+7: Peek without insurance by timeout
    d.block('5C')    # Y+8 peek card 5: no blackjack; window Y+9
    d.block('8D')
    d.block('QC')
    d.block('4S')
    d.block('7S', d.tx(p2, STAND))  # Y+12: the last block of the window
    d.block('2S')    # dealer A2, soft 13
    d.block('5D')    # soft 18 stands: Push
    d.write()


def peek_timeout():
    d = Doc('peek_timeout', 20200000, timeout=2)
    p1 = d.addr()
    d.block('6C', d.tx(p1, BET, 1000))
    d.block('10S')
    d.block('AD')    # up Ace
    d.block('9H')    # 19
    d.block('2C', d.tx(p1, PEEK_NO))  # Peek, no insurance: stake 0
    d.block('8C')    # peek card 8: no blackjack, set aside
    d.block('3C')    # window opens (X+6)
    d.block('4C')
    d.block('5C')    # X+6 + 2: Stand by timeout; the dealer plays
    d.block('QS')    # A+Q would be a blackjack: skipped
    d.block('8S')    # dealer A8, 19 stands: Push
    d.write()


def exposure():
    # max_exposure 6 ETH; under bethash a Bet of b exposes 4b.
    d = Doc('exposure', 20300000, max_bet=str(E18))
    d.rules['max_exposure'] = str(6 * E18)
    p1, p2, p3, p4, p5 = (d.addr() for _ in range(5))
    # 4 + 2 = 6 ETH: exactly the limit; then even 1000 wei (4000) is over.
    d.block('5C', d.tx(p1, BET, E18), d.tx(p2, BET, E18 // 2),
            d.tx(p3, BET, 1000))
    d.block('9S')    # p1 p2 card 1
    d.block('7D')    # p1 p2 up 7
    d.block('2H', d.tx(p3, BET, 1000))  # p1 p2 11; still full
    # p1's Double was counted at its Bet: accepted.  p2's Surrender
    # settles at once and frees 2 ETH for p3's Bet after it, not for p5's.
    d.block('4C', d.tx(p1, DOUBLE, E18), d.tx(p2, SURRENDER),
            d.tx(p3, BET, E18 // 2), d.tx(p5, BET, 1000))
    d.block('KH')    # p1 21, doubled; p3 card 1
    # p1's dealer 17 settles in the draw step (Win 4 ETH): p4's Bet fits.
    d.block('10S', d.tx(p4, BET, E18), d.tx(p5, BET, 1000))
    d.block('8D')    # p3 18 against 10; p4 card 1
    d.block('3C', d.tx(p3, STAND))  # p4 up 3
    d.block('QS')    # p3's dealer 20: Lose; p4 18
    d.block('9C', d.tx(p4, STAND))
    d.block('5H')    # p4's dealer 8
    d.block('JD')    # 18: Push
    d.write()


def multi():
    d = Doc('multi', 20100000)
    p1, p2, p3 = d.addr(), d.addr(), d.addr()
    d.block('8D', d.tx(p1, BET, 10**17), d.tx(p2, BET, 3 * 10**17))
    d.block('10H', d.tx(p3, BET, 50 * E18))  # p1 p2 card 1
    d.block('6S')    # p1 p2 up; p3 card 1
    d.block('9D')    # p1 p2 card 2 (19); p3 up
    d.block('4C', d.tx(p1, STAND), d.tx(p2, HIT),
            d.tx(p3, DOUBLE, 50 * E18))    # p3 card 2 (10); p3 premature
    d.block('2C', d.tx(p3, DOUBLE, 50 * E18))  # p1 dealer 8; p2 21
    d.block('KD')    # p1 dealer 18: Win; p2 dealer 16; p3 20
    d.block('5H')    # p2 dealer 21: Push; p3 dealer 14
    d.block('3C')    # p3 dealer 17: Win
    d.write()


os.makedirs(OUT, exist_ok=True)
os.makedirs(OUT + '_cards', exist_ok=True)
for f in (win, bust, blackjack, split, double, original_bets, surrender,
          peek, void, rejects, timeout, peek_timeout, multi, exposure):
    f()
