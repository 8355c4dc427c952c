/*
 * `hashjack replay` (see replay.h; input format in docs/CLI.md).
 *
 * The document is checked whole and turned into plain C (block headers and
 * the normalised actions to the dealer) before the engine sees anything, so
 * that bad input is reported without a single output line and the engine
 * loop below is the same one the daemon runs.  Checking is strict: unknown
 * keys, wrong types, non-canonical amounts and hex of the wrong length are
 * all errors that name the field's path and quote the bad value.  The one
 * check that needs the engine is that of committed cards' seeds (which
 * chain is in force depends on the Commits the table accepted): such a
 * document is played once printing nothing first (run).
 *
 * The two families differ only in what a block's transactions look like:
 * EVM gives each as JSON fields (hj_evm_action normalises them), the
 * Bitcoin family as the raw serialisation the node returns, parsed with
 * hj_btc_tx_parse and normalised by hj_btc_action, the very call the
 * daemon's backend makes on each transaction of a raw block.  A Bitcoin
 * table verifies signed actions with hj_btc_verify, as the daemon's does.
 */
#include "replay.h"
#include "quote.h"
#include "roundstate.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "btc.h"
#include "btcsig.h"
#include "deal.h"
#include "dealer.h"
#include "evm.h"
#include "hex.h"
#include "rules.h"
#include "say.h"
#include "taproot.h"

/* Characters of a bad value quoted in a message. */
#define SHOW_MAX 80
/* Room for "blocks[N].txs[M].status" and the like. */
#define PATH_MAX_ 96

/* Where each transaction hash (Bitcoin: txid, as displayed) was seen, to
 * refuse repeats. */
struct txref {
	uint8_t hash[32];
	size_t blk, tx;
};

/* A block's "seed" (cards = committed): s_i as the log reveals it. */
struct blockseed {
	int given;
	uint8_t s[HJ_SEED_LEN];
};

struct doc {
	const char *chain;
	hj_family fam;
	hj_dealer dealer;
	uint8_t genesis[HJ_BTC_GENESIS_LEN]; /* Bitcoin, as displayed */
	hj_rules rules;
	hj_chain_block *blocks;
	struct blockseed *seeds; /* one per block */
	size_t nblocks;
	struct txref *refs; /* every transaction, dealer's or not */
	size_t nrefs, caprefs;
	uint8_t *input; /* scratch for one tx's input (Bitcoin: the tx) */
	size_t capinput;
};

struct ctx {
	const char *name;
	char *err;
	size_t errlen;
	size_t open;   /* --state: the rounds open after the last block */
	uint64_t last; /* and its height */
};

static void doc_free(struct doc *d)
{
	for (size_t i = 0; i < d->nblocks; i++)
		free(d->blocks[i].txs);
	free(d->blocks);
	free(d->seeds);
	free(d->refs);
	free(d->input);
}

/* The value as compact JSON, cut to SHOW_MAX characters. */
static void show(const json_t *v, char *buf, size_t n)
{
	char *s =
	    json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT | JSON_ENSURE_ASCII);

	if (s == NULL) {
		snprintf(buf, n, "(value)");
		return;
	}
	if (strlen(s) > SHOW_MAX)
		snprintf(buf, n, "%.*s...", SHOW_MAX - 3, s);
	else
		snprintf(buf, n, "%s", s);
	free(s);
}

/* "path: <value> <message>", or "path: <message>" without a value. */
__attribute__((format(printf, 4, 5))) static int
fail(struct ctx *c, const char *path, const json_t *v, const char *fmt, ...)
{
	char msg[HJ_ERRLEN], shown[SHOW_MAX + 8];
	const char *where = *path ? path : "top level";
	va_list ap;

	va_start(ap, fmt);
	hj_vsay(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (v != NULL) {
		show(v, shown, sizeof shown);
		hj_say(c->err, c->errlen, "%s: %s: %s %s", c->name, where,
		       shown, msg);
	} else {
		hj_say(c->err, c->errlen, "%s: %s: %s", c->name, where, msg);
	}
	return -EINVAL;
}

static int oom(struct ctx *c)
{
	hj_say(c->err, c->errlen, "%s: out of memory", c->name);
	return -ENOMEM;
}

/*
 * Paths are short ("blocks[N].txs[M].status" is at most 61 characters), so
 * PATH_MAX_ never truncates; vsnprintf keeps the compiler from guessing.
 */
__attribute__((format(printf, 2, 3))) static void pathf(char *buf,
                                                        const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, PATH_MAX_, fmt, ap);
	va_end(ap);
}

static void subpath(char *buf, const char *base, const char *key)
{
	if (*base)
		pathf(buf, "%s.%s", base, key);
	else
		pathf(buf, "%s", key);
}

static int need_object(struct ctx *c, const json_t *v, const char *path)
{
	if (!json_is_object(v))
		return fail(c, path, v, "is not an object");
	return 0;
}

/* Every key of obj must be one of allowed[] (NULL-terminated). */
static int check_keys(struct ctx *c, json_t *obj, const char *path,
                      const char *const *allowed)
{
	for (void *it = json_object_iter(obj); it != NULL;
	     it = json_object_iter_next(obj, it)) {
		const char *key = json_object_iter_key(it);
		size_t i;
		char k[SHOW_MAX + 8];

		for (i = 0; allowed[i] != NULL; i++)
			if (strcmp(key, allowed[i]) == 0)
				break;
		if (allowed[i] == NULL) {
			hj_quote(key, k, sizeof k);
			return fail(c, path, NULL, "unknown key %s", k);
		}
	}
	return 0;
}

/* *out is the member, or NULL when it is absent and optional. */
static int member(struct ctx *c, const json_t *obj, const char *path,
                  const char *key, int required, const json_t **out)
{
	*out = json_object_get(obj, key);
	if (*out == NULL && required)
		return fail(c, path, NULL, "missing key \"%s\"", key);
	return 0;
}

static int get_string(struct ctx *c, const json_t *v, const char *path,
                      const char **s, size_t *n)
{
	if (!json_is_string(v))
		return fail(c, path, v, "is not a string");
	*s = json_string_value(v);
	*n = json_string_length(v);
	return 0;
}

/*
 * Bitcoin-family hex never carries "0x": nodes print none and the log
 * writes none.  Said outright, since "'x' at offset 1" would puzzle.
 */
static int refuse_0x(struct ctx *c, const json_t *v, const char *path,
                     const char *what, const char *s, size_t len)
{
	if (len >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		return fail(c, path, v,
		            "is not %s: Bitcoin-family hex is written "
		            "without \"0x\"",
		            what);
	return 0;
}

/* Exactly n bytes of hex: a hash (32) or an address (20); EVM behind
 * "0x" (HJ_HEX_REQUIRED), Bitcoin bare (HJ_HEX_BARE). */
static int get_hex(struct ctx *c, const json_t *v, const char *path,
                   const char *what, hj_hex_prefix prefix, uint8_t *out,
                   size_t n)
{
	char why[HJ_ERRLEN];
	const char *s = NULL;
	size_t len = 0;
	int rc;

	rc = get_string(c, v, path, &s, &len);
	if (rc)
		return rc;
	if (prefix == HJ_HEX_BARE && (rc = refuse_0x(c, v, path, what, s, len)))
		return rc;
	if (hj_hex_decode_exact(s, len, prefix, out, n, why, sizeof why))
		return fail(c, path, v, "is not %s: %s", what, why);
	return 0;
}

/* A block or transaction hash in the family's form. */
static int get_hash(struct ctx *c, const json_t *v, const char *path,
                    const struct doc *d, uint8_t out[32])
{
	return get_hex(c, v, path, "a 32-byte hash",
	               d->fam == HJ_EVM ? HJ_HEX_REQUIRED : HJ_HEX_BARE, out,
	               32);
}

static int get_amount(struct ctx *c, const json_t *v, const char *path,
                      hj_amount *out)
{
	const char *s = NULL;
	size_t len = 0;
	int rc;

	if (!json_is_string(v))
		return fail(c, path, v,
		            "is not a string (amounts are decimal strings)");
	s = json_string_value(v);
	len = json_string_length(v);
	rc = hj_amount_parse(s, len, out);
	if (rc == -ERANGE)
		return fail(c, path, v, "is above 2^128 - 1");
	if (rc)
		return fail(c, path, v,
		            "is not a decimal amount (digits only, no sign, "
		            "no leading zero)");
	return 0;
}

static int get_uint(struct ctx *c, const json_t *v, const char *path,
                    uint64_t max, uint64_t *out)
{
	json_int_t i;

	if (!json_is_integer(v))
		return fail(c, path, v, "is not an integer");
	i = json_integer_value(v);
	if (i < 0 || (uint64_t)i > max)
		return fail(c, path, v, "is out of range (0 to %" PRIu64 ")",
		            max);
	*out = (uint64_t)i;
	return 0;
}

static int parse_chain(struct ctx *c, json_t *root, struct doc *d)
{
	const json_t *v;
	const char *s = NULL;
	size_t n = 0;
	int rc;

	if ((rc = member(c, root, "", "chain", 1, &v)) ||
	    (rc = get_string(c, v, "chain", &s, &n)))
		return rc;
	if (strcmp(s, "evm") == 0 && n == 3) {
		d->chain = "evm";
		d->fam = HJ_EVM;
		return 0;
	}
	if (strcmp(s, "bitcoin") == 0 && n == 7) {
		d->chain = "bitcoin";
		d->fam = HJ_BITCOIN;
		return 0;
	}
	return fail(c, "chain", v,
	            "is not a known chain (known: \"evm\", \"bitcoin\")");
}

/*
 * EVM: a 20-byte address.  Bitcoin family: a segwit address of a known
 * prefix, kept as the scriptPubKey that outputs to the dealer carry.
 * Parsed as the daemon's configuration parses it (hj_dealer_parse).
 */
static int parse_dealer(struct ctx *c, json_t *root, struct doc *d)
{
	const json_t *v;
	const char *s = NULL;
	size_t n = 0;
	char why[HJ_ERRLEN];
	int rc;

	if ((rc = member(c, root, "", "dealer", 1, &v)) ||
	    (rc = get_string(c, v, "dealer", &s, &n)))
		return rc;
	if (d->fam == HJ_BITCOIN && strlen(s) != n)
		return fail(c, "dealer", v,
		            "is not an address: it holds a NUL");
	if (hj_dealer_parse(d->fam, s, n, &d->dealer, why, sizeof why))
		return fail(c, "dealer", v, "is not %s: %s",
		            d->fam == HJ_EVM ? "a 20-byte address"
		                             : "a dealer address",
		            why);
	return 0;
}

/* The genesis hash every Bitcoin action signature covers; EVM has none. */
static int parse_genesis(struct ctx *c, json_t *root, struct doc *d)
{
	const json_t *v;
	int rc;

	if (d->fam == HJ_EVM) {
		v = json_object_get(root, "genesis");
		if (v != NULL)
			return fail(c, "genesis", v,
			            "is only for \"chain\": \"bitcoin\" (EVM "
			            "actions are not signed)");
		return 0;
	}
	if ((rc = member(c, root, "", "genesis", 1, &v)))
		return rc;
	return get_hex(c, v, "genesis", "a 32-byte hash", HJ_HEX_BARE,
	               d->genesis, 32);
}

static int parse_rules(struct ctx *c, json_t *root, struct doc *d)
{
	static const char *const limits[] = {
	    "preset", "min_bet", "max_bet", "timeout_blocks", "max_exposure",
	};
	const char *keys[sizeof limits / sizeof limits[0] + 16];
	size_t nk = 0;
	const json_t *v;
	json_t *rules;
	const char *name = "bethash";
	size_t n = 0;
	uint64_t timeout =
	    d->fam == HJ_EVM ? HJ_TIMEOUT_EVM : HJ_TIMEOUT_BITCOIN;
	hj_amount min_bet, max_bet, max_exposure = 0, worst;
	char why[HJ_ERRLEN], a[HJ_AMOUNT_STRLEN], b[HJ_AMOUNT_STRLEN];
	int rc;

	if ((rc = member(c, root, "", "rules", 1, &v)) ||
	    (rc = need_object(c, v, "rules")))
		return rc;
	rules = (json_t *)v;
	for (size_t i = 0; i < sizeof limits / sizeof limits[0]; i++)
		keys[nk++] = limits[i];
	for (size_t i = 0; hj_rule_keys[i] != NULL; i++)
		keys[nk++] = hj_rule_keys[i];
	keys[nk] = NULL;
	if ((rc = check_keys(c, rules, "rules", keys)))
		return rc;

	if ((rc = member(c, rules, "rules", "preset", 0, &v)))
		return rc;
	if (v != NULL && (rc = get_string(c, v, "rules.preset", &name, &n)))
		return rc;
	if (hj_rules_preset(name, &d->rules)) {
		char known[128];
		size_t o = 0;

		known[0] = '\0';
		for (size_t i = 0; hj_preset_names[i] != NULL; i++)
			o += (size_t)snprintf(known + o, sizeof known - o,
			                      "%s%s", i ? ", " : "",
			                      hj_preset_names[i]);
		return fail(c, "rules.preset", v,
		            "is not a known preset (known: %s)", known);
	}
	/* Every rule key the document gives overrides the preset's. */
	for (size_t i = 0; hj_rule_keys[i] != NULL; i++) {
		char path[64];
		const char *val = NULL;

		snprintf(path, sizeof path, "rules.%s", hj_rule_keys[i]);
		if ((rc = member(c, rules, "rules", hj_rule_keys[i], 0, &v)))
			return rc;
		if (v == NULL)
			continue;
		if ((rc = get_string(c, v, path, &val, &n)))
			return rc;
		if (strlen(val) != n)
			return fail(c, path, v, "holds a NUL character");
		if (hj_rules_set_key(&d->rules, hj_rule_keys[i], val, why,
		                     sizeof why))
			return fail(c, path, v, "is not a value it allows: %s",
			            why);
	}

	if ((rc = member(c, rules, "rules", "min_bet", 1, &v)) ||
	    (rc = get_amount(c, v, "rules.min_bet", &min_bet)) ||
	    (rc = member(c, rules, "rules", "max_bet", 1, &v)) ||
	    (rc = get_amount(c, v, "rules.max_bet", &max_bet)))
		return rc;
	/* A Bitcoin-family value is a sum of u64 outputs that hj_btc_action
	 * refuses to let overflow, so a higher limit could never be reached:
	 * it is a unit mistake (wei-sized numbers), not a table. */
	if (d->fam == HJ_BITCOIN && max_bet > UINT64_MAX)
		return fail(c, "rules.max_bet", v,
		            "is above 2^64 - 1, more than a Bitcoin-family "
		            "transaction can carry (amounts are satoshis or "
		            "litoshis)");
	if ((rc = member(c, rules, "rules", "timeout_blocks", 0, &v)))
		return rc;
	if (v != NULL &&
	    (rc = get_uint(c, v, "rules.timeout_blocks", UINT32_MAX, &timeout)))
		return rc;
	if ((rc = member(c, rules, "rules", "max_exposure", 0, &v)))
		return rc;
	if (v != NULL &&
	    (rc = get_amount(c, v, "rules.max_exposure", &max_exposure)))
		return rc;
	d->rules.min_bet = min_bet;
	d->rules.max_bet = max_bet;
	d->rules.timeout_blocks = (uint32_t)timeout;
	d->rules.max_exposure = max_exposure;
	if (max_exposure && min_bet <= max_bet && max_bet <= HJ_MAX_BET &&
	    max_exposure < (worst = hj_rules_worst_max_bet(&d->rules)))
		return fail(
		    c, "rules.max_exposure", v,
		    "is below %s, the worst-case return of one max_bet "
		    "Bet (max_bet \"%s\"%s), so no such Bet could ever be "
		    "accepted",
		    hj_amount_format(worst, a), hj_amount_format(max_bet, b),
		    d->rules.pp_on || d->rules.t3_on
		        ? ", side stakes of max_bet"
		        : "");
	if (hj_rules_check(&d->rules, why, sizeof why))
		return fail(c, "rules", NULL,
		            "%s (min_bet \"%s\", max_bet \"%s\", "
		            "timeout_blocks %" PRIu64 ")",
		            why, hj_amount_format(min_bet, a),
		            hj_amount_format(max_bet, b), timeout);
	return 0;
}

static int add_ref(struct ctx *c, struct doc *d, const uint8_t hash[32],
                   size_t blk, size_t tx)
{
	if (d->nrefs == d->caprefs) {
		size_t ncap = d->caprefs ? 2 * d->caprefs : 64;
		struct txref *p = realloc(d->refs, ncap * sizeof *p);

		if (p == NULL)
			return oom(c);
		d->refs = p;
		d->caprefs = ncap;
	}
	memcpy(d->refs[d->nrefs].hash, hash, 32);
	d->refs[d->nrefs].blk = blk;
	d->refs[d->nrefs].tx = tx;
	d->nrefs++;
	return 0;
}

/* Room in d->input for the bytes of len hex digits.  The document is in
 * memory already, so this is bounded by its size. */
static int grow_input(struct ctx *c, struct doc *d, size_t len)
{
	size_t want = len / 2 + 1;

	if (want > d->capinput) {
		uint8_t *p = realloc(d->input, want);

		if (p == NULL)
			return oom(c);
		d->input = p;
		d->capinput = want;
	}
	return 0;
}

/* The tx's input, decoded into d->input; *n its length. */
static int get_input(struct ctx *c, const json_t *v, const char *path,
                     struct doc *d, size_t *n)
{
	const char *s = NULL;
	size_t len = 0;
	char why[HJ_ERRLEN];
	int rc;

	if ((rc = get_string(c, v, path, &s, &len)) ||
	    (rc = grow_input(c, d, len)))
		return rc;
	if (hj_hex_decode(s, len, HJ_HEX_REQUIRED, d->input, d->capinput, n,
	                  why, sizeof why))
		return fail(c, path, v, "is not hex data: %s", why);
	return 0;
}

static int parse_tx(struct ctx *c, json_t *tx, const char *path, struct doc *d,
                    hj_chain_block *rb, size_t blk, size_t j)
{
	static const char *const keys[] = {
	    "hash", "from", "to", "value", "input", "status", NULL,
	};
	char p[PATH_MAX_];
	const json_t *v;
	uint8_t hash[32], from[20], to[20];
	int to_dealer = 0, success = 1;
	hj_amount value;
	size_t ninput = 0;
	int rc;

	if ((rc = need_object(c, tx, path)) ||
	    (rc = check_keys(c, tx, path, keys)))
		return rc;

	subpath(p, path, "hash");
	if ((rc = member(c, tx, path, "hash", 1, &v)) ||
	    (rc = get_hash(c, v, p, d, hash)))
		return rc;
	subpath(p, path, "from");
	if ((rc = member(c, tx, path, "from", 1, &v)) ||
	    (rc = get_hex(c, v, p, "a 20-byte address", HJ_HEX_REQUIRED, from,
	                  20)))
		return rc;
	subpath(p, path, "to");
	if ((rc = member(c, tx, path, "to", 1, &v)))
		return rc;
	if (!json_is_null(v) && !json_is_string(v))
		return fail(c, p, v, "is not an address or null");
	if (!json_is_null(v)) {
		if ((rc = get_hex(c, v, p, "a 20-byte address or null",
		                  HJ_HEX_REQUIRED, to, 20)))
			return rc;
		to_dealer = memcmp(to, d->dealer.addr, 20) == 0;
	}
	subpath(p, path, "value");
	if ((rc = member(c, tx, path, "value", 1, &v)) ||
	    (rc = get_amount(c, v, p, &value)))
		return rc;
	subpath(p, path, "input");
	if ((rc = member(c, tx, path, "input", 1, &v)) ||
	    (rc = get_input(c, v, p, d, &ninput)))
		return rc;
	subpath(p, path, "status");
	if ((rc = member(c, tx, path, "status", 0, &v)))
		return rc;
	if (v != NULL) {
		const char *s = NULL;
		size_t n = 0;

		if ((rc = get_string(c, v, p, &s, &n)))
			return rc;
		if (n == 3 && strcmp(s, "0x1") == 0)
			success = 1;
		else if (n == 3 && strcmp(s, "0x0") == 0)
			success = 0;
		else
			return fail(c, p, v,
			            "is not a receipt status (\"0x1\" or "
			            "\"0x0\")");
	}
	if ((rc = add_ref(c, d, hash, blk, j)))
		return rc;

	if (to_dealer) {
		hj_evm_tx etx = {
		    .hash = hash,
		    .from = from,
		    .dealer = d->dealer.addr,
		    .value = value,
		    .input = d->input,
		    .input_len = ninput,
		    .success = success,
		    .tx_index = (uint32_t)j,
		};

		hj_evm_action(&etx, &rb->txs[rb->ntx++]);
	}
	return 0;
}

/*
 * Whether tx is a coinbase: a single input spending no output (previous
 * txid all zero, index ffffffff).  Read from the serialisation, whose
 * layout is fixed: version, the marker 00 and a flag byte when present
 * (a legacy transaction cannot start its inputs with 00: the parser
 * refuses one without inputs), the input count (one byte when it is 1:
 * the parser refuses longer forms), then the first input's previous txid
 * and index.
 */
static int is_coinbase(const hj_btc_tx *tx)
{
	static const uint8_t none[36] = {
	    [32] = 0xff, [33] = 0xff, [34] = 0xff, [35] = 0xff};
	size_t o = 4 + (tx->raw_len > 4 && tx->raw[4] == 0 ? 2 : 0) + 1;

	return tx->n_inputs == 1 && tx->raw_len >= o + sizeof none &&
	       memcmp(tx->raw + o, none, sizeof none) == 0;
}

/*
 * blocks[blk].txs[j] on the Bitcoin family: the raw transaction in hex,
 * parsed strictly.  txs[0] must be the coinbase and no other transaction
 * may be one, so that a list that left the coinbase out (and so shifted
 * every txIndex) is refused rather than replayed wrong.  What concerns the
 * dealer is decided by hj_btc_action, the daemon's own per-transaction
 * step, and appended to rb.
 */
static int parse_btc_tx(struct ctx *c, const json_t *v, const char *path,
                        struct doc *d, hj_chain_block *rb, size_t blk, size_t j)
{
	const char *s = NULL;
	size_t len = 0, n = 0;
	char why[HJ_ERRLEN];
	uint8_t txid[HJ_BTC_HASH_LEN], shown[HJ_BTC_HASH_LEN];
	hj_btc_tx tx;
	hj_action a;
	int rc;

	if ((rc = get_string(c, v, path, &s, &len)) ||
	    (rc = refuse_0x(c, v, path, "a raw transaction", s, len)) ||
	    (rc = grow_input(c, d, len)))
		return rc;
	if (hj_hex_decode(s, len, HJ_HEX_BARE, d->input, d->capinput, &n, why,
	                  sizeof why))
		return fail(c, path, v, "is not a raw transaction: %s", why);
	if (hj_btc_tx_parse(d->input, n, &tx, why, sizeof why))
		return fail(c, path, v, "is not a raw transaction: %s", why);
	if (j == 0 && !is_coinbase(&tx))
		return fail(c, path, v,
		            "is not a coinbase transaction (txs lists every "
		            "transaction of the block, the coinbase first)");
	if (j > 0 && is_coinbase(&tx))
		return fail(c, path, v,
		            "is a coinbase transaction, which only txs[0] may "
		            "be");
	hj_btc_tx_txid(&tx, txid);
	for (size_t k = 0; k < HJ_BTC_HASH_LEN; k++)
		shown[k] = txid[HJ_BTC_HASH_LEN - 1 - k];
	if ((rc = add_ref(c, d, shown, blk, j)))
		return rc;
	rc = hj_btc_action(&tx, d->dealer.script, d->dealer.script_len,
	                   (uint32_t)j, &a, why, sizeof why);
	if (rc < 0)
		return fail(c, path, v, "cannot be played: %s", why);
	if (rc == 1)
		rb->txs[rb->ntx++] = a;
	return 0;
}

/*
 * A block's "seed": 64 lower-case hex digits without "0x", on either
 * family, exactly as the log writes it (docs/LOG.md), and only under
 * cards = committed: a seed where none can apply is invented data.
 */
static int get_seed(struct ctx *c, const json_t *v, const char *path,
                    const struct doc *d, struct blockseed *out)
{
	char why[HJ_ERRLEN];
	const char *s = NULL;
	size_t len = 0;
	int rc;

	if (d->rules.cards != HJ_CARDS_COMMITTED)
		return fail(c, path, v,
		            "is given, but rules.cards is \"hash\": a seed is "
		            "only for cards = \"committed\"");
	if ((rc = get_string(c, v, path, &s, &len)))
		return rc;
	if (len >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		return fail(c, path, v,
		            "is not a seed: a seed is written without \"0x\", "
		            "as the log writes it");
	if (hj_hex_decode_exact(s, len, HJ_HEX_BARE, out->s, HJ_SEED_LEN, why,
	                        sizeof why))
		return fail(c, path, v, "is not a seed: %s", why);
	for (size_t k = 0; k < len; k++)
		if (s[k] >= 'A' && s[k] <= 'F')
			return fail(
			    c, path, v,
			    "is not a seed: '%c' at offset %zu is upper "
			    "case (the log writes seeds in lower case)",
			    s[k], k);
	out->given = 1;
	return 0;
}

static int parse_block(struct ctx *c, json_t *blk, size_t i, struct doc *d)
{
	static const char *const keys[] = {
	    "height", "hash", "parent", "seed", "txs", NULL,
	};
	hj_chain_block *rb = &d->blocks[i];
	char path[PATH_MAX_], p[PATH_MAX_];
	const json_t *v, *hv, *pv;
	json_t *txs;
	size_t ntx;
	int rc;

	pathf(path, "blocks[%zu]", i);
	if ((rc = need_object(c, blk, path)) ||
	    (rc = check_keys(c, blk, path, keys)))
		return rc;

	subpath(p, path, "height");
	if ((rc = member(c, blk, path, "height", 1, &v)) ||
	    (rc = get_uint(c, v, p, INT64_MAX, &rb->height)))
		return rc;
	if (i > 0 && rb->height != d->blocks[i - 1].height + 1)
		return fail(c, p, v,
		            "does not follow blocks[%zu].height %" PRIu64
		            " (expected %" PRIu64 ")",
		            i - 1, d->blocks[i - 1].height,
		            d->blocks[i - 1].height + 1);
	subpath(p, path, "hash");
	if ((rc = member(c, blk, path, "hash", 1, &hv)) ||
	    (rc = get_hash(c, hv, p, d, rb->hash)))
		return rc;
	subpath(p, path, "parent");
	if ((rc = member(c, blk, path, "parent", 1, &pv)) ||
	    (rc = get_hash(c, pv, p, d, rb->parent)))
		return rc;
	if (i > 0 && memcmp(rb->parent, d->blocks[i - 1].hash, 32)) {
		char prev[67];

		hj_hex_encode(d->blocks[i - 1].hash, 32, d->fam == HJ_EVM,
		              prev);
		return fail(c, p, pv, "is not blocks[%zu].hash \"%s\"", i - 1,
		            prev);
	}

	subpath(p, path, "seed");
	if ((rc = member(c, blk, path, "seed", 0, &v)))
		return rc;
	if (v != NULL && (rc = get_seed(c, v, p, d, &d->seeds[i])))
		return rc;

	subpath(p, path, "txs");
	if ((rc = member(c, blk, path, "txs", 1, &v)))
		return rc;
	if (!json_is_array(v))
		return fail(c, p, v, "is not an array");
	txs = (json_t *)v;
	ntx = json_array_size(txs);
	if (ntx > UINT32_MAX)
		return fail(c, p, NULL, "has more than 2^32 - 1 transactions");
	if (ntx == 0 && d->fam == HJ_BITCOIN)
		return fail(c, p, v,
		            "is empty: a Bitcoin-family block holds at least "
		            "its coinbase transaction");
	if (ntx > 0) {
		rb->txs = calloc(ntx, sizeof *rb->txs);
		if (rb->txs == NULL)
			return oom(c);
	}
	for (size_t j = 0; j < ntx; j++) {
		char tp[PATH_MAX_];

		pathf(tp, "%s[%zu]", p, j);
		if (d->fam == HJ_EVM)
			rc = parse_tx(c, json_array_get(txs, j), tp, d, rb, i,
			              j);
		else
			rc = parse_btc_tx(c, json_array_get(txs, j), tp, d, rb,
			                  i, j);
		if (rc)
			return rc;
	}
	return 0;
}

static int cmp_ref(const void *a, const void *b)
{
	const struct txref *x = a, *y = b;
	int r = memcmp(x->hash, y->hash, 32);

	if (r)
		return r;
	if (x->blk != y->blk)
		return x->blk < y->blk ? -1 : 1;
	return x->tx < y->tx ? -1 : x->tx > y->tx;
}

/* A transaction hash names one transaction: a repeat is invented data. */
static int check_repeats(struct ctx *c, struct doc *d)
{
	const struct txref *first = NULL, *again = NULL;

	if (d->nrefs < 2)
		return 0; /* and qsort may not see the NULL of no refs */
	qsort(d->refs, d->nrefs, sizeof *d->refs, cmp_ref);
	/* Report the repeat that comes first in the document. */
	for (size_t i = 1; i < d->nrefs; i++) {
		const struct txref *a = &d->refs[i - 1], *b = &d->refs[i];

		if (memcmp(a->hash, b->hash, 32))
			continue;
		if (again == NULL || b->blk < again->blk ||
		    (b->blk == again->blk && b->tx < again->tx)) {
			/* The earliest occurrence of this hash. */
			size_t k = i - 1;

			while (k > 0 &&
			       !memcmp(d->refs[k - 1].hash, b->hash, 32))
				k--;
			first = &d->refs[k];
			again = b;
		}
	}
	if (again != NULL && d->fam == HJ_EVM) {
		char path[PATH_MAX_], h[67];

		pathf(path, "blocks[%zu].txs[%zu].hash", again->blk, again->tx);
		hj_hex_encode(again->hash, 32, 1, h);
		return fail(c, path, NULL,
		            "\"%s\" repeats blocks[%zu].txs[%zu].hash", h,
		            first->blk, first->tx);
	}
	if (again != NULL) {
		char path[PATH_MAX_], h[67];

		pathf(path, "blocks[%zu].txs[%zu]", again->blk, again->tx);
		hj_hex_encode(again->hash, 32, 0, h);
		return fail(c, path, NULL,
		            "has txid \"%s\", as blocks[%zu].txs[%zu] has", h,
		            first->blk, first->tx);
	}
	return 0;
}

static int parse_doc(struct ctx *c, json_t *root, struct doc *d)
{
	static const char *const keys[] = {
	    "chain", "genesis", "dealer", "rules", "blocks", NULL,
	};
	const json_t *v;
	json_t *blocks;
	int rc;

	if ((rc = need_object(c, root, "")) ||
	    (rc = check_keys(c, root, "", keys)) ||
	    (rc = parse_chain(c, root, d)) ||
	    (rc = parse_genesis(c, root, d)) ||
	    (rc = parse_dealer(c, root, d)) || (rc = parse_rules(c, root, d)) ||
	    (rc = member(c, root, "", "blocks", 1, &v)))
		return rc;
	if (!json_is_array(v))
		return fail(c, "blocks", v, "is not an array");
	blocks = (json_t *)v;
	if (json_array_size(blocks) > 0) {
		d->blocks = calloc(json_array_size(blocks), sizeof *d->blocks);
		d->seeds = calloc(json_array_size(blocks), sizeof *d->seeds);
		if (d->blocks == NULL || d->seeds == NULL)
			return oom(c);
	}
	for (size_t i = 0; i < json_array_size(blocks); i++) {
		/* Counted before parsing so that doc_free sees its txs. */
		d->nblocks = i + 1;
		rc = parse_block(c, json_array_get(blocks, i), i, d);
		if (rc)
			return rc;
	}
	return check_repeats(c, d);
}

/* Each open round's state after the last block, one line each. */
static int write_state(struct ctx *c, const struct doc *d, const hj_table *t,
                       FILE *out)
{
	uint64_t height = 0;

	(void)hj_table_last_height(t, &height);
	c->open = hj_table_count(t);
	c->last = height;
	for (size_t i = 0; i < hj_table_count(t); i++) {
		json_t *j = hj_roundstate(&d->rules, hj_table_round(t, i),
		                          d->fam, height);
		char *s;

		if (j == NULL)
			return oom(c);
		s = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER);
		json_decref(j);
		if (s == NULL)
			return oom(c);
		if (fprintf(out, "%s\n", s) < 0) {
			free(s);
			hj_say(c->err, c->errlen, "write error: %s",
			       strerror(errno));
			return -EIO;
		}
		free(s);
	}
	return 0;
}

/*
 * The seed source of a replay (seed.h): the document's seed of the block
 * being dealt, checked against the chain in force with one hash per block
 * (hj_reveal_check), as a watcher checks a dealer's log.  A failure is
 * reported in the document's words into the replay's error (failed set);
 * the dealing step only learns that the block cannot be dealt.
 */
struct seeds {
	struct ctx *c;
	const struct doc *d;
	size_t blk; /* the block being dealt */
	int asked;  /* its seed was asked for */
	int failed; /* and refused: the message is in c->err */
	hj_reveal reveal;
};

static int seed_of(void *ctx, const hj_commit *cm, uint32_t i, uint64_t height,
                   uint8_t out[HJ_SEED_LEN], char *err, size_t errlen)
{
	struct seeds *sr = ctx;
	const struct blockseed *bs = &sr->d->seeds[sr->blk];
	char path[PATH_MAX_], why[HJ_ERRLEN], hex[2 * HJ_SEED_LEN + 3];

	sr->asked = 1;
	pathf(path, "blocks[%zu]", sr->blk);
	if (!bs->given) {
		sr->failed = 1;
		hj_say(err, errlen, "no seed");
		return fail(sr->c, path, NULL,
		            "missing key \"seed\": block %" PRIu64
		            " is dealt with seed %" PRIu32 " of the chain "
		            "committed in block %" PRIu64 " (start %" PRIu64
		            ", length %" PRIu32 ")",
		            height, i, cm->height, cm->start, cm->length);
	}
	if (hj_reveal_check(&sr->reveal, cm, i, bs->s, why, sizeof why)) {
		sr->failed = 1;
		hj_say(err, errlen, "bad seed");
		hj_hex_encode(bs->s, HJ_SEED_LEN, 0, hex);
		pathf(path, "blocks[%zu].seed", sr->blk);
		return fail(sr->c, path, NULL,
		            "\"%s\" does not chain at block %" PRIu64
		            " (seed %" PRIu32 " of the chain committed in "
		            "block %" PRIu64 "): %s",
		            hex, height, i, cm->height, why);
	}
	memcpy(out, bs->s, HJ_SEED_LEN);
	return 0;
}

/* A seed given for block i, which none was asked for: the block is void
 * under committed cards, with no chain in force (in force: pre). */
static int seed_unused(struct ctx *c, const struct doc *d, size_t i,
                       const hj_commit *pre)
{
	char path[PATH_MAX_], hex[2 * HJ_SEED_LEN + 3];
	uint64_t h = d->blocks[i].height;

	pathf(path, "blocks[%zu].seed", i);
	hj_hex_encode(d->seeds[i].s, HJ_SEED_LEN, 0, hex);
	if (pre != NULL)
		return fail(c, path, NULL,
		            "\"%s\" is given, but block %" PRIu64
		            " takes no seed: it is past the last seed of the "
		            "chain committed in block %" PRIu64
		            " (start %" PRIu64 ", length %" PRIu32
		            "), a void block",
		            hex, h, pre->height, pre->start, pre->length);
	return fail(c, path, NULL,
	            "\"%s\" is given, but block %" PRIu64 " takes no seed: "
	            "no committed chain is in force at it, a void block",
	            hex, h);
}

/* Plays the document: with out NULL only to check it (its seeds), else
 * writing each block's line to out, or with state the open rounds after
 * the last block. */
static int play(struct ctx *c, const struct doc *d, FILE *out, int state)
{
	hj_table *t = NULL;
	hj_secp *secp = NULL;
	struct hj_btc_verifier ver;
	struct seeds sr = {.c = c, .d = d};
	hj_seed_source src = {seed_of, &sr};
	int committed = d->rules.cards == HJ_CARDS_COMMITTED;
	hj_cardlog cl;
	char why[HJ_ERRLEN];
	int rc = 0;

	hj_cardlog_init(&cl);
	if (hj_table_new(&d->rules, &t) != 0) {
		rc = oom(c);
		goto out;
	}
	/* The daemon's verifier: signed actions checked at the round's seq
	 * against the document's genesis. */
	if (d->fam == HJ_BITCOIN) {
		if (hj_secp_new(&secp, why, sizeof why) != 0) {
			hj_say(c->err, c->errlen, "%s: %s", c->name, why);
			rc = -ENOMEM;
			goto out;
		}
		ver.secp = secp;
		memcpy(ver.genesis, d->genesis, sizeof ver.genesis);
		hj_table_set_verifier(t, hj_btc_verify, &ver);
	}
	for (size_t i = 0; i < d->nblocks; i++) {
		const hj_chain_block *rb = &d->blocks[i];
		/* Only for the message of a seed that no chain takes. */
		const hj_commit *pre = hj_table_commit_at(t, rb->height);
		hj_commit in_force;
		const char *line;
		size_t len;

		if (pre != NULL)
			in_force = *pre; /* borrowed until the next block */
		sr.blk = i;
		sr.asked = 0;
		rc = hj_deal_block(t, &cl, d->chain, d->fam,
		                   committed ? &src : NULL, rb, NULL, NULL,
		                   &line, &len, why, sizeof why);
		if (rc && sr.failed)
			goto out; /* the seed's message is in c->err */
		if (rc) {
			hj_say(c->err, c->errlen, "%s: blocks[%zu]: %s",
			       c->name, i, why);
			goto out;
		}
		if (d->seeds[i].given && !sr.asked) {
			rc = seed_unused(c, d, i, pre ? &in_force : NULL);
			goto out;
		}
		if (out != NULL && !state && fwrite(line, 1, len, out) != len) {
			hj_say(c->err, c->errlen, "write error: %s",
			       strerror(errno));
			rc = -EIO;
			goto out;
		}
	}
	if (out != NULL && state)
		rc = write_state(c, d, t, out);
out:
	hj_cardlog_release(&cl);
	hj_table_free(t);
	hj_secp_free(secp);
	return rc;
}

/*
 * Under committed cards the seeds can only be checked by playing, since
 * which chain is in force depends on the Commits the table accepted: the
 * log is then played twice, first printing nothing, so that a bad seed
 * still leaves no line printed (--state prints only at the end anyway).
 */
static int run(struct ctx *c, const struct doc *d, FILE *out, int state)
{
	int rc;

	if (d->rules.cards == HJ_CARDS_COMMITTED && !state &&
	    (rc = play(c, d, NULL, 0)))
		return rc;
	return play(c, d, out, state);
}

/* With open (--state): the open rounds' state, their count in *open and
 * the last block's height in *last; else the log lines. */
static int replay(FILE *in, const char *name, FILE *out, size_t *open,
                  uint64_t *last, char *err, size_t errlen)
{
	struct ctx c = {.name = name, .err = err, .errlen = errlen};
	int state = open != NULL;
	struct doc d = {0};
	json_error_t je;
	json_t *root;
	int rc;

	root = json_loadf(in, JSON_REJECT_DUPLICATES, &je);
	if (root == NULL) {
		if (ferror(in)) {
			hj_say(err, errlen, "%s: read error", name);
			return -EIO;
		}
		if (json_error_code(&je) == json_error_out_of_memory)
			return oom(&c);
		hj_say(err, errlen, "%s:%d:%d: %s", name, je.line, je.column,
		       je.text);
		return -EINVAL;
	}
	rc = parse_doc(&c, root, &d);
	json_decref(root);
	if (rc == 0)
		rc = run(&c, &d, out, state);
	if (rc == 0 && state) {
		*open = c.open;
		*last = c.last;
	}
	doc_free(&d);
	return rc;
}

int hjc_replay_run(FILE *in, const char *name, FILE *out, char *err,
                   size_t errlen)
{
	return replay(in, name, out, NULL, NULL, err, errlen);
}

int hjc_replay_state(FILE *in, const char *name, FILE *out, size_t *open,
                     uint64_t *last, char *err, size_t errlen)
{
	return replay(in, name, out, open, last, err, errlen);
}
