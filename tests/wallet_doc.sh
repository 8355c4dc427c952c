#!/usr/bin/env bash
# Runs the shell blocks of docs/WALLET.md, in order, as one script: the
# walkthrough of a round played with litecoind's wallet and `hashjack
# player` must work exactly as written.
#
#   wallet_doc.sh BINDIR SRCDIR
#
# BINDIR holds hashjack and hashjackd.  The node listens on a free loopback
# port; node and dealer are stopped whatever happens.
set -u
bin=$1
src=$2
work=$(mktemp -d)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')

cleanup() {
	litecoin-cli -regtest -datadir="$work/node" -rpcport="$port" stop >/dev/null 2>&1
	[ -n "${pgid:-}" ] && kill -- -"$pgid" 2>/dev/null
	for _ in $(seq 50); do
		[ -e "$work/node/regtest/litecoind.pid" ] || [ -e "$work/node/regtest/bitcoind.pid" ] || break
		sleep 0.2
	done
	rm -rf "$work"
}
trap cleanup EXIT

awk '/^```sh$/ { on = 1; next } /^```$/ { on = 0 } on' "$src/docs/WALLET.md" > "$work/walkthrough.sh"
[ -s "$work/walkthrough.sh" ] || { echo "FAIL: no sh blocks in docs/WALLET.md"; exit 1; }

HJ=$bin WORK=$work PORT=$port setsid timeout 300 bash -x "$work/walkthrough.sh" > "$work/out" 2>&1 &
pgid=$!
wait $pgid
rc=$?
pgid=
if [ $rc -ne 0 ]; then
	echo "FAIL: docs/WALLET.md walkthrough exited $rc; its output:"
	tail -n 60 "$work/out"
	[ -f "$work/hashjackd.log" ] && { echo "--- hashjackd.log"; tail -n 30 "$work/hashjackd.log"; }
	exit 1
fi
# The walkthrough's last grep printed the round's settle event.
grep -q '"type":"settle"' "$work/out" || { echo "FAIL: no settle event shown"; tail -n 40 "$work/out"; exit 1; }
echo "ok: docs/WALLET.md played a round to its settlement"
