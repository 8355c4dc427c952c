/*
 * hashjack: the command-line tool (docs/CLI.md).
 *
 *   hashjack card [--json] [--seed SEED] HASH...
 *                                    the card of block hashes, and why;
 *                                    with a seed, the committed card
 *   hashjack replay [FILE|-]         the block-to-card log of a replay document
 *   hashjack player SUBCOMMAND ...   the player's key and payloads on the
 *                                    Bitcoin family (cli/player.c)
 *   hashjack ledger [OPTIONS]        the daemon's payouts (cli/ledger.c)
 *   hashjack status [OPTIONS]        the daemon's state: rounds, payouts,
 *                                    balance (cli/status.c)
 *   hashjack serve -c FILE           the read-only round API and web page
 *                                    (cli/serve/)
 *   hashjack export -c FILE ...      a node's blocks as a replay document
 *                                    (cli/export.c)
 *
 * Exit codes follow sysexits(3), so scripts can tell a typo in the command
 * line from bad data from a missing file from a full disk.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sysexits.h>

#include "card.h"
#include "edge_cmd.h"
#include "export.h"
#include "hex.h"
#include "ledger.h"
#include "player.h"
#include "quote.h"
#include "reorg.h"
#include "replay.h"
#include "say.h"
#include "seed.h"
#include "serve.h"
#include "status.h"
#include "verify.h"

#define PROG "hashjack"

static const char usage_main[] =
    "Usage: hashjack COMMAND [ARGS]\n"
    "       hashjack --help | --version\n"
    "\n"
    "Hash Blackjack on chain, for players and watchers: the card of a block\n"
    "hash, a dealer's block-to-card log checked against your own node, the\n"
    "round API and its web page, the house edge of any rule set, and the\n"
    "player's key and action payloads on the Bitcoin family.\n"
    "\n"
    "Commands:\n"
    "  card [--json] HASH...  the card of each block hash, and why; with\n"
    "                         --seed SEED the committed card\n"
    "  verify -c FILE ...     a dealer's card log checked line by line\n"
    "                         against your own node, and with --payouts\n"
    "                         what each player was owed and received\n"
    "  serve -c FILE          the dealer's rounds, read-only: HTTP API,\n"
    "                         WebSocket stream and the web page\n"
    "  replay [FILE|-]        replay the blocks of a JSON document (standard\n"
    "                         input by default) and print their log lines;\n"
    "                         --state: the open rounds' state after them\n"
    "  export -c FILE ...     a node's blocks as a replay document, for\n"
    "                         replaying the dealer's log\n"
    "  reorg -c FILE          after a reorganisation deeper than the\n"
    "                         confirmations: the fork point and what the\n"
    "                         blocks that left the chain changed\n"
    "  edge [RULES] [--json]  the exact house edge of a rule set, its side\n"
    "                         bets' and the strategy chart\n"
    "  player SUBCOMMAND ...  the player on the Bitcoin family: key file,\n"
    "                         payout address, Bet and signed action payloads\n"
    "  ledger [OPTIONS]       the daemon's payouts by state, recipient or\n"
    "                         round, as a table or JSON\n"
    "  status [OPTIONS]       the daemon's state: last block, open rounds and\n"
    "                         their worst case, payouts owed and in flight,\n"
    "                         balance, shortfall\n"
    "  help [COMMAND]         this text, or the help of COMMAND\n"
    "\n"
    "Every command that reads hashjackd's configuration takes -c FILE and\n"
    "--SECTION.KEY=VALUE over its keys; ledger and status take the state\n"
    "directory as --state-dir DIR too.\n"
    "\n"
    "Options:\n"
    "  -h, --help             print this help and exit\n"
    "  -V, --version          print the version and exit\n"
    "\n"
    "Exit status (each command's help has its own):\n"
    "  0   success\n"
    "  1   verify: a line of the log differs, or a player is short\n"
    "  2   verify: your node follows another chain than the log\n"
    "  64  usage error: unknown command or option, missing argument\n"
    "  65  bad input data: a bad hash, an invalid replay document\n"
    "  66  cannot open the input file\n"
    "  69  the node refuses or does not answer (verify, export), cannot\n"
    "      listen (serve)\n"
    "  70  internal error: out of memory\n"
    "  73  cannot create the output file (player keygen, export -o)\n"
    "  74  I/O error: reading the input or writing the output failed\n"
    "  75  try again: the database busy or changing (ledger, status), the\n"
    "      node's tip not there yet (verify, export)\n"
    "  77  key file open to group or others (player)\n"
    "  78  a bad configuration\n"
    "\n"
    "Run 'hashjack help COMMAND' or 'hashjack COMMAND --help' for a\n"
    "command's details; the formats are in docs/CLI.md and docs/LOG.md.\n";

static const char usage_card[] =
    "Usage: hashjack card [--json] [--seed SEED] HASH...\n"
    "\n"
    "Prints the card of each block hash (docs/PROTOCOL.md section 2) and\n"
    "why: the rank digit (the rightmost of 1-9, a-d that has a digit to\n"
    "its left) and its position, the digits skipped to its right, the\n"
    "color digit to its left and its value mod 4, the suit.  A hash\n"
    "without a rank digit is a void block: it yields no card.\n"
    "\n"
    "With --seed, the committed card of cards = committed\n"
    "(docs/PROTOCOL.md section 15): the HMAC-SHA256 of the hash's 32\n"
    "bytes keyed with the seed's, as 64 hex digits, then the same reading\n"
    "of the HMAC's digits (positions are the HMAC's).  SEED is the one\n"
    "the dealer's log reveals for the block (its \"seed\").\n"
    "\n"
    "HASH and SEED are 64 hex digits, optionally behind \"0x\", letters in\n"
    "either case.  A bad hash is reported on standard error with the\n"
    "reason; the other hashes are still printed, and the exit status is\n"
    "then 65.  A bad seed is a usage error: nothing is printed.\n"
    "\n"
    "Options:\n"
    "  --seed SEED  read every HASH keyed with SEED\n"
    "  --json       one JSON object per hash and line, e.g.\n"
    "               {\"hash\":\"..\",\"void\":false,\"rank\":\"A\",\n"
    "                \"suit\":\"Spades\",\"value\":1,\"code\":\"AS\",\n"
    "                \"pos\":61,\"rankDigit\":\"1\",\"colorDigit\":\"b\",\n"
    "                \"colorValue\":11}\n"
    "               or {\"hash\":\"..\",\"void\":true}; with --seed,\n"
    "               \"seed\" and \"hmac\" after \"hash\"\n"
    "  -h, --help   print this help and exit\n"
    "\n"
    "Exit status: 0 ok, 64 usage error (a bad seed too), 65 a bad hash,\n"
    "74 write error.\n";

static const char usage_replay[] =
    "Usage: hashjack replay [--state] [FILE|-]\n"
    "\n"
    "Reads one JSON document from FILE (standard input when FILE is\n"
    "absent or \"-\"):\n"
    "\n"
    "  {\"chain\": \"evm\",\n"
    "   \"dealer\": \"0x..\",\n"
    "   \"rules\": {\"preset\": \"bethash\", \"min_bet\": \"..\",\n"
    "             \"max_bet\": \"..\", \"timeout_blocks\": N,\n"
    "             \"max_exposure\": \"..\"},\n"
    "   \"blocks\": [{\"height\": N, \"hash\": \"0x..\",\n"
    "               \"parent\": \"0x..\",\n"
    "               \"txs\": [{\"hash\": \"0x..\", \"from\": \"0x..\",\n"
    "                        \"to\": \"0x..\", \"value\": \"wei\",\n"
    "                        \"input\": \"0x..\", \"status\": \"0x1\"}]}]}\n"
    "\n"
    "or, for the Bitcoin family (hex without 0x; every raw transaction\n"
    "of each block, coinbase first, as getblock <hash> 2 shows them):\n"
    "\n"
    "  {\"chain\": \"bitcoin\",\n"
    "   \"genesis\": \"<getblockhash 0>\",\n"
    "   \"dealer\": \"<segwit address>\",\n"
    "   \"rules\": {... as above, amounts in satoshis},\n"
    "   \"blocks\": [{\"height\": N, \"hash\": \"..\", \"parent\": \"..\",\n"
    "               \"txs\": [\"<raw transaction hex>\", ...]}]}\n"
    "\n"
    "and prints, one line per block, exactly the block-to-card log lines\n"
    "the dealer daemon writes for those blocks (docs/LOG.md), so that\n"
    "anyone can check a dealer's log:\n"
    "\n"
    "  hashjack replay blocks.json | cmp - card.log\n"
    "\n"
    "The whole document is checked first: on bad input nothing is printed\n"
    "and the error names the field and the value.  Unknown keys are\n"
    "errors.  preset, timeout_blocks, max_exposure (0: no limit) and\n"
    "status are optional.\n"
    "\n"
    "Under \"cards\": \"committed\" in rules, each block a chain is in\n"
    "force at carries the seed the dealer's log reveals for it\n"
    "(\"seed\": 64 lower-case hex digits, no 0x, in both families), and\n"
    "no other block does; each seed must chain (docs/CLI.md).\n"
    "\n"
    "With --state, prints instead the rounds still open after the last\n"
    "block, one JSON object per line (docs/PROTOCOL.md section 14,\n"
    "docs/CLI.md): the cards, the actions a transaction would be accepted\n"
    "for and the value each must carry, the window and timeout blocks,\n"
    "the draws still due, and on the Bitcoin family the seq to sign.  With\n"
    "no round open, nothing is printed there and standard error says so.\n"
    "\n"
    "Options:\n"
    "  --state     print the open rounds' state, not the log\n"
    "  -h, --help  print this help and exit\n"
    "\n"
    "Exit status: 0 ok, 64 usage error, 65 invalid document, 66 cannot\n"
    "open FILE, 70 out of memory, 74 read or write error.\n";

static int usage_error(const char *cmd, const char *msg, const char *arg)
{
	char shown[160];

	if (arg != NULL) {
		hj_quote(arg, shown, sizeof shown);
		fprintf(stderr, PROG ": %s%s%s %s\n", cmd ? cmd : "",
		        cmd ? ": " : "", msg, shown);
	} else {
		fprintf(stderr, PROG ": %s%s%s\n", cmd ? cmd : "",
		        cmd ? ": " : "", msg);
	}
	/* "help" has no help of its own beyond the main text. */
	if (cmd != NULL && strcmp(cmd, "help") == 0)
		cmd = NULL;
	fprintf(stderr, "Try 'hashjack %s%s--help'.\n", cmd ? cmd : "",
	        cmd ? " " : "");
	return EX_USAGE;
}

static int is_help(const char *a)
{
	return strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0;
}

/* The 64 digits of a hash that hj_card_from_hash accepted. */
static const char *digits_of(const char *hash)
{
	return strlen(hash) == HJ_HASH_DIGITS + 2 ? hash + 2 : hash;
}

/*
 * What `card --seed` reads instead of a hash: the HMAC-SHA256 of the
 * hash's 32 bytes keyed with the seed (docs/PROTOCOL.md section 15), both
 * in the log's form (lower case, no "0x").
 */
struct keyed {
	char seed[2 * HJ_SEED_LEN + 1];
	char hmac[65];
};

static int qualifies(char d)
{
	return (d >= '1' && d <= '9') || (d >= 'a' && d <= 'd') ||
	       (d >= 'A' && d <= 'D');
}

static char lower(char d)
{
	return d >= 'A' && d <= 'F' ? (char)(d - 'A' + 'a') : d;
}

static int hexval(char d)
{
	if (d >= '0' && d <= '9')
		return d - '0';
	if (d >= 'a' && d <= 'f')
		return d - 'a' + 10;
	return d - 'A' + 10;
}

static const char *rank_word(unsigned rank)
{
	static const char *const words[] = {
	    "?",     "Ace",   "Two",  "Three", "Four", "Five",  "Six",
	    "Seven", "Eight", "Nine", "Ten",   "Jack", "Queen", "King",
	};

	return rank <= 13 ? words[rank] : "?";
}

/* hash as given; k: the keyed card's seed and HMAC, whose digits c was
 * read from, or NULL (c is the hash's own). */
static void print_card_human(const char *hash, const struct keyed *k,
                             const hj_card *c)
{
	const char *d = k ? k->hmac : digits_of(hash);
	char code[4];

	printf("%s\n", hash);
	if (k) {
		printf("  seed:  %s\n", k->seed);
		printf("  hmac:  %s\n", k->hmac);
		printf(
		    "  note:  the committed card: read from the HMAC's digits, "
		    "not the hash's\n");
	}
	if (c->rank == 0) {
		printf("  void:  no rank digit: every digit after the first is "
		       "0, e or f\n");
		if (qualifies(d[0]))
			printf("  note:  the first digit '%c' would qualify, "
			       "but it has no digit to its left\n",
			       lower(d[0]));
		printf("  so:    the block yields no card; the draw it was due "
		       "for comes from the next block\n");
		return;
	}
	printf(
	    "  card:  %s of %s (%s), value %s\n", rank_word(c->rank),
	    hj_suit_name(c->suit), hj_code_str(hj_code(c->rank, c->suit), code),
	    c->rank == HJ_ACE ? "1 or 11"
	                      : (c->rank >= 10 ? "10" : hj_rank_name(c->rank)));
	printf("  rank:  digit '%c' at position %u -> %s", c->rank_digit,
	       c->pos, rank_word(c->rank));
	if (c->pos == HJ_HASH_DIGITS - 1) {
		printf(" (it is the last digit)\n");
	} else {
		printf(" (skipped to its right:");
		for (int i = HJ_HASH_DIGITS - 1; i > c->pos; i--)
			printf(" '%c' at %d%s", lower(d[i]), i,
			       i > c->pos + 1 ? "," : "");
		printf(")\n");
	}
	printf("  suit:  color digit '%c' at position %u = %d, %d mod 4 = %u "
	       "-> %s\n",
	       c->color_digit, c->pos - 1u, hexval(c->color_digit),
	       hexval(c->color_digit), c->suit, hj_suit_name(c->suit));
}

static void print_card_json(const char *hash, const struct keyed *k,
                            const hj_card *c)
{
	char code[4];

	/* hash passed hj_card_from_hash: hex digits and "0x" only; k holds
	 * hex digits. */
	printf("{\"hash\":\"%s\",", hash);
	if (k)
		printf("\"seed\":\"%s\",\"hmac\":\"%s\",", k->seed, k->hmac);
	if (c->rank == 0) {
		printf("\"void\":true}\n");
		return;
	}
	printf("\"void\":false,\"rank\":\"%s\",\"suit\":\"%s\","
	       "\"value\":%u,\"code\":\"%s\",\"pos\":%u,\"rankDigit\":\"%c\","
	       "\"colorDigit\":\"%c\",\"colorValue\":%d}\n",
	       hj_rank_name(c->rank), hj_suit_name(c->suit),
	       hj_rank_value(c->rank),
	       hj_code_str(hj_code(c->rank, c->suit), code), c->pos,
	       c->rank_digit, c->color_digit, hexval(c->color_digit));
}

/* --seed's value into *seed: 64 hex digits, optionally behind "0x" (as a
 * hash).  EX_OK, or EX_USAGE said with the reason. */
static int parse_seed(const char *arg, uint8_t seed[HJ_SEED_LEN])
{
	char why[HJ_ERRLEN], shown[160], msg[HJ_ERRLEN + 200];

	if (hj_hex_decode_exact(arg, strlen(arg), HJ_HEX_OPTIONAL, seed,
	                        HJ_SEED_LEN, why, sizeof why) == 0)
		return EX_OK;
	hj_quote(arg, shown, sizeof shown);
	snprintf(msg, sizeof msg, "--seed %s: not a seed: %s", shown, why);
	return usage_error("card", msg, NULL);
}

static int cmd_card(int argc, char **argv)
{
	int json = 0, nhash = 0, i, rc = EX_OK;
	int opts = 1;
	const char *seed_arg = NULL;
	uint8_t seed[HJ_SEED_LEN];

	for (i = 0; i < argc; i++) {
		if (opts && strcmp(argv[i], "--") == 0) {
			opts = 0;
		} else if (opts && strcmp(argv[i], "--json") == 0) {
			json = 1;
		} else if (opts && strcmp(argv[i], "--seed") == 0) {
			if (seed_arg != NULL)
				return usage_error("card", "--seed given twice",
				                   NULL);
			if (i + 1 >= argc)
				return usage_error("card", "--seed: no SEED",
				                   NULL);
			seed_arg = argv[++i];
		} else if (opts && is_help(argv[i])) {
			fputs(usage_card, stdout);
			return EX_OK;
		} else if (opts && argv[i][0] == '-' && argv[i][1] != '\0') {
			return usage_error("card", "unknown option", argv[i]);
		} else {
			nhash++;
		}
	}
	if (seed_arg != NULL && (rc = parse_seed(seed_arg, seed)) != EX_OK)
		return rc;
	if (nhash == 0)
		return usage_error("card", "no HASH given", NULL);

	opts = 1;
	for (i = 0; i < argc; i++) {
		const char *h = argv[i];
		char why[HJ_ERRLEN], shown[160];
		uint8_t bytes[32];
		struct keyed k;
		hj_card c;

		if (opts && strcmp(h, "--") == 0) {
			opts = 0;
			continue;
		}
		if (opts && strcmp(h, "--seed") == 0) {
			i++; /* its value, read above */
			continue;
		}
		if (opts && h[0] == '-' && h[1] != '\0')
			continue;
		if (hj_card_from_hash(h, strlen(h), &c, why, sizeof why)) {
			/* Keep stdout and stderr in argument order. */
			fflush(stdout);
			hj_quote(h, shown, sizeof shown);
			fprintf(stderr, PROG ": card: %s: %s\n", shown, why);
			rc = EX_DATAERR;
			continue;
		}
		if (seed_arg != NULL) {
			/* The hash read above: 64 digits, "0x" or not. */
			hj_hex_decode_exact(h, strlen(h), HJ_HEX_OPTIONAL,
			                    bytes, sizeof bytes, NULL, 0);
			hj_hex_encode(seed, HJ_SEED_LEN, 0, k.seed);
			hj_seed_card(seed, bytes, k.hmac, &c);
		}
		if (json)
			print_card_json(h, seed_arg ? &k : NULL, &c);
		else
			print_card_human(h, seed_arg ? &k : NULL, &c);
	}
	return rc;
}

static int cmd_replay(int argc, char **argv)
{
	const char *file = NULL, *name;
	int opts = 1, rc, state = 0;
	size_t nopen = 0;
	uint64_t last = 0;
	FILE *in = stdin;
	char err[HJ_ERRLEN];
	struct stat st;

	for (int i = 0; i < argc; i++) {
		if (opts && strcmp(argv[i], "--") == 0) {
			opts = 0;
		} else if (opts && is_help(argv[i])) {
			fputs(usage_replay, stdout);
			return EX_OK;
		} else if (opts && strcmp(argv[i], "--state") == 0) {
			state = 1;
		} else if (opts && argv[i][0] == '-' && argv[i][1] != '\0') {
			return usage_error("replay", "unknown option", argv[i]);
		} else if (file != NULL) {
			return usage_error("replay",
			                   "more than one FILE:", argv[i]);
		} else {
			file = argv[i];
		}
	}
	if (file == NULL || strcmp(file, "-") == 0) {
		name = "<stdin>";
	} else {
		name = file;
		in = fopen(file, "r");
		if (in == NULL) {
			fprintf(stderr, PROG ": replay: cannot open %s: %s\n",
			        file, strerror(errno));
			return EX_NOINPUT;
		}
		if (fstat(fileno(in), &st) == 0 && S_ISDIR(st.st_mode)) {
			fprintf(stderr, PROG ": replay: cannot open %s: %s\n",
			        file, strerror(EISDIR));
			fclose(in);
			return EX_NOINPUT;
		}
	}
	rc = state ? hjc_replay_state(in, name, stdout, &nopen, &last, err,
	                              sizeof err)
	           : hjc_replay_run(in, name, stdout, err, sizeof err);
	/* Standard output stays the open rounds' lines, none here; a person
	 * must still see that it ran. */
	if (rc == 0 && state && nopen == 0)
		fprintf(stderr,
		        PROG ": replay: no round is open after block %llu\n",
		        (unsigned long long)last);
	if (in != stdin)
		fclose(in);
	switch (rc) {
	case 0:
		return EX_OK;
	case -EINVAL:
	case -EMSGSIZE:
		fprintf(stderr, PROG ": %s\n", err);
		return EX_DATAERR;
	case -EIO:
		fprintf(stderr, PROG ": %s\n", err);
		return EX_IOERR;
	default:
		fprintf(stderr, PROG ": %s\n", err);
		return EX_SOFTWARE;
	}
}

static int cmd_help(int argc, char **argv)
{
	if (argc == 0) {
		fputs(usage_main, stdout);
		return EX_OK;
	}
	if (strcmp(argv[0], "player") == 0)
		return hjc_player_help(argc - 1, argv + 1);
	if (strcmp(argv[0], "ledger") == 0 && argc == 1)
		return hjc_ledger_help();
	if (strcmp(argv[0], "status") == 0 && argc == 1)
		return hjc_status_help();
	if (strcmp(argv[0], "edge") == 0 && argc == 1)
		return hjc_edge_help();
	if (strcmp(argv[0], "serve") == 0 && argc == 1)
		return hjc_serve_help();
	if (strcmp(argv[0], "verify") == 0 && argc == 1)
		return hjc_verify_help();
	if (strcmp(argv[0], "export") == 0 && argc == 1)
		return hjc_export_help();
	if (strcmp(argv[0], "reorg") == 0 && argc == 1)
		return hjc_reorg_help();
	if (argc > 1)
		return usage_error("help", "more than one COMMAND:", argv[1]);
	if (strcmp(argv[0], "card") == 0)
		fputs(usage_card, stdout);
	else if (strcmp(argv[0], "replay") == 0)
		fputs(usage_replay, stdout);
	else if (strcmp(argv[0], "help") == 0)
		fputs(usage_main, stdout);
	else
		return usage_error("help", "unknown command", argv[0]);
	return EX_OK;
}

/*
 * Output goes through stdio, so a full disk or a closed pipe may only show
 * at the final flush: check it, or a truncated output would exit 0.
 */
static int finish(int rc)
{
	if (fflush(stdout) != 0 || ferror(stdout) || fclose(stdout) != 0) {
		fprintf(stderr, PROG ": write error: %s\n", strerror(errno));
		return EX_IOERR;
	}
	return rc;
}

int main(int argc, char **argv)
{
	const char *cmd;
	int rc;

	if (argc < 2)
		return usage_error(NULL, "no COMMAND given", NULL);
	cmd = argv[1];
	if (is_help(cmd) || strcmp(cmd, "help") == 0)
		rc = cmd_help(argc - 2, argv + 2);
	else if (strcmp(cmd, "-V") == 0 || strcmp(cmd, "--version") == 0)
		rc = printf("hashjack %s\n", HJ_VERSION_STRING) < 0 ? EX_IOERR
		                                                    : EX_OK;
	else if (strcmp(cmd, "card") == 0)
		rc = cmd_card(argc - 2, argv + 2);
	else if (strcmp(cmd, "replay") == 0)
		rc = cmd_replay(argc - 2, argv + 2);
	else if (strcmp(cmd, "player") == 0)
		rc = hjc_player_main(argc - 2, argv + 2);
	else if (strcmp(cmd, "ledger") == 0)
		rc = hjc_ledger_main(argc - 2, argv + 2);
	else if (strcmp(cmd, "status") == 0)
		rc = hjc_status_main(argc - 2, argv + 2);
	else if (strcmp(cmd, "edge") == 0)
		rc = hjc_edge_main(argc - 2, argv + 2);
	else if (strcmp(cmd, "serve") == 0)
		rc = hjc_serve_main(argc - 2, argv + 2);
	else if (strcmp(cmd, "verify") == 0)
		rc = hjc_verify_main(argc - 2, argv + 2);
	else if (strcmp(cmd, "export") == 0)
		rc = hjc_export_main(argc - 2, argv + 2);
	else if (strcmp(cmd, "reorg") == 0)
		rc = hjc_reorg_main(argc - 2, argv + 2);
	else if (cmd[0] == '-')
		return usage_error(NULL, "unknown option", cmd);
	else
		return usage_error(NULL, "unknown command", cmd);
	return finish(rc);
}
