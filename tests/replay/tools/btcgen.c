/*
 * Writes tests/replay/ok/btc_*.json: Bitcoin-family replay documents with
 * real raw transactions and real BIP-340 signatures, built with the
 * project's own parser, payload codec and signer.
 *
 *   replay_btc_gen DIR          writes DIR/btc_*.json
 *   replay_btc_gen sign SK GENESIS SEQ PAYLOAD
 *                               prints PAYLOAD (hex, a Bitcoin non-Bet
 *                               payload) signed by the secret key SK for
 *                               seq SEQ under GENESIS (both hex as
 *                               displayed), for hand-made sessions
 *
 * Everything is deterministic: block hashes and dummy bytes come from a
 * PRNG seeded with the document's name, and signatures use a fixed
 * auxiliary randomness (BIP-340 allows any), so a rerun writes the same
 * bytes; ctest checks that the committed samples are what this writes.
 *
 * Block hashes are invented (replay does not see headers): random digits
 * ending so that the block deals the wanted card (docs/PROTOCOL.md
 * section 2.1): a color digit c with c mod 4 = suit, the rank digit, then 0 to
 * 3 digits from {0, e, f}.  Each block's transactions start with a segwit
 * coinbase (BIP-34 height, witness commitment) as Bitcoin Core builds it.
 * Player transactions spend a dummy input (a P2PKH-shaped scriptSig, or a
 * P2WPKH witness), which replay never checks: only outputs and ids matter.
 *
 * The comments in each scenario say what the log must show; the .jsonl
 * files were checked against them and docs/PROTOCOL.md by hand.
 */
#include <errno.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bech32.h"
#include "btc.h"
#include "btc_tx.h"
#include "btcsig.h"
#include "hex.h"
#include "payload.h"
#include "say.h"
#include "taproot.h"

#define TX_MAX 1024

static const char *outdir;
static hj_secp *secp;

static void die(const char *what, const char *why)
{
	fprintf(stderr, "replay_btc_gen: %s: %s\n", what, why);
	exit(1);
}

/* splitmix64: small, seedable, good enough for dummy bytes. */
static uint64_t next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15u);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

static void fill(uint64_t *s, uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		b[i] = (uint8_t)next(s);
}

static const uint8_t btc_regtest[32] = {
    0x0f, 0x91, 0x88, 0xf1, 0x3c, 0xb7, 0xb2, 0xc7, 0x1f, 0x2a, 0x33,
    0x5e, 0x3a, 0x4f, 0xc3, 0x28, 0xbf, 0x5b, 0xeb, 0x43, 0x60, 0x12,
    0xaf, 0xca, 0x59, 0x0b, 0x1a, 0x11, 0x46, 0x6e, 0x22, 0x06};
static const uint8_t ltc_regtest[32] = {
    0x53, 0x08, 0x27, 0xf3, 0x8f, 0x93, 0xb4, 0x3e, 0xd1, 0x2a, 0xf0,
    0xb3, 0xad, 0x25, 0xa2, 0x88, 0xdc, 0x02, 0xed, 0x74, 0xd6, 0xd7,
    0x85, 0x78, 0x62, 0xdf, 0x51, 0xfc, 0x56, 0xc4, 0x16, 0xf9};

struct player {
	uint8_t sk[32], pk[32];
	uint8_t change[34]; /* tr(P): OP_1, push 32, Q */
};

static void player_init(struct player *p, uint8_t last)
{
	char err[HJ_ERRLEN];
	uint8_t q[32];

	memset(p->sk, 0, 32);
	p->sk[31] = last; /* secret keys 3, 7...: public test keys */
	if (hj_btc_pubkey(secp, p->sk, p->pk, err, sizeof err) ||
	    hj_taproot_output_key(secp, p->pk, q, err, sizeof err))
		die("key", err);
	p->change[0] = 0x51;
	p->change[1] = 32;
	memcpy(p->change + 2, q, 32);
}

struct out {
	uint64_t value;
	uint8_t script[90];
	size_t len;
};

struct gen {
	const char *name;
	uint64_t rng;
	const uint8_t *genesis;
	char dealer[HJ_BECH32_BUF];
	uint8_t script[HJ_BTC_SCRIPT_MAX];
	size_t script_len;
	uint8_t miner[22]; /* coinbase payee, P2WPKH */
	uint8_t other[22]; /* someone else, P2WPKH */
	int upper;         /* hashes and dealer address in upper case */
	json_t *rules;
	json_t *blocks;
	json_t *txs; /* the block being built, coinbase first */
	uint64_t height;
	char parent[65];
};

static void upcase(char *s)
{
	for (; *s; s++)
		if (*s >= 'a' && *s <= 'z')
			*s = (char)(*s - 'a' + 'A');
}

/* A block hash whose card is code ("10H", "AS"), or "void". */
static void card_hash(struct gen *g, const char *code, char out[65])
{
	static const char hexd[] = "0123456789abcdef", skip[] = "0ef";
	static const char ranks[] = "A23456789TJQK", suits[] = "CDHS";
	size_t n = strlen(code);
	int rank = 0, suit, ntrail, color;
	char head[65];

	if (strcmp(code, "void") == 0) {
		out[0] = hexd[next(&g->rng) % 16];
		for (int i = 1; i < 64; i++)
			out[i] = skip[next(&g->rng) % 3];
		out[64] = '\0';
		return;
	}
	if (n == 3 && code[0] == '1' && code[1] == '0')
		rank = 10;
	else if (n == 2)
		for (int i = 0; ranks[i]; i++)
			if (ranks[i] == code[0])
				rank = i + 1;
	if (rank == 0 || strchr(suits, code[n - 1]) == NULL)
		die("card", code);
	suit = (int)(strchr(suits, code[n - 1]) - suits);
	static const int trails[] = {0, 0, 0, 1, 1, 2, 3};
	ntrail = trails[next(&g->rng) % 7];
	color = (int)(next(&g->rng) % 4) * 4 + suit;
	for (int i = 0; i < 62 - ntrail; i++)
		head[i] = hexd[next(&g->rng) % 16];
	memcpy(out, head, (size_t)(62 - ntrail));
	out[62 - ntrail] = hexd[color];
	out[63 - ntrail] = hexd[rank];
	for (int i = 64 - ntrail; i < 64; i++)
		out[i] = skip[next(&g->rng) % 3];
	out[64] = '\0';
}

static void put32(uint8_t *b, size_t *o, uint32_t v)
{
	for (int k = 0; k < 4; k++)
		b[(*o)++] = (uint8_t)(v >> (8 * k));
}

static void put64(uint8_t *b, size_t *o, uint64_t v)
{
	for (int k = 0; k < 8; k++)
		b[(*o)++] = (uint8_t)(v >> (8 * k));
}

/* Outputs, then the locktime. */
static void put_outputs(uint8_t *b, size_t *o, const struct out *outs, size_t n)
{
	b[(*o)++] = (uint8_t)n;
	for (size_t i = 0; i < n; i++) {
		put64(b, o, outs[i].value);
		b[(*o)++] = (uint8_t)outs[i].len;
		memcpy(b + *o, outs[i].script, outs[i].len);
		*o += outs[i].len;
	}
}

/*
 * A player's transaction: one dummy input, the outputs given.  Segwit
 * spends a P2WPKH-shaped input (empty scriptSig, two witness items);
 * legacy a P2PKH-shaped one (a 71-byte and a 33-byte push).
 */
static size_t build_tx(struct gen *g, int segwit, const struct out *outs,
                       size_t n, uint8_t *b)
{
	size_t o = 0;
	uint8_t sig[71], key[33];

	fill(&g->rng, sig, sizeof sig);
	fill(&g->rng, key, sizeof key);
	sig[0] = 0x30;
	key[0] = 0x02;
	put32(b, &o, 2);
	if (segwit) {
		b[o++] = 0x00;
		b[o++] = 0x01;
	}
	b[o++] = 1;
	fill(&g->rng, b + o, 32); /* previous txid */
	o += 32;
	put32(b, &o, (uint32_t)(next(&g->rng) % 3));
	if (segwit) {
		b[o++] = 0;
	} else {
		b[o++] = 1 + 71 + 1 + 33;
		b[o++] = 71;
		memcpy(b + o, sig, 71);
		o += 71;
		b[o++] = 33;
		memcpy(b + o, key, 33);
		o += 33;
	}
	put32(b, &o, 0xfffffffd);
	put_outputs(b, &o, outs, n);
	if (segwit) {
		b[o++] = 2;
		b[o++] = 71;
		memcpy(b + o, sig, 71);
		o += 71;
		b[o++] = 33;
		memcpy(b + o, key, 33);
		o += 33;
	}
	put32(b, &o, 0);
	return o;
}

/* The coinbase of block height: BIP-34 height push, 50 coins to the miner,
 * the witness commitment, the witness reserved value. */
static size_t build_coinbase(struct gen *g, uint8_t *b)
{
	size_t o = 0, np = 0;
	uint8_t num[9];
	struct out outs[2];

	for (uint64_t h = g->height; h; h >>= 8)
		num[np++] = (uint8_t)h;
	if (np && (num[np - 1] & 0x80))
		num[np++] = 0;
	put32(b, &o, 2);
	b[o++] = 0x00;
	b[o++] = 0x01;
	b[o++] = 1;
	memset(b + o, 0, 32);
	o += 32;
	put32(b, &o, 0xffffffff);
	b[o++] = (uint8_t)(1 + np + 1);
	b[o++] = (uint8_t)np;
	memcpy(b + o, num, np);
	o += np;
	b[o++] = 0x00; /* OP_0: an empty extranonce, as regtest mines */
	put32(b, &o, 0xffffffff);
	outs[0].value = 5000000000u;
	memcpy(outs[0].script, g->miner, 22);
	outs[0].len = 22;
	outs[1].value = 0;
	memcpy(outs[1].script, "\x6a\x24\xaa\x21\xa9\xed", 6);
	fill(&g->rng, outs[1].script + 6, 32);
	outs[1].len = 38;
	put_outputs(b, &o, outs, 2);
	b[o++] = 1;
	b[o++] = 32;
	memset(b + o, 0, 32);
	o += 32;
	put32(b, &o, 0);
	return o;
}

/* Adds raw[0..n) to the block being built; its txid as displayed into
 * txid (may be NULL).  Parsed here too: a sample must be well formed. */
static void add_raw(struct gen *g, const uint8_t *raw, size_t n, uint8_t *txid)
{
	char err[HJ_ERRLEN], *hex = malloc(2 * n + 3);
	hj_btc_tx tx;
	uint8_t id[32];

	if (hex == NULL)
		die(g->name, "out of memory");
	if (hj_btc_tx_parse(raw, n, &tx, err, sizeof err))
		die(g->name, err);
	hj_btc_tx_txid(&tx, id);
	if (txid)
		for (int i = 0; i < 32; i++)
			txid[i] = id[31 - i];
	hj_hex_encode(raw, n, 0, hex);
	json_array_append_new(g->txs, json_string(hex));
	free(hex);
}

static void open_block(struct gen *g)
{
	uint8_t raw[TX_MAX];

	if (g->txs != NULL)
		return;
	g->txs = json_array();
	add_raw(g, raw, build_coinbase(g, raw), NULL);
}

/* Adds a player transaction to the current block; returns its txid. */
static void tx(struct gen *g, int segwit, const struct out *outs, size_t n,
               uint8_t txid[32])
{
	uint8_t raw[TX_MAX];

	open_block(g);
	add_raw(g, raw, build_tx(g, segwit, outs, n, raw), txid);
}

/* Closes the current block (a coinbase alone if nothing was added). */
static void block(struct gen *g, const char *card)
{
	char hash[65], shown[65];
	json_t *b = json_object();

	open_block(g);
	card_hash(g, card, hash);
	json_object_set_new(b, "height", json_integer((json_int_t)g->height));
	memcpy(shown, hash, 65);
	if (g->upper)
		upcase(shown);
	json_object_set_new(b, "hash", json_string(shown));
	json_object_set_new(b, "parent", json_string(g->parent));
	json_object_set_new(b, "txs", g->txs);
	json_array_append_new(g->blocks, b);
	g->txs = NULL;
	memcpy(g->parent, shown, 65);
	g->height++;
}

/* Starts a document.  version 0 dealers get a 20-byte program, 1 a
 * 32-byte one. */
static void begin(struct gen *g, const char *name, const char *hrp,
                  const uint8_t *genesis, int version, uint64_t height)
{
	uint8_t prog[32], first[32];
	const char *h = NULL;
	char err[HJ_ERRLEN];

	memset(g, 0, sizeof *g);
	g->name = name;
	for (const char *c = name; *c; c++)
		g->rng = g->rng * 131 + (uint8_t)*c;
	g->genesis = genesis;
	fill(&g->rng, prog, sizeof prog);
	if (hj_segwit_encode(hrp, version, prog, version ? 32 : 20, g->dealer,
	                     err, sizeof err))
		die(name, err);
	if (hj_btc_address_script(g->dealer, g->script, &g->script_len, &h, err,
	                          sizeof err))
		die(name, err);
	g->miner[0] = 0;
	g->miner[1] = 20;
	fill(&g->rng, g->miner + 2, 20);
	g->other[0] = 0;
	g->other[1] = 20;
	fill(&g->rng, g->other + 2, 20);
	g->rules = json_object();
	json_object_set_new(g->rules, "preset", json_string("bethash"));
	json_object_set_new(g->rules, "min_bet", json_string("10000"));
	json_object_set_new(g->rules, "max_bet", json_string("100000000"));
	g->blocks = json_array();
	g->height = height;
	fill(&g->rng, first, sizeof first);
	hj_hex_encode(first, 32, 0, g->parent);
}

/* Hashes and addresses in upper case from here on. */
static void upper_case(struct gen *g)
{
	g->upper = 1;
	upcase(g->parent);
}

static void write_doc(struct gen *g)
{
	json_t *root = json_object();
	char path[512], genesis[65], dealer[HJ_BECH32_BUF];
	char *text;
	FILE *f;

	if (g->txs != NULL)
		die(g->name, "a block was left open");
	hj_hex_encode(g->genesis, 32, 0, genesis);
	memcpy(dealer, g->dealer, sizeof dealer);
	if (g->upper)
		upcase(dealer);
	json_object_set_new(root, "chain", json_string("bitcoin"));
	json_object_set_new(root, "genesis", json_string(genesis));
	json_object_set_new(root, "dealer", json_string(dealer));
	json_object_set_new(root, "rules", g->rules);
	json_object_set_new(root, "blocks", g->blocks);
	text = json_dumps(root, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
	snprintf(path, sizeof path, "%s/%s.json", outdir, g->name);
	f = fopen(path, "w");
	if (text == NULL || f == NULL || fprintf(f, "%s\n", text) < 0 ||
	    fclose(f) != 0)
		die(path, strerror(errno));
	free(text);
	json_decref(root);
}

/* Outputs. */
static struct out to_dealer(const struct gen *g, uint64_t v)
{
	struct out o = {.value = v, .len = g->script_len};

	memcpy(o.script, g->script, g->script_len);
	return o;
}

static struct out to_other(const struct gen *g, uint64_t v)
{
	struct out o = {.value = v, .len = 22};

	memcpy(o.script, g->other, 22);
	return o;
}

static struct out change(const struct player *p, uint64_t v)
{
	struct out o = {.value = v, .len = 34};

	memcpy(o.script, p->change, 34);
	return o;
}

/* OP_RETURN with one push of p[0..n): direct up to 75 bytes, else
 * OP_PUSHDATA1 (protocol 11.3). */
static struct out data(const uint8_t *p, size_t n)
{
	struct out o = {.value = 0};

	o.script[0] = 0x6a;
	if (n > 75) {
		o.script[1] = 0x4c;
		o.script[2] = (uint8_t)n;
		memcpy(o.script + 3, p, n);
		o.len = n + 3;
	} else {
		o.script[1] = (uint8_t)n;
		memcpy(o.script + 2, p, n);
		o.len = n + 2;
	}
	return o;
}

/* Payloads. */
static size_t bet_payload(const struct player *p, uint64_t side_pp,
                          uint8_t out[HJ_PAYLOAD_MAX])
{
	hj_payload pl;

	memset(&pl, 0, sizeof pl);
	pl.act = HJ_BET;
	pl.side_pp = side_pp;
	memcpy(pl.key, p->pk, 32);
	return hj_payload_encode(HJ_BITCOIN, &pl, out);
}

/* act on the round whose Bet txid is round, signed by signer for seq. */
static size_t signed_payload(const struct gen *g, const struct player *signer,
                             const uint8_t round[32], hj_act act, int ins,
                             uint32_t seq, uint8_t out[HJ_PAYLOAD_MAX])
{
	static const uint8_t aux[32]; /* fixed: reproducible signatures */
	hj_payload pl;
	uint8_t h[32];
	char err[HJ_ERRLEN];
	size_t n;

	memset(&pl, 0, sizeof pl);
	pl.act = act;
	pl.insurance = (uint8_t)ins;
	memcpy(pl.round, round, 8);
	n = hj_payload_encode(HJ_BITCOIN, &pl, out);
	hj_btc_msg m = {.genesis = g->genesis,
	                .short_id = round,
	                .seq = seq,
	                .body = out,
	                .body_len = n - HJ_BTC_TAIL_LEN};
	if (hj_btc_action_hash(&m, h) ||
	    hj_bip340_sign(secp, signer->sk, h, aux, out + n - HJ_BTC_SIG_LEN,
	                   err, sizeof err))
		die(g->name, "signing failed");
	return n;
}

/* A Bet of v by p: stake to the dealer, the payload, change. */
static void bet(struct gen *g, const struct player *p, uint64_t v,
                uint8_t round[32])
{
	uint8_t pl[HJ_PAYLOAD_MAX];
	size_t n = bet_payload(p, 0, pl);
	struct out outs[3] = {to_dealer(g, v), data(pl, n),
	                      change(p, 734000 - v)};

	tx(g, 1, outs, 3, round);
}

/* A signed action paying v to the dealer (nothing when v is 0). */
static void act(struct gen *g, int segwit, const struct player *p,
                const struct player *signer, const uint8_t round[32], hj_act a,
                int ins, uint32_t seq, uint64_t v, uint8_t *txid)
{
	uint8_t pl[HJ_PAYLOAD_MAX];
	size_t n = signed_payload(g, signer, round, a, ins, seq, pl);
	struct out outs[3] = {data(pl, n), change(p, 91000), to_dealer(g, v)};

	tx(g, segwit, outs, v ? 3 : 2, txid);
}

/* Someone paying someone else: not the dealer's. */
static void unrelated(struct gen *g)
{
	struct out outs[2] = {to_other(g, 120000), to_other(g, 3300)};

	tx(g, 1, outs, 2, NULL);
}

/*
 * A full round, player A (secret key 3): Bet, signed Hit at seq 0, signed
 * Stand at seq 1, the dealer busts.  The Bet sits behind an unrelated
 * transaction (txIndex 2); the Hit is a legacy transaction.
 */
static void btc_round(void)
{
	struct gen g;
	struct player a;
	uint8_t r[32];

	begin(&g, "btc_round", "bcrt", btc_regtest, 1, 401);
	player_init(&a, 3);
	unrelated(&g);
	bet(&g, &a, 50000, r);
	block(&g, "4C");                              /* 401 Bet */
	block(&g, "10S");                             /* 402 player */
	block(&g, "6H");                              /* 403 up 6 */
	block(&g, "5D");                              /* 404 15 */
	act(&g, 0, &a, &a, r, HJ_HIT, 0, 0, 0, NULL); /* seq 0 */
	block(&g, "QC");                              /* 405 Hit */
	block(&g, "4S");                              /* 406 19 */
	unrelated(&g);
	act(&g, 1, &a, &a, r, HJ_STAND, 0, 1, 0, NULL); /* seq 1 */
	block(&g, "JD");                                /* 407 Stand */
	block(&g, "9C");                                /* 408 15 */
	block(&g, "7H");                                /* 409 22: Win */
	block(&g, "2C");                                /* 410 */
	write_doc(&g);
}

/*
 * Litecoin regtest, a P2WPKH dealer: a Double whose stake is paid in two
 * outputs to the dealer (summed), after one paying a litoshi short
 * (wrong_value, refunded; the rejection does not advance seq, so the
 * good Double is signed for seq 0 too).
 */
static void btc_double(void)
{
	struct gen g;
	struct player a;
	uint8_t r[32], pl[HJ_PAYLOAD_MAX];
	size_t n;

	begin(&g, "btc_double", "rltc", ltc_regtest, 0, 301);
	player_init(&a, 3);
	bet(&g, &a, 20000, r);
	block(&g, "8D"); /* 301 Bet */
	block(&g, "6C"); /* 302 */
	block(&g, "9H"); /* 303 up 9 */
	block(&g, "5S"); /* 304 hard 11 */
	act(&g, 1, &a, &a, r, HJ_DOUBLE, 0, 0, 19999, NULL);
	n = signed_payload(&g, &a, r, HJ_DOUBLE, 0, 0, pl);
	{
		struct out outs[4] = {to_dealer(&g, 12000), data(pl, n),
		                      change(&a, 50000), to_dealer(&g, 8000)};
		tx(&g, 1, outs, 4, NULL);
	}
	block(&g, "2D"); /* 305 Double */
	block(&g, "KS"); /* 306 21 */
	block(&g, "7C"); /* 307 16 */
	block(&g, "3H"); /* 308 19: Win */
	write_doc(&g);
}

/*
 * Signatures.  Players A (key 3) and B (key 7) each open a round.  At
 * 505: A's Hit with one signature byte flipped (bad_signature, refund 0),
 * a Double on A's round signed by B paying the stake (bad_signature,
 * refund 30000), B's Stand, A's good Hit.  At 506 a copy of A's Hit
 * payload in a new transaction: its seq 0 is stale (bad_signature, before
 * not_allowed: A's hand is on 21 and finished).
 */
static void btc_signatures(void)
{
	struct gen g;
	struct player a, b;
	uint8_t ra[32], rb[32], pl[HJ_PAYLOAD_MAX];
	size_t n;

	begin(&g, "btc_signatures", "bcrt", btc_regtest, 1, 501);
	player_init(&a, 3);
	player_init(&b, 7);
	bet(&g, &a, 30000, ra);
	bet(&g, &b, 40000, rb);
	block(&g, "3C"); /* 501 Bets */
	block(&g, "9S"); /* 502 both 9S */
	block(&g, "7D"); /* 503 up 7 */
	block(&g, "2H"); /* 504 both 11 */
	n = signed_payload(&g, &a, ra, HJ_HIT, 0, 0, pl);
	pl[n - 1] ^= 0x01;
	{
		struct out outs[2] = {data(pl, n), change(&a, 91000)};
		tx(&g, 1, outs, 2, NULL);
	}
	act(&g, 1, &a, &b, ra, HJ_DOUBLE, 0, 0, 30000, NULL);
	act(&g, 1, &b, &b, rb, HJ_STAND, 0, 0, 0, NULL);
	act(&g, 0, &a, &a, ra, HJ_HIT, 0, 0, 0, NULL);
	block(&g, "8C"); /* 505 */
	n = signed_payload(&g, &a, ra, HJ_HIT, 0, 0, pl);
	{
		struct out outs[2] = {to_other(&g, 5000), data(pl, n)};
		tx(&g, 1, outs, 2, NULL);
	}
	block(&g, "10H"); /* 506 */
	block(&g, "5C");  /* 507 12 */
	block(&g, "6S");  /* 508 18 */
	write_doc(&g);
}

/*
 * What concerns the dealer and what does not.  Block 601: a plain payment
 * (deposit), a payment with a non-magic OP_RETURN (deposit), a malformed
 * payload paying the dealer (reject bad_length, refunded), the same not
 * paying the dealer (not ours: no event), a Bet paying another dealer
 * (no event), a zero-value Stand naming that Bet's round (not ours: no
 * event), a bad version paying the dealer (reject, no action), a Bet with
 * a side stake (reject, "from" is its key).  Block 602: A's Bet, A's
 * second Bet (second_round), B's Bet below min_bet, a signed Stand naming
 * the other dealer's round but paying this dealer (no_round, refunded).
 * Then A's round times out at the Bitcoin default, 12 blocks.
 */
static void btc_deposits(void)
{
	struct gen g;
	struct player a, b;
	uint8_t foreign[32], ra[32], pl[HJ_PAYLOAD_MAX];
	static const uint8_t hit_short[] = {0x48, 0x4a, 0x01, 0x02};
	static const uint8_t bad_version[] = {0x48, 0x4a, 0x02, 0x01};
	static const uint8_t not_magic[] = {0x6f, 0x6d, 0x6e, 0x69};
	size_t n;

	begin(&g, "btc_deposits", "bcrt", btc_regtest, 0, 601);
	player_init(&a, 3);
	player_init(&b, 7);
	{
		struct out o1[2] = {to_other(&g, 400000), to_dealer(&g, 25000)};
		struct out o2[3] = {data(not_magic, 4), to_dealer(&g, 1500),
		                    to_other(&g, 9000)};
		struct out o3[2] = {data(hit_short, 4), to_dealer(&g, 5000)};
		struct out o4[2] = {data(hit_short, 4), to_other(&g, 5000)};
		struct out o6[2] = {data(bad_version, 4), to_dealer(&g, 1000)};
		tx(&g, 0, o1, 2, NULL);
		tx(&g, 1, o2, 3, NULL);
		tx(&g, 1, o3, 2, NULL);
		tx(&g, 1, o4, 2, NULL);
		n = bet_payload(&a, 0, pl);
		struct out o5[3] = {to_other(&g, 70000), data(pl, n),
		                    change(&a, 100000)};
		tx(&g, 1, o5, 3, foreign);
		act(&g, 1, &a, &a, foreign, HJ_STAND, 0, 0, 0, NULL);
		tx(&g, 1, o6, 2, NULL);
		n = bet_payload(&b, 2000, pl);
		struct out o7[2] = {data(pl, n), to_dealer(&g, 52000)};
		tx(&g, 1, o7, 2, NULL);
	}
	block(&g, "KH"); /* 601 */
	bet(&g, &a, 10000, ra);
	bet(&g, &a, 20000, NULL);
	bet(&g, &b, 9999, NULL);
	act(&g, 1, &b, &b, foreign, HJ_STAND, 0, 0, 700, NULL);
	block(&g, "2S");             /* 602 Bet */
	block(&g, "8C");             /* 603 */
	block(&g, "7S");             /* 604 up 7 */
	block(&g, "7H");             /* 605 15 */
	for (int i = 0; i < 11; i++) /* 606..616 */
		block(&g, i == 4 ? "void" : "3D");
	block(&g, "4D"); /* 617 = 606 + 11: A may still act; no timeout */
	block(&g, "AC"); /* 618 = 606 + 12: Stand by timeout */
	block(&g, "QD"); /* 619 dealer 7 Q = 17: A's 15 loses */
	write_doc(&g);
}

/*
 * A Peek (77-byte payload, OP_PUSHDATA1 with 4d) with insurance against
 * an Ace, after a Stand refused because the Peek is due (not_allowed; a
 * refusal does not advance seq).  Hashes and the dealer address in upper
 * case (either case is accepted; the log writes lower case).
 */
static void btc_peek(void)
{
	struct gen g;
	struct player a;
	uint8_t r[32];

	begin(&g, "btc_peek", "bcrt", btc_regtest, 1, 801);
	upper_case(&g);
	player_init(&a, 3);
	json_object_set_new(g.rules, "timeout_blocks", json_integer(5));
	bet(&g, &a, 30001, r);
	block(&g, "6D");                                /* 801 Bet */
	block(&g, "KC");                                /* 802 */
	block(&g, "AH");                                /* 803 up Ace */
	block(&g, "8D");                                /* 804 18 */
	act(&g, 1, &a, &a, r, HJ_STAND, 0, 0, 0, NULL); /* not_allowed */
	act(&g, 1, &a, &a, r, HJ_PEEK, 1, 0, 15000, NULL);
	block(&g, "9S"); /* 805 Peek */
	block(&g, "5S"); /* 806 peek card 5: no blackjack, set aside */
	act(&g, 0, &a, &a, r, HJ_STAND, 0, 1, 0, NULL);
	block(&g, "JH"); /* 807 Stand */
	block(&g, "KS"); /* 808 A K would be a blackjack: skipped */
	block(&g, "2C"); /* 809 A 2, soft 13 */
	block(&g, "5D"); /* 810 soft 18: Push with 18 */
	write_doc(&g);
}

/*
 * The bankroll limit: max_bet 100000, max_exposure 600000, so a Bet of b
 * exposes 4b (bethash).  A's 100000 (901) and B's 50000 (902) fill the
 * table exactly; C's 10000 at 902 is refused over_exposure and refunded to
 * tr(C).  A's natural against a 9 settles in block 904's draw step, which
 * frees 400000 for C's Bet in the same block.  B then surrenders against a
 * King (the dealer's second card, 10, is no blackjack) and C loses 17 to 19.
 */
static void btc_exposure(void)
{
	struct gen g;
	struct player a, b, c;
	uint8_t ra[32], rb[32], rc[32];

	begin(&g, "btc_exposure", "bcrt", btc_regtest, 1, 901);
	player_init(&a, 3);
	player_init(&b, 7);
	player_init(&c, 5);
	json_object_set_new(g.rules, "max_bet", json_string("100000"));
	json_object_set_new(g.rules, "max_exposure", json_string("600000"));
	bet(&g, &a, 100000, ra);
	block(&g, "3C"); /* 901 A's Bet: 400000 */
	bet(&g, &b, 50000, rb);
	bet(&g, &c, 10000, NULL);
	block(&g, "AS"); /* 902 B's Bet: 600000; C's refused */
	block(&g, "9D"); /* 903 A's up 9 */
	bet(&g, &c, 10000, rc);
	block(&g, "KH"); /* 904 A's natural settles; C's Bet fits */
	block(&g, "7S"); /* 905 B 9 7 = 16 against K */
	act(&g, 1, &b, &b, rb, HJ_SURRENDER, 0, 0, 0, NULL);
	block(&g, "2C");  /* 906 Surrender; C's up 2 */
	block(&g, "10H"); /* 907 B's dealer K 10: Surrender; C 17 */
	act(&g, 1, &c, &c, rc, HJ_STAND, 0, 0, 0, NULL);
	block(&g, "5D"); /* 908 Stand */
	block(&g, "8C"); /* 909 dealer 10 */
	block(&g, "9H"); /* 910 dealer 19: C loses */
	write_doc(&g);
}

/* `sign SK GENESIS SEQ PAYLOAD`: see the top of the file. */
static int sign_cmd(char **argv)
{
	uint8_t sk[32], genesis[32], p[HJ_PAYLOAD_MAX];
	char err[HJ_ERRLEN], *end, out[2 * HJ_PAYLOAD_MAX + 3];
	size_t n = 0;
	unsigned long seq = strtoul(argv[2], &end, 10);

	if (hj_hex_decode_exact(argv[0], strlen(argv[0]), HJ_HEX_BARE, sk, 32,
	                        err, sizeof err) ||
	    hj_hex_decode_exact(argv[1], strlen(argv[1]), HJ_HEX_BARE, genesis,
	                        32, err, sizeof err) ||
	    hj_hex_decode(argv[3], strlen(argv[3]), HJ_HEX_BARE, p, sizeof p,
	                  &n, err, sizeof err))
		die("sign", err);
	if (*end || seq > UINT32_MAX)
		die("sign", "bad seq");
	if (hj_btc_payload_sign(secp, sk, genesis, (uint32_t)seq, p, n, err,
	                        sizeof err))
		die("sign", err);
	hj_hex_encode(p, n, 0, out);
	puts(out);
	return 0;
}

int main(int argc, char **argv)
{
	char err[HJ_ERRLEN];

	if (hj_secp_new(&secp, err, sizeof err) != 0)
		die("secp256k1", err);
	if (argc == 6 && strcmp(argv[1], "sign") == 0)
		return sign_cmd(argv + 2);
	if (argc != 2) {
		fprintf(stderr, "usage: replay_btc_gen DIR\n"
		                "       replay_btc_gen sign SK GENESIS SEQ "
		                "PAYLOAD\n");
		return 64;
	}
	outdir = argv[1];
	btc_round();
	btc_double();
	btc_signatures();
	btc_deposits();
	btc_peek();
	btc_exposure();
	hj_secp_free(secp);
	return 0;
}
