#!/usr/bin/env python3
"""Writes tests/replay/ok/protocol_rounds.json: the worked rounds and side
bets of docs/PROTOCOL.md (sections 7.2 and 12), as an EVM replay document
over the hashes of Bitcoin blocks 0 to 63 listed in its appendix (the card
of a hash does not depend on the family).  replay_samples then checks that
`hashjack replay` prints ok/protocol_rounds.jsonl, whose rounds were read
against the page line by line.  Run from tests/replay: tools/protocol_rounds.py
"""
import json, os, re

HERE = os.path.dirname(os.path.abspath(__file__))
md = open(os.path.join(HERE, '..', '..', '..', 'docs', 'PROTOCOL.md')).read()
hashes = {}
for m in re.finditer(r'^\| (\d+) \| `([0-9a-f]{64})` \|', md, re.M):
    hashes[int(m.group(1))] = m.group(2)
assert len(hashes) == 64
DEALER = '0x' + 'de' * 20
n = [0]
def tx(frm, inp, value=0):
    n[0] += 1
    return {'hash': '0x%064x' % (0xabc000 + n[0]), 'from': frm, 'to': DEALER, 'value': str(value), 'input': inp}
P = {k: '0x%040x' % (0x1000 + i) for i, k in enumerate('C C2 D D2 E E2 F G H'.split())}
BET = '0x484a0101'; STAND = '0x484a0103'; SURR = '0x484a0106'; PEEK_NO = '0x484a010700'; PEEK_INS = '0x484a010701'
def bet_sides(pp, t3): return BET + '%016x' % pp + '%016x' % t3
acts = {
 25: [tx(P['C'], BET, 100000), tx(P['C2'], BET, 100000)],
 29: [tx(P['C2'], PEEK_INS, 50000)],
 30: [tx(P['C'], PEEK_NO)],
 34: [tx(P['C'], STAND)],
 55: [tx(P['D'], BET, 1000000), tx(P['D2'], BET, 1000000)],
 59: [tx(P['D'], PEEK_INS, 500000)],
 60: [tx(P['D2'], PEEK_INS, 500000)],
 45: [tx(P['E'], BET, 300001), tx(P['E2'], BET, 300001), tx(P['F'], BET, 300001)],
 49: [tx(P['E'], PEEK_NO), tx(P['E2'], PEEK_NO)],
 51: [tx(P['E'], SURR), tx(P['E2'], STAND)],
 43: [tx(P['G'], bet_sides(1000, 1000), 12000)],
 5: [tx(P['H'], bet_sides(0, 2000), 12000)],
}
blocks = []
for h in range(64):
    parent = hashes[h-1] if h else '00'*32
    blocks.append({'height': h, 'hash': '0x' + hashes[h], 'parent': '0x' + parent, 'txs': acts.get(h, [])})
doc = {'chain': 'evm', 'dealer': DEALER, 'rules': {'preset': 'bethash', 'min_bet': '1', 'max_bet': '100000000', 'timeout_blocks': 12,
       'perfect_pairs': '25,12,5', 'twenty_one_plus_three': '100,40,30,10,5'}, 'blocks': blocks}
with open(os.path.join(HERE, '..', 'ok', 'protocol_rounds.json'), 'w') as f:
    json.dump(doc, f, indent=1)
    f.write('\n')
