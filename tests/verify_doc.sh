#!/usr/bin/env bash
# Runs the shell blocks of docs/VERIFY.md, in order, as one script: a
# devnet's card log kept with its chain, verified against that chain
# started again, against a new chain (exit 2) and against no node (exit
# 69), exactly as written.
#
#   verify_doc.sh BINDIR SRCDIR
#
# BINDIR holds hashjack and hashjackd (the devnet runs them instead of
# building its own).  Everything binds to 127.0.0.1 on free ports; every
# process the walkthrough started is stopped whatever happens.
set -u
bin=$1
src=$2
work=$(mktemp -d)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')

cleanup() {
	[ -n "${pgid:-}" ] && kill -- -"$pgid" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT

awk '/^```sh$/ { on = 1; next } /^```$/ { on = 0 } on' "$src/docs/VERIFY.md" >"$work/walkthrough.sh"
[ -s "$work/walkthrough.sh" ] || { echo "FAIL: no sh blocks in docs/VERIFY.md"; exit 1; }

# The walkthrough's own directory is a subdirectory: the script's output
# stays outside it.
mkdir "$work/w"
(cd "$src" && HJ=$bin WORK=$work/w PORT=$port HJ_HASHJACK=$bin/hashjack HJ_HASHJACKD=$bin/hashjackd \
	HJ_DEVNET_SERVE_PORT=0 setsid timeout 300 bash -x "$work/walkthrough.sh") >"$work/out" 2>&1 &
pgid=$!
wait $pgid
rc=$?
pgid=
fail() {
	echo "FAIL: $1; the walkthrough's output:"
	grep -v '^devnet: *[0-9]* ' "$work/out" | tail -n 60
	exit 1
}
[ $rc -eq 0 ] || fail "docs/VERIFY.md walkthrough exited $rc"
ok=0
for want in "devnet: the chain is kept too" "every line agrees" \
	"your node follows another chain than the one this log was dealt from" "exit 2" \
	"(attempt 1 of 8)" "gave up after 8 attempts" "exit 69"; do
	grep -qF -- "$want" "$work/out" || fail "no \"$want\""
	ok=$((ok + 1))
done
# The kept log was verified, not an empty one.
grep -Eq '^verified blocks [0-9]+ to [0-9]+: every line agrees$' "$work/out" || fail "no verified range"
echo "ok: docs/VERIFY.md: the kept devnet log verified against its chain, exit 2 on a new chain, 69 without a node ($ok checks)"
