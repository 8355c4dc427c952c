/*
 * `hashjack player` (see player.h; the formats are in docs/CLI.md and
 * docs/BITCOIN-KEYS.md).
 *
 * Every command checks its command line first (usage errors, exit 64), then
 * reads the key file, then the card log, so that a typo costs no file read
 * and a bad file is named with its line.  Payloads come from the engine's
 * own codec and signer (game/payload.c, chain/btcsig.c) and, before a byte
 * is printed, are parsed back and verified as the dealer will: what this
 * tool prints is a payload the dealer's parser accepts and, for the genesis
 * hash, round and seq given, one whose signature its verifier accepts.
 *
 * Secret keys live in hjc_player_key and in the key file's read buffer; both
 * are wiped before the functions that hold them return.
 */
#include "player.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sysexits.h>
#include <unistd.h>

#include "btcsig.h"
#include "cardlog.h"
#include "hex.h"
#include "payload.h"
#include "quote.h"
#include "taproot.h"

#define PROG "hashjack"

/* A key file is three short lines: anything longer is not one. */
#define KEYFILE_MAX 4096
/* Bitcoin Core and Litecoin Core relay an OP_RETURN output carrying at
 * most 80 bytes of data (-datacarriersize 83 counts the script's 3 bytes). */
#define OP_RETURN_MAX 80
_Static_assert(HJ_PAYLOAD_MAX <= OP_RETURN_MAX,
               "a payload must fit one OP_RETURN output");

#define ERRLEN 1024
/* Room for a quoted value in a message (hj_quote cuts longer ones). */
#define SHOWLEN 100

static const char key_header[] =
    "# hashjack player key: BIP-340 secret key, keep this file private\n";
/* The header, "# P " and P, the secret: three lines. */
_Static_assert(sizeof key_header - 1 + 4 + 2 * HJ_XONLY_LEN + 1 +
                       2 * HJ_BTC_SECKEY_LEN + 1 <
                   HJC_PLAYER_KEY_TEXT,
               "the key file's text fits HJC_PLAYER_KEY_TEXT");

/* ---- help ------------------------------------------------------------ */

static const char usage_player[] =
    "Usage: hashjack player SUBCOMMAND [OPTIONS]\n"
    "\n"
    "The player's side of Hash Blackjack on the Bitcoin family (Bitcoin\n"
    "Core, Litecoin Core), where a player is a secp256k1 key P: make the\n"
    "key file, print P and tr(P), and print the OP_RETURN payload of each\n"
    "action, signed by the key, for the wallet to send.\n"
    "\n"
    "Subcommands:\n"
    "  keygen FILE          write a new key file (mode 0600) and print P\n"
    "  pubkey --key FILE    print P, the x-only public key (64 hex digits)\n"
    "  address --key FILE --coin COIN --chain CHAIN\n"
    "                       print tr(P), where refunds and payouts go\n"
    "  bet --key FILE [--perfect-pairs N] [--21plus3 N]\n"
    "                       print the Bet payload (carries P)\n"
    "  hit|stand|double|split|surrender --key FILE --genesis HASH\n"
    "      (--round ID --seq N | --log CARDLOG)\n"
    "                       print the signed payload of that action\n"
    "  peek --insurance yes|no, and the options above\n"
    "                       print the signed Peek payload\n"
    "  help [SUBCOMMAND]    this text, or the help of SUBCOMMAND\n"
    "\n"
    "A payload is printed as one line of lower-case hex, without \"0x\":\n"
    "the bytes the transaction's OP_RETURN output must carry, that is the\n"
    "\"data\" of createrawtransaction:\n"
    "\n"
    "  hex=$(hashjack player bet --key alice.key)\n"
    "  bitcoin-cli createrawtransaction '[]' \\\n"
    "      \"{\\\"DEALER_ADDRESS\\\":0.001,\\\"data\\\":\\\"$hex\\\"}\"\n"
    "\n"
    "Exit status:\n"
    "  0   success\n"
    "  64  usage error: unknown subcommand or option, a missing, repeated\n"
    "      or malformed option or argument\n"
    "  65  bad data: a damaged key file, a bad card log, no open round in\n"
    "      the card log\n"
    "  66  cannot open the key file or the card log\n"
    "  70  internal error\n"
    "  73  keygen: FILE exists or cannot be created\n"
    "  74  I/O error: reading a file or writing the output failed\n"
    "  77  the key file is open to group or others (chmod 600 fixes it)\n"
    "\n"
    "Run 'hashjack player SUBCOMMAND --help' for the details; see also\n"
    "docs/CLI.md and docs/BITCOIN-KEYS.md.\n";

static const char usage_keygen[] =
    "Usage: hashjack player keygen FILE\n"
    "\n"
    "Draws a new secret key from getrandom(2) and writes it to the new\n"
    "file FILE, mode 0600 whatever the umask, in the key file format of\n"
    "docs/BITCOIN-KEYS.md:\n"
    "\n"
    "  # hashjack player key: BIP-340 secret key, keep this file private\n"
    "  # P <the x-only public key, 64 hex digits>\n"
    "  <the secret key, 64 hex digits>\n"
    "\n"
    "then prints P on standard output (one line, 64 lower-case hex digits)\n"
    "and where the key went on standard error.  An existing FILE is never\n"
    "overwritten.  Back the file up: whoever holds it can play, and refunds\n"
    "and payouts go to tr(P), which only this key can spend.\n"
    "\n"
    "Example:\n"
    "  $ hashjack player keygen alice.key\n"
    "  hashjack: player keygen: wrote alice.key (mode 0600); keep it "
    "private\n"
    "  9b3e...c01a\n"
    "\n"
    "Options:\n"
    "  -h, --help  print this help and exit\n"
    "\n"
    "Exit status: 0 ok, 64 usage error, 70 internal error (no randomness),\n"
    "73 FILE exists or cannot be created, 74 writing FILE or the output\n"
    "failed (a partly written FILE is removed).\n";

static const char usage_pubkey[] =
    "Usage: hashjack player pubkey --key FILE\n"
    "\n"
    "Prints the x-only public key P of the key file FILE: one line, 64\n"
    "lower-case hex digits.  P is what a Bet carries and what the dealer's\n"
    "log shows as the round's \"player\".\n"
    "\n"
    "The key file is refused (and nothing printed) when group or others\n"
    "may access it, when it is not exactly one secret key line of 64 hex\n"
    "digits plus comments, or when its \"# P\" line differs from the key\n"
    "the secret gives (docs/BITCOIN-KEYS.md).\n"
    "\n"
    "Example:\n"
    "  $ hashjack player pubkey --key alice.key\n"
    "  dff1d77f2a671c5f36183726db2341be58feae1da2deced843240f7b502ba659\n"
    "\n"
    "Options:\n"
    "  --key FILE  the key file (from 'hashjack player keygen')\n"
    "  -h, --help  print this help and exit\n"
    "\n"
    "Exit status: 0 ok, 64 usage error, 65 damaged key file, 66 cannot\n"
    "open it, 74 read or write error, 77 key file open to group or others.\n";

static const char usage_address[] =
    "Usage: hashjack player address --key FILE --coin COIN --chain CHAIN\n"
    "\n"
    "Prints tr(P), the BIP-86 taproot address of the key's P (no script\n"
    "tree), on the given chain: one line, lower case.  The dealer sends\n"
    "refunds and payouts there; a wallet spends from it with the same key\n"
    "(descriptor tr(SECRET), the secret in WIF form).\n"
    "\n"
    "  COIN      CHAIN (as getblockchaininfo prints it)   prefix\n"
    "  bitcoin   main                                     bc\n"
    "  bitcoin   test, testnet4, signet                   tb\n"
    "  bitcoin   regtest                                  bcrt\n"
    "  litecoin  main                                     ltc\n"
    "  litecoin  test                                     tltc\n"
    "  litecoin  regtest                                  rltc\n"
    "\n"
    "Example:\n"
    "  $ hashjack player address --key alice.key --coin litecoin "
    "--chain regtest\n"
    "  rltc1p0t2rw5pjcw8t5n7xphk2wharpgaxhhe0kw8huctj3r3dxampzl9sdp4qm8\n"
    "\n"
    "Options:\n"
    "  --key FILE     the key file\n"
    "  --coin COIN    bitcoin or litecoin\n"
    "  --chain CHAIN  main, test, testnet4, signet or regtest (not every\n"
    "                 coin has every chain: see the table)\n"
    "  -h, --help     print this help and exit\n"
    "\n"
    "Exit status: 0 ok, 64 usage error (an unknown coin or chain too), 65\n"
    "damaged key file, 66 cannot open it, 74 read or write error, 77 key\n"
    "file open to group or others.\n";

static const char usage_bet[] =
    "Usage: hashjack player bet --key FILE [--perfect-pairs N] "
    "[--21plus3 N]\n"
    "\n"
    "Prints the Bet payload (docs/PROTOCOL.md section 11.3): one line of\n"
    "lower-case hex, no \"0x\", exactly the bytes the Bet transaction's\n"
    "OP_RETURN output must carry:\n"
    "\n"
    "  484a 01 01 P[32] [perfect-pairs u64] [21+3 u64]\n"
    "\n"
    "(magic \"HJ\", version 1, action 1 = Bet, the key's x-only P, then the\n"
    "side stakes, big-endian).  The main stake is not in the payload: it\n"
    "is the amount the transaction pays to the dealer's address.  A side\n"
    "stake of 0 is the same as none; the payload is 36 bytes without side\n"
    "stakes, 44 with perfect pairs only, 52 with 21+3 (perfect pairs is\n"
    "then written too, as 0 when not given).  The value the transaction\n"
    "pays is the main stake plus the side stakes.  A dealer offers a side\n"
    "bet only when its rules set perfect_pairs or twenty_one_plus_three\n"
    "(none does under the bethash preset); otherwise it rejects a Bet\n"
    "with that side stake (side_bets_not_offered) and refunds it.\n"
    "\n"
    "Example:\n"
    "  $ hashjack player bet --key alice.key\n"
    "  484a0101dff1d77f2a671c5f36183726db2341be58feae1da2deced843240f7b50"
    "2ba659\n"
    "\n"
    "Options:\n"
    "  --key FILE           the key file\n"
    "  --perfect-pairs N    perfect-pairs side stake in base units\n"
    "                       (satoshi, litoshi): 0 .. 18446744073709551615\n"
    "  --21plus3 N          21+3 side stake in base units, same range\n"
    "  -h, --help           print this help and exit\n"
    "\n"
    "N is decimal digits only: no sign, no leading zero.\n"
    "\n"
    "Exit status: 0 ok, 64 usage error (a bad N too), 65 damaged key file,\n"
    "66 cannot open it, 70 internal error, 74 read or write error, 77 key\n"
    "file open to group or others.\n";

/* The Usage line is printed first, with the action's name. */
static const char usage_action[] =
    "\n"
    "Prints the payload of the action for the round, signed by the key\n"
    "(docs/PROTOCOL.md section 11.3): one line of lower-case hex, no\n"
    "\"0x\", exactly the bytes the action transaction's OP_RETURN output\n"
    "must carry:\n"
    "\n"
    "  484a 01 ACTION [peek flag] SHORT_ID[8] SIGNATURE[64]\n"
    "\n"
    "ACTION is 02 hit, 03 stand, 04 double, 05 split, 06 surrender, 07\n"
    "peek; peek adds one byte, 01 insurance taken, 00 declined.  SHORT_ID\n"
    "is the first 8 bytes of the round id.  SIGNATURE is BIP-340 by P over\n"
    "\n"
    "  tagged_sha256(\"HashJack/action\",\n"
    "                genesis || short id || seq (u32 big-endian) || the\n"
    "                payload before SHORT_ID)\n"
    "\n"
    "with fresh randomness, so two runs print different, equally valid\n"
    "payloads.  Payloads are 76 bytes (peek 77).  The payload is parsed\n"
    "back and its signature verified before it is printed.\n"
    "\n"
    "What the transaction pays to the dealer's address: nothing for hit,\n"
    "stand, surrender and a peek without insurance; the hand's stake for\n"
    "double and split; half the Bet's stake (rounded down) for insurance.\n"
    "\n"
    "Options:\n"
    "  --key FILE       the key file of the round's player\n"
    "  --genesis HASH   block 0's hash as 'getblockhash 0' prints it (64\n"
    "                   hex digits): the signature is only valid on that\n"
    "                   chain\n"
    "  --round ID       the round id: the Bet's txid as the node prints it\n"
    "                   (64 hex digits), or its first 16 hex digits\n"
    "  --seq N          the round's actions after the Bet that were\n"
    "                   accepted or applied by timeout before this one:\n"
    "                   0 for the first action after the Bet; decimal,\n"
    "                   0 .. 4294967295, no sign or leading zero\n"
    "  --log CARDLOG    instead of --round and --seq: find both in the\n"
    "                   dealer's block-to-card log (docs/LOG.md, \"chain\":\n"
    "                   \"bitcoin\"; \"-\" reads standard input).  The round\n"
    "                   is the key's latest Bet with no settle after it;\n"
    "                   seq counts that round's accepted actions other\n"
    "                   than the Bet and its timeouts.  The log holds only\n"
    "                   the blocks the dealer has processed: wait until\n"
    "                   your previous action shows there\n"
    "  --insurance yes|no\n"
    "                   peek only, and required there: take insurance\n"
    "  -h, --help       print this help and exit\n"
    "\n"
    "Hex digits may be upper or lower case; no \"0x\".\n"
    "\n"
    "Example:\n"
    "  $ hashjack player hit --key alice.key --genesis \\\n"
    "      "
    "0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206"
    " \\\n"
    "      --round 5d7b0e14a7c3be0f --seq 0\n"
    "  484a01025d7b0e14a7c3be0f...\n"
    "  $ hashjack player stand --key alice.key --genesis ... --log "
    "card.log\n"
    "\n"
    "Exit status: 0 ok, 64 usage error (a bad HASH, ID or N too), 65\n"
    "damaged key file, bad card log or no open round in it, 66 cannot open\n"
    "the key file or the card log, 70 internal error, 74 read or write\n"
    "error, 77 key file open to group or others.\n";

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

/* ---- the key file ----------------------------------------------------- */

/* The key file's lines: comments ("#"), empty lines, and exactly one line
 * of 64 hex digits, the secret key; "# P <64 hex>", when present, must be
 * the key's P. */
static int key_parse(const hj_secp *ctx, const char *path, const char *buf,
                     size_t n, hjc_player_key *k, char *err, size_t errlen)
{
	uint8_t said[HJ_XONLY_LEN];
	unsigned long line = 0, key_line = 0, p_line = 0;
	char why[200], hex[2 * HJ_XONLY_LEN + 3];
	size_t at = 0;

	while (at < n) {
		const char *s = buf + at;
		const char *nl = memchr(s, '\n', n - at);
		size_t len = nl ? (size_t)(nl - s) : n - at;

		at += len + (nl != NULL);
		line++;
		if (len == 0)
			continue;
		if (s[0] == '#') {
			if (len < 4 || memcmp(s, "# P ", 4) != 0)
				continue;
			if (p_line) {
				snprintf(err, errlen,
				         "%s:%lu: a second \"# P\" line (the "
				         "first is line %lu)",
				         path, line, p_line);
				return EX_DATAERR;
			}
			if (hj_hex_decode_exact(s + 4, len - 4, HJ_HEX_BARE,
			                        said, sizeof said, why,
			                        sizeof why)) {
				snprintf(err, errlen,
				         "%s:%lu: the \"# P\" line must be "
				         "\"# P \" and 64 hex digits: %s",
				         path, line, why);
				return EX_DATAERR;
			}
			p_line = line;
			continue;
		}
		if (key_line) {
			snprintf(err, errlen,
			         "%s:%lu: a second secret key line (the first "
			         "is line %lu); a key file holds one key",
			         path, line, key_line);
			return EX_DATAERR;
		}
		if (hj_hex_decode_exact(s, len, HJ_HEX_BARE, k->sk,
		                        sizeof k->sk, why, sizeof why)) {
			snprintf(err, errlen,
			         "%s:%lu: the secret key line must be 64 hex "
			         "digits: %s",
			         path, line, why);
			return EX_DATAERR;
		}
		key_line = line;
	}
	if (!key_line) {
		snprintf(err, errlen,
		         "%s: no secret key line (64 hex digits) in the file",
		         path);
		return EX_DATAERR;
	}
	if (hj_btc_pubkey(ctx, k->sk, k->pk, why, sizeof why)) {
		snprintf(err, errlen, "%s:%lu: %s", path, key_line, why);
		return EX_DATAERR;
	}
	if (p_line && memcmp(said, k->pk, sizeof said) != 0) {
		hj_hex_encode(k->pk, sizeof k->pk, 0, hex);
		snprintf(err, errlen,
		         "%s:%lu: the \"# P\" line differs from the secret "
		         "key's P %s: the file is damaged or was edited",
		         path, p_line, hex);
		return EX_DATAERR;
	}
	return 0;
}

int hjc_player_key_parse(const hj_secp *ctx, const char *name, const char *buf,
                         size_t n, hjc_player_key *k, char *err, size_t errlen)
{
	int rc = key_parse(ctx, name, buf, n, k, err, errlen);

	if (rc)
		explicit_bzero(k, sizeof *k);
	return rc;
}

size_t hjc_player_key_format(const hjc_player_key *k, char *text, size_t cap)
{
	char pk[2 * HJ_XONLY_LEN + 3], sk[2 * HJ_BTC_SECKEY_LEN + 3];
	int n;

	hj_hex_encode(k->pk, sizeof k->pk, 0, pk);
	hj_hex_encode(k->sk, sizeof k->sk, 0, sk);
	n = snprintf(text, cap, "%s# P %s\n%s\n", key_header, pk, sk);
	explicit_bzero(sk, sizeof sk);
	if (n < 0 || (size_t)n >= cap) {
		if (cap > 0)
			explicit_bzero(text, cap);
		return 0;
	}
	return (size_t)n;
}

/* Reads and checks the key file at path.  Returns 0 or an exit code with
 * err.  k is wiped on failure. */
static int key_read(const hj_secp *ctx, const char *path, hjc_player_key *k,
                    char *err, size_t errlen)
{
	char buf[KEYFILE_MAX + 1], fix[300];
	struct stat st;
	size_t n = 0;
	int fd, rc;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		snprintf(err, errlen, "cannot open key file %s: %s", path,
		         strerror(errno));
		return EX_NOINPUT;
	}
	if (fstat(fd, &st) != 0) {
		snprintf(err, errlen, "cannot stat key file %s: %s", path,
		         strerror(errno));
		close(fd);
		return EX_IOERR;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "cannot open key file %s: %s", path,
		         S_ISDIR(st.st_mode) ? strerror(EISDIR)
		                             : "not a regular file");
		close(fd);
		return EX_NOINPUT;
	}
	/* As OpenSSH does with private keys: a secret that others may read
	 * (or replace) is not one to sign with. */
	if (st.st_mode & 077) {
		hj_shell_word(path, fix, sizeof fix);
		snprintf(
		    err, errlen,
		    "key file %s has mode %04o: group or others may access "
		    "the secret key; fix it with: chmod 600 %s",
		    path, (unsigned)(st.st_mode & 07777), fix);
		close(fd);
		return EX_NOPERM;
	}
	while (n < sizeof buf) {
		ssize_t got = read(fd, buf + n, sizeof buf - n);

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			snprintf(err, errlen, "reading key file %s: %s", path,
			         strerror(errno));
			close(fd);
			explicit_bzero(buf, sizeof buf);
			return EX_IOERR;
		}
		if (got == 0)
			break;
		n += (size_t)got;
	}
	close(fd);
	if (n > KEYFILE_MAX) {
		snprintf(err, errlen,
		         "%s: longer than %d bytes: not a key file", path,
		         KEYFILE_MAX);
		rc = EX_DATAERR;
	} else {
		rc = hjc_player_key_parse(ctx, path, buf, n, k, err, errlen);
	}
	explicit_bzero(buf, sizeof buf);
	if (rc)
		explicit_bzero(k, sizeof *k);
	return rc;
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Makes a new directory entry durable.  Best effort: the file itself was
 * synced, and a directory we may not open is no reason to fail. */
static void sync_dir(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir;
	int fd;

	if (slash == NULL)
		dir = strdup(".");
	else if (slash == path)
		dir = strdup("/");
	else
		dir = strndup(path, (size_t)(slash - path));
	if (dir == NULL)
		return;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		(void)fsync(fd);
		close(fd);
	}
	free(dir);
}

/*
 * Writes a new key file.  O_EXCL refuses an existing file (a symbolic link
 * included), and fchmod sets 0600 whatever the umask did to open's mode.
 * Returns 0 or an exit code with err; a partly written file is removed.
 */
static int key_write(const char *path, const hjc_player_key *k, char *err,
                     size_t errlen)
{
	char text[HJC_PLAYER_KEY_TEXT];
	size_t n;
	int fd, rc = 0;

	n = hjc_player_key_format(k, text, sizeof text);
	if (n == 0) {
		snprintf(err, errlen, "internal error: key file text too long");
		rc = EX_SOFTWARE;
		goto out;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOCTTY,
	          0600);
	if (fd < 0) {
		if (errno == EEXIST)
			snprintf(err, errlen,
			         "%s already exists: keygen never overwrites "
			         "a file (a key in it may hold funds); choose "
			         "another FILE",
			         path);
		else
			snprintf(err, errlen, "cannot create %s: %s", path,
			         strerror(errno));
		rc = EX_CANTCREAT;
		goto out;
	}
	if (fchmod(fd, 0600) != 0 || write_all(fd, text, n) != 0 ||
	    fsync(fd) != 0) {
		snprintf(err, errlen,
		         "writing %s failed: %s (the file was "
		         "removed)",
		         path, strerror(errno));
		close(fd);
		unlink(path);
		rc = EX_IOERR;
		goto out;
	}
	if (close(fd) != 0) {
		snprintf(err, errlen,
		         "writing %s failed: %s (the file was "
		         "removed)",
		         path, strerror(errno));
		unlink(path);
		rc = EX_IOERR;
		goto out;
	}
	sync_dir(path);
out:
	explicit_bzero(text, sizeof text);
	return rc;
}

/* A secp256k1 context, or NULL after saying why. */
static hj_secp *secp(const char *sub)
{
	char why[200];
	hj_secp *ctx = hj_secp_new(why, sizeof why);

	if (ctx == NULL)
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
	char err[ERRLEN], why[200];
	hjc_player_key k, again;
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
                    const struct args *a, hjc_player_key *k)
{
	char err[ERRLEN];
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
	hjc_player_key k;
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
	char why[200], addr[HJ_BECH32_BUF], coin[SHOWLEN], chain[SHOWLEN];
	const char *hrp;
	hjc_player_key k;
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
	hjc_player_key k;
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

/* The card log scan: the key's latest round, followed line by line. */
struct scan {
	const char *name;              /* the log's name in messages */
	char pk[2 * HJ_XONLY_LEN + 3]; /* P as the log writes it */
	unsigned long line;
	int have_height;
	json_int_t height, first_height;
	/* The key's latest round: open from its Bet until its settle. */
	int found, open;
	char round[2 * 32 + 1];
	unsigned long bet_line, end_line;
	json_int_t bet_height, end_height;
	uint64_t seq;
	char *err;
	size_t errlen;
};

static int bad_log(struct scan *sc, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static int bad_log(struct scan *sc, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(sc->err, sc->errlen, "%s:%lu: ", sc->name, sc->line);

	if (n > 0 && (size_t)n < sc->errlen) {
		va_start(ap, fmt);
		vsnprintf(sc->err + n, sc->errlen - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return EX_DATAERR;
}

static const char *str_of(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

/* A Bitcoin-family round id as the log writes it: 64 lower-case digits. */
static int is_log_id(const char *s)
{
	size_t i;

	for (i = 0; s[i]; i++)
		if (!((s[i] >= '0' && s[i] <= '9') ||
		      (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return i == 64;
}

/*
 * One event.  seq follows the engine (game/table.c): apply() increments a
 * round's seq once for each accepted action after the Bet and for each
 * timeout, and each is logged as exactly one "action" or "timeout" event
 * of the round; a rejection changes nothing.
 */
static int scan_event(struct scan *sc, size_t i, const json_t *ev)
{
	const char *type = str_of(ev, "type"), *round, *act, *player;
	char shown[SHOWLEN];

	if (!json_is_object(ev) || type == NULL)
		return bad_log(sc, "events[%zu]: not an object with a \"type\"",
		               i);
	if (strcmp(type, "action") != 0 && strcmp(type, "timeout") != 0 &&
	    strcmp(type, "settle") != 0)
		return 0;
	round = str_of(ev, "round");
	if (round == NULL)
		return bad_log(sc, "events[%zu]: %s event without \"round\"", i,
		               type);
	if (strcmp(type, "action") == 0) {
		act = str_of(ev, "action");
		player = str_of(ev, "player");
		if (act == NULL || player == NULL)
			return bad_log(sc,
			               "events[%zu]: action event without "
			               "\"action\" or \"player\"",
			               i);
		if (strcmp(act, "Bet") == 0 && strcmp(player, sc->pk) == 0) {
			if (sc->open)
				return bad_log(
				    sc,
				    "events[%zu]: a second Bet by P while its "
				    "round %s (line %lu) is open, which the "
				    "engine never accepts: not a dealer's log",
				    i, sc->round, sc->bet_line);
			if (!is_log_id(round)) {
				hj_quote(round, shown, sizeof shown);
				return bad_log(sc,
				               "events[%zu]: round %s is not a "
				               "Bitcoin-family round id (64 "
				               "lower-case hex digits)",
				               i, shown);
			}
			snprintf(sc->round, sizeof sc->round, "%s", round);
			sc->found = sc->open = 1;
			sc->seq = 0;
			sc->bet_line = sc->line;
			sc->bet_height = sc->height;
			return 0;
		}
		if (!sc->open || strcmp(round, sc->round) != 0)
			return 0;
		if (strcmp(player, sc->pk) != 0) {
			hj_quote(player, shown, sizeof shown);
			return bad_log(
			    sc,
			    "events[%zu]: a %s of round %s by player "
			    "%s, not by the round's P",
			    i, act, sc->round, shown);
		}
	} else if (!sc->open || strcmp(round, sc->round) != 0) {
		return 0;
	}
	if (strcmp(type, "settle") == 0) {
		sc->open = 0;
		sc->end_line = sc->line;
		sc->end_height = sc->height;
		return 0;
	}
	if (sc->seq == UINT32_MAX)
		return bad_log(sc, "round %s has more than 4294967295 actions",
		               sc->round);
	sc->seq++;
	return 0;
}

static int scan_line(struct scan *sc, const char *text, size_t len)
{
	json_error_t je;
	json_t *root, *v, *h, *events;
	json_int_t height;
	const char *chain;
	char shown[SHOWLEN];
	int rc = 0;

	root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
	if (root == NULL) {
		snprintf(sc->err, sc->errlen, "%s:%lu:%d: %s", sc->name,
		         sc->line, je.column, je.text);
		return EX_DATAERR;
	}
	if (!json_is_object(root)) {
		rc = bad_log(sc, "not a JSON object");
		goto out;
	}
	/* Versions 1 and 2 count a round's actions alike: a log that spans
	 * a dealer's upgrade reads whole. */
	v = json_object_get(root, "v");
	if (!json_is_integer(v) || json_integer_value(v) < 1 ||
	    json_integer_value(v) > HJ_CARDLOG_VERSION) {
		rc = bad_log(sc,
		             "\"v\" is not 1 to %d: not a block-to-card log "
		             "line of a version this tool reads (docs/LOG.md)",
		             HJ_CARDLOG_VERSION);
		goto out;
	}
	chain = str_of(root, "chain");
	if (chain == NULL || strcmp(chain, "bitcoin") != 0) {
		hj_quote(chain ? chain : "", shown, sizeof shown);
		rc = bad_log(sc,
		             "chain %s: not a Bitcoin-family log (player "
		             "commands read lines with \"chain\":\"bitcoin\")",
		             chain ? shown : "missing");
		goto out;
	}
	h = json_object_get(root, "height");
	if (!json_is_integer(h) || json_integer_value(h) < 0) {
		rc = bad_log(sc, "\"height\" missing or not a block height");
		goto out;
	}
	height = json_integer_value(h);
	/* height - 1, not sc->height + 1: the previous height may be the
	 * largest a JSON integer holds, and height is not negative. */
	if (sc->have_height && height - 1 != sc->height) {
		rc = bad_log(sc,
		             "height %lld does not follow height %lld of line "
		             "%lu: a block is missing or repeated",
		             (long long)height, (long long)sc->height,
		             sc->line - 1);
		goto out;
	}
	sc->height = height;
	if (!sc->have_height)
		sc->first_height = sc->height;
	sc->have_height = 1;
	events = json_object_get(root, "events");
	if (!json_is_array(events)) {
		rc = bad_log(sc, "\"events\" missing or not an array");
		goto out;
	}
	for (size_t i = 0; i < json_array_size(events) && rc == 0; i++)
		rc = scan_event(sc, i, json_array_get(events, i));
out:
	json_decref(root);
	return rc;
}

/*
 * Reads one line, at most max bytes before its newline, into *buf (grown
 * up to max + 1 bytes).  Returns 1 with *len and *nl (whether a newline
 * ended it), 0 at the end of the file, -EMSGSIZE, -EIO or -ENOMEM.
 */
static int read_line(FILE *f, char **buf, size_t *cap, size_t max, size_t *len,
                     int *nl)
{
	size_t n = 0;
	int c;

	*nl = 0;
	while ((c = getc_unlocked(f)) != EOF) {
		if (c == '\n') {
			*nl = 1;
			break;
		}
		if (n == max)
			return -EMSGSIZE;
		if (n == *cap) {
			size_t want = *cap ? 2 * *cap : 4096;
			char *b;

			if (want > max)
				want = max;
			b = realloc(*buf, want);
			if (b == NULL)
				return -ENOMEM;
			*buf = b;
			*cap = want;
		}
		(*buf)[n++] = (char)c;
	}
	if (ferror(f))
		return -EIO;
	*len = n;
	return n > 0 || *nl;
}

int hjc_player_log_round(FILE *f, const char *name,
                         const uint8_t pk[HJ_XONLY_LEN], hjc_player_round *out,
                         char *err, size_t errlen)
{
	struct scan sc = {.name = name, .err = err, .errlen = errlen};
	/* A log line is at most HJ_CARDLOG_MAX bytes, its "\n" included. */
	const size_t max = HJ_CARDLOG_MAX - 1;
	char *buf = NULL;
	size_t cap = 0, len;
	int rc = 0, got, nl;

	hj_hex_encode(pk, HJ_XONLY_LEN, 0, sc.pk);
	while ((got = read_line(f, &buf, &cap, max, &len, &nl)) == 1) {
		sc.line++;
		if (!nl) {
			/* The daemon writes whole lines: this one is cut,
			 * or still being written. */
			rc = bad_log(&sc, "the last line has no newline: the "
			                  "log is cut short (or was being "
			                  "written; try again)");
			goto out;
		}
		rc = scan_line(&sc, buf, len);
		if (rc)
			goto out;
	}
	if (got == -EMSGSIZE) {
		sc.line++;
		rc = bad_log(&sc, "line longer than %zu bytes: not a card log",
		             max);
	} else if (got == -EIO) {
		snprintf(err, errlen, "reading card log %s: %s", sc.name,
		         strerror(errno));
		rc = EX_IOERR;
	} else if (got == -ENOMEM) {
		snprintf(err, errlen, "out of memory reading %s", sc.name);
		rc = EX_SOFTWARE;
	} else if (sc.line == 0) {
		snprintf(err, errlen, "%s: empty: no block, so no round",
		         sc.name);
		rc = EX_DATAERR;
	} else if (!sc.found) {
		snprintf(err, errlen,
		         "%s: no Bet by P %s in heights %lld to %lld (lines 1 "
		         "to %lu): no round to act on",
		         sc.name, sc.pk, (long long)sc.first_height,
		         (long long)sc.height, sc.line);
		rc = EX_DATAERR;
	} else if (!sc.open) {
		snprintf(err, errlen,
		         "%s: no open round of P %s: its latest round %s (Bet "
		         "at height %lld, line %lu) settled at height %lld "
		         "(line %lu)",
		         sc.name, sc.pk, sc.round, (long long)sc.bet_height,
		         sc.bet_line, (long long)sc.end_height, sc.end_line);
		rc = EX_DATAERR;
	} else {
		memcpy(out->round, sc.round, sizeof out->round);
		out->seq = (uint32_t)sc.seq;
	}
out:
	free(buf);
	return rc;
}

/*
 * Finds the open round of the key pk in the card log at path ("-" for
 * standard input).  Returns 0, or an exit code with err.
 */
static int log_find(const char *path, const uint8_t pk[HJ_XONLY_LEN],
                    hjc_player_round *out, char *err, size_t errlen)
{
	struct stat st;
	FILE *f;
	int rc;

	if (strcmp(path, "-") == 0)
		return hjc_player_log_round(stdin, "<stdin>", pk, out, err,
		                            errlen);
	f = fopen(path, "r");
	if (f == NULL) {
		snprintf(err, errlen, "cannot open card log %s: %s", path,
		         strerror(errno));
		return EX_NOINPUT;
	}
	if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "cannot open card log %s: %s", path,
		         strerror(EISDIR));
		fclose(f);
		return EX_NOINPUT;
	}
	rc = hjc_player_log_round(f, path, pk, out, err, errlen);
	fclose(f);
	return rc;
}

/* Why hex text is not n bytes, into why; 0 when it is. */
static int bad_hex(const char *text, uint8_t *out, size_t n, char *why,
                   size_t whylen)
{
	if (strncmp(text, "0x", 2) == 0) {
		snprintf(why, whylen,
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
	char why[200], shown[SHOWLEN], err[ERRLEN];
	const char *round = a->v[O_ROUND];
	hjc_player_round fd;
	uint64_t seq = 0;
	hj_secp *ctx = NULL;
	hjc_player_key k;
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
		rc = log_find(a->v[O_LOG], k.pk, &fd, err, sizeof err);
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
	if (s == NULL)
		fputs(usage_player, stdout);
	else if (s->run == run_keygen)
		fputs(usage_keygen, stdout);
	else if (s->run == run_pubkey)
		fputs(usage_pubkey, stdout);
	else if (s->run == run_address)
		fputs(usage_address, stdout);
	else if (s->run == run_bet)
		fputs(usage_bet, stdout);
	else {
		printf("Usage: hashjack player %s%s --key FILE --genesis HASH\n"
		       "       (--round ID --seq N | --log CARDLOG)\n",
		       s->name, s->act == HJ_PEEK ? " --insurance yes|no" : "");
		fputs(usage_action, stdout);
	}
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
