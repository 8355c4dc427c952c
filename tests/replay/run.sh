#!/usr/bin/env bash
# Replay sample sessions and malformed documents through `hashjack replay`.
#
#   run.sh /path/to/hashjack /path/to/tests/replay
#
# ok/NAME.json   must exit 0, print nothing on stderr, and print exactly
#                ok/NAME.jsonl (compared byte for byte).
# state/NAME.json  must exit 0 and print with --state exactly
#                state/NAME.jsonl (the open rounds after the last block).
# bad/NAME.json  must exit 65 (or the number in bad/NAME.code), print
#                nothing on stdout, and print on stderr every line of
#                bad/NAME.err (each a fixed substring).
set -u

if [ $# -ne 2 ]; then
	echo "usage: $0 HASHJACK DIR" >&2
	exit 64
fi
bin=$1
dir=$2
passed=0
failed=0
tmp=$(mktemp -d) || exit 70
trap 'rm -rf "$tmp"' EXIT

pass() { echo "ok    $1"; passed=$((passed + 1)); }
fail() { echo "FAIL  $1: $2"; failed=$((failed + 1)); }

for in in "$dir"/ok/*.json; do
	[ -e "$in" ] || continue
	name=ok/$(basename "$in" .json)
	want=${in%.json}.jsonl
	if [ ! -f "$want" ]; then
		fail "$name" "no expected output $(basename "$want")"
		continue
	fi
	"$bin" replay "$in" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc -ne 0 ]; then
		fail "$name" "exit $rc: $(head -c 300 "$tmp/err")"
	elif [ -s "$tmp/err" ]; then
		fail "$name" "unexpected stderr: $(head -c 300 "$tmp/err")"
	elif ! cmp -s "$tmp/out" "$want"; then
		fail "$name" "output differs from $(basename "$want"):"
		diff "$want" "$tmp/out" | head -n 6 | cut -c 1-300
	else
		# The same document on standard input gives the same bytes.
		"$bin" replay - <"$in" >"$tmp/out2" 2>/dev/null
		if ! cmp -s "$tmp/out2" "$want"; then
			fail "$name" "output from standard input differs"
		else
			pass "$name"
		fi
	fi
done

# state/NAME.json: `replay --state` must exit 0 and print exactly
# state/NAME.jsonl: the rounds still open after the last block.
for in in "$dir"/state/*.json; do
	[ -e "$in" ] || continue
	name=state/$(basename "$in" .json)
	"$bin" replay --state "$in" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc -ne 0 ] || [ -s "$tmp/err" ]; then
		fail "$name" "exit $rc: $(head -c 300 "$tmp/err")"
	elif ! cmp -s "$tmp/out" "${in%.json}.jsonl"; then
		fail "$name" "state differs:"
		diff "${in%.json}.jsonl" "$tmp/out" | head -n 6 | cut -c 1-300
	else
		pass "$name"
	fi
done

for in in "$dir"/bad/*.json; do
	[ -e "$in" ] || continue
	name=bad/$(basename "$in" .json)
	errf=${in%.json}.err
	code=65
	[ -f "${in%.json}.code" ] && code=$(cat "${in%.json}.code")
	if [ ! -s "$errf" ]; then
		fail "$name" "no expected message $(basename "$errf")"
		continue
	fi
	"$bin" replay "$in" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	why=
	if [ $rc -ne "$code" ]; then
		why="exit $rc, expected $code"
	elif [ -s "$tmp/out" ]; then
		why="printed on stdout: $(head -c 200 "$tmp/out")"
	else
		while IFS= read -r line || [ -n "$line" ]; do
			[ -n "$line" ] || continue
			if ! grep -qF -- "$line" "$tmp/err"; then
				why="stderr lacks: $line"
				break
			fi
		done <"$errf"
	fi
	if [ -n "$why" ]; then
		fail "$name" "$why (stderr: $(head -c 300 "$tmp/err"))"
	else
		pass "$name"
	fi
done

echo "$passed passed, $failed failed"
[ $failed -eq 0 ] && [ $passed -gt 0 ]
