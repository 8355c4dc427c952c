#!/usr/bin/env python3
"""Writes the committed-cards replay samples (docs/PROTOCOL.md section 15):

  ok/committed.json, ok/committed.jsonl   the document and its log, every
                                          line built here, not by hashjack
  bad/committed_*.json, .err              the seed checks' refusals

Run from tests/replay: tools/committed.py.  The chain is the protocol's
vector chain (s_8 = SHA-256 of "hashjack committed cards test vector"),
used from its commitment s_0 with L = 3: a Commit from the dealer in block
100 for H = 101, so blocks 101..103 use s_1..s_3 and 104, past the
chain's last seed, is void.  Block 101's hash is Bitcoin's genesis and
102's the protocol's second vector, so their keyed cards are the spec's
(4 of Clubs, Ace of Diamonds); the script asserts both.  Only Python's
hashlib and hmac compute the cards, from docs/PROTOCOL.md section 1's
reading of a hash.
"""
import copy, hashlib, hmac, json, os, struct

DEALER = '0x' + 'de' * 20
PLAYER = '0x' + 'a1' * 20
OTHER = '0x' + 'b2' * 20
TX_COMMIT = '0x' + 'c0' * 32
TX_BET = '0x' + 'be' * 32
PARENT = '0x' + '11' * 32
HASHES = {
    100: '0x' + hashlib.sha256(b'hashjack replay block 100').hexdigest(),
    101: '0x000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f',
    102: '0x0b6bc29980dbb1e93857d094f4a68184d33f3c956609c997693dea129192b10e',
    103: '0x' + hashlib.sha256(b'hashjack replay block 103').hexdigest(),
    104: '0x' + hashlib.sha256(b'hashjack replay block 104').hexdigest(),
}
START, LENGTH = 101, 3

RANKS = {'1': 'A', 'a': '10', 'b': 'J', 'c': 'Q', 'd': 'K'}
SUITS = ['Clubs', 'Diamonds', 'Hearts', 'Spades']


def chain():
    """s[i] for i = 0 .. 8 of the vector chain."""
    s = [None] * 9
    s[8] = hashlib.sha256(b'hashjack committed cards test vector').digest()
    for i in range(8, 0, -1):
        s[i - 1] = hashlib.sha256(s[i]).digest()
    return s


def card(hexs):
    """docs/PROTOCOL.md section 1: the card of 64 hex digits, or None."""
    for pos in range(63, 0, -1):
        if hexs[pos] in '123456789abcd':
            r = hexs[pos]
            rank = RANKS.get(r, r)
            color = hexs[pos - 1]
            value = 10 if rank in ('10', 'J', 'Q', 'K') else (
                1 if rank == 'A' else int(rank))
            suit = SUITS[int(color, 16) % 4]
            return {'rank': rank, 'suit': suit,
                    'value': value, 'code': rank + suit[0], 'pos': pos,
                    'rankDigit': r, 'colorDigit': color}
    return None


S = chain()
assert S[8].hex() == ('f463bc65aaecac661915776ca62b2068'
                      'e09e61d7ea006e7c8e444fa778eb31d8')
assert S[0].hex() == ('14941c1005385b6a00a7f729c4c0f68d'
                      'acfb27205e9e68f3e86cb43fb85fd770')


def keyed(height):
    """The block's seed and keyed card, or (None, None) past the chain."""
    i = height - START + 1
    if not 1 <= i <= LENGTH:
        return None, None
    mac = hmac.new(S[i], bytes.fromhex(HASHES[height][2:]),
                   hashlib.sha256).hexdigest()
    return S[i].hex(), card(mac)


# The spec's vectors: s_1 on Bitcoin's genesis, s_2 on the second hash.
assert keyed(101)[1]['code'] == '4C'
assert keyed(102)[1]['code'] == 'AD'
assert card(HASHES[101][2:])['code'] == '6H'  # the bare hash's card

COMMIT_INPUT = ('0x484a0108' + struct.pack('>QI', START, LENGTH).hex() +
                S[0].hex())
assert len(COMMIT_INPUT) == 2 + 2 * 48

DOC = {
    'chain': 'evm',
    'dealer': DEALER,
    'rules': {'preset': 'bethash', 'cards': 'committed', 'min_bet': '1000',
              'max_bet': '1000000000000000000000'},
    'blocks': [],
}
parent = PARENT
for h in range(100, 105):
    b = {'height': h, 'hash': HASHES[h], 'parent': parent}
    seed, _ = keyed(h)
    if seed is not None:
        b['seed'] = seed
    b['txs'] = []
    parent = HASHES[h]
    DOC['blocks'].append(b)
# Block 100: the dealer's Commit (to itself), then a Bet.
DOC['blocks'][0]['txs'] = [
    {'hash': TX_COMMIT, 'from': DEALER, 'to': DEALER, 'value': '0',
     'input': COMMIT_INPUT},
    {'hash': TX_BET, 'from': PLAYER, 'to': DEALER, 'value': '5000',
     'input': '0x484a0101'},
]


def line(b, events):
    """The dealer's log line of block b (docs/LOG.md), key order kept."""
    out = {'v': 2, 'chain': 'evm', 'height': b['height'], 'hash': b['hash'],
           'parent': b['parent']}
    seed, c = keyed(b['height'])
    if seed is not None:
        out['seed'] = seed
    if c is None:
        out['void'] = True
    else:
        out['card'] = c
    out['events'] = events
    return json.dumps(out, separators=(',', ':')) + '\n'


def draw(height, owner):
    ev = {'type': 'draw', 'round': TX_BET, 'handOwner': owner}
    if owner == 'Player':
        ev['handIndex'] = 0
    ev['card'] = keyed(height)[1]['code']
    return ev


def write(path, text):
    with open(path, 'w') as f:
        f.write(text)


def main():
    blocks = DOC['blocks']
    events = {
        100: [{'type': 'commit', 'tx': TX_COMMIT, 'txIndex': 0,
               'from': DEALER, 'start': START, 'length': LENGTH,
               'commitment': S[0].hex()},
              {'type': 'action', 'action': 'Bet', 'round': TX_BET,
               'player': PLAYER, 'tx': TX_BET, 'txIndex': 1,
               'stake': '5000'}],
        101: [draw(101, 'Player')],   # 4C
        102: [draw(102, 'Dealer')],   # AD: a Peek is due
        103: [draw(103, 'Player')],
        104: [],                      # past the chain: void
    }
    write('ok/committed.json', json.dumps(DOC, indent=1) + '\n')
    write('ok/committed.jsonl',
          ''.join(line(b, events[b['height']]) for b in blocks))

    def bad(name, err, mutate):
        d = copy.deepcopy(DOC)
        mutate(d)
        write('bad/%s.json' % name, json.dumps(d, indent=1) + '\n')
        write('bad/%s.err' % name, err + '\n')

    b = lambda d, i: d['blocks'][i]
    # s_3 where s_2 is due: SHA-256(s_3) is s_2, not s_1.
    bad('committed_wrong_seed',
        'blocks[2].seed: "%s" does not chain at block 102 (seed 2 of the '
        'chain committed in block 100): SHA-256 of seed 2 is not the seed '
        'before it' % S[3].hex(),
        lambda d: b(d, 2).update(seed=S[3].hex()))
    # The first seed checked against the commitment.
    bad('committed_wrong_first_seed',
        'blocks[1].seed: "%s" does not chain at block 101 (seed 1 of the '
        'chain committed in block 100): SHA-256 of seed 1 is not the '
        'commitment' % S[2].hex(),
        lambda d: b(d, 1).update(seed=S[2].hex()))
    bad('committed_missing_seed',
        'blocks[2]: missing key "seed": block 102 is dealt with seed 2 of '
        'the chain committed in block 100 (start 101, length 3)',
        lambda d: b(d, 2).pop('seed'))
    bad('committed_seed_void',
        'blocks[4].seed: "%s" is given, but block 104 takes no seed: it is '
        'past the last seed of the chain committed in block 100 (start '
        '101, length 3), a void block' % S[4].hex(),
        lambda d: b(d, 4).update(seed=S[4].hex()))
    bad('committed_seed_no_chain',
        'blocks[0].seed: "%s" is given, but block 100 takes no seed: no '
        'committed chain is in force at it, a void block' % S[0].hex(),
        lambda d: b(d, 0).update(seed=S[0].hex()))

    def not_dealer(d):
        b(d, 0)['txs'][0]['from'] = OTHER
    # A Commit from someone else puts no chain in force: 101 takes none.
    bad('committed_not_dealer',
        'blocks[1].seed: "%s" is given, but block 101 takes no seed: no '
        'committed chain is in force at it' % S[1].hex(), not_dealer)
    bad('seed_under_hash',
        'blocks[1].seed: "%s" is given, but rules.cards is "hash": a seed '
        'is only for cards = "committed"' % S[1].hex(),
        lambda d: d['rules'].pop('cards'))
    bad('seed_0x',
        'blocks[1].seed: "0x%s" is not a seed: a seed is written without '
        '"0x", as the log writes it' % S[1].hex(),
        lambda d: b(d, 1).update(seed='0x' + S[1].hex()))
    bad('seed_upper',
        'blocks[1].seed: "%s" is not a seed: \'D\' at offset 0 is upper '
        'case (the log writes seeds in lower case)' % S[1].hex().upper(),
        lambda d: b(d, 1).update(seed=S[1].hex().upper()))
    bad('seed_short',
        'blocks[1].seed: "%s" is not a seed: 64 hex digits expected, found '
        '62' % S[1].hex()[:62],
        lambda d: b(d, 1).update(seed=S[1].hex()[:62]))
    bad('seed_number', 'blocks[1].seed: 5 is not a string',
        lambda d: b(d, 1).update(seed=5))


main()
