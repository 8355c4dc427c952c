#!/usr/bin/env python3
"""Writes tests/replay/bad/*.json and the message each must produce (.err)."""
import copy, json, os, sys

OUT = sys.argv[1]
os.makedirs(OUT, exist_ok=True)

H0 = '0x' + '3a' * 31 + '5c'
H1 = '0x' + '7b' * 31 + '21'
H2 = '0x' + 'c4' * 31 + '9d'
PARENT = '0x' + '11' * 32
DEALER = '0x' + 'de' * 20
ALICE = '0x' + 'a1' * 20
TX0 = '0x' + '01' * 32
TX1 = '0x' + '02' * 32

BASE = {
    'chain': 'evm',
    'dealer': DEALER,
    'rules': {'preset': 'bethash', 'min_bet': '1000', 'max_bet': '100000',
              'timeout_blocks': 10},
    'blocks': [
        {'height': 100, 'hash': H0, 'parent': PARENT,
         'txs': [{'hash': TX0, 'from': ALICE, 'to': DEALER, 'value': '5000',
                  'input': '0x484a0101', 'status': '0x1'}]},
        {'height': 101, 'hash': H1, 'parent': H0,
         'txs': [{'hash': TX1, 'from': ALICE, 'to': DEALER, 'value': '0',
                  'input': '0x484a0102'}]},
        {'height': 102, 'hash': H2, 'parent': H1, 'txs': []},
    ],
}


def case(name, err, mutate=None, raw=None):
    if raw is None:
        d = copy.deepcopy(BASE)
        mutate(d)
        raw = json.dumps(d, indent=1) + '\n'
    with open(os.path.join(OUT, name + '.json'), 'w') as f:
        f.write(raw)
    with open(os.path.join(OUT, name + '.err'), 'w') as f:
        f.write(err + '\n')


def tx0(d):
    return d['blocks'][0]['txs'][0]


def setk(get, key, val):
    def m(d):
        get(d)[key] = val
    return m


def delk(get, key):
    def m(d):
        del get(d)[key]
    return m


def root(d):
    return d


def rules(d):
    return d['rules']


def blk(i):
    return lambda d: d['blocks'][i]


case('syntax_error', 'syntax_error.json:3:12: unexpected token near \',\'',
     raw='{\n "chain": "evm",\n "dealer": ,\n}\n')
case('trailing_garbage', 'trailing_garbage.json:1:3: end of file expected',
     raw='{}x\n')
case('empty', "empty.json:1:0: '[' or '{' expected near end of file",
     raw='')
case('duplicate_key', "duplicate object key near '\"chain\"'",
     raw='{"chain": "evm", "chain": "evm"}\n')
case('not_object', 'top level: [1,2] is not an object', raw='[1, 2]\n')
case('missing_chain', 'top level: missing key "chain"', delk(root, 'chain'))
case('evm_genesis', 'genesis: "' + '06' * 32 + '" is only for "chain": '
     '"bitcoin"', setk(root, 'genesis', '06' * 32))
case('chain_unknown', 'chain: "solana" is not a known chain',
     setk(root, 'chain', 'solana'))
case('unknown_key', 'top level: unknown key "comment"',
     setk(root, 'comment', 'hello'))
case('unknown_tx_key', 'blocks[0].txs[0]: unknown key "gas"',
     setk(tx0, 'gas', '0x5208'))
case('dealer_short',
     'dealer: "0x' + 'de' * 19 + '" is not a 20-byte address: 40 hex digits '
     'expected, found 38', setk(root, 'dealer', '0x' + 'de' * 19))
case('dealer_no_prefix',
     'dealer: "' + 'de' * 20 + '" is not a 20-byte address: "0x" prefix '
     'missing', setk(root, 'dealer', 'de' * 20))
case('preset_unknown',
     'rules.preset: "vegas" is not a known preset (known: bethash, annakai, cryptogames)',
     setk(rules, 'preset', 'vegas'))
case('min_above_max',
     'rules: max_bet is below min_bet (min_bet "5000", max_bet "1000"',
     lambda d: d['rules'].update(min_bet='5000', max_bet='1000'))
case('max_above_cap', 'rules: max_bet is above 2^120',
     setk(rules, 'max_bet', str(2**120 + 1)))
case('min_bet_number',
     'rules.min_bet: 1000 is not a string (amounts are decimal strings)',
     setk(rules, 'min_bet', 1000))
case('missing_max_bet', 'rules: missing key "max_bet"',
     delk(rules, 'max_bet'))
case('max_exposure_number',
     'rules.max_exposure: 400000 is not a string (amounts are decimal '
     'strings)', setk(rules, 'max_exposure', 400000))
case('max_exposure_not_decimal',
     'rules.max_exposure: "4e5" is not a decimal amount',
     setk(rules, 'max_exposure', '4e5'))
case('max_exposure_too_big', 'rules.max_exposure: "' + str(2**128) +
     '" is above 2^128 - 1', setk(rules, 'max_exposure', str(2**128)))
case('max_exposure_below_max_bet',
     'rules.max_exposure: "399999" is below 400000, the worst-case return '
     'of one max_bet Bet (max_bet "100000"), so no such Bet could ever be '
     'accepted', setk(rules, 'max_exposure', '399999'))
case('timeout_zero', 'rules: timeout_blocks must be at least 1',
     setk(rules, 'timeout_blocks', 0))
case('timeout_string', 'rules.timeout_blocks: "5" is not an integer',
     setk(rules, 'timeout_blocks', '5'))
case('blocks_not_array', 'blocks: {} is not an array',
     setk(root, 'blocks', {}))
case('block_not_object', 'blocks[1]: 5 is not an object',
     lambda d: d['blocks'].__setitem__(1, 5))
case('missing_txs', 'blocks[2]: missing key "txs"', delk(blk(2), 'txs'))
case('hash_short',
     'blocks[1].hash: "' + H1[:-1] + '" is not a 32-byte hash: 64 hex '
     'digits expected, found 63', setk(blk(1), 'hash', H1[:-1]))
case('hash_not_hex',
     "blocks[0].hash: \"0x3a3a3a3a3g" + "3a" * 26 + "5c\" is not a 32-byte "
     "hash: 'g' at offset 11 is not a hex digit",
     setk(blk(0), 'hash', '0x3a3a3a3a3g' + '3a' * 26 + '5c'))
case('height_gap',
     'blocks[2].height: 103 does not follow blocks[1].height 101 '
     '(expected 102)', setk(blk(2), 'height', 103))
case('height_negative', 'blocks[0].height: -1 is out of range',
     setk(blk(0), 'height', -1))
case('height_real', 'blocks[0].height: 100.5 is not an integer',
     setk(blk(0), 'height', 100.5))
case('parent_mismatch',
     'blocks[2].parent: "' + H0 + '" is not blocks[1].hash "' + H1 + '"',
     setk(blk(2), 'parent', H0))
case('value_not_decimal',
     'blocks[0].txs[0].value: "12a" is not a decimal amount',
     setk(tx0, 'value', '12a'))
case('value_leading_zero',
     'blocks[0].txs[0].value: "05000" is not a decimal amount',
     setk(tx0, 'value', '05000'))
case('value_hex', 'blocks[0].txs[0].value: "0x1388" is not a decimal '
     'amount', setk(tx0, 'value', '0x1388'))
case('value_too_big', 'blocks[0].txs[0].value: "' + str(2**128) +
     '" is above 2^128 - 1', setk(tx0, 'value', str(2**128)))
case('status_bad', 'blocks[0].txs[0].status: "0x2" is not a receipt '
     'status ("0x1" or "0x0")', setk(tx0, 'status', '0x2'))
case('status_number', 'blocks[0].txs[0].status: 1 is not a string',
     setk(tx0, 'status', 1))
case('input_odd', 'blocks[0].txs[0].input: "0x484a010" is not hex data: '
     'odd number of hex digits (7)', setk(tx0, 'input', '0x484a010'))
case('missing_from', 'blocks[0].txs[0]: missing key "from"',
     delk(tx0, 'from'))
case('to_number', 'blocks[0].txs[0].to: 5 is not an address or null',
     setk(tx0, 'to', 5))
case('from_long', 'blocks[0].txs[0].from: "0x' + 'a1' * 21 + '" is not a '
     '20-byte address: 40 hex digits expected, found 42',
     setk(tx0, 'from', '0x' + 'a1' * 21))
case('tx_hash_repeat', 'blocks[1].txs[0].hash: "' + TX0 + '" repeats '
     'blocks[0].txs[0].hash', setk(blk(1), 'txs',
                                    [dict(BASE['blocks'][1]['txs'][0],
                                          hash=TX0)]))
