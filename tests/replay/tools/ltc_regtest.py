#!/usr/bin/env python3
"""Records a replay document from a real litecoind -regtest chain.

    ltc_regtest.py REPLAY_BTC_GEN OUT.json

Unlike the crafted samples (replay_btc_gen), everything here comes from the
node: the blocks and their hashes (so the cards fall as they fall), the
coinbases, and the player's transactions, which the node's wallet funds
and signs: a Bet (an OP_RETURN "data" output and the stake to the dealer),
a plain deposit, then a Hit and a Stand signed with BIP-340 by the Bet's
key (`replay_btc_gen sign`).  It checks that every txid the replay logs is
the txid the node reports.  A rerun makes a different chain (new hashes,
new txids), so the sample in ok/ is one recording; its .jsonl was checked
by hand like the others.

Needs litecoind and litecoin-cli.  Runs its own node in a temporary
directory on free ports and stops it at the end.
"""
import json, os, shutil, socket, subprocess, sys, tempfile, time

GEN, OUT = sys.argv[1], sys.argv[2]
SK = '00' * 31 + '03'  # secret key 3: public, a test key only
P = 'f9308a019258c31049344f85f89d5229b531c845836f99b08601f113bce036f9'
HASHJACK = os.path.join(os.path.dirname(GEN), 'hashjack')


def free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


tmp = tempfile.mkdtemp()
rpcport, port = free_port(), free_port()
base = ['-regtest', '-datadir=' + tmp, '-rpcport=%d' % rpcport,
        '-rpcuser=u', '-rpcpassword=p']
node = subprocess.Popen(['litecoind'] + base + [
    '-port=%d' % port, '-listen=0', '-server=1', '-fallbackfee=0.0001',
    '-txindex=1'], stdout=subprocess.DEVNULL)


def cli(*args, wallet=None):
    cmd = ['litecoin-cli'] + base
    if wallet:
        cmd.append('-rpcwallet=' + wallet)
    out = subprocess.run(cmd + [str(a) for a in args], check=True,
                         capture_output=True, text=True).stdout.strip()
    try:
        return json.loads(out)
    except ValueError:
        return out


def send_raw(outputs):
    """A transaction with these outputs, funded and signed by the wallet."""
    raw = cli('createrawtransaction', '[]', json.dumps(outputs), wallet='w')
    funded = cli('fundrawtransaction', raw, wallet='w')['hex']
    signed = cli('signrawtransactionwithwallet', funded, wallet='w')['hex']
    return cli('sendrawtransaction', signed)


def mine(n=1):
    return cli('generatetoaddress', n, MINER)


try:
    for _ in range(100):
        try:
            cli('getblockcount')
            break
        except subprocess.CalledProcessError:
            time.sleep(0.2)
    cli('createwallet', 'w')
    MINER = cli('getnewaddress', '', 'bech32', wallet='w')
    DEALER = cli('getnewaddress', '', 'bech32', wallet='w')
    mine(101)  # a spendable coinbase
    first = cli('getblockcount') + 1

    bet = send_raw([{DEALER: '0.00050000'}, {'data': '484a0101' + P}])
    deposit = cli('sendtoaddress', DEALER, '0.00012345', wallet='w')
    mine()      # the Bet's block X
    mine(3)     # X+1..X+3: the deal
    genesis = cli('getblockhash', 0)

    def signed(act, seq):
        body = '484a01' + act + bet[:16] + '00' * 64
        return subprocess.run([GEN, 'sign', SK, genesis, str(seq), body],
                              check=True, capture_output=True,
                              text=True).stdout.strip()
    send_raw([{'data': signed('02', 0)}])   # Hit at X+4
    mine()
    mine()      # the Hit's card
    send_raw([{'data': signed('03', 1)}])   # Stand at X+6
    mine()
    mine(6)     # the dealer's cards, and some to spare
    last = cli('getblockcount')

    blocks, txids = [], []
    for h in range(first, last + 1):
        b = cli('getblock', cli('getblockhash', h), 2)
        blocks.append({'height': h, 'hash': b['hash'],
                       'parent': b['previousblockhash'],
                       'txs': [t['hex'] for t in b['tx']]})
        txids.append([t['txid'] for t in b['tx']])
    doc = {'chain': 'bitcoin', 'genesis': genesis, 'dealer': DEALER,
           'rules': {'preset': 'bethash', 'min_bet': '10000',
                     'max_bet': '100000000'},
           'blocks': blocks}
    with open(OUT, 'w') as f:
        f.write(json.dumps(doc, indent=1) + '\n')

    # Every txid the log names is the node's.
    log = subprocess.run([HASHJACK, 'replay', OUT], check=True,
                         capture_output=True, text=True).stdout
    seen = 0
    for line, ids in zip(log.splitlines(), txids):
        for e in json.loads(line)['events']:
            if 'tx' in e:
                assert e['tx'] == ids[e['txIndex']], e
                seen += 1
    assert bet in log and deposit in log
    print('%s: %d blocks, %d events with a tx, Bet %s' %
          (OUT, len(blocks), seen, bet))
finally:
    try:
        cli('stop')
        node.wait(timeout=30)
    except Exception:
        node.terminate()
        node.wait()
    shutil.rmtree(tmp, ignore_errors=True)
