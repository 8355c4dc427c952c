#!/bin/sh
# The committed Bitcoin samples must be exactly what the generator writes:
#   btcgen_check.sh /path/to/replay_btc_gen /path/to/tests/replay/ok
set -u
gen=$1
ok=$2
tmp=$(mktemp -d) || exit 70
trap 'rm -rf "$tmp"' EXIT
"$gen" "$tmp" || exit 1
n=0
for f in "$tmp"/*.json; do
	if ! cmp "$f" "$ok/$(basename "$f")"; then
		echo "$(basename "$f") differs from what replay_btc_gen writes" >&2
		exit 1
	fi
	n=$((n + 1))
done
[ "$n" -gt 0 ] || { echo "replay_btc_gen wrote nothing" >&2; exit 1; }
echo "$n samples as generated"
