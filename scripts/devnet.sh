#!/usr/bin/env bash
# The main job: a local chain with a dealer and bot players.
#
# Installs what is missing (scripts/deps.sh), builds hashjack and hashjackd
# (Release, build/release), starts anvil on 127.0.0.1 mining a block a
# second, starts hashjackd on it as the dealer (anvil's dev account 9, whose
# key signs the payouts), starts `hashjack serve` (the round API and its web
# page, docs/API.md) and prints the page's address, starts scripts/bot.py
# playing basic strategy with dev accounts 1 to 4, and shows the dealer's
# card log as it grows, one line per block (height, card, what happened;
# docs/LOG.md has the full format).
# Ctrl-C (or SIGTERM) stops everything it started.
#
#   scripts/devnet.sh [--duration SECONDS] [--keep | --state-dir DIR]
#
#   --duration S     stop by itself after S seconds
#   --keep           keep the state directory: the chain (anvil's state
#                    dump, chain.json), config, card log, database, logs;
#                    at the end it prints how to start that chain again and
#                    verify the kept log against it (docs/VERIFY.md)
#   --state-dir DIR  the state directory to use (new or empty), kept
#
# Environment: HJ_DEVNET_PORT (anvil's port, default: a free one),
# HJ_DEVNET_SERVE_PORT (the page's, default 8549; 0: a free one),
# HJ_HASHJACKD and HJ_HASHJACK (a hashjackd and a hashjack to run instead
# of building them; with both, nothing is built).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

duration=0
keep=0
state=''
while [ $# -gt 0 ]; do
	case "$1" in
	--duration) duration=${2:?--duration needs seconds}; shift 2 ;;
	--duration=*) duration=${1#*=}; shift ;;
	--keep) keep=1; shift ;;
	--state-dir) state=${2:?--state-dir needs a directory}; keep=1; shift 2 ;;
	--state-dir=*) state=${1#*=}; keep=1; shift ;;
	# The header above, every line of it up to the first that is code.
	-h | --help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
	*) echo "devnet: unknown argument: $1 (see --help)" >&2; exit 64 ;;
	esac
done
case "$duration" in '' | *[!0-9]*) echo "devnet: --duration takes whole seconds" >&2; exit 64 ;; esac
if [ -n "$state" ]; then
	mkdir -p "$state" || { echo "devnet: --state-dir $state: cannot create it" >&2; exit 73; }
	[ -z "$(ls -A "$state")" ] || { echo "devnet: --state-dir $state: not empty (a devnet's state is never overwritten)" >&2; exit 73; }
	state=$(cd "$state" && pwd)
fi

say() { echo "devnet: $*" >&2; }
die() { say "$*"; exit 1; }

"$root/scripts/deps.sh"

build="$root/build/release"
targets=()
[ -n "${HJ_HASHJACK:-}" ] || targets+=(hashjack)
[ -n "${HJ_HASHJACKD:-}" ] || targets+=(hashjackd)
if [ ${#targets[@]} -gt 0 ]; then
	# The build's own output only when it fails: a rebuild with nothing to
	# do says nothing.
	say "building ${targets[*]} in $build"
	buildlog=$(mktemp "${TMPDIR:-/tmp}/hashjack-devnet-build.XXXXXX")
	if ! { cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release &&
		cmake --build "$build" -j"$(nproc)" --target "${targets[@]}"; } >"$buildlog" 2>&1; then
		cat "$buildlog" >&2
		rm -f "$buildlog"
		die "building ${targets[*]} failed (see above)"
	fi
	rm -f "$buildlog"
fi
hashjackd=${HJ_HASHJACKD:-$build/hashjackd}
hashjack=${HJ_HASHJACK:-$build/hashjack}
[ -x "$hashjackd" ] || die "no hashjackd at $hashjackd"
[ -x "$hashjack" ] || die "no hashjack at $hashjack"
anvil="$root/node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil"
[ -x "$anvil" ] || die "no anvil at $anvil (scripts/deps.sh runs npm ci)"

[ -n "$state" ] || state=$(mktemp -d "${TMPDIR:-/tmp}/hashjack-devnet.XXXXXX")
anvil_pid='' daemon_pid='' serve_pid='' bot_pid='' pretty_pid='' port=''

# stop PID NAME: SIGTERM, up to 5 s, then SIGKILL; sets $stopped_rc.
stop() {
	local pid=$1 name=$2 i
	stopped_rc=0
	[ -n "$pid" ] || return 0
	kill -TERM "$pid" 2>/dev/null || true
	for ((i = 0; i < 50; i++)); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$pid" 2>/dev/null; then
		say "$name did not stop within 5 s: killing it"
		kill -KILL "$pid" 2>/dev/null || true
	fi
	wait "$pid" 2>/dev/null || stopped_rc=$?
}

cleanup() {
	local rc=$?
	trap - EXIT INT TERM
	trap '' INT TERM # a second Ctrl-C must not cut the cleanup short
	stop "$pretty_pid" "the log viewer"
	stop "$bot_pid" bot
	stop "$serve_pid" "hashjack serve"
	stop "$daemon_pid" hashjackd
	[ -z "$daemon_pid" ] || [ "$stopped_rc" -eq 0 ] || say "hashjackd exited with status $stopped_rc"
	stop "$anvil_pid" anvil
	rm -rf "$state/anvil-home"
	if [ -s "$state/state/cards.jsonl" ]; then
		python3 - "$state/state/cards.jsonl" <<-'EOF' >&2 || true
			import json, sys
			n = settled = 0
			for l in open(sys.argv[1], "rb"):
			    if l.endswith(b"\n"):
			        n += 1
			        settled += sum(e["type"] == "settle" for e in json.loads(l)["events"])
			print("devnet: %d blocks logged, %d rounds settled" % (n, settled))
		EOF
	fi
	# What the dealer paid, owes and holds, from its database.
	if [ -s "$state/state/hashjackd.sqlite" ]; then
		"$hashjack" status --db "$state/state/hashjackd.sqlite" 2>&1 |
			grep -E '^(open rounds|owed|in flight|confirmed|balance|SHORT|warning)' | sed 's/^/devnet: /' >&2 || true
	fi
	if [ "$keep" -eq 1 ] || [ "$rc" -ne 0 ]; then
		say "state kept in $state"
		if [ -s "$state/chain.json" ] && [ -n "$port" ]; then
			# anvil's chain lived in its memory: chain.json is all of
			# it, blocks and transactions, to start it again.
			say "the chain is kept too ($state/chain.json); to verify the kept log against it:"
			say "  $anvil --host 127.0.0.1 --port $port --load-state $state/chain.json &"
			say "  $hashjack verify -c $state/hashjackd.conf"
			say "(on another port: --port P and --chain.rpc_url=http://127.0.0.1:P; docs/VERIFY.md)"
		elif [ -n "$port" ]; then
			say "anvil wrote no chain.json: its chain is gone, and the kept log cannot be verified against it"
		fi
	else
		rm -rf "$state"
	fi
	exit "$rc"
}
trap cleanup EXIT
trap 'say stopping; exit 0' INT TERM

# anvil: 127.0.0.1 only, a block a second, its accounts and keys written to
# anvil.json, its whole chain to chain.json when it stops (kept with --keep).
# Its HOME is anvil-home: anvil writes older block states to
# $HOME/.foundry/anvil/tmp and never removes them, so they go with $state
# (and anvil-home is removed even when $state is kept: chain.json has it all).
# The logs exist before their writers start: the loops below read them
# from the first moment, and a background job may open its file later.
: >"$state/anvil.log"
: >"$state/serve.log"
HOME="$state/anvil-home" "$anvil" --host 127.0.0.1 --port "${HJ_DEVNET_PORT:-0}" --block-time 1 --accounts 10 \
	--config-out "$state/anvil.json" --dump-state "$state/chain.json" >"$state/anvil.log" 2>&1 &
anvil_pid=$!
port=''
for ((i = 0; i < 300; i++)); do
	kill -0 "$anvil_pid" 2>/dev/null || { tail -n 20 "$state/anvil.log" >&2; die "anvil did not start"; }
	port=$(sed -n 's/^Listening on 127\.0\.0\.1:\([0-9][0-9]*\).*/\1/p' "$state/anvil.log" | head -n 1)
	[ -n "$port" ] && [ -s "$state/anvil.json" ] && break
	sleep 0.1
done
[ -n "$port" ] || die "anvil did not listen within 30 s (see $state/anvil.log)"
rpc="http://127.0.0.1:$port"
dealer=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["available_accounts"][9].lower())' \
	"$state/anvil.json")
# The dealer's key signs the payouts: a file only we may read.
(umask 077 && python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["private_keys"][9])' \
	"$state/anvil.json" >"$state/dealer.key")

min_bet=1000000000000000   # 0.001 ETH
max_bet=100000000000000000 # 0.1 ETH
mkdir -p "$state/state"
cat >"$state/hashjackd.conf" <<EOF
# written by scripts/devnet.sh
[chain]
family = evm
rpc_url = $rpc
confirmations = 2
poll_interval_ms = 250

[dealer]
address = $dealer

[rules]
preset = bethash
min_bet = $min_bet
max_bet = $max_bet
timeout_blocks = 30

[payout]
dealer_key = $state/dealer.key
stuck_after = 30

[state]
directory = $state/state
card_log = $state/state/cards.jsonl

[serve]
listen = 127.0.0.1:${HJ_DEVNET_SERVE_PORT:-8549}
EOF

"$hashjackd" -c "$state/hashjackd.conf" 2>"$state/hashjackd.log" &
daemon_pid=$!

# The round API and the page, read-only beside the dealer.
"$hashjack" serve -c "$state/hashjackd.conf" 2>"$state/serve.log" &
serve_pid=$!
page=''
for ((i = 0; i < 100; i++)); do
	if ! kill -0 "$serve_pid" 2>/dev/null; then
		tail -n 20 "$state/serve.log" >&2
		grep -q 'in use' "$state/serve.log" &&
			say "the page's port is taken: HJ_DEVNET_SERVE_PORT=0 takes any free one, HJ_DEVNET_SERVE_PORT=N port N"
		die "hashjack serve did not start"
	fi
	page=$(sed -n 's/^hashjack serve: listening on \(http:[^ ]*\)$/\1/p' "$state/serve.log" | head -n 1)
	[ -n "$page" ] && break
	sleep 0.1
done
[ -n "$page" ] || die "hashjack serve did not listen within 10 s (see $state/serve.log)"

python3 "$root/scripts/bot.py" --rpc-url "$rpc" --dealer "$dealer" \
	--card-log "$state/state/cards.jsonl" --min-bet "$min_bet" --max-bet "$max_bet" \
	--anvil-config "$state/anvil.json" --players 1,2,3,4 &
bot_pid=$!

python3 "$root/scripts/cardlog_pretty.py" --follow "$state/state/cards.jsonl" &
pretty_pid=$!

cat >&2 <<EOF
devnet: anvil $rpc (a block a second), chain state in $state
devnet: hashjackd dealer $dealer, 2 confirmations, bets $min_bet..$max_bet wei, pays with its key (payouts and diagnostics: $state/hashjackd.log)
devnet: the table's web page: $page (the round API under it, docs/API.md; to play from the page, give a browser wallet the network $rpc, chain id 31337, and a dev key of $state/anvil.json)
devnet: bot players: dev accounts 1 to 4; the card log follows (height, card, events). Ctrl-C stops.
EOF

start=$SECONDS
while :; do
	for p in "anvil:$anvil_pid:$state/anvil.log" "hashjackd:$daemon_pid:$state/hashjackd.log" \
		"hashjack serve:$serve_pid:$state/serve.log" "bot:$bot_pid:" "log viewer:$pretty_pid:"; do
		name=${p%%:*} rest=${p#*:}
		pid=${rest%%:*} log=${rest#*:}
		if ! kill -0 "$pid" 2>/dev/null; then
			rc=0
			wait "$pid" 2>/dev/null || rc=$?
			case "$name" in
			anvil) anvil_pid='' ;; hashjackd) daemon_pid='' ;; "hashjack serve") serve_pid='' ;;
			bot) bot_pid='' ;; *) pretty_pid='' ;;
			esac
			say "$name exited unexpectedly (status $rc)"
			[ -z "$log" ] || { say "last lines of $log:"; tail -n 20 "$log" >&2; }
			exit 1
		fi
	done
	if [ "$duration" -gt 0 ] && [ $((SECONDS - start)) -ge "$duration" ]; then
		say "$duration s elapsed, stopping"
		exit 0
	fi
	sleep 1 &
	wait $! || true
done
