#!/usr/bin/env bash
# The hashjack command line: output of `card` on the protocol's vectors, errors
# and exit codes (docs/CLI.md).
#
#   cli.sh /path/to/hashjack
set -u

if [ $# -ne 1 ]; then
	echo "usage: $0 HASHJACK" >&2
	exit 64
fi
bin=$1
passed=0
failed=0
tmp=$(mktemp -d) || exit 70
trap 'rm -rf "$tmp"' EXIT

# The protocol's vectors (docs/PROTOCOL.md sections 2.2 and 2.3).
GENESIS=000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f
ACE=0x0b6bc29980dbb1e93857d094f4a68184d33f3c956609c997693dea129192b10e
VOID_EF=$(printf '0%.0s' $(seq 62))ef
VOID_D=d$(printf '0%.0s' $(seq 63))

# run NAME EXPECTED_EXIT CMD...: runs CMD with stdout and stderr captured in
# $tmp/out and $tmp/err; records a failure when the exit code differs.
# Returns 0 when the exit code matched, so that checks can follow.
run() {
	local name=$1 want=$2
	shift 2
	"$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	got=$?
	if [ "$got" -ne "$want" ]; then
		fail "$name" "exit $got, expected $want (stderr: $(head -c 300 "$tmp/err"))"
		return 1
	fi
	return 0
}
pass() { echo "ok    $1"; passed=$((passed + 1)); }
fail() { echo "FAIL  $1: $2"; failed=$((failed + 1)); }

# check_out NAME: stdout must equal $tmp/want exactly.
check_out() {
	if cmp -s "$tmp/out" "$tmp/want"; then
		pass "$1"
	else
		fail "$1" "stdout differs:"
		diff "$tmp/want" "$tmp/out" | head -n 10
	fi
}

# check_err NAME TEXT...: stderr must contain every TEXT.
check_err() {
	local name=$1
	shift
	for t in "$@"; do
		if ! grep -qF -- "$t" "$tmp/err"; then
			fail "$name" "stderr lacks: $t (stderr: $(head -c 300 "$tmp/err"))"
			return
		fi
	done
	pass "$name"
}

# --- card, human form ------------------------------------------------------
cat >"$tmp/want" <<OUT
$GENESIS
  card:  Six of Hearts (6H), value 6
  rank:  digit '6' at position 62 -> Six (skipped to its right: 'f' at 63)
  suit:  color digit '2' at position 61 = 2, 2 mod 4 = 2 -> Hearts
$ACE
  card:  Ace of Spades (AS), value 1 or 11
  rank:  digit '1' at position 61 -> Ace (skipped to its right: 'e' at 63, '0' at 62)
  suit:  color digit 'b' at position 60 = 11, 11 mod 4 = 3 -> Spades
$VOID_EF
  void:  no rank digit: every digit after the first is 0, e or f
  so:    the block yields no card; the draw it was due for comes from the next block
$VOID_D
  void:  no rank digit: every digit after the first is 0, e or f
  note:  the first digit 'd' would qualify, but it has no digit to its left
  so:    the block yields no card; the draw it was due for comes from the next block
OUT
run "card: spec vectors" 0 "$bin" card "$GENESIS" "$ACE" "$VOID_EF" \
	"$VOID_D" && check_out "card: spec vectors"

# A rank digit in the last position, a King, upper-case digits.
K=0x$(printf 'a%.0s' $(seq 61))E4D
cat >"$tmp/want" <<OUT
$K
  card:  King of Clubs (KC), value 10
  rank:  digit 'd' at position 63 -> King (it is the last digit)
  suit:  color digit '4' at position 62 = 4, 4 mod 4 = 0 -> Clubs
OUT
run "card: last digit, upper case" 0 "$bin" card "$K" &&
	check_out "card: last digit, upper case"

# --- card --json -------------------------------------------------------------
cat >"$tmp/want" <<OUT
{"hash":"$GENESIS","void":false,"rank":"6","suit":"Hearts","value":6,"code":"6H","pos":62,"rankDigit":"6","colorDigit":"2","colorValue":2}
{"hash":"$ACE","void":false,"rank":"A","suit":"Spades","value":1,"code":"AS","pos":61,"rankDigit":"1","colorDigit":"b","colorValue":11}
{"hash":"$VOID_EF","void":true}
{"hash":"$VOID_D","void":true}
{"hash":"$K","void":false,"rank":"K","suit":"Clubs","value":10,"code":"KC","pos":63,"rankDigit":"d","colorDigit":"4","colorValue":4}
OUT
run "card --json: spec vectors" 0 "$bin" card --json "$GENESIS" "$ACE" \
	"$VOID_EF" "$VOID_D" "$K" && check_out "card --json: spec vectors"
run "card --json after --" 0 "$bin" card --json -- "$GENESIS" &&
	{ head -n 1 "$tmp/want" >"$tmp/want1"; mv "$tmp/want1" "$tmp/want"; } &&
	check_out "card --json after --"

# --- card --seed: the committed card (docs/PROTOCOL.md section 15) ----------
# The section's vectors: s_1 with Bitcoin's genesis hash, s_2 with ACE.
S1=dd3373eab6aea135548438625e4a9bfa38a758a6b7c8de1499b42302e9e3b501
S2=79c45bcea86076fe686de0ecd5c3a2807cf3c7ceb6cb87c9c22fb393385eda80
cat >"$tmp/want" <<OUT
$GENESIS
  seed:  $S1
  hmac:  a4d5960c30f66ae286c69b940863b5b6bdb6eea39b60b62206ee543f07651f84
  note:  the committed card: read from the HMAC's digits, not the hash's
  card:  Four of Clubs (4C), value 4
  rank:  digit '4' at position 63 -> Four (it is the last digit)
  suit:  color digit '8' at position 62 = 8, 8 mod 4 = 0 -> Clubs
OUT
run "card --seed: genesis with s_1" 0 "$bin" card --seed "$S1" "$GENESIS" &&
	check_out "card --seed: genesis with s_1"
cat >"$tmp/want" <<OUT
$ACE
  seed:  $S2
  hmac:  9d3f139674df7618194274bd3309157003131584b13bfbfcfdfc5036fa9f89d1
  note:  the committed card: read from the HMAC's digits, not the hash's
  card:  Ace of Diamonds (AD), value 1 or 11
  rank:  digit '1' at position 63 -> Ace (it is the last digit)
  suit:  color digit 'd' at position 62 = 13, 13 mod 4 = 1 -> Diamonds
OUT
# The seed as the hash may be written: "0x", upper case; shown in the
# log's form.
UPPER_S2=0x$(printf '%s' "$S2" | tr a-f A-F)
run "card --seed: 0x and upper case" 0 "$bin" card "$ACE" --seed "$UPPER_S2" &&
	check_out "card --seed: 0x and upper case"
cat >"$tmp/want" <<OUT
{"hash":"$ACE","seed":"$S2","hmac":"9d3f139674df7618194274bd3309157003131584b13bfbfcfdfc5036fa9f89d1","void":false,"rank":"A","suit":"Diamonds","value":1,"code":"AD","pos":63,"rankDigit":"1","colorDigit":"d","colorValue":13}
OUT
python3 - "$S2" "$GENESIS" >"$tmp/hmac" <<'PY' || fail "card --seed --json: python3" "no HMAC"
import hashlib, hmac, sys
print(hmac.new(bytes.fromhex(sys.argv[1]), bytes.fromhex(sys.argv[2]), hashlib.sha256).hexdigest())
PY
# Every HASH is keyed with the one seed; the second line's HMAC is
# Python's.
G2=$(cat "$tmp/hmac")
run "card --seed --json: two hashes" 0 "$bin" card --json --seed "$S2" "$ACE" "$GENESIS" &&
	if head -n 1 "$tmp/out" | cmp -s - "$tmp/want" &&
		sed -n 2p "$tmp/out" | grep -qF "{\"hash\":\"$GENESIS\",\"seed\":\"$S2\",\"hmac\":\"$G2\",\"void\":"; then
		pass "card --seed --json: two hashes"
	else
		fail "card --seed --json: two hashes" "stdout: $(head -c 600 "$tmp/out")"
	fi
# A bad seed is a usage error naming it; nothing is printed.
for bad in 0x12 "${S2%?}z" "0X$S2" "$S2$S2" ""; do
	run "card --seed \"$bad\"" 64 "$bin" card --seed "$bad" "$ACE" &&
		check_err "card --seed \"$bad\": named" "card: --seed \"$bad\": not a seed: " &&
		{ [ ! -s "$tmp/out" ] || fail "card --seed \"$bad\": stdout" "$(head -c 200 "$tmp/out")"; }
done
run "card --seed without SEED" 64 "$bin" card "$ACE" --seed &&
	check_err "card --seed without SEED: message" "card: --seed: no SEED"
run "card --seed twice" 64 "$bin" card --seed "$S1" --seed "$S2" "$ACE" &&
	check_err "card --seed twice: message" "card: --seed given twice"
run "card --seed without HASH" 64 "$bin" card --seed "$S1" &&
	check_err "card --seed without HASH: message" "HASH"
NONHEX_K=${ACE%?}z
run "card --seed: a bad hash" 65 "$bin" card --seed "$S1" "$NONHEX_K" "$GENESIS" &&
	check_err "card --seed: a bad hash named" "card: \"$NONHEX_K\": " &&
	{ grep -qx "$GENESIS" "$tmp/out" && pass "card --seed: good hash still printed" ||
		fail "card --seed: good hash still printed" "$(head -c 300 "$tmp/out")"; }

# --- card: bad hashes --------------------------------------------------------
SHORT=${ACE%?}
NONHEX=0x0b6bc29980dbb1e93857d094f4a68184d33f3c956609c997693dea129192b1zz
UPPERX=0X${ACE#0x}
run "card: bad hashes exit 65" 65 "$bin" card "$SHORT" "$GENESIS" \
	"$NONHEX" "$UPPERX" 'no hash' &&
	check_err "card: bad hashes named" "card: \"$SHORT\": " \
		"card: \"$NONHEX\": " "card: \"$UPPERX\": " "card: \"no hash\": "
if grep -qx "$GENESIS" "$tmp/out" && [ "$(wc -l <"$tmp/out")" -eq 4 ]; then
	pass "card: good hash still printed"
else
	fail "card: good hash still printed" "stdout: $(head -c 300 "$tmp/out")"
fi
run "card --json: bad hash" 65 "$bin" card --json "$NONHEX" &&
	check_err "card --json: bad hash named" "\"$NONHEX\"" "'z'"
run "card: empty hash" 65 "$bin" card "" &&
	check_err "card: empty hash named" 'card: "": '

# --- usage errors ------------------------------------------------------------
run "no command" 64 "$bin" && check_err "no command: message" "hashjack --help"
run "unknown command" 64 "$bin" deal &&
	check_err "unknown command: message" '"deal"'
run "unknown global option" 64 "$bin" --frobnicate &&
	check_err "unknown global option: message" '"--frobnicate"'
run "card without HASH" 64 "$bin" card && check_err "card without HASH: message" "HASH"
run "card --json without HASH" 64 "$bin" card --json &&
	check_err "card --json without HASH: message" "HASH"
run "card unknown option" 64 "$bin" card --yaml "$ACE" &&
	check_err "card unknown option: message" '"--yaml"'
run "replay two files" 64 "$bin" replay a.json b.json &&
	check_err "replay two files: message" '"b.json"'
run "replay unknown option" 64 "$bin" replay --fast &&
	check_err "replay unknown option: message" '"--fast"'
run "help unknown command" 64 "$bin" help deal &&
	check_err "help unknown command: message" '"deal"'

# --- help and version --------------------------------------------------------
for args in "--help" "-h" "help" "help help" "help card" "help replay" \
	"card --help" "replay --help" "replay -h" "--help replay" \
	"help edge" "edge --help" "edge -h"; do
	# shellcheck disable=SC2086
	run "$args" 0 "$bin" $args || continue
	if grep -q '^Usage: hashjack' "$tmp/out" && [ ! -s "$tmp/err" ]; then
		pass "$args"
	else
		fail "$args" "no usage on stdout"
	fi
done
if run "help replay names replay" 0 "$bin" help replay; then
	if grep -q '^Usage: hashjack replay' "$tmp/out"; then
		pass "help replay names replay"
	else
		fail "help replay names replay" "no replay usage"
	fi
fi
if run "--help lists exit codes" 0 "$bin" --help; then
	if grep -q '^  74 ' "$tmp/out" && grep -q '^  66 ' "$tmp/out"; then
		pass "--help lists exit codes"
	else
		fail "--help lists exit codes" "74 or 66 missing"
	fi
fi
# Every command is listed, and each has its help.
if run "--help lists every command" 0 "$bin" --help; then
	missing=''
	for c in card verify serve replay export edge player ledger status help; do
		grep -q "^  $c " "$tmp/out" || missing="$missing $c"
	done
	[ -z "$missing" ] && pass "--help lists every command" ||
		fail "--help lists every command" "missing:$missing"
fi
for c in card verify serve replay export edge player ledger status; do
	run "help $c" 0 "$bin" help "$c" &&
		grep -q "^Usage: hashjack $c" "$tmp/out" && pass "help $c: usage" ||
		fail "help $c: usage" "$(head -n 1 "$tmp/out")"
done
for v in --version -V; do
	run "$v" 0 "$bin" $v || continue
	if grep -Eqx 'hashjack [0-9]+\.[0-9]+\.[0-9]+' "$tmp/out"; then
		pass "$v"
	else
		fail "$v" "stdout: $(cat "$tmp/out")"
	fi
done

# --- replay: input files and I/O ---------------------------------------------
cat >"$tmp/doc.json" <<'DOC'
{"chain": "evm", "dealer": "0x00000000000000000000000000000000000000de",
 "rules": {"min_bet": "1", "max_bet": "100"},
 "blocks": [{"height": 7, "parent": "0x0000000000000000000000000000000000000000000000000000000000000000",
             "hash": "0x000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f",
             "txs": []}]}
DOC
cat >"$tmp/want" <<'OUT'
{"v":2,"chain":"evm","height":7,"hash":"0x000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f","parent":"0x0000000000000000000000000000000000000000000000000000000000000000","card":{"rank":"6","suit":"Hearts","value":6,"code":"6H","pos":62,"rankDigit":"6","colorDigit":"2"},"events":[]}
OUT
run "replay FILE" 0 "$bin" replay "$tmp/doc.json" && check_out "replay FILE"
if "$bin" replay <"$tmp/doc.json" >"$tmp/out" 2>"$tmp/err"; then
	check_out "replay from stdin (no FILE)"
else
	fail "replay from stdin (no FILE)" "exit code"
fi
if "$bin" replay - <"$tmp/doc.json" >"$tmp/out" 2>"$tmp/err"; then
	check_out "replay - (stdin)"
else
	fail "replay - (stdin)" "exit code"
fi
run "replay missing file" 66 "$bin" replay "$tmp/missing.json" &&
	check_err "replay missing file: message" "$tmp/missing.json"
run "replay directory" 66 "$bin" replay "$tmp" &&
	check_err "replay directory: message" "$tmp"
if [ "$(id -u)" -ne 0 ]; then
	cp "$tmp/doc.json" "$tmp/locked.json"
	chmod 000 "$tmp/locked.json"
	run "replay unreadable file" 66 "$bin" replay "$tmp/locked.json" &&
		pass "replay unreadable file"
fi
run "replay --state, no round open" 0 "$bin" replay --state "$tmp/doc.json" &&
	check_err "replay --state, no round open: said" "no round is open after block 7" &&
	[ ! -s "$tmp/out" ] && pass "replay --state, no round open: stdout empty"
echo '{"chain": "evm",' >"$tmp/cut.json"
run "replay bad data" 65 "$bin" replay "$tmp/cut.json" &&
	check_err "replay bad data: message" "cut.json:"
# --- edge: the exact house edge (game/edge.h) -----------------------------------
if run "edge: bethash by default" 0 "$bin" edge; then
	head -n 2 "$tmp/out" >"$tmp/got2"
	printf '%s\n' "rules:  preset=bethash blackjack_pays=6:5 dealer_soft17=hit peek=ace double_on=9-11 double_after_split=no max_hands=2 split_by_value=yes split_aces=no hit_split_aces=no surrender=late split_21_is_blackjack=no perfect_pairs=off twenty_one_plus_three=off cards=hash" \
		"house edge: 2.436355 %" >"$tmp/want"
	if cmp -s "$tmp/got2" "$tmp/want"; then pass "edge: bethash 2.436355 %"; else
		fail "edge: bethash 2.436355 %" "$(cat "$tmp/got2")"; fi
	grep -q '^hard 16 ' "$tmp/out" && grep -q '^pair A ' "$tmp/out" &&
		pass "edge: the chart" || fail "edge: the chart" "$(head -c 300 "$tmp/out")"
fi
if run "edge: keys and side bets, JSON" 0 "$bin" edge preset=annakai \
	perfect_pairs=25,12,6 twenty_one_plus_three=100,40,30,10,5 --json; then
	if grep -q '"preset":"annakai"' "$tmp/out" &&
		grep -q '"perfectPairsEdgePercent":"-1.923077"' "$tmp/out" &&
		grep -q '"houseEdgePercent":"' "$tmp/out" &&
		grep -q '"chart":{"hard":{"5":{"2":"H"' "$tmp/out"; then
		pass "edge --json"
	else
		fail "edge --json" "$(head -c 300 "$tmp/out")"
	fi
fi
printf '[rules]\npreset = cryptogames\nsurrender = late\n' >"$tmp/edge.conf"
if run "edge --config" 0 "$bin" edge --config "$tmp/edge.conf"; then
	grep -q 'preset=cryptogames .*surrender=late' "$tmp/out" &&
		pass "edge --config reads [rules]" || fail "edge --config reads [rules]" "$(head -n 1 "$tmp/out")"
fi
run "edge: a bad value" 64 "$bin" edge peek=maybe &&
	check_err "edge: a bad value names key and value" 'peek = "maybe": expected ace, ace_ten or none'
run "edge: not a key" 64 "$bin" edge pek=ace &&
	check_err "edge: not a key" '"pek": not a rule key'
run "edge: not a preset" 64 "$bin" edge preset=vegas &&
	check_err "edge: not a preset" 'preset="vegas": not a preset'
run "edge: --config missing" 66 "$bin" edge --config "$tmp/none.conf" &&
	pass "edge: --config missing: 66"
# The other commands' spellings: -c, --preset, --rules.KEY=VALUE.
run "edge preset=annakai" 0 "$bin" edge preset=annakai surrender=late && cp "$tmp/out" "$tmp/want"
for args in "--preset annakai --rules.surrender=late" "--preset=annakai surrender=late" \
	"--rules.preset=annakai --rules.surrender=late"; do
	# shellcheck disable=SC2086
	run "edge $args" 0 "$bin" edge $args && check_out "edge $args: as preset=annakai surrender=late"
done
run "edge -c" 0 "$bin" edge -c "$tmp/edge.conf" &&
	grep -q 'preset=cryptogames .*surrender=late' "$tmp/out" &&
	pass "edge -c reads [rules]" || fail "edge -c reads [rules]" "$(head -n 1 "$tmp/out")"
run "edge: another section's key" 64 "$bin" edge --chain.family=evm &&
	check_err "edge: another section's key" 'edge reads only [rules] keys'
run "edge --preset without NAME" 64 "$bin" edge --preset &&
	check_err "edge --preset without NAME" '--preset: NAME missing'

# --- export: the command line (the node's side is tests/e2e/test_export.py)
for args in "help export" "export --help" "export -h"; do
	# shellcheck disable=SC2086
	if run "$args" 0 "$bin" $args; then
		grep -q '^Usage: hashjack export -c FILE' "$tmp/out" &&
			pass "$args: usage" || fail "$args: usage" "$(head -n 1 "$tmp/out")"
	fi
done
printf '[chain]\nrpc_url = http://127.0.0.1:1/\n[dealer]\naddress = 0x%s\n[rules]\nmin_bet = 1000\nmax_bet = 100000\n[state]\ndirectory = %s\n' \
	"$(printf 'ab%.0s' $(seq 20))" "$tmp" >"$tmp/export.conf"
run "export: no -c" 64 "$bin" export --from 1 &&
	check_err "export: no -c" "give -c FILE" "hashjack export --help"
run "export: unknown argument" 64 "$bin" export -c "$tmp/export.conf" --form 1 &&
	check_err "export: unknown argument" 'unknown argument "--form"'
run "export: no --from" 64 "$bin" export -c "$tmp/export.conf" --to 5 &&
	check_err "export: no --from" "give --from H (the configuration sets no [chain] start_height)"
run "export: --from after --to" 64 "$bin" export -c "$tmp/export.conf" --from 5 --to 3 &&
	check_err "export: --from after --to" "--from 5 is after --to 3"
run "export: --from after --to, start_height" 64 "$bin" export -c "$tmp/export.conf" \
	--chain.start_height=9 --to 3 &&
	check_err "export: --from after --to, start_height" "--from 9 is after --to 3"
run "export: not a height" 64 "$bin" export -c "$tmp/export.conf" --from 1 --to -3 &&
	check_err "export: not a height" '--to "-3": not a block height'
run "export: --to twice" 64 "$bin" export -c "$tmp/export.conf" --from 1 --to 3 --to 4 &&
	check_err "export: --to twice" "--to: given twice"
run "export: no such configuration" 78 "$bin" export -c "$tmp/none.conf" --from 1 &&
	pass "export: no such configuration: 78"
run "export: a bad key" 64 "$bin" export -c "$tmp/export.conf" --from 1 --chain.confirmations=x &&
	pass "export: a bad key: 64"
# No node at rpc_url (port 1): the export gives up after its budget.
run "export: no node" 69 "$bin" export -c "$tmp/export.conf" --from 1 &&
	check_err "export: no node" "(attempt 1 of 8)" "(attempt 7 of 8)" "gave up after 8 attempts"
# The same options say where the database is for ledger and status.
for c in ledger status; do
	run "$c -c FILE" 66 "$bin" "$c" -c "$tmp/export.conf" &&
		check_err "$c -c FILE reads [state] directory" "cannot open database $tmp/hashjackd.sqlite"
	run "$c --state-dir DIR" 66 "$bin" "$c" --state-dir "$tmp/x" &&
		check_err "$c --state-dir DIR" "cannot open database $tmp/x/hashjackd.sqlite"
done

# --- verify --payouts: its options --------------------------------------------
run "verify --json without --payouts" 64 "$bin" verify -c x.conf --json &&
	check_err "verify --json without --payouts" "--json is for --payouts"
run "verify --grace without --payouts" 64 "$bin" verify -c x.conf --grace 5 &&
	check_err "verify --grace without --payouts" "--grace is for --payouts"
run "verify --grace not a number" 64 "$bin" verify -c x.conf --payouts \
	--grace -1 &&
	check_err "verify --grace not a number" '--grace: "-1" is not a number'
run "verify --grace without a value" 64 "$bin" verify -c x.conf --payouts \
	--grace && check_err "verify --grace without a value" '"--grace"'
run "verify --payouts with --follow" 64 "$bin" verify -c x.conf --payouts \
	--follow && check_err "verify --payouts with --follow" "not with --follow"

if [ -w /dev/full ]; then
	for args in "card $ACE" "replay $tmp/doc.json" "--help"; do
		# shellcheck disable=SC2086
		"$bin" $args >/dev/full 2>"$tmp/err"
		rc=$?
		if [ $rc -eq 74 ]; then
			check_err "$args > /dev/full: exit 74" "write error"
		else
			fail "$args > /dev/full: exit 74" "exit $rc"
		fi
	done
fi

echo "$passed passed, $failed failed"
[ $failed -eq 0 ] && [ $passed -gt 0 ]
