#!/usr/bin/env python3
"""Writes tests/replay/bad/btc_*.json and the message each must produce.

    btcbad.py OK_DIR BAD_DIR

The base is the first three blocks of OK_DIR/btc_round.json (written by
replay_btc_gen, so its transactions are real); each case breaks one thing.
"""
import copy, json, os, sys

OK, OUT = sys.argv[1], sys.argv[2]
os.makedirs(OUT, exist_ok=True)

with open(os.path.join(OK, 'btc_round.json')) as f:
    BASE = json.load(f)
BASE['blocks'] = BASE['blocks'][:3]
GENESIS = BASE['genesis']
COINBASE1 = BASE['blocks'][1]['txs'][0]
BET = BASE['blocks'][0]['txs'][2]
with open(os.path.join(OK, 'btc_round.jsonl')) as f:
    ROUND = json.loads(f.readline())['events'][0]['round']  # the Bet's txid


def bech32_encode(hrp, version, prog):
    """BIP-173/350 encoder (reference algorithm), for a foreign prefix."""
    cs = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l'
    gen = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3]

    def polymod(values):
        chk = 1
        for v in values:
            b = chk >> 25
            chk = (chk & 0x1ffffff) << 5 ^ v
            for i in range(5):
                chk ^= gen[i] if (b >> i) & 1 else 0
        return chk
    data, acc, bits = [version], 0, 0
    for b in prog:
        acc = acc << 8 | b
        bits += 8
        while bits >= 5:
            bits -= 5
            data.append(acc >> bits & 31)
    if bits:
        data.append(acc << (5 - bits) & 31)
    const = 1 if version == 0 else 0x2bc830a3
    exp = [ord(c) >> 5 for c in hrp] + [0] + [ord(c) & 31 for c in hrp]
    pm = polymod(exp + data + [0] * 6) ^ const
    return hrp + '1' + ''.join(cs[d] for d in data) + ''.join(
        cs[pm >> 5 * (5 - i) & 31] for i in range(6))


def case(name, err, mutate):
    """err: the message, or a list of parts it must all contain."""
    d = copy.deepcopy(BASE)
    mutate(d)
    with open(os.path.join(OUT, name + '.json'), 'w') as f:
        f.write(json.dumps(d, indent=1) + '\n')
    with open(os.path.join(OUT, name + '.err'), 'w') as f:
        for line in [err] if isinstance(err, str) else err:
            f.write(line + '\n')


def setk(key, val):
    return lambda d: d.__setitem__(key, val)


def blk(i, key, val):
    return lambda d: d['blocks'][i].__setitem__(key, val)


def tx(i, j, val):
    return lambda d: d['blocks'][i]['txs'].__setitem__(j, val)


def show(s):
    """A value as messages quote it: cut after 80 characters."""
    q = json.dumps(s)
    return q if len(q) <= 80 else q[:77] + '...'


def legacy_tx():
    """A legacy transaction paying the dealer 2^63 twice: the sum does not
    fit 64 bits (no real block holds one: it exceeds any money supply)."""
    # The dealer's script: the Bet's first output pays it.
    raw = bytes.fromhex(BET)
    o = 4 + 2 + 1 + 36 + 1 + 4 + 1  # version, flag, 1 input, 3 outputs
    script = raw[o + 9:o + 9 + raw[o + 8]]
    out = b''
    for _ in range(2):
        out += (1 << 63).to_bytes(8, 'little') + bytes([len(script)]) + script
    return ('02000000' + '01' + '22' * 32 + '00000000' + '00' + 'ffffffff' +
            '02' + out.hex() + '00000000')


del_genesis = lambda d: d.pop('genesis')
case('btc_missing_genesis', 'top level: missing key "genesis"', del_genesis)
case('btc_genesis_0x',
     'genesis: "0x' + GENESIS + '" is not a 32-byte hash: Bitcoin-family '
     'hex is written without "0x"', setk('genesis', '0x' + GENESIS))
case('btc_genesis_short',
     'genesis: "' + GENESIS[:62] + '" is not a 32-byte hash: 64 hex digits '
     'expected, found 62', setk('genesis', GENESIS[:62]))
foreign = bech32_encode('grs', 0, bytes(range(20)))
case('btc_dealer_prefix',
     'dealer: "' + foreign + '" is not a dealer address: unknown address '
     'prefix "grs" (known: bc, tb, bcrt, ltc, tltc, rltc)',
     setk('dealer', foreign))
case('btc_dealer_legacy',
     'dealer: "mipcBbFg9gMiCh81Kj8tqqdgoZub1ZJRfn" is not a dealer '
     'address: not a segwit address (a legacy base58 address? the '
     'dealer\'s must be bech32 or bech32m)',
     setk('dealer', 'mipcBbFg9gMiCh81Kj8tqqdgoZub1ZJRfn'))
case('btc_dealer_checksum',
     'is not a dealer address: not a segwit address (bech32 or bech32m): '
     'invalid checksum',
     lambda d: d.__setitem__('dealer', d['dealer'][:-1] +
                             ('q' if d['dealer'][-1] != 'q' else 'p')))
case('btc_dealer_evm',
     'dealer: "0x' + 'de' * 20 + '" is not a dealer address: not a segwit '
     'address (bech32 or bech32m): no separator character',
     setk('dealer', '0x' + 'de' * 20))
case('btc_max_bet_u64',
     'rules.max_bet: "18446744073709551616" is above 2^64 - 1, more than a '
     'Bitcoin-family transaction can carry',
     lambda d: d['rules'].__setitem__('max_bet', str(2**64)))
case('btc_hash_0x',
     'blocks[1].hash: ' + show('0x' + BASE['blocks'][1]['hash']) +
     ' is not a 32-byte hash: Bitcoin-family hex is written without "0x"',
     blk(1, 'hash', '0x' + BASE['blocks'][1]['hash']))
case('btc_parent_mismatch',
     'blocks[2].parent: "' + BASE['blocks'][0]['hash'] + '" is not '
     'blocks[1].hash "' + BASE['blocks'][1]['hash'] + '"',
     blk(2, 'parent', BASE['blocks'][0]['hash']))
case('btc_unknown_block_key', 'blocks[0]: unknown key "header"',
     blk(0, 'header', '00' * 80))
case('btc_txs_empty',
     'blocks[2].txs: [] is empty: a Bitcoin-family block holds at least its '
     'coinbase transaction', blk(2, 'txs', []))
case('btc_tx_object', ['blocks[0].txs[1]: {"hex":', 'is not a string'],
     tx(0, 1, {'hex': BET}))
case('btc_tx_0x',
     'blocks[0].txs[2]: ' + show('0x' + BET) + ' is not a raw transaction: '
     'Bitcoin-family hex is written without "0x"', tx(0, 2, '0x' + BET))
# The reasons after "is not a raw transaction:" are chain/hex.c's and
# chain/btc_tx.c's; only their gist is pinned here.
case('btc_tx_not_hex',
     ['blocks[0].txs[2]: ' + show(BET[:10] + 'zz' + BET[12:]) +
      ' is not a raw transaction:', "'z' at offset 10"],
     tx(0, 2, BET[:10] + 'zz' + BET[12:]))
case('btc_tx_odd', ['blocks[0].txs[2]: ' + show(BET + '0') +
                    ' is not a raw transaction:', 'odd'],
     tx(0, 2, BET + '0'))
n = len(BET) // 2
case('btc_tx_truncated', ['blocks[0].txs[2]: ' + show(BET[:-4]) +
                          ' is not a raw transaction:',
                          'offset %d: locktime' % (n - 4)],
     tx(0, 2, BET[:-4]))
case('btc_tx_trailing', ['blocks[0].txs[2]: ' + show(BET + '00') +
                         ' is not a raw transaction:', 'offset %d:' % n,
                         'after the transaction'],
     tx(0, 2, BET + '00'))
case('btc_tx_empty', ['blocks[0].txs[2]: "" is not a raw transaction:',
                      'offset 0: version'],
     tx(0, 2, ''))
case('btc_no_coinbase',
     'blocks[1].txs[0]: ' + show(BET) + ' is not a coinbase transaction '
     '(txs lists every transaction of the block, the coinbase first)',
     lambda d: d['blocks'][1].__setitem__('txs', [BET]))
case('btc_second_coinbase',
     'blocks[2].txs[1]: ' + show(COINBASE1) + ' is a coinbase transaction, '
     'which only txs[0] may be',
     lambda d: d['blocks'][2]['txs'].append(COINBASE1))
case('btc_duplicate_txid',
     ['blocks[2].txs[1]: has txid "' + ROUND + '", as blocks[0].txs[2] has'],
     lambda d: d['blocks'][2]['txs'].append(BET))
case('btc_overflow',
     'blocks[1].txs[1]: ' + show(legacy_tx()) + ' cannot be played: '
     'outputs to the dealer overflow 64 bits',
     lambda d: d['blocks'][1]['txs'].append(legacy_tx()))
