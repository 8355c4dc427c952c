#!/usr/bin/env bash
# `hashjack player` (docs/CLI.md, docs/BITCOIN-KEYS.md): key files, P and
# tr(P), the Bet payload's bytes, signed action payloads checked by an
# independent pure-Python BIP-340 verifier, round and seq from a
# hand-written Bitcoin card log and from a round that `hashjack replay`
# (the dealer's engine) plays with this tool's payloads, and every bad
# input's exit code and message.
#
#   player.sh /path/to/hashjack
set -u

if [ $# -ne 1 ]; then
	echo "usage: $0 HASHJACK" >&2
	exit 64
fi
bin=$1
passed=0
failed=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hj-player.XXXXXX") || exit 70
trap 'rm -rf "$tmp"' EXIT

# BIP-340 test vector 1: a public secret key, never to be funded.
SK=b7e151628aed2a6abf7158809cf4f3c762e7160f38b4da56a784d9045190cfef
PK=dff1d77f2a671c5f36183726db2341be58feae1da2deced843240f7b502ba659
# Litecoin regtest's genesis block hash, as `getblockhash 0` prints it.
GENESIS=530827f38f93b43ed12af0b3ad25a288dc02ed74d6d7857862df51fc56c416f9
# Another player's key (BIP-86's first internal key).
OTHER=cc8a4bc64d897bddc5fbc2f670f7a8ba0b386779106cf1223c6fc5d7cd6fc115

# --- an independent reference: BIP-340, BIP-86 and bech32m in Python -------
cat >"$tmp/ref.py" <<'PY'
"""Pure-Python BIP-340 / BIP-86 / BIP-350 reference (after the BIPs' own
reference code), sharing nothing with the C under test."""
import hashlib
import sys

p = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEFFFFFC2F
n = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141
G = (0x79BE667EF9DCBBAC55A06295CE870B07029BFCDB2DCE28D959F2815B16F81798,
     0x483ADA7726A3C4655DA4FBFC0E1108A8FD17B448A68554199C47D08FFB10D4B8)


def tagged(tag, msg):
    t = hashlib.sha256(tag.encode()).digest()
    return hashlib.sha256(t + t + msg).digest()


def add(a, b):
    if a is None:
        return b
    if b is None:
        return a
    if a[0] == b[0] and a[1] != b[1]:
        return None
    if a == b:
        lam = 3 * a[0] * a[0] * pow(2 * a[1], p - 2, p) % p
    else:
        lam = (b[1] - a[1]) * pow(b[0] - a[0], p - 2, p) % p
    x = (lam * lam - a[0] - b[0]) % p
    return (x, (lam * (a[0] - x) - a[1]) % p)


def mul(pt, k):
    r = None
    for i in range(256):
        if (k >> i) & 1:
            r = add(r, pt)
        pt = add(pt, pt)
    return r


def lift_x(x):
    if x >= p:
        return None
    y2 = (pow(x, 3, p) + 7) % p
    y = pow(y2, (p + 1) // 4, p)
    if pow(y, 2, p) != y2:
        return None
    return (x, y if y % 2 == 0 else p - y)


def pubkey(sk):
    d = int.from_bytes(sk, "big")
    assert 0 < d < n
    return mul(G, d)[0].to_bytes(32, "big")


def verify(pk, msg, sig):
    P = lift_x(int.from_bytes(pk, "big"))
    r = int.from_bytes(sig[:32], "big")
    s = int.from_bytes(sig[32:], "big")
    if P is None or r >= p or s >= n:
        return False
    e = int.from_bytes(tagged("BIP0340/challenge", sig[:32] + pk + msg),
                       "big") % n
    R = add(mul(G, s), mul(P, n - e))
    return R is not None and R[1] % 2 == 0 and R[0] == r


CHARSET = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"


def polymod(values):
    gen = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3]
    chk = 1
    for v in values:
        b = chk >> 25
        chk = (chk & 0x1ffffff) << 5 ^ v
        for i in range(5):
            chk ^= gen[i] if (b >> i) & 1 else 0
    return chk


def bech32m(hrp, data):
    hx = [ord(c) >> 5 for c in hrp] + [0] + [ord(c) & 31 for c in hrp]
    pm = polymod(hx + data + [0] * 6) ^ 0x2bc830a3
    return hrp + "1" + "".join(CHARSET[d] for d in
                               data + [(pm >> 5 * (5 - i)) & 31
                                       for i in range(6)])


def tr_address(pk, hrp):
    q = output_key(pk)
    acc, bits, data = 0, 0, [1]
    for byte in q.to_bytes(32, "big"):
        acc = acc << 8 | byte
        bits += 8
        while bits >= 5:
            bits -= 5
            data.append(acc >> bits & 31)
    if bits:
        data.append(acc << (5 - bits) & 31)
    return bech32m(hrp, data)


def output_key(pk):
    t = int.from_bytes(tagged("TapTweak", pk), "big")
    return add(lift_x(int.from_bytes(pk, "big")), mul(G, t))[0]


def action_ok(pk, genesis, seq, payload):
    """docs/PROTOCOL.md section 11.3: the dealer's check of a signed payload."""
    body, short, sig = payload[:-72], payload[-72:-64], payload[-64:]
    msg = genesis + short + (seq & 0xFFFFFFFF).to_bytes(4, "big") + body
    return verify(pk, tagged("HashJack/action", msg), sig)


def selftest():
    # BIP-340 vector 1 and its first byte flipped; BIP-86's first address.
    pk = bytes.fromhex("DFF1D77F2A671C5F36183726DB2341BE58FEAE1DA2DECED8"
                       "43240F7B502BA659")
    msg = bytes.fromhex("243F6A8885A308D313198A2E03707344A4093822299F31D0"
                        "082EFA98EC4E6C89")
    sig = bytes.fromhex("6896BD60EEAE296DB48A229FF71DFE071BDE413E6D43F917"
                        "DC8DCF8C78DE33418906D11AC976ABCCB20B091292BFF4EA"
                        "897EFCB639EA871CFA95F6DE339E4B0A")
    assert verify(pk, msg, sig)
    assert not verify(pk, bytes([msg[0] ^ 1]) + msg[1:], sig)
    assert pubkey(bytes.fromhex("B7E151628AED2A6ABF7158809CF4F3C762E7160F"
                                "38B4DA56A784D9045190CFEF")) == pk
    assert tr_address(bytes.fromhex(
        "cc8a4bc64d897bddc5fbc2f670f7a8ba0b386779106cf1223c6fc5d7cd6fc115"),
        "bc") == ("bc1p5cyxnuxmeuwuvkwfem96lqzszd02n6xdcjrs20cac6yqjjwudp"
                  "xqkedrcr")


# Replay documents ("chain": "bitcoin", docs/CLI.md) with raw legacy
# transactions built here, for the engine to judge the tool's payloads.
def tx(inputs, outputs):
    b = (2).to_bytes(4, "little") + bytes([len(inputs)])
    for prev, script_sig, seq in inputs:
        b += prev + bytes([len(script_sig)]) + script_sig
        b += seq.to_bytes(4, "little")
    b += bytes([len(outputs)])
    for value, script in outputs:
        b += value.to_bytes(8, "little") + bytes([len(script)]) + script
    return b + bytes(4)


def txid(raw):
    return hashlib.sha256(hashlib.sha256(raw).digest()).digest()[::-1].hex()


def doc_block(path, dealer, card, txs):
    """Appends the next block, whose hash deals card ("5H", "AH", "KD"),
    with a coinbase and one transaction per "VALUE:PAYLOAD" (VALUE paid to
    tr(dealer), PAYLOAD in an OP_RETURN output); prints their txids."""
    import json
    with open(path) as f:
        doc = json.load(f)
    height = doc["blocks"][-1]["height"] + 1 if doc["blocks"] else 1000
    parent = doc["blocks"][-1]["hash"] if doc["blocks"] else "00" * 32
    rank = {"A": "1", "10": "a", "J": "b", "Q": "c", "K": "d"}.get(
        card[:-1], card[:-1])
    color = str("CDHS".index(card[-1]))
    q = output_key(bytes.fromhex(dealer))
    dealer_script = b"\x51\x20" + q.to_bytes(32, "big")
    raws = [tx([(bytes(32) + b"\xff" * 4,
                 b"\x03" + height.to_bytes(3, "little"), 0xffffffff)],
               [(50 * 10 ** 8, b"\x51")])]
    for i, t in enumerate(txs):
        value, payload = t.split(":")
        data = bytes.fromhex(payload)
        push = bytes([len(data)]) if len(data) < 0x4c else bytes([0x4c, len(data)])
        outs = [(int(value), dealer_script)] if int(value) else []
        outs.append((0, b"\x6a" + push + data))
        prev = hashlib.sha256(f"{height}:{i}".encode()).digest() + bytes(4)
        raws.append(tx([(prev, b"", 0xfffffffd)], outs))
    doc["blocks"].append({"height": height,
                          "hash": f"{height:016x}" + "0" * 46 + color + rank,
                          "parent": parent,
                          "txs": [r.hex() for r in raws]})
    with open(path, "w") as f:
        json.dump(doc, f)
    for r in raws[1:]:
        print(txid(r))


cmd = sys.argv[1]
if cmd == "selftest":
    selftest()
elif cmd == "pubkey":
    print(pubkey(bytes.fromhex(sys.argv[2])).hex())
elif cmd == "address":
    print(tr_address(bytes.fromhex(sys.argv[2]), sys.argv[3]))
elif cmd == "block":  # doc dealer_pk card [value:payload]...
    doc_block(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:])
elif cmd == "verify":  # pk genesis seq payload: exit 0 when valid
    sys.exit(0 if action_ok(bytes.fromhex(sys.argv[2]),
                            bytes.fromhex(sys.argv[3]), int(sys.argv[4]),
                            bytes.fromhex(sys.argv[5])) else 1)
else:
    sys.exit("unknown command " + cmd)
PY
ref() { python3 "$tmp/ref.py" "$@"; }

# run NAME EXPECTED_EXIT CMD...: runs CMD with stdout and stderr captured in
# $tmp/out and $tmp/err; records a failure when the exit code differs.
# Returns 0 when the exit code matched, so that checks can follow.
run() {
	local name=$1 want=$2
	shift 2
	"$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	got=$?
	if [ "$got" -ne "$want" ]; then
		fail "$name" "exit $got, expected $want (stderr: $(head -c 400 "$tmp/err"))"
		return 1
	fi
	return 0
}
pass() { echo "ok    $1"; passed=$((passed + 1)); }
fail() { echo "FAIL  $1: $2"; failed=$((failed + 1)); }

# check_out NAME TEXT: stdout must be exactly TEXT and a newline.
check_out() {
	if [ "$(cat "$tmp/out")" = "$2" ] && [ "$(wc -l <"$tmp/out")" -eq 1 ]; then
		pass "$1"
	else
		fail "$1" "stdout is '$(head -c 300 "$tmp/out")', expected '$2'"
	fi
}

# check_err NAME TEXT...: stderr must contain every TEXT, and stdout be empty.
check_err() {
	local name=$1
	shift
	if [ -s "$tmp/out" ]; then
		fail "$name" "stdout not empty: $(head -c 200 "$tmp/out")"
		return
	fi
	for t in "$@"; do
		if ! grep -qF -- "$t" "$tmp/err"; then
			fail "$name" "stderr lacks: $t (stderr: $(head -c 400 "$tmp/err"))"
			return
		fi
	done
	pass "$name"
}

# bad NAME EXIT TEXTS... -- CMD...: CMD must exit EXIT, print nothing on
# stdout and name every TEXT on stderr.
bad() {
	local name=$1 want=$2 texts=()
	shift 2
	while [ "$1" != "--" ]; do
		texts+=("$1")
		shift
	done
	shift
	run "$name" "$want" "$@" && check_err "$name" "${texts[@]}"
}

if ref selftest; then
	pass "reference: BIP-340 vector 1, BIP-86 address"
else
	fail "reference" "the Python reference fails its own vectors"
	exit 1
fi

# write_key FILE TEXT: a key file with mode 0600.
write_key() {
	printf '%s' "$2" >"$1" && chmod 600 "$1"
}
HEADER='# hashjack player key: BIP-340 secret key, keep this file private'
V="$tmp/v.key"
write_key "$V" "$HEADER
# P $PK
$SK
"

# --- keygen -------------------------------------------------------------------
K="$tmp/new.key"
if run "keygen" 0 "$bin" player keygen "$K"; then
	pk=$(cat "$tmp/out")
	if [[ "$pk" =~ ^[0-9a-f]{64}$ ]] && [ "$(wc -l <"$tmp/out")" -eq 1 ]; then
		pass "keygen prints P"
	else
		fail "keygen prints P" "stdout: $pk"
	fi
	said=$(cat "$tmp/err")
	case $said in
	*"$K"*"0600"*) pass "keygen says where the key is" ;;
	*) fail "keygen says where the key is" "stderr: $said" ;;
	esac
	mode=$(stat -c %a "$K")
	[ "$mode" = 600 ] && pass "keygen mode 0600" ||
		fail "keygen mode 0600" "mode $mode"
	l1=$(sed -n 1p "$K") l2=$(sed -n 2p "$K") l3=$(sed -n 3p "$K")
	if [ "$l1" = "$HEADER" ] && [ "$l2" = "# P $pk" ] &&
		[[ "$l3" =~ ^[0-9a-f]{64}$ ]] && [ "$(wc -l <"$K")" -eq 3 ] &&
		[ "$(tail -c 1 "$K" | od -An -c | tr -d ' ')" = '\n' ]; then
		pass "keygen file format"
	else
		fail "keygen file format" "$(cat "$K")"
	fi
	if [ "$(ref pubkey "$l3")" = "$pk" ]; then
		pass "keygen: the secret's P (reference) is the P printed"
	else
		fail "keygen: P" "reference P of the secret differs"
	fi
	run "keygen then pubkey" 0 "$bin" player pubkey --key "$K" &&
		check_out "keygen then pubkey" "$pk"
	cp "$K" "$tmp/new.copy"
	bad "keygen refuses to overwrite" 73 "$K" "already exists" -- \
		"$bin" player keygen "$K"
	cmp -s "$K" "$tmp/new.copy" && pass "keygen left the existing file alone" ||
		fail "keygen left the existing file alone" "file changed"
fi
# umask 0277 makes open(0600) create 0400: only fchmod gives 0600.
if (umask 277 && "$bin" player keygen "$tmp/umask.key" >/dev/null 2>&1); then
	mode=$(stat -c %a "$tmp/umask.key")
	[ "$mode" = 600 ] && pass "keygen mode 0600 under umask 0277" ||
		fail "keygen mode 0600 under umask 0277" "mode $mode"
else
	fail "keygen under umask 0277" "failed"
fi
ln -s "$tmp/nowhere.key" "$tmp/link.key"
bad "keygen refuses a symbolic link" 73 "link.key" -- \
	"$bin" player keygen "$tmp/link.key"
[ ! -e "$tmp/nowhere.key" ] && pass "keygen wrote nothing through the link" ||
	fail "keygen wrote nothing through the link" "nowhere.key exists"
bad "keygen into a missing directory" 73 "$tmp/no/such.key" -- \
	"$bin" player keygen "$tmp/no/such.key"
bad "keygen without FILE" 64 "no FILE given" "hashjack player keygen --help" -- \
	"$bin" player keygen
bad "keygen with two FILEs" 64 "more than one FILE" '"b.key"' -- \
	"$bin" player keygen "$tmp/a.key" b.key
[ ! -e "$tmp/a.key" ] && pass "keygen with two FILEs wrote nothing" ||
	fail "keygen with two FILEs wrote nothing" "a.key exists"
bad "keygen --key is unknown" 64 'unknown option "--key"' -- \
	"$bin" player keygen --key "$tmp/x.key"

# --- reading key files ----------------------------------------------------------
run "pubkey" 0 "$bin" player pubkey --key "$V" && check_out "pubkey" "$PK"
run "pubkey --key=FILE" 0 "$bin" player pubkey --key="$V" &&
	check_out "pubkey --key=FILE" "$PK"

for m in 644 640 604 660 606 610 601; do
	cp "$V" "$tmp/m$m.key" && chmod "$m" "$tmp/m$m.key"
	bad "mode 0$m refused" 77 "$tmp/m$m.key" "mode 0$m" \
		"chmod 600 $tmp/m$m.key" -- "$bin" player pubkey --key "$tmp/m$m.key"
done
for m in 400 700; do
	cp "$V" "$tmp/m$m.key" && chmod "$m" "$tmp/m$m.key"
	run "mode 0$m accepted" 0 "$bin" player pubkey --key "$tmp/m$m.key" &&
		check_out "mode 0$m accepted" "$PK"
done
cp "$V" "$tmp/it's.key" && chmod 644 "$tmp/it's.key"
bad "chmod advice is shell-quoted" 77 "chmod 600 '$tmp/it'\\''s.key'" -- \
	"$bin" player pubkey --key "$tmp/it's.key"

D="$tmp/damaged.key"
write_key "$D" "$HEADER
# P ${PK%?}8
$SK
"
bad "damaged # P line refused" 65 "$D:2:" "differs from the secret key's P $PK" \
	"damaged" -- "$bin" player pubkey --key "$D"
# The same damage must stop every command that reads the key.
bad "damaged key: no Bet" 65 "$D:2:" -- "$bin" player bet --key "$D"
bad "damaged key: no address" 65 "$D:2:" -- \
	"$bin" player address --key "$D" --coin bitcoin --chain main
write_key "$D" "$HEADER
# P ${PK%?}g
$SK
"
bad "# P line not hex" 65 "$D:2:" "'g' at offset 63 is not a hex digit" -- \
	"$bin" player pubkey --key "$D"
write_key "$D" "# P $PK
# P $PK
$SK
"
bad "two # P lines" 65 "$D:2:" "a second \"# P\" line" -- \
	"$bin" player pubkey --key "$D"
write_key "$D" "$HEADER
# P $PK
${SK:0:20}x${SK:21}
"
bad "secret key not hex" 65 "$D:3:" "'x' at offset 20" -- \
	"$bin" player pubkey --key "$D"
write_key "$D" "$HEADER
${SK%?}
"
bad "secret key too short" 65 "$D:2:" "64 hex digits expected, found 63" -- \
	"$bin" player pubkey --key "$D"
write_key "$D" "$HEADER
# P $PK
"
bad "no secret key" 65 "$D:" "no secret key line" -- \
	"$bin" player pubkey --key "$D"
write_key "$D" "$HEADER
# P $PK
$SK
$SK
"
bad "two secret keys" 65 "$D:4:" "a second secret key line" -- \
	"$bin" player pubkey --key "$D"
write_key "$D" "$(printf '0%.0s' $(seq 64))
"
bad "zero secret key" 65 "$D:1:" "invalid secret key" -- \
	"$bin" player pubkey --key "$D"
write_key "$D" "FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141
"
bad "secret key = group order" 65 "$D:1:" "invalid secret key" -- \
	"$bin" player pubkey --key "$D"
write_key "$D" "$(head -c 5000 /dev/zero | tr '\0' '#')"
bad "huge key file" 65 "$D:" "not a key file" -- "$bin" player pubkey --key "$D"
# Accepted variants: no "# P" line, upper case, no final newline, blank lines.
write_key "$D" "$(echo "$SK" | tr a-f A-F)"
run "upper case, no # P, no newline" 0 "$bin" player pubkey --key "$D" &&
	check_out "upper case, no # P, no newline" "$PK"
write_key "$D" "
# a note

# P $(echo "$PK" | tr a-f A-F)
$SK

"
run "blank lines and comments" 0 "$bin" player pubkey --key "$D" &&
	check_out "blank lines and comments" "$PK"
bad "missing key file" 66 "cannot open key file $tmp/none.key" \
	"No such file" -- "$bin" player pubkey --key "$tmp/none.key"
mkdir "$tmp/dir.key"
bad "key file is a directory" 66 "$tmp/dir.key" "Is a directory" -- \
	"$bin" player pubkey --key "$tmp/dir.key"
bad "pubkey without --key" 64 "--key is required" -- "$bin" player pubkey
bad "pubkey --key without value" 64 "--key needs a value" -- \
	"$bin" player pubkey --key
bad "pubkey --key twice" 64 "--key given twice" -- \
	"$bin" player pubkey --key "$V" --key "$V"
bad "pubkey extra argument" 64 'unexpected argument "extra"' -- \
	"$bin" player pubkey --key "$V" extra

# --- address --------------------------------------------------------------------
for pair in bitcoin:main:bc bitcoin:test:tb bitcoin:testnet4:tb \
	bitcoin:signet:tb bitcoin:regtest:bcrt litecoin:main:ltc \
	litecoin:test:tltc litecoin:regtest:rltc; do
	IFS=: read -r coin chain hrp <<<"$pair"
	want=$(ref address "$PK" "$hrp")
	run "address $coin $chain" 0 "$bin" player address --key "$V" \
		--coin "$coin" --chain "$chain" &&
		check_out "address $coin $chain" "$want"
done
# The two worked in docs/BITCOIN-KEYS.md, as written there.
run "address as documented (rltc)" 0 "$bin" player address --key "$V" \
	--coin litecoin --chain regtest &&
	check_out "address as documented (rltc)" \
		rltc1p0t2rw5pjcw8t5n7xphk2wharpgaxhhe0kw8huctj3r3dxampzl9sdp4qm8
run "address as documented (bcrt)" 0 "$bin" player address --key "$V" \
	--coin bitcoin --chain regtest &&
	check_out "address as documented (bcrt)" \
		bcrt1p0t2rw5pjcw8t5n7xphk2wharpgaxhhe0kw8huctj3r3dxampzl9s9zll52
bad "address unknown coin" 64 '--coin "dogecoin"' "bitcoin or litecoin" -- \
	"$bin" player address --key "$V" --coin dogecoin --chain main
bad "address unknown chain" 64 '--chain "signet"' "not a litecoin chain" -- \
	"$bin" player address --key "$V" --coin litecoin --chain signet
bad "address upper-case chain" 64 '--chain "Main"' -- \
	"$bin" player address --key "$V" --coin bitcoin --chain Main
bad "address without --chain" 64 "--chain is required" -- \
	"$bin" player address --key "$V" --coin bitcoin
bad "address checks options before the key" 64 '--coin "x"' -- \
	"$bin" player address --key "$tmp/none.key" --coin x --chain main

# --- bet ------------------------------------------------------------------------
run "bet" 0 "$bin" player bet --key "$V" && check_out "bet" "484a0101$PK"
run "bet --perfect-pairs 0 is no side stake" 0 "$bin" player bet --key "$V" \
	--perfect-pairs 0 && check_out "bet --perfect-pairs 0 is no side stake" \
	"484a0101$PK"
run "bet --perfect-pairs" 0 "$bin" player bet --key "$V" --perfect-pairs 1000 &&
	check_out "bet --perfect-pairs" "484a0101${PK}00000000000003e8"
run "bet --21plus3 alone" 0 "$bin" player bet --key "$V" --21plus3 7 &&
	check_out "bet --21plus3 alone" \
		"484a0101${PK}00000000000000000000000000000007"
run "bet both side stakes" 0 "$bin" player bet --key "$V" --21plus3=2 \
	--perfect-pairs 18446744073709551615 &&
	check_out "bet both side stakes" \
		"484a0101${PK}ffffffffffffffff0000000000000002"
for n in -1 01 1.5 "" 18446744073709551616 " 1" 0x10; do
	bad "bet --perfect-pairs '$n'" 64 "--perfect-pairs \"$n\"" "not a stake" -- \
		"$bin" player bet --key "$V" --perfect-pairs "$n"
done
bad "bet --21plus3 bad" 64 '--21plus3 "+5"' -- \
	"$bin" player bet --key "$V" --21plus3 +5
bad "bet --genesis is unknown" 64 'unknown option "--genesis"' -- \
	"$bin" player bet --key "$V" --genesis "$GENESIS"

# --- signed actions ----------------------------------------------------------
ROUND=7f8e2a9c6b3d1e0f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f
SHORT=${ROUND:0:16}
# check_action NAME CODE SEQ: stdout is the payload of action CODE (hex
# "02".."07" plus the peek flag) for $ROUND, signed at SEQ.
check_action() {
	local name=$1 code=$2 seq=$3 hex
	hex=$(cat "$tmp/out")
	if [ "${hex:0:$((8 + ${#code} - 2))}" != "484a01$code" ] ||
		[ "${hex:$((${#hex} - 144)):16}" != "$SHORT" ] ||
		[ ${#hex} -ne $((2 * (4 + (${#code} - 2) / 2 + 72))) ]; then
		fail "$name" "payload $hex"
	elif ! ref verify "$PK" "$GENESIS" "$seq" "$hex"; then
		fail "$name" "signature does not verify (reference): $hex"
	elif ref verify "$PK" "$GENESIS" $((seq + 1)) "$hex"; then
		fail "$name" "signature verifies at another seq: $hex"
	elif ref verify "$PK" "${GENESIS%?}0" "$seq" "$hex"; then
		fail "$name" "signature verifies with another genesis: $hex"
	elif ref verify "$OTHER" "$GENESIS" "$seq" "$hex"; then
		fail "$name" "signature verifies for another key: $hex"
	else
		pass "$name"
	fi
}
for a in hit:02 stand:03 double:04 split:05 surrender:06; do
	act=${a%:*} code=${a#*:}
	run "$act" 0 "$bin" player "$act" --key "$V" --genesis "$GENESIS" \
		--round "$ROUND" --seq 7 && check_action "$act" "$code" 7
done
run "peek --insurance yes" 0 "$bin" player peek --insurance yes --key "$V" \
	--genesis "$GENESIS" --round "$SHORT" --seq 0 &&
	check_action "peek --insurance yes" 0701 0
run "peek --insurance no" 0 "$bin" player peek --key "$V" \
	--genesis "$GENESIS" --round "$SHORT" --seq 4294967295 --insurance no &&
	check_action "peek --insurance no" 0700 4294967295
run "hit, upper-case hex" 0 "$bin" player hit --key "$V" \
	--genesis "$(echo "$GENESIS" | tr a-f A-F)" \
	--round "$(echo "$ROUND" | tr a-f A-F)" --seq 12 &&
	check_action "hit, upper-case hex" 02 12
"$bin" player stand --key "$V" --genesis "$GENESIS" --round "$SHORT" --seq 1 \
	>"$tmp/s1" 2>/dev/null
"$bin" player stand --key "$V" --genesis "$GENESIS" --round "$SHORT" --seq 1 \
	>"$tmp/s2" 2>/dev/null
if ! cmp -s "$tmp/s1" "$tmp/s2" &&
	ref verify "$PK" "$GENESIS" 1 "$(cat "$tmp/s1")" &&
	ref verify "$PK" "$GENESIS" 1 "$(cat "$tmp/s2")"; then
	pass "fresh randomness: two valid, different signatures"
else
	fail "fresh randomness" "$(cat "$tmp/s1" "$tmp/s2")"
fi

A=(--key "$V" --genesis "$GENESIS" --round "$ROUND" --seq 3)
bad "--genesis short" 64 '--genesis "530827f3"' "64 hex digits expected, found 8" -- \
	"$bin" player hit --key "$V" --genesis 530827f3 --round "$ROUND" --seq 3
bad "--genesis with 0x" 64 "--genesis \"0x$GENESIS\"" 'written without "0x"' -- \
	"$bin" player hit --key "$V" --genesis "0x$GENESIS" --round "$ROUND" --seq 3
bad "--genesis not hex" 64 "'z' at offset 0" -- \
	"$bin" player hit --key "$V" --genesis "z${GENESIS:1}" --round "$ROUND" --seq 3
bad "--round 15 digits" 64 "--round \"${SHORT%?}\"" "15 characters" -- \
	"$bin" player hit --key "$V" --genesis "$GENESIS" --round "${SHORT%?}" --seq 3
bad "--round 0x" 64 "--round \"0x${SHORT:2}\"" 'written without "0x"' -- \
	"$bin" player hit --key "$V" --genesis "$GENESIS" --round "0x${SHORT:2}" --seq 3
bad "--round not hex" 64 "'g' at offset 63" -- \
	"$bin" player hit --key "$V" --genesis "$GENESIS" --round "${ROUND%?}g" --seq 3
for n in -1 abc 4294967296 007 ""; do
	bad "--seq '$n'" 64 "--seq \"$n\"" "0 .. 4294967295" -- \
		"$bin" player stand --key "$V" --genesis "$GENESIS" --round "$ROUND" --seq "$n"
done
bad "peek without --insurance" 64 "--insurance is required" -- \
	"$bin" player peek "${A[@]}"
bad "peek --insurance maybe" 64 '--insurance "maybe"' "yes or no" -- \
	"$bin" player peek "${A[@]}" --insurance maybe
bad "hit --insurance is unknown" 64 'unknown option "--insurance"' -- \
	"$bin" player hit "${A[@]}" --insurance yes
bad "hit without --genesis" 64 "--genesis is required" -- \
	"$bin" player hit --key "$V" --round "$ROUND" --seq 3
bad "hit without --key" 64 "--key is required" -- \
	"$bin" player hit --genesis "$GENESIS" --round "$ROUND" --seq 3
bad "hit without --seq" 64 "--seq is required" -- \
	"$bin" player hit --key "$V" --genesis "$GENESIS" --round "$ROUND"
bad "hit without --round" 64 "--round is required" -- \
	"$bin" player hit --key "$V" --genesis "$GENESIS" --seq 3
bad "hit with --log and --round" 64 "--log replaces --round and --seq" -- \
	"$bin" player hit "${A[@]}" --log "$tmp/card.log"
bad "hit unknown option" 64 'unknown option "--sequence"' "hashjack player hit --help" -- \
	"$bin" player hit "${A[@]}" --sequence 3
bad "hit checks options before the key" 64 "--seq" -- \
	"$bin" player hit --key "$tmp/none.key" --genesis "$GENESIS" --round "$ROUND" --seq x
bad "hit with an open key file" 77 "chmod 600" -- \
	"$bin" player hit --key "$tmp/m644.key" --genesis "$GENESIS" --round "$ROUND" --seq 3

# --- round and seq from a card log -------------------------------------------
# A hand-written Bitcoin-family log (docs/LOG.md: no "0x", players are
# x-only keys).  The tool reads only "v", "chain", "height" and the events;
# the card objects are not those of the hashes.
R1=1111aaaa000000000000000000000000000000000000000000000000000000a1
R2=2222bbbb000000000000000000000000000000000000000000000000000000b2
R3=3333cccc000000000000000000000000000000000000000000000000000000c3
R4=4444dddd000000000000000000000000000000000000000000000000000000d4
T=5555eeee00000000000000000000000000000000000000000000000000000000
CARD='"card":{"rank":"7","suit":"Hearts","value":7,"code":"7H","pos":63,"rankDigit":"7","colorDigit":"6"}'
height=840000
prev=$(printf '%064x' $((height - 1)))
log=$tmp/card.log
: >"$log"
# blk EVENTS...: appends the next block's line with these events.  The
# dealer upgrades at 840010: format version 1 before, 2 from there on (the
# tool reads both alike).
blk() {
	local h ev v=1
	h=$(printf '%064x' $height)
	ev=$(
		IFS=,
		echo "$*"
	)
	[ "$height" -lt 840010 ] || v=2
	printf '{"v":%d,"chain":"bitcoin","height":%d,"hash":"%s","parent":"%s",%s,"events":[%s]}\n' \
		"$v" "$height" "$h" "$prev" "$CARD" "$ev" >>"$log"
	prev=$h
	height=$((height + 1))
}
act() { # act ACTION ROUND PLAYER [HAND]
	printf '{"type":"action","action":"%s","round":"%s","player":"%s","tx":"%s","txIndex":1%s,"stake":"0"}' \
		"$1" "$2" "$3" "$T" "${4:+,\"handIndex\":$4}"
}
draw() { printf '{"type":"draw","round":"%s","handOwner":"Player","handIndex":0,"card":"7H"}' "$1"; }
tmo() { printf '{"type":"timeout","round":"%s","action":"Stand","handIndex":%s}' "$1" "$2"; }
rej() { printf '{"type":"reject","tx":"%s","txIndex":2,"action":"Hit","round":"%s","reason":"%s","refund":"0"}' "$T" "$1" "$2"; }
settle() {
	printf '{"type":"settle","round":"%s","player":"%s","dealerHand":{"cards":["7H","7H","7H"],"total":21},"playerHands":[{"handIndex":0,"cards":["7H","7H"],"total":14,"betAmount":"100000","status":"Lose","payout":"0"}],"betAmount":"100000","payout":"0"}' "$1" "$2"
}
blk                                          # 840000: nothing
blk "$(act Bet "$R1" "$PK")"                 # our first round
blk "$(draw "$R1")"
blk "$(draw "$R1")" "$(act Bet "$R2" "$OTHER")"
blk "$(draw "$R1")" '{"type":"deposit","tx":"'"$T"'","txIndex":0,"value":"5000"}'
blk "$(act Hit "$R1" "$PK" 0)"               # R1 seq 1
blk "$(draw "$R1")" "$(rej "$R1" bad_signature)"
blk "$(tmo "$R1" 0)" "$(settle "$R1" "$PK")" # R1 settled
blk "$(act Bet "$R3" "$PK")" "$(act Hit "$R2" "$OTHER" 0)"
blk "$(draw "$R3")" "$(tmo "$R2" 0)"         # another round's timeout
blk "$(draw "$R3")"
blk "$(draw "$R3")" "$(rej "$R3" premature)"
blk "$(act Split "$R3" "$PK" 0)"             # R3 seq 1
blk "$(draw "$R3")" "$(act Stand "$R2" "$OTHER" 0)"
blk "$(draw "$R3")" "$(rej "$R3" bad_signature)" "$(rej "$R3" wrong_value)"
blk "$(act Hit "$R3" "$PK" 1)"               # R3 seq 2
blk "$(draw "$R3")" "$(settle "$R2" "$OTHER")"
blk
blk "$(tmo "$R3" 1)"                         # R3 seq 3
blk "$(act Bet "$R4" "$OTHER")"              # not ours
blk

LOGSEQ=3
run "--log: round and seq" 0 "$bin" player stand --key "$V" \
	--genesis "$GENESIS" --log "$tmp/card.log" && {
	hex=$(cat "$tmp/out")
	if [ "${hex:0:8}" = 484a0103 ] && [ "${hex:8:16}" = "${R3:0:16}" ] &&
		ref verify "$PK" "$GENESIS" $LOGSEQ "$hex" &&
		! ref verify "$PK" "$GENESIS" $((LOGSEQ - 1)) "$hex" &&
		! ref verify "$PK" "$GENESIS" $((LOGSEQ + 1)) "$hex"; then
		pass "--log: the open round R3 at seq $LOGSEQ"
	else
		fail "--log: the open round R3 at seq $LOGSEQ" "payload $hex"
	fi
}
run "--log -: standard input" 0 sh -c '"$0" player peek --insurance yes \
	--key "$1" --genesis "$2" --log - <"$3"' "$bin" "$V" "$GENESIS" "$tmp/card.log" && {
	hex=$(cat "$tmp/out")
	[ "${hex:8:18}" = "01${R3:0:16}" ] && ref verify "$PK" "$GENESIS" $LOGSEQ "$hex" &&
		pass "--log -: same round and seq" ||
		fail "--log -: same round and seq" "payload $hex"
}
# The other key's rounds: R4 just opened; R2 after a Hit and a timeout.
write_key "$tmp/other.key" "$(printf '%s\n' \
	b7e151628aed2a6abf7158809cf4f3c762e7160f38b4da56a784d9045190cfee)"
OPK=$("$bin" player pubkey --key "$tmp/other.key")
sed "s/$OTHER/$OPK/g" "$tmp/card.log" >"$tmp/other.log"
run "--log: another player's round" 0 "$bin" player hit --key "$tmp/other.key" \
	--genesis "$GENESIS" --log "$tmp/other.log" && {
	hex=$(cat "$tmp/out")
	[ "${hex:8:16}" = "${R4:0:16}" ] && ref verify "$OPK" "$GENESIS" 0 "$hex" &&
		pass "--log: the other key's newest round at seq 0" ||
		fail "--log: the other key's newest round at seq 0" "payload $hex"
}
head -n 13 "$tmp/other.log" >"$tmp/other13.log"
run "--log: another player's round, earlier" 0 "$bin" player hit \
	--key "$tmp/other.key" --genesis "$GENESIS" --log "$tmp/other13.log" && {
	hex=$(cat "$tmp/out")
	[ "${hex:8:16}" = "${R2:0:16}" ] && ref verify "$OPK" "$GENESIS" 2 "$hex" &&
		pass "--log: R2 at seq 2 (a Hit and a timeout)" ||
		fail "--log: R2 at seq 2 (a Hit and a timeout)" "payload $hex"
}

cp "$tmp/card.log" "$tmp/settled.log"
log=$tmp/settled.log
blk "$(settle "$R3" "$PK")"
bad "--log: every round settled" 65 "$tmp/settled.log" "no open round of P $PK" \
	"latest round $R3" "settled at height 840021 (line 22)" -- \
	"$bin" player hit --key "$V" --genesis "$GENESIS" --log "$tmp/settled.log"
head -n 4 "$tmp/card.log" | sed "s/$PK/$OPK/" >"$tmp/nobet.log"
bad "--log: no Bet by the key" 65 "no Bet by P $PK in heights 840000 to 840003" -- \
	"$bin" player hit --key "$V" --genesis "$GENESIS" --log "$tmp/nobet.log"
: >"$tmp/empty.log"
bad "--log: empty log" 65 "$tmp/empty.log: empty" -- \
	"$bin" player hit --key "$V" --genesis "$GENESIS" --log "$tmp/empty.log"
sed 's/"chain":"bitcoin"/"chain":"evm"/' "$tmp/card.log" >"$tmp/evm.log"
bad "--log: an EVM log" 65 "$tmp/evm.log:1:" 'chain "evm"' "not a Bitcoin-family log" -- \
	"$bin" player hit --key "$V" --genesis "$GENESIS" --log "$tmp/evm.log"
sed '3d' "$tmp/card.log" >"$tmp/gap.log"
bad "--log: a missing block" 65 "$tmp/gap.log:3:" "height 840003 does not follow height 840001" -- \
	"$bin" player hit --key "$V" --genesis "$GENESIS" --log "$tmp/gap.log"
# The largest height a line can hold, then any line (issue 11's reproducer):
# the check must not compute that height + 1 (signed overflow, which the
# sanitizer build reports).  Void blocks: no card to write.
Z64=$(printf '%064d' 0)
printf '{"v":1,"chain":"bitcoin","height":%s,"hash":"%s","parent":"%s","void":true,"events":[]}\n' \
	9223372036854775807 "$Z64" "$Z64" 0 "$Z64" "$Z64" >"$tmp/maxheight.log"
bad "--log: a line after the largest height" 65 \
	"$tmp/maxheight.log:2: height 0 does not follow height 9223372036854775807 of line 1" -- \
	"$bin" player hit --key "$V" --genesis "$GENESIS" --log "$tmp/maxheight.log"
head -n 1 "$tmp/maxheight.log" >"$tmp/maxheight1.log"
bad "--log: the largest height alone" 65 \
	"no Bet by P $PK in heights 9223372036854775807 to 9223372036854775807" -- \
	"$bin" player hit --key "$V" --genesis "$GENESIS" --log "$tmp/maxheight1.log"
sed '5s/}]}$/}/' "$tmp/card.log" >"$tmp/json.log"
bad "--log: bad JSON" 65 "$tmp/json.log:5:" -- \
	"$bin" player hit --key "$V" --genesis "$GENESIS" --log "$tmp/json.log"
sed '2s/"v":1/"v":3/' "$tmp/card.log" >"$tmp/v3.log"
bad "--log: format version 3" 65 "$tmp/v3.log:2:" '"v" is not 1 to 2' -- \
	"$bin" player hit --key "$V" --genesis "$GENESIS" --log "$tmp/v3.log"
head -c -1 "$tmp/card.log" >"$tmp/cut.log"
bad "--log: last line cut" 65 "$tmp/cut.log:21:" "no newline" -- \
	"$bin" player hit --key "$V" --genesis "$GENESIS" --log "$tmp/cut.log"
# A second Bet by the key while its round is open cannot be in a real log.
awk -v r="$R3" -v pk="$PK" 'NR == 12 { sub(/"events":\[/, "&{\"type\":\"action\",\"action\":\"Bet\",\"round\":\"" r "\",\"player\":\"" pk "\",\"tx\":\"" r "\",\"txIndex\":0,\"stake\":\"1\"},") } { print }' \
	"$tmp/card.log" >"$tmp/twobets.log"
bad "--log: two open Bets by the key" 65 "$tmp/twobets.log:12:" "a second Bet by P" -- \
	"$bin" player hit --key "$V" --genesis "$GENESIS" --log "$tmp/twobets.log"
sed "s/\"round\":\"$R3\",\"player\":\"$PK\",\"tx\":\"$T\",\"txIndex\":1,\"handIndex\":0/\"round\":\"$R3\",\"player\":\"$OPK\",\"tx\":\"$T\",\"txIndex\":1,\"handIndex\":0/" \
	"$tmp/card.log" >"$tmp/mixed.log"
bad "--log: an action of the round by another key" 65 "$tmp/mixed.log:13:" \
	"not by the round's P" -- \
	"$bin" player hit --key "$V" --genesis "$GENESIS" --log "$tmp/mixed.log"
bad "--log: missing file" 66 "cannot open card log $tmp/none.log" -- \
	"$bin" player hit --key "$V" --genesis "$GENESIS" --log "$tmp/none.log"
bad "--log: a directory" 66 "$tmp/dir.key" "Is a directory" -- \
	"$bin" player hit --key "$V" --genesis "$GENESIS" --log "$tmp/dir.key"

# --- the engine judges: a round played by `hashjack replay` -------------------
# The dealer's own engine ("chain": "bitcoin" replay documents, docs/CLI.md)
# plays a round whose actions this tool signs from the log replay printed so
# far: a Peek applied by timeout counts in seq, a payload signed at a stale
# seq is rejected as bad_signature, and the payloads from --log are accepted.
DEALER_PK=$OTHER
DOC=$tmp/game.json
printf '{"chain":"bitcoin","genesis":"%s","dealer":"%s","rules":{"preset":"bethash","min_bet":"10000","max_bet":"100000000","timeout_blocks":2},"blocks":[]}\n' \
	"$GENESIS" "$(ref address "$DEALER_PK" rltc)" >"$DOC"
block() { ref block "$DOC" "$DEALER_PK" "$@"; }
# line_has NAME FILE N TEXT: line N of FILE contains TEXT.
line_has() {
	if sed -n "$3p" "$2" | grep -qF -- "$4"; then
		pass "$1"
	else
		fail "$1" "line $3 of $(basename "$2") lacks $4: $(sed -n "$3p" "$2" | head -c 600)"
	fi
}
GROUND=$(block 9C "100000:$("$bin" player bet --key "$V")") # 1000: the Bet
block 5H >/dev/null # 1001: the player's first card
block AH >/dev/null # 1002: the dealer's up card, an Ace: Peek is due
block 6C >/dev/null # 1003: the player's second card; window from 1004
block 2D >/dev/null # 1004: no action
block 2D >/dev/null # 1005: no action
block 2D >/dev/null # 1006: timeout, Peek without insurance: seq 1
block 5D >/dev/null # 1007: the peek card, no blackjack: set aside
if "$bin" replay "$DOC" >"$tmp/game1.log" 2>"$tmp/err"; then
	line_has "engine: Bet" "$tmp/game1.log" 1 \
		"{\"type\":\"action\",\"action\":\"Bet\",\"round\":\"$GROUND\",\"player\":\"$PK\""
	line_has "engine: Peek by timeout" "$tmp/game1.log" 7 \
		"{\"type\":\"timeout\",\"round\":\"$GROUND\",\"action\":\"Peek\"}"
else
	fail "engine: replay" "$(cat "$tmp/err")"
fi
HIT=$("$bin" player hit --key "$V" --genesis "$GENESIS" --log "$tmp/game1.log")
STALE=$("$bin" player hit --key "$V" --genesis "$GENESIS" --round "$GROUND" --seq 0)
ref verify "$PK" "$GENESIS" 1 "$HIT" && pass "engine: --log signed the Hit at seq 1" ||
	fail "engine: --log signed the Hit at seq 1" "$HIT"
block 2C "0:$STALE" "0:$HIT" >/dev/null # 1008: stale Hit, then Hit
block 2C >/dev/null                     # 1009: the player's card: 13
if "$bin" replay "$DOC" >"$tmp/game2.log" 2>"$tmp/err"; then
	line_has "engine: a stale seq is bad_signature" "$tmp/game2.log" 9 \
		"\"txIndex\":1,\"action\":\"Hit\",\"round\":\"$GROUND\",\"reason\":\"bad_signature\""
	line_has "engine: the Hit from --log is accepted" "$tmp/game2.log" 9 \
		"{\"type\":\"action\",\"action\":\"Hit\",\"round\":\"$GROUND\",\"player\":\"$PK\""
else
	fail "engine: replay" "$(cat "$tmp/err")"
fi
STAND=$("$bin" player stand --key "$V" --genesis "$GENESIS" --log "$tmp/game2.log")
ref verify "$PK" "$GENESIS" 2 "$STAND" && pass "engine: --log signed the Stand at seq 2" ||
	fail "engine: --log signed the Stand at seq 2" "$STAND"
block 3S "0:$STAND" >/dev/null # 1010: Stand
block KD >/dev/null            # 1011: A K would be a blackjack: skipped
block 5S >/dev/null            # 1012: the dealer: A 5, soft 16
block 5C >/dev/null            # 1013: the dealer: A 5 5, 21
if "$bin" replay "$DOC" >"$tmp/game3.log" 2>"$tmp/err"; then
	line_has "engine: the Stand from --log is accepted" "$tmp/game3.log" 11 \
		"{\"type\":\"action\",\"action\":\"Stand\",\"round\":\"$GROUND\",\"player\":\"$PK\""
	line_has "engine: the round settles" "$tmp/game3.log" 14 \
		"{\"type\":\"settle\",\"round\":\"$GROUND\""
	[ "$(grep -c bad_signature "$tmp/game3.log")" -eq 1 ] &&
		pass "engine: one bad_signature, the stale one" ||
		fail "engine: one bad_signature, the stale one" "$(grep -c bad_signature "$tmp/game3.log")"
else
	fail "engine: replay" "$(cat "$tmp/err")"
fi
bad "engine: no open round after the settle" 65 "no open round of P $PK" \
	"latest round $GROUND (Bet at height 1000, line 1) settled at height 1013 (line 14)" -- \
	"$bin" player hit --key "$V" --genesis "$GENESIS" --log "$tmp/game3.log"

# --- help, dispatch, output errors ----------------------------------------------
for s in keygen pubkey address bet hit stand double split surrender peek; do
	if run "player $s --help" 0 "$bin" player "$s" --help &&
		grep -q "^Usage: hashjack player $s" "$tmp/out" &&
		grep -q "Example" "$tmp/out" && grep -q "Exit status" "$tmp/out" &&
		[ ! -s "$tmp/err" ]; then
		pass "player $s --help"
	else
		fail "player $s --help" "$(head -c 200 "$tmp/out")"
	fi
done
grep -q -- "--insurance yes|no" "$tmp/out" && pass "peek --help names --insurance" ||
	fail "peek --help names --insurance" "missing"
for args in "player --help" "player -h" "player help" "help player" \
	"player help bet" "help player bet" "player bet --key x -h"; do
	# shellcheck disable=SC2086
	if run "$args" 0 "$bin" $args && grep -q "^Usage: hashjack player" "$tmp/out"; then
		pass "$args"
	else
		fail "$args" "no usage on stdout"
	fi
done
run "help player bet is bet's" 0 "$bin" help player bet &&
	grep -q "perfect-pairs" "$tmp/out" && pass "help player bet is bet's" ||
	fail "help player bet is bet's" "not the bet help"
if run "hashjack --help lists player" 0 "$bin" --help &&
	grep -q "player SUBCOMMAND" "$tmp/out" && grep -q "^  77" "$tmp/out"; then
	pass "hashjack --help lists player"
else
	fail "hashjack --help lists player" "missing"
fi
bad "player without subcommand" 64 "no SUBCOMMAND given" "hashjack player --help" -- \
	"$bin" player
bad "player unknown subcommand" 64 'unknown subcommand "deal"' -- "$bin" player deal
bad "player unknown option" 64 'unknown option "--key"' -- "$bin" player --key "$V"
bad "help player unknown" 64 'unknown subcommand "deal"' -- "$bin" help player deal
if [ -w /dev/full ]; then
	"$bin" player pubkey --key "$V" >/dev/full 2>"$tmp/err"
	got=$?
	[ $got -eq 74 ] && grep -q "write error" "$tmp/err" &&
		pass "write error exits 74" || fail "write error exits 74" "exit $got"
fi

echo "player: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
