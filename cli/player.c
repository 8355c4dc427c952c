/*
 * `hashjack player`: its commands (see player.h; the formats are in
 * docs/CLI.md and docs/BITCOIN-KEYS.md).  Their help is player_help.c's,
 * the card log scan of --log player_log.c's, the key file
 * chain/keyfile.c's.
 *
 * Every command checks its command line first (usage errors, exit 64), then
 * reads the key file, then the card log, so that a typo costs no file read
 * and a bad file is named with its line.  Payloads come from the engine's
 * own codec and signer (game/payload.c, chain/btcsig.c) and, before a byte
 * is printed, are parsed back and verified as the dealer will: what this
 * tool prints is a payload the dealer's parser accepts and, for the genesis
 * hash, round and seq given, one whose signature its verifier accepts.
 *
 * Secret keys live in hj_keyfile_btc and in the key file's read buffer;
 * both are wiped before the functions that hold them return.
 */
#include "player.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sysexits.h>

#include "btcsig.h"
#include "hex.h"
#include "keyfile.h"
#include "payload.h"
#include "player_impl.h"
#include "quote.h"
#include "say.h"
#include "taproot.h"

#define PROG "hashjack"

/* Bitcoin Core and Litecoin Core relay an OP_RETURN output carrying at
 * most 80 bytes of data (-datacarriersize 83 counts the script's 3 bytes). */
#define OP_RETURN_MAX 80
_Static_assert(HJ_PAYLOAD_MAX <= OP_RETURN_MAX,
               "a payload must fit one OP_RETURN output");

/* Room for a quoted value in a message (hj_quote cuts longer ones). */
#define SHOWLEN 100

/* ---- messages --------------------------------------------------------- */

/* "hashjack: player SUB: " then the message; returns code. */
static int fail(const char *sub, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(const char *sub, int code, const char *fmt, ...)
{
	va_list ap;

	/* Keep stdout and stderr in order when both go to one place. */
	fflush(stdout);
	fprintf(stderr, PROG ": player%s%s: ", sub ? " " : "", sub ? sub : "");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return code;
}

static int usage(const char *sub, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static int usage(const char *sub, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, PROG ": player%s%s: ", sub ? " " : "", sub ? sub : "");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'hashjack player %s%s--help'.\n", sub ? sub : "",
	        sub ? " " : "");
	return EX_USAGE;
}

/* ---- command line ----------------------------------------------------- */

enum opt {
	O_KEY,
	O_COIN,
	O_CHAIN,
	O_PP,
	O_T3,
	O_GENESIS,
	O_ROUND,
	O_SEQ,
	O_LOG,
	O_INSURANCE,
	O_COUNT
};

static const char *const opt_name[O_COUNT] = {
    "--key",     "--coin",  "--chain", "--perfect-pairs", "--21plus3",
    "--genesis", "--round", "--seq",   "--log",           "--insurance",
};

#define BIT(o) (1u << (o))
#define ACTION_OPTS                                                            \
	(BIT(O_KEY) | BIT(O_GENESIS) | BIT(O_ROUND) | BIT(O_SEQ) | BIT(O_LOG))

struct args {
	const char *v[O_COUNT]; /* borrowed from argv; NULL when absent */
	const char *file;       /* keygen's FILE */
};

struct sub;
typedef int (*run_fn)(const struct sub *s, const struct args *a);

struct sub {
	const char *name;
	hj_act act;    /* the action it signs; HJ_ACT_NONE for key commands */
	unsigned opts; /* BIT(opt) of the options it takes */
	int takes_file;
	run_fn run;
};

static int is_help(const char *a)
{
	return strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0;
}

/* Options as "--opt VALUE" or "--opt=VALUE"; "--" ends them. */
static int parse_args(const struct sub *s, int argc, char **argv,
                      struct args *a)
{
	char shown[SHOWLEN];
	int opts = 1;

	memset(a, 0, sizeof *a);
	for (int i = 0; i < argc; i++) {
		const char *arg = argv[i], *eq;
		size_t len;
		int o;

		if (opts && strcmp(arg, "--") == 0) {
			opts = 0;
			continue;
		}
		if (!opts || arg[0] != '-' || arg[1] == '\0') {
			hj_quote(arg, shown, sizeof shown);
			if (!s->takes_file)
				return usage(s->name, "unexpected argument %s",
				             shown);
			if (a->file != NULL)
				return usage(s->name, "more than one FILE: %s",
				             shown);
			a->file = arg;
			continue;
		}
		eq = strchr(arg, '=');
		len = eq ? (size_t)(eq - arg) : strlen(arg);
		for (o = 0; o < O_COUNT; o++)
			if (strlen(opt_name[o]) == len &&
			    strncmp(arg, opt_name[o], len) == 0)
				break;
		if (o == O_COUNT || !(s->opts & BIT(o))) {
			hj_quote(arg, shown, sizeof shown);
			return usage(s->name, "unknown option %s", shown);
		}
		if (a->v[o] != NULL)
			return usage(s->name, "%s given twice", opt_name[o]);
		if (eq != NULL)
			a->v[o] = eq + 1;
		else if (i + 1 < argc)
			a->v[o] = argv[++i];
		else
			return usage(s->name, "%s needs a value", opt_name[o]);
	}
	return 0;
}

/* Decimal digits only, no sign, no leading zero, at most max. */
static int parse_uint(const char *s, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;

	if (s[0] == '\0' || (s[0] == '0' && s[1] != '\0'))
		return -EINVAL;
	for (const char *c = s; *c; c++) {
		if (*c < '0' || *c > '9')
			return -EINVAL;
		if (v > (max - (uint64_t)(*c - '0')) / 10)
			return -ERANGE;
		v = v * 10 + (uint64_t)(*c - '0');
	}
	*out = v;
	return 0;
}

static int opt_uint(const struct sub *s, enum opt o, const char *v,
                    uint64_t max, const char *what, uint64_t *out)
{
	char shown[SHOWLEN];

	if (parse_uint(v, max, out) == 0)
		return 0;
	hj_quote(v, shown, sizeof shown);
	return usage(s->name,
	             "%s %s: not %s (decimal digits, 0 .. %llu, no sign or "
	             "leading zero)",
	             opt_name[o], shown, what, (unsigned long long)max);
}

/* ---- the key file (chain/keyfile.h) -------------------------------- */

/* Reads and checks the key file at path.  Returns 0 or an exit code with
 * err.  k is wiped on failure. */
static int key_read(const hj_secp *ctx, const char *path, hj_keyfile_btc *k,
                    char *err, size_t errlen)
{
	char buf[HJ_KEYFILE_BTC_MAX + 1], name[4200];
	hj_keyfile_fault f;
	size_t n = 0;
	int rc;

	snprintf(name, sizeof name, "key file %s", path);
	rc = hj_keyfile_read(path, name, 0, buf, sizeof buf, &n, &f, err,
	                     errlen);
	switch (f.step) {
	case HJ_KEYFILE_OK:
		break;
	case HJ_KEYFILE_OPEN:
		return EX_NOINPUT;
	case HJ_KEYFILE_TYPE:
		hj_say(err, errlen, "cannot open key file %s: %s", path,
		       S_ISDIR(f.mode) ? strerror(EISDIR)
		                       : "not a regular file");
		return EX_NOINPUT;
	case HJ_KEYFILE_MODE:
		return EX_NOPERM;
	default:
		return EX_IOERR;
	}
	if (n > HJ_KEYFILE_BTC_MAX) {
		hj_say(err, errlen, "%s: longer than %d bytes: not a key file",
		       path, HJ_KEYFILE_BTC_MAX);
		rc = EX_DATAERR;
	} else {
		rc = hj_keyfile_btc_parse(ctx, path, buf, n, k, err, errlen)
		         ? EX_DATAERR
		         : 0;
	}
	explicit_bzero(buf, sizeof buf);
	if (rc)
		explicit_bzero(k, sizeof *k);
	return rc;
}

/* Writes a new key file (never over an existing one).  Returns 0 or an
 * exit code with err; a partly written file is removed. */
static int key_write(const char *path, const hj_keyfile_btc *k, char *err,
                     size_t errlen)
{
	char text[HJ_KEYFILE_BTC_TEXT];
	hj_keyfile_fault f;
	size_t n;
	int rc = 0;

	n = hj_keyfile_btc_format(k, text, sizeof text);
	if (n == 0) {
		hj_say(err, errlen, "internal error: key file text too long");
		rc = EX_SOFTWARE;
	} else if ((rc = hj_keyfile_write(path, text, n, &f, err, errlen))) {
		if (rc == -EEXIST)
			hj_say(err, errlen,
			       "%s already exists: keygen never overwrites "
			       "a file (a key in it may hold funds); choose "
			       "another FILE",
			       path);
		rc = f.step == HJ_KEYFILE_CREATE ? EX_CANTCREAT : EX_IOERR;
	}
	explicit_bzero(text, sizeof text);
	return rc;
}

/* A secp256k1 context, or NULL after saying why. */
static hj_secp *secp(const char *sub)
{
	char why[HJ_ERRLEN];
	hj_secp *ctx;

	if (hj_secp_new(&ctx, why, sizeof why) != 0)
		fail(sub, EX_SOFTWARE, "%s", why);
	return ctx;
}

static void print_hex(const uint8_t *b, size_t n)
{
	char hex[2 * HJ_PAYLOAD_MAX + 3];

	hj_hex_encode(b, n, 0, hex);
	printf("%s\n", hex);
}

/* ---- keygen, pubkey, address ------------------------------------------ */

static int run_keygen(const struct sub *s, const struct args *a)
{
	char err[HJ_ERRLEN], why[HJ_ERRLEN];
	hj_keyfile_btc k, again;
	hj_secp *ctx;
	int rc;

	if (a->file == NULL)
		return usage(s->name, "no FILE given");
	ctx = secp(s->name);
	if (ctx == NULL)
		return EX_SOFTWARE;
	if (hj_btc_keygen(ctx, k.sk, k.pk, why, sizeof why)) {
		rc = fail(s->name, EX_SOFTWARE, "%s", why);
		goto out;
	}
	rc = key_write(a->file, &k, err, sizeof err);
	if (rc) {
		fail(s->name, rc, "%s", err);
		goto out;
	}
	/* What was written must read back as the same key. */
	rc = key_read(ctx, a->file, &again, err, sizeof err);
	if (rc || memcmp(&again, &k, sizeof k) != 0) {
		rc = fail(s->name, EX_SOFTWARE,
		          "internal error: %s does not read back as the key "
		          "written: %s",
		          a->file, rc ? err : "a different key");
		goto out;
	}
	fprintf(stderr,
	        PROG ": player keygen: wrote %s (mode 0600); keep it private "
	             "and back it up\n",
	        a->file);
	print_hex(k.pk, sizeof k.pk);
out:
	explicit_bzero(&k, sizeof k);
	explicit_bzero(&again, sizeof again);
	hj_secp_free(ctx);
	return rc;
}

/* Reads --key into *k; reports and returns an exit code on failure. */
static int load_key(const struct sub *s, const hj_secp *ctx,
                    const struct args *a, hj_keyfile_btc *k)
{
	char err[HJ_ERRLEN];
	int rc = key_read(ctx, a->v[O_KEY], k, err, sizeof err);

	if (rc)
		fail(s->name, rc, "%s", err);
	return rc;
}

static int need(const struct sub *s, const struct args *a, enum opt o)
{
	if (a->v[o] == NULL)
		return usage(s->name, "%s is required", opt_name[o]);
	return 0;
}

static int run_pubkey(const struct sub *s, const struct args *a)
{
	hj_keyfile_btc k;
	hj_secp *ctx;
	int rc;

	if ((rc = need(s, a, O_KEY)))
		return rc;
	if ((ctx = secp(s->name)) == NULL)
		return EX_SOFTWARE;
	rc = load_key(s, ctx, a, &k);
	if (rc == 0)
		print_hex(k.pk, sizeof k.pk);
	explicit_bzero(&k, sizeof k);
	hj_secp_free(ctx);
	return rc;
}

static int run_address(const struct sub *s, const struct args *a)
{
	char why[HJ_ERRLEN], addr[HJ_BECH32_BUF], coin[SHOWLEN], chain[SHOWLEN];
	const char *hrp;
	hj_keyfile_btc k;
	hj_secp *ctx;
	int rc;

	if ((rc = need(s, a, O_KEY)) || (rc = need(s, a, O_COIN)) ||
	    (rc = need(s, a, O_CHAIN)))
		return rc;
	/* Both coins have a "main": that tells a bad coin from a bad chain. */
	hj_quote(a->v[O_COIN], coin, sizeof coin);
	hj_quote(a->v[O_CHAIN], chain, sizeof chain);
	if (hj_taproot_hrp(a->v[O_COIN], "main", &hrp, why, sizeof why))
		return usage(
		    s->name,
		    "--coin %s: not a coin this tool knows (bitcoin or "
		    "litecoin)",
		    coin);
	if (hj_taproot_hrp(a->v[O_COIN], a->v[O_CHAIN], &hrp, why, sizeof why))
		return usage(s->name, "--chain %s: not a %s chain (%s has %s)",
		             chain, a->v[O_COIN], a->v[O_COIN],
		             strcmp(a->v[O_COIN], "bitcoin") == 0
		                 ? "main, test, testnet4, signet, regtest"
		                 : "main, test, regtest");
	if ((ctx = secp(s->name)) == NULL)
		return EX_SOFTWARE;
	rc = load_key(s, ctx, a, &k);
	if (rc == 0) {
		if (hj_taproot_address(ctx, k.pk, hrp, addr, why, sizeof why))
			rc = fail(s->name, EX_SOFTWARE, "internal error: %s",
			          why);
		else
			printf("%s\n", addr);
	}
	explicit_bzero(&k, sizeof k);
	hj_secp_free(ctx);
	return rc;
}

/* ---- payloads --------------------------------------------------------- */

static int run_bet(const struct sub *s, const struct args *a)
{
	uint8_t p[HJ_PAYLOAD_MAX];
	hj_payload pl = {.act = HJ_BET}, back;
	hj_keyfile_btc k;
	hj_secp *ctx;
	size_t n;
	int rc;

	if ((rc = need(s, a, O_KEY)))
		return rc;
	if (a->v[O_PP] && (rc = opt_uint(s, O_PP, a->v[O_PP], UINT64_MAX,
	                                 "a stake", &pl.side_pp)))
		return rc;
	if (a->v[O_T3] && (rc = opt_uint(s, O_T3, a->v[O_T3], UINT64_MAX,
	                                 "a stake", &pl.side_t3)))
		return rc;
	if ((ctx = secp(s->name)) == NULL)
		return EX_SOFTWARE;
	rc = load_key(s, ctx, a, &k);
	if (rc)
		goto out;
	memcpy(pl.key, k.pk, sizeof pl.key);
	n = hj_payload_encode(HJ_BITCOIN, &pl, p);
	if (n == 0 || n > OP_RETURN_MAX ||
	    hj_payload_parse(HJ_BITCOIN, p, n, &back) != HJ_OK ||
	    back.act != HJ_BET || back.side_pp != pl.side_pp ||
	    back.side_t3 != pl.side_t3 ||
	    memcmp(back.key, k.pk, sizeof back.key) != 0) {
		rc =
		    fail(s->name, EX_SOFTWARE,
		         "internal error: the Bet payload does not parse back");
		goto out;
	}
	print_hex(p, n);
out:
	explicit_bzero(&k, sizeof k);
	hj_secp_free(ctx);
	return rc;
}

/* Why hex text is not n bytes, into why; 0 when it is. */
static int bad_hex(const char *text, uint8_t *out, size_t n, char *why,
                   size_t whylen)
{
	if (strncmp(text, "0x", 2) == 0) {
		hj_say(why, whylen,
		       "Bitcoin-family hex is written without \"0x\"");
		return -EINVAL;
	}
	return hj_hex_decode_exact(text, strlen(text), HJ_HEX_BARE, out, n, why,
	                           whylen);
}

static int run_action(const struct sub *s, const struct args *a)
{
	uint8_t genesis[HJ_BTC_GENESIS_LEN], id[32], p[HJ_PAYLOAD_MAX];
	hj_payload pl = {.act = s->act}, back;
	char why[HJ_ERRLEN], shown[SHOWLEN], err[HJ_ERRLEN];
	const char *round = a->v[O_ROUND];
	hjc_player_round fd;
	uint64_t seq = 0;
	hj_secp *ctx = NULL;
	hj_keyfile_btc k;
	size_t n;
	int rc;

	memset(&k, 0, sizeof k);
	if ((rc = need(s, a, O_KEY)) || (rc = need(s, a, O_GENESIS)))
		return rc;
	if (s->act == HJ_PEEK) {
		const char *ins = a->v[O_INSURANCE];

		if ((rc = need(s, a, O_INSURANCE)))
			return rc;
		if (strcmp(ins, "yes") != 0 && strcmp(ins, "no") != 0) {
			hj_quote(ins, shown, sizeof shown);
			return usage(s->name, "--insurance %s: not yes or no",
			             shown);
		}
		pl.insurance = strcmp(ins, "yes") == 0;
	}
	if (a->v[O_LOG] && (a->v[O_ROUND] || a->v[O_SEQ]))
		return usage(s->name, "--log replaces --round and --seq: give "
		                      "one or the other");
	if (!a->v[O_LOG] && (!a->v[O_ROUND] || !a->v[O_SEQ]))
		return usage(s->name,
		             "%s is required (or --log CARDLOG instead "
		             "of --round and --seq)",
		             a->v[O_ROUND] ? "--seq" : "--round");
	if (bad_hex(a->v[O_GENESIS], genesis, sizeof genesis, why,
	            sizeof why)) {
		hj_quote(a->v[O_GENESIS], shown, sizeof shown);
		return usage(
		    s->name,
		    "--genesis %s: not block 0's hash as 'getblockhash "
		    "0' prints it: %s",
		    shown, why);
	}
	if (round != NULL) {
		size_t len = strlen(round);

		hj_quote(round, shown, sizeof shown);
		if (len != 2 * 32 && len != 2 * HJ_BTC_SHORT_ID_LEN)
			snprintf(why, sizeof why,
			         "%zu characters, not 64 or 16", len);
		else if (bad_hex(round, id, len / 2, why, sizeof why) == 0)
			why[0] = '\0';
		if (why[0] != '\0')
			return usage(s->name,
			             "--round %s: not a round id (the Bet's "
			             "txid, 64 hex digits, or its first 16): "
			             "%s",
			             shown, why);
		if ((rc = opt_uint(s, O_SEQ, a->v[O_SEQ], UINT32_MAX, "a seq",
		                   &seq)))
			return rc;
	}
	if ((ctx = secp(s->name)) == NULL)
		return EX_SOFTWARE;
	if ((rc = load_key(s, ctx, a, &k)))
		goto out;
	if (a->v[O_LOG]) {
		rc = hjc_player__log_find(a->v[O_LOG], k.pk, &fd, err,
		                          sizeof err);
		if (rc) {
			fail(s->name, rc, "%s", err);
			goto out;
		}
		/* The log wrote it: 64 lower-case hex digits. */
		hj_hex_decode_exact(fd.round, strlen(fd.round), HJ_HEX_BARE, id,
		                    sizeof id, NULL, 0);
		seq = fd.seq;
	}
	memcpy(pl.round, id, sizeof pl.round);
	n = hj_payload_encode(HJ_BITCOIN, &pl, p);
	if (n == 0 || n > OP_RETURN_MAX) {
		rc = fail(s->name, EX_SOFTWARE,
		          "internal error: no payload for %s", s->name);
		goto out;
	}
	if (hj_btc_payload_sign(ctx, k.sk, genesis, (uint32_t)seq, p, n, why,
	                        sizeof why)) {
		rc = fail(s->name, EX_SOFTWARE, "signing failed: %s", why);
		goto out;
	}
	/* As the dealer will read it: the codec, then the verifier. */
	if (hj_payload_parse(HJ_BITCOIN, p, n, &back) != HJ_OK ||
	    back.act != s->act || back.insurance != pl.insurance ||
	    memcmp(back.round, pl.round, sizeof back.round) != 0 ||
	    hj_btc_payload_verify(ctx, k.pk, genesis, (uint32_t)seq, p, n) !=
	        0) {
		rc = fail(s->name, EX_SOFTWARE,
		          "internal error: the payload does not parse back or "
		          "its signature does not verify");
		goto out;
	}
	print_hex(p, n);
out:
	explicit_bzero(&k, sizeof k);
	hj_secp_free(ctx);
	return rc;
}

/* ---- dispatch --------------------------------------------------------- */

static const struct sub subs[] = {
    {"keygen", HJ_ACT_NONE, 0, 1, run_keygen},
    {"pubkey", HJ_ACT_NONE, BIT(O_KEY), 0, run_pubkey},
    {"address", HJ_ACT_NONE, BIT(O_KEY) | BIT(O_COIN) | BIT(O_CHAIN), 0,
     run_address},
    {"bet", HJ_BET, BIT(O_KEY) | BIT(O_PP) | BIT(O_T3), 0, run_bet},
    {"hit", HJ_HIT, ACTION_OPTS, 0, run_action},
    {"stand", HJ_STAND, ACTION_OPTS, 0, run_action},
    {"double", HJ_DOUBLE, ACTION_OPTS, 0, run_action},
    {"split", HJ_SPLIT, ACTION_OPTS, 0, run_action},
    {"surrender", HJ_SURRENDER, ACTION_OPTS, 0, run_action},
    {"peek", HJ_PEEK, ACTION_OPTS | BIT(O_INSURANCE), 0, run_action},
};

static const struct sub *find_sub(const char *name)
{
	for (size_t i = 0; i < sizeof subs / sizeof subs[0]; i++)
		if (strcmp(subs[i].name, name) == 0)
			return &subs[i];
	return NULL;
}

static void print_help(const struct sub *s)
{
	hjc_player__help(s ? s->name : NULL, s ? s->act : HJ_ACT_NONE);
}

int hjc_player_help(int argc, char **argv)
{
	const struct sub *s = NULL;
	char shown[SHOWLEN];

	if (argc > 1) {
		hj_quote(argv[1], shown, sizeof shown);
		return usage(NULL, "more than one SUBCOMMAND: %s", shown);
	}
	if (argc == 1 && strcmp(argv[0], "help") != 0) {
		s = find_sub(argv[0]);
		if (s == NULL) {
			hj_quote(argv[0], shown, sizeof shown);
			return usage(NULL, "unknown subcommand %s", shown);
		}
	}
	print_help(s);
	return EX_OK;
}

int hjc_player_main(int argc, char **argv)
{
	const struct sub *s;
	char shown[SHOWLEN];
	struct args a;
	int rc;

	if (argc < 1)
		return usage(NULL, "no SUBCOMMAND given");
	if (is_help(argv[0]))
		return hjc_player_help(0, NULL);
	if (strcmp(argv[0], "help") == 0)
		return hjc_player_help(argc - 1, argv + 1);
	s = find_sub(argv[0]);
	if (s == NULL) {
		hj_quote(argv[0], shown, sizeof shown);
		return usage(NULL, "unknown %s %s",
		             argv[0][0] == '-' ? "option" : "subcommand",
		             shown);
	}
	/* --help wins over everything else on the line. */
	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		if (is_help(argv[i])) {
			print_help(s);
			return EX_OK;
		}
	}
	rc = parse_args(s, argc - 1, argv + 1, &a);
	if (rc)
		return rc;
	return s->run(s, &a);
}
