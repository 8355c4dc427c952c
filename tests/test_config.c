/*
 * hashjackd's configuration (file, command line, finish) and the systemd
 * notification protocol, each through its API with exact messages.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "bech32.h"
#include "config.h"
#include "node.h"
#include "notify.h"
#include "rules.h"
#include "say.h"

static char tmpdir[256];
static char conf_path[300];

static int group_setup(void **state)
{
	const char *t = getenv("TMPDIR");

	(void)state;
	snprintf(tmpdir, sizeof tmpdir, "%s/hj-config-XXXXXX",
	         t && t[0] ? t : "/tmp");
	if (mkdtemp(tmpdir) == NULL)
		return -1;
	snprintf(conf_path, sizeof conf_path, "%s/hashjackd.conf", tmpdir);
	/* Tests of the defaults must not see the caller's environment. */
	unsetenv("STATE_DIRECTORY");
	unsetenv("NOTIFY_SOCKET");
	unsetenv("WATCHDOG_USEC");
	unsetenv("WATCHDOG_PID");
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	unlink(conf_path);
	return rmdir(tmpdir);
}

static void write_conf(const char *text, size_t len)
{
	FILE *f = fopen(conf_path, "w");

	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

/* Loads text into a fresh config; the caller frees. */
static int load(const char *text, hj_config *c, char *err, size_t n)
{
	write_conf(text, strlen(text));
	hj_config_init(c);
	return hj_config_load(c, conf_path, err, n);
}

static void assert_amount(hj_amount got, hj_amount want)
{
	assert_int_equal((uint64_t)(got >> 64), (uint64_t)(want >> 64));
	assert_int_equal((uint64_t)got, (uint64_t)want);
}

#define ADDR      "0x00000000000000000000000000000000000000aa"
#define ADDR_MIXD "0xAbCdEf0123456789aBcDeF0123456789ABCDEF01"
#define ADDR_LOW  "0xabcdef0123456789abcdef0123456789abcdef01"

/* The least a file must say. */
#define MINIMAL                                                                \
	"[dealer]\naddress = " ADDR "\n[rules]\nmin_bet = 1\nmax_bet = 1000\n"

/* The same on the Bitcoin family (a litecoind regtest address). */
#define BTC_ADDR "rltc1qccvndf7q62nwwp7h9d3j7gmlm2ex0anttw7k40"
#define BTC_MINIMAL                                                            \
	"[chain]\nfamily = bitcoin\ncoin = litecoin\nrpc_cookie_file = /c\n"   \
	"[dealer]\naddress = " BTC_ADDR "\n[rules]\nmin_bet = 1\nmax_bet = "   \
	"1000\n"

static void expect_finish_error(const char *text, const char *arg,
                                const char *want);

/* The Bitcoin family's sweep_to: with a wallet, a P2WPKH or P2TR address
 * of the dealer's network (its program kept, the address in lower case),
 * not another kind, network or the dealer's own. */
static void btc_sweep_to(void)
{
	static const struct {
		const char *hrp;
		int version;
		size_t len;
		const char *want; /* NULL: accepted */
	} cases[] = {
	    {"rltc", 0, 20, NULL},
	    {"rltc", 1, 32, NULL},
	    {"rltc", 0, 32,
	     "not a P2WPKH or P2TR address (witness version 0, "
	     "a program of 32 bytes); give one of those"},
	    {"ltc", 1, 32,
	     "an address of another network (prefix ltc) than "
	     "the dealer's (rltc)"},
	};
	char addr[HJ_BECH32_BUF], up[HJ_BECH32_BUF], text[512], want[512],
	    why[HJ_ERRLEN], err[HJ_ERRLEN];
	uint8_t prog[32];
	hj_config c;

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		memset(prog, (int)(0x11 * (i + 1)), sizeof prog);
		assert_int_equal(
		    hj_segwit_encode(cases[i].hrp, cases[i].version, prog,
		                     cases[i].len, addr, why, sizeof why),
		    0);
		/* As an operator may write it: upper case. */
		for (size_t k = 0; k <= strlen(addr); k++)
			up[k] = (char)toupper((unsigned char)addr[k]);
		snprintf(text, sizeof text,
		         BTC_MINIMAL "[payout]\nwallet = w\nsweep_to = %s\n"
		                     "sweep_margin = 100000\n",
		         up);
		if (cases[i].want) {
			snprintf(want, sizeof want,
			         "[payout] sweep_to = %s: %s", up,
			         cases[i].want);
			expect_finish_error(text, NULL, want);
			continue;
		}
		assert_int_equal(load(text, &c, err, sizeof err), 0);
		if (hj_config_finish(&c, err, sizeof err))
			fail_msg("%s: %s", addr, err);
		assert_int_equal(c.sweep_len, cases[i].len);
		assert_memory_equal(c.sweep_addr, prog, cases[i].len);
		assert_string_equal(c.sweep_text, addr);
		assert_amount(c.sweep_margin, 100000);
		hj_config_free(&c);
	}
	expect_finish_error(BTC_MINIMAL "[payout]\nsweep_to = x\n", NULL,
	                    "[payout] sweep_to = x: no [payout] wallet to send "
	                    "the sweeps");
	expect_finish_error(BTC_MINIMAL "[payout]\nwallet = w\nsweep_to = x\n",
	                    NULL,
	                    "[payout] sweep_to = x: not a segwit address "
	                    "(bech32 or bech32m): no separator character");
	expect_finish_error(
	    BTC_MINIMAL "[payout]\nwallet = w\nsweep_to = " BTC_ADDR "\n", NULL,
	    "[payout] sweep_to = " BTC_ADDR ": the dealer's own "
	    "address (the cold address must be another)");
}

/* ---- the file ---- */

static void test_full_file(void **state)
{
	static const char text[] =
	    "; hashjackd.conf\n"
	    "# every key\n"
	    "[chain]\n"
	    "family = evm\n"
	    "rpc_url = https://node.example:8545/rpc\n"
	    "rpc_user = alice\n"
	    "rpc_password = p;a ss\n"
	    "rpc_timeout_ms = 5000\n"
	    "rpc_max_response = 1048576\n"
	    "confirmations = 3\n"
	    "poll_interval_ms = 250\n"
	    "push = on\n"
	    "push_url = ws://node.example:8546/\n"
	    "batch_blocks = 1000\n"
	    "start_height = 18446744073709551\n"
	    "\n"
	    "[dealer]\n"
	    "address = " ADDR_MIXD "\n"
	    "[rules]\n"
	    "preset = bethash\n"
	    "min_bet = 1000000000000000\n"
	    "max_bet = 1329227995784915872903807060280344576\n" /* 2^120 */
	    "timeout_blocks = 50\n"
	    "[state]\n"
	    "directory = /srv/hj/\n"
	    "card_log = /var/log/hj/cards.jsonl\n"
	    "log_fsync = no ; the kernel flushes\n"
	    "rewind_blocks = 5000\n";
	hj_config c;
	char err[HJ_ERRLEN] = "", rs[256];

	(void)state;
	assert_int_equal(load(text, &c, err, sizeof err), 0);
	assert_string_equal(err, "");
	assert_int_equal(hj_config_finish(&c, err, sizeof err), 0);
	assert_int_equal(c.family, HJ_EVM);
	assert_string_equal(c.rpc_url, "https://node.example:8545/rpc");
	assert_string_equal(c.rpc_user, "alice");
	/* ";" only starts a comment after a blank; a blank inside stays. */
	assert_string_equal(c.rpc_password, "p;a ss");
	assert_null(c.rpc_bearer);
	assert_int_equal(c.rpc_timeout_ms, 5000);
	assert_int_equal(c.rpc_max_response, 1048576);
	assert_int_equal(c.confirmations, 3);
	assert_int_equal(c.poll_interval_ms, 250);
	assert_int_equal(c.push, 1);
	assert_string_equal(c.push_url, "ws://node.example:8546/");
	assert_null(c.push_off_why);
	assert_int_equal(c.batch_blocks, 1000);
	assert_true(c.start_height_set);
	assert_int_equal(c.start_height, 18446744073709551u);
	assert_string_equal(c.dealer.text, ADDR_LOW);
	assert_string_equal(c.rules.preset, "bethash");
	assert_amount(c.rules.min_bet, 1000000000000000u);
	assert_amount(c.rules.max_bet, (hj_amount)1 << 120);
	assert_int_equal(c.rules.timeout_blocks, 50);
	assert_int_equal(c.rules.bj_num, 6);
	assert_int_equal(c.rules.bj_den, 5);
	assert_string_equal(c.state_dir, "/srv/hj/");
	assert_string_equal(c.card_log, "/var/log/hj/cards.jsonl");
	assert_int_equal(c.log_fsync, 0);
	assert_int_equal(c.rewind_blocks, 5000);
	hj_rules_format(&c.rules, rs, sizeof rs);
	assert_string_equal(rs, "preset=bethash min_bet=1000000000000000 "
	                        "max_bet=1329227995784915872903807060280344576 "
	                        "timeout_blocks=50");
	hj_config_free(&c);
}

static void test_defaults(void **state)
{
	hj_config c;
	char err[HJ_ERRLEN] = "", rs[256];

	(void)state;
	assert_int_equal(load(MINIMAL, &c, err, sizeof err), 0);
	assert_int_equal(hj_config_finish(&c, err, sizeof err), 0);
	assert_string_equal(err, "");
	assert_int_equal(c.family, HJ_EVM);
	assert_string_equal(c.rpc_url, "http://127.0.0.1:8545");
	assert_null(c.rpc_user);
	assert_null(c.rpc_password);
	assert_null(c.rpc_bearer);
	assert_int_equal(c.rpc_timeout_ms, 30000);
	assert_int_equal(c.rpc_max_response, 64 * 1024 * 1024);
	assert_int_equal(c.confirmations, 12);
	assert_int_equal(c.poll_interval_ms, 1000);
	assert_int_equal(c.push, 1);
	assert_string_equal(c.push_url, "ws://127.0.0.1:8545");
	assert_null(c.push_off_why);
	assert_int_equal(c.batch_blocks, 100);
	assert_false(c.start_height_set);
	assert_string_equal(c.dealer.text, ADDR);
	assert_string_equal(c.rules.preset, "bethash");
	assert_int_equal(c.rules.timeout_blocks, 100);
	assert_string_equal(c.state_dir, "/var/lib/hashjackd");
	assert_string_equal(c.card_log, "/var/lib/hashjackd/cards.jsonl");
	assert_int_equal(c.log_fsync, 1);
	assert_int_equal(c.rewind_blocks, 1000);
	hj_rules_format(&c.rules, rs, sizeof rs);
	assert_string_equal(
	    rs, "preset=bethash min_bet=1 max_bet=1000 timeout_blocks=100");
	hj_config_free(&c);
}

static void test_syntax_accepted(void **state)
{
	/* Indented keys, CRLF, a BOM, "name: value", booleans' spellings. */
	static const char text[] = "\xef\xbb\xbf[dealer]\r\n"
	                           "   address = " ADDR "\r\n"
	                           "\t; indented comment\r\n"
	                           "[rules]\n"
	                           "\tmin_bet: 5\n"
	                           "max_bet=5\n"
	                           "[state]\n"
	                           "log_fsync = true\n"
	                           "[chain]\n"
	                           "rpc_bearer = abc.def-ghi\n";
	static const char *const yes[] = {"yes", "true", "on", "1"};
	static const char *const no[] = {"no", "false", "off", "0"};
	hj_config c;
	char err[HJ_ERRLEN] = "", arg[64];

	(void)state;
	assert_int_equal(load(text, &c, err, sizeof err), 0);
	assert_string_equal(c.address, ADDR);
	assert_amount(c.rules.min_bet, 5);
	assert_amount(c.rules.max_bet, 5);
	assert_string_equal(c.rpc_bearer, "abc.def-ghi");
	for (size_t i = 0; i < 4; i++) {
		snprintf(arg, sizeof arg, "--state.log_fsync=%s", no[i]);
		assert_int_equal(hj_config_set_arg(&c, arg, err, sizeof err),
		                 0);
		assert_int_equal(c.log_fsync, 0);
		snprintf(arg, sizeof arg, "--state.log_fsync=%s", yes[i]);
		assert_int_equal(hj_config_set_arg(&c, arg, err, sizeof err),
		                 0);
		assert_int_equal(c.log_fsync, 1);
	}
	assert_int_equal(hj_config_finish(&c, err, sizeof err), 0);
	hj_config_free(&c);
}

/* Loads text and checks the exact message "<path>:<line>: <rest>". */
static void expect_error(const char *text, size_t len, int line,
                         const char *rest)
{
	hj_config c;
	char err[HJ_ERRLEN], want[700];

	write_conf(text, len);
	hj_config_init(&c);
	memset(err, 'X', sizeof err);
	assert_int_equal(hj_config_load(&c, conf_path, err, sizeof err),
	                 -EINVAL);
	snprintf(want, sizeof want, "%s:%d: %s", conf_path, line, rest);
	assert_string_equal(err, want);
	hj_config_free(&c);
}

#define ERR(text, line, rest) expect_error(text, sizeof(text) - 1, line, rest)

static void test_structure_errors(void **state)
{
	(void)state;
	ERR("[chain]\n[nope]\n", 2,
	    "[nope]: unknown section (chain, dealer, rules, payout, state, "
	    "serve, metrics)");
	ERR("[ chain ]\n", 1,
	    "[ chain ]: unknown section (chain, dealer, rules, payout, state, "
	    "serve, metrics)");
	ERR("[chain\nfamily = evm\n", 1, "section header without closing ']'");
	ERR("; top\n\nfamily = evm\n", 3,
	    "family: key outside a section ([chain], [dealer], [rules], "
	    "[payout], [state], [serve] or [metrics])");
	ERR("[chain]\nfamilly = evm\n", 2, "[chain] familly: unknown key");
	ERR("[dealer]\nfamily = evm\n", 2, "[dealer] family: unknown key");
	ERR("[chain]\nconfirmations = 3\n# again\n[chain]\nconfirmations = 3\n",
	    5,
	    "[chain] confirmations = 3: duplicate key (first set at line 2)");
	ERR("[chain]\n\nthis line has no equals sign\nfamily = nope\n", 3,
	    "expected [section], key = value or a comment");
	/* An indented line is not a continuation of the value above it. */
	ERR("[chain]\nrpc_user = a\nrpc_password = x\n  y\n", 4,
	    "expected [section], key = value or a comment");
	ERR("[chain]\r\nfamily = evm\r\nfamily = bitcoin\r\n", 3,
	    "[chain] family = bitcoin: duplicate key (first set at line 2)");
	ERR("[chain]\nfamily = e\0vm\n", 2, "NUL byte in line");
	ERR("[chain]\nfamily = e\x01\\\xff\n", 2,
	    "[chain] family = e\\x01\\x5c\\xff: unknown family (evm or "
	    "bitcoin)");
}

static void test_long_lines(void **state)
{
	char text[600], want[128];
	size_t n;

	(void)state;
	/* inih's line buffer: 198 bytes and a newline fit, 199 do not. */
	n = (size_t)snprintf(text, sizeof text, "[chain]\nrpc_url = http://");
	memset(text + n, 'a', 198 - (n - 8));
	n = 8 + 198;
	memcpy(text + n, "\n[nope]\n", 9);
	expect_error(text, strlen(text), 3,
	             "[nope]: unknown section (chain, dealer, rules, payout, "
	             "state, serve, metrics)");
	memcpy(text + n, "a\n", 3);
	snprintf(want, sizeof want, "line longer than 198 bytes");
	expect_error(text, strlen(text), 2, want);
	/* Values are cut in messages. */
	memset(text, 0, sizeof text);
	n = (size_t)snprintf(text, sizeof text, "[chain]\nfamily = ");
	memset(text + n, 'a', 70);
	text[n + 70] = '\n';
	n = (size_t)snprintf(want, sizeof want, "[chain] family = ");
	memset(want + n, 'a', 64);
	snprintf(want + n + 64, sizeof want - n - 64,
	         "...: unknown family (evm or bitcoin)");
	expect_error(text, strlen(text), 2, want);
}

static void test_number_errors(void **state)
{
	(void)state;
	/* confirmations also takes two words (test_finality). */
	ERR("[chain]\nconfirmations = 12a\n", 2,
	    "[chain] confirmations = 12a: neither a number of blocks (1 to "
	    "10000) nor finalized or safe");
	ERR("[chain]\nconfirmations = -1\n", 2,
	    "[chain] confirmations = -1: neither a number of blocks (1 to "
	    "10000) nor finalized or safe");
	ERR("[chain]\nconfirmations = +1\n", 2,
	    "[chain] confirmations = +1: neither a number of blocks (1 to "
	    "10000) nor finalized or safe");
	ERR("[chain]\nconfirmations = 012\n", 2,
	    "[chain] confirmations = 012: not a decimal number (digits only, "
	    "no leading zero)");
	ERR("[chain]\nconfirmations =\n", 2,
	    "[chain] confirmations = : neither a number of blocks (1 to "
	    "10000) nor finalized or safe");
	ERR("[chain]\nconfirmations = 0\n", 2,
	    "[chain] confirmations = 0: out of range: must be 1 to 10000");
	ERR("[chain]\nconfirmations = 18446744073709551616\n", 2,
	    "[chain] confirmations = 18446744073709551616: out of range: must "
	    "be 1 to 10000");
	ERR("[chain]\npoll_interval_ms = 9\n", 2,
	    "[chain] poll_interval_ms = 9: out of range: must be 10 to "
	    "3600000");
	ERR("[chain]\nbatch_blocks = 0\n", 2,
	    "[chain] batch_blocks = 0: out of range: must be 1 to 1000");
	ERR("[chain]\nbatch_blocks = 1001\n", 2,
	    "[chain] batch_blocks = 1001: out of range: must be 1 to 1000");
	ERR("[chain]\nrpc_timeout_ms = 99\n", 2,
	    "[chain] rpc_timeout_ms = 99: out of range: must be 100 to "
	    "3600000");
	ERR("[chain]\nrpc_max_response = 4095\n", 2,
	    "[chain] rpc_max_response = 4095: out of range: must be 4096 to "
	    "1073741824");
	ERR("[chain]\nstart_height = 9223372036854775808\n", 2,
	    "[chain] start_height = 9223372036854775808: out of range: must be "
	    "0 to 9223372036854775807");
	ERR("[rules]\ntimeout_blocks = 0\n", 2,
	    "[rules] timeout_blocks = 0: out of range: must be 1 to 1000000");
	ERR("[rules]\nmin_bet = 0\n", 2,
	    "[rules] min_bet = 0: out of range: must be 1 to 2^120");
	ERR("[rules]\nmax_bet = 1329227995784915872903807060280344577\n", 2,
	    "[rules] max_bet = 1329227995784915872903807060280344577: out of "
	    "range: must be 1 to 2^120");
	ERR("[rules]\nmax_bet = 340282366920938463463374607431768211456\n", 2,
	    "[rules] max_bet = 340282366920938463463374607431768211456: out of "
	    "range: must be 1 to 2^120");
	ERR("[rules]\nmin_bet = 1.5\n", 2,
	    "[rules] min_bet = 1.5: not a decimal amount in base units (digits "
	    "only, no leading zero)");
	ERR("[rules]\nmin_bet = 01\n", 2,
	    "[rules] min_bet = 01: not a decimal amount in base units (digits "
	    "only, no leading zero)");
}

static void test_value_errors(void **state)
{
	(void)state;
	ERR("[chain]\nfamily = EVM\n", 2,
	    "[chain] family = EVM: unknown family (evm or bitcoin)");
	ERR("[chain]\nrpc_url = 127.0.0.1:8545\n", 2,
	    "[chain] rpc_url = 127.0.0.1:8545: must begin with http:// or "
	    "https://");
	ERR("[chain]\nrpc_url = \"http://x\"\n", 2,
	    "[chain] rpc_url = \"http://x\": must begin with http:// or "
	    "https://");
	ERR("[chain]\nrpc_url = http://a b\n", 2,
	    "[chain] rpc_url = http://a b: blank or control character in URL");
	/* A URL's user information is a secret too. */
	ERR("[chain]\nrpc_url = https://u:pw@node/x y\n", 2,
	    "[chain] rpc_url = https://***@node/x y: blank or control "
	    "character "
	    "in URL");
	ERR("[chain]\nrpc_url = ftp://u:pw@node/\n", 2,
	    "[chain] rpc_url = ftp://***@node/: must begin with http:// or "
	    "https://");
	ERR("[chain]\nrpc_user = a:b\n", 2,
	    "[chain] rpc_user = a:b: a user name cannot contain ':'");
	ERR("[state]\nlog_fsync = maybe\n", 2,
	    "[state] log_fsync = maybe: not a boolean (yes or no)");
	ERR("[state]\nlog_fsync = YES\n", 2,
	    "[state] log_fsync = YES: not a boolean (yes or no)");
	ERR("[state]\ndirectory = var/lib/x\n", 2,
	    "[state] directory = var/lib/x: must be an absolute path");
	ERR("[state]\ncard_log =\n", 2, "[state] card_log = : empty value");
	ERR("[rules]\npreset = vegas\n", 2,
	    "[rules] preset = vegas: unknown preset (bethash, annakai, "
	    "cryptogames)");
	ERR("[dealer]\naddress = 00000000000000000000000000000000000000aa\n", 2,
	    "[dealer] address = 00000000000000000000000000000000000000aa: not "
	    "an EVM address (0x and 40 hex digits)");
	ERR("[dealer]\naddress = 0x00000000000000000000000000000000000000a\n",
	    2,
	    "[dealer] address = 0x00000000000000000000000000000000000000a: not "
	    "an EVM address (0x and 40 hex digits)");
	ERR("[dealer]\naddress = 0x00000000000000000000000000000000000000aaa\n",
	    2,
	    "[dealer] address = 0x00000000000000000000000000000000000000aaa: "
	    "not an EVM address (0x and 40 hex digits)");
	ERR("[dealer]\naddress = 0x00000000000000000000000000000000000000ag\n",
	    2,
	    "[dealer] address = 0x00000000000000000000000000000000000000ag: "
	    "not an EVM address (0x and 40 hex digits)");
	ERR("[dealer]\naddress = 0X00000000000000000000000000000000000000aa\n",
	    2,
	    "[dealer] address = 0X00000000000000000000000000000000000000aa: "
	    "not an EVM address (0x and 40 hex digits)");
}

static void test_pair_errors(void **state)
{
	(void)state;
	ERR("[rules]\nmin_bet = 10\nmax_bet = 5\n", 3,
	    "[rules] max_bet = 5: below min_bet 10 (line 2)");
	ERR("[rules]\nmax_bet = 5\n\nmin_bet = 10\n", 4,
	    "[rules] min_bet = 10: above max_bet 5 (line 2)");
	ERR("[chain]\nrpc_user = alice\n", 2,
	    "[chain] rpc_user = alice: rpc_password is not set");
	ERR("[chain]\nrpc_password = hunter2\n", 2,
	    "[chain] rpc_password = ***: rpc_user is not set");
	ERR("[chain]\nrpc_user = alice\nrpc_password = hunter2\n"
	    "rpc_bearer = tok\n",
	    4,
	    "[chain] rpc_bearer = ***: rpc_user is set too (line 2); use basic "
	    "auth or a bearer token, not both");
	ERR("[chain]\nrpc_bearer = tok\nrpc_password = hunter2\n"
	    "rpc_user = alice\n",
	    4,
	    "[chain] rpc_user = alice: rpc_bearer is set too (line 2); use "
	    "basic auth or a bearer token, not both");
}

static void test_first_error_wins(void **state)
{
	(void)state;
	/* inih's syntax error comes before the handler's. */
	ERR("[chain]\njunk\nconfirmations = 0\n", 2,
	    "expected [section], key = value or a comment");
	/* The handler's comes before a later syntax error. */
	ERR("[chain]\nconfirmations = 0\njunk\n", 2,
	    "[chain] confirmations = 0: out of range: must be 1 to 10000");
	/* A section error stops the reading. */
	ERR("[chain]\n[bad]\njunk\n", 2,
	    "[bad]: unknown section (chain, dealer, rules, payout, state, "
	    "serve, metrics)");
}

static void test_missing_file(void **state)
{
	hj_config c;
	char err[HJ_ERRLEN], path[400], want[512];

	(void)state;
	snprintf(path, sizeof path, "%s/missing.conf", tmpdir);
	hj_config_init(&c);
	assert_int_equal(hj_config_load(&c, path, err, sizeof err), -ENOENT);
	snprintf(want, sizeof want, "%s: No such file or directory", path);
	assert_string_equal(err, want);
	/* A directory is not a file. */
	assert_int_equal(hj_config_load(&c, tmpdir, err, sizeof err), -EISDIR);
	snprintf(want, sizeof want, "%s: Is a directory", tmpdir);
	assert_string_equal(err, want);
	hj_config_free(&c);
}

/* The text form: what the file form reads, from memory, under a name. */
static void test_load_text(void **state)
{
	static const char nul[] = "[chain]\nfamily = e\0vm\n";
	const size_t big = 1024 * 1024 + 1;
	char err[HJ_ERRLEN], want[512];
	char *text = malloc(big);
	hj_config c;

	(void)state;
	assert_non_null(text);
	hj_config_init(&c);
	assert_int_equal(hj_config_load_text(&c, "mem.conf", MINIMAL,
	                                     strlen(MINIMAL), err, sizeof err),
	                 0);
	assert_string_equal(err, "");
	assert_int_equal(hj_config_finish(&c, err, sizeof err), 0);
	assert_string_equal(c.dealer.text, ADDR);
	hj_config_free(&c);
	/* Not a C string: the length counts, a NUL inside too. */
	hj_config_init(&c);
	assert_int_equal(hj_config_load_text(&c, "mem.conf", nul,
	                                     sizeof nul - 1, err, sizeof err),
	                 -EINVAL);
	assert_string_equal(err, "mem.conf:2: NUL byte in line");
	hj_config_free(&c);
	/* 1 MiB is the most, from memory as from a file. */
	memset(text, '\n', big);
	memcpy(text, "[chain]\n", 8);
	hj_config_init(&c);
	assert_int_equal(
	    hj_config_load_text(&c, "mem.conf", text, big - 1, err, sizeof err),
	    0);
	assert_int_equal(
	    hj_config_load_text(&c, "mem.conf", text, big, err, sizeof err),
	    -EINVAL);
	assert_string_equal(err, "mem.conf: larger than 1048576 bytes");
	write_conf(text, big);
	assert_int_equal(hj_config_load(&c, conf_path, err, sizeof err),
	                 -EINVAL);
	snprintf(want, sizeof want, "%s: larger than 1048576 bytes", conf_path);
	assert_string_equal(err, want);
	hj_config_free(&c);
	free(text);
}

/* ---- the command line ---- */

static void test_overrides(void **state)
{
	hj_config c;
	char err[HJ_ERRLEN] = "";

	(void)state;
	assert_int_equal(load("[chain]\nconfirmations = 3\nrpc_user = a\n"
	                      "rpc_password = b\n" MINIMAL,
	                      &c, err, sizeof err),
	                 0);
	assert_int_equal(
	    hj_config_set_arg(&c, "--chain.confirmations=7", err, sizeof err),
	    0);
	/* Without the dashes too. */
	assert_int_equal(
	    hj_config_set_arg(&c, "rules.max_bet=2000", err, sizeof err), 0);
	assert_int_equal(hj_config_set_arg(&c, "--dealer.address=" ADDR_MIXD,
	                                   err, sizeof err),
	                 0);
	/* An empty value clears the credentials the file set. */
	assert_int_equal(
	    hj_config_set_arg(&c, "--chain.rpc_user=", err, sizeof err), 0);
	assert_int_equal(
	    hj_config_set_arg(&c, "--chain.rpc_password=", err, sizeof err), 0);
	assert_int_equal(
	    hj_config_set_arg(&c, "--chain.rpc_bearer=t0k", err, sizeof err),
	    0);
	assert_int_equal(
	    hj_config_set_arg(&c, "--chain.start_height=5", err, sizeof err),
	    0);
	assert_int_equal(
	    hj_config_set_arg(&c, "--chain.start_height=", err, sizeof err), 0);
	assert_int_equal(
	    hj_config_set_arg(&c, "--state.directory=/d", err, sizeof err), 0);
	/* A value may hold '=' and '.'. */
	assert_int_equal(hj_config_set_arg(&c,
	                                   "--chain.rpc_url=http://h/a.b?c=d",
	                                   err, sizeof err),
	                 0);
	assert_int_equal(hj_config_finish(&c, err, sizeof err), 0);
	assert_string_equal(err, "");
	assert_int_equal(c.confirmations, 7);
	assert_amount(c.rules.max_bet, 2000);
	assert_string_equal(c.dealer.text, ADDR_LOW);
	assert_null(c.rpc_user);
	assert_null(c.rpc_password);
	assert_string_equal(c.rpc_bearer, "t0k");
	assert_false(c.start_height_set);
	assert_string_equal(c.rpc_url, "http://h/a.b?c=d");
	assert_string_equal(c.card_log, "/d/cards.jsonl");
	hj_config_free(&c);
}

static void expect_arg_error(const char *arg, const char *want)
{
	hj_config c;
	char err[HJ_ERRLEN];

	hj_config_init(&c);
	memset(err, 'X', sizeof err);
	assert_int_equal(hj_config_set_arg(&c, arg, err, sizeof err), -EINVAL);
	assert_string_equal(err, want);
	hj_config_free(&c);
}

static void test_arg_errors(void **state)
{
	(void)state;
	expect_arg_error("--chain.confirmations=0",
	                 "command line: --chain.confirmations=0: out of range: "
	                 "must be 1 to 10000");
	expect_arg_error("chain.confirmations=x",
	                 "command line: --chain.confirmations=x: neither a "
	                 "number of blocks (1 to 10000) nor finalized or "
	                 "safe");
	expect_arg_error("--chain.confirmations",
	                 "command line: --chain.confirmations: expected "
	                 "--section.key=value");
	expect_arg_error("--confirmations=3", "command line: --confirmations: "
	                                      "expected --section.key=value");
	expect_arg_error("--chain.nope=3",
	                 "command line: --chain.nope: unknown key");
	expect_arg_error("--nope.family=evm",
	                 "command line: --nope.family: unknown section");
	expect_arg_error("--state.log_fsync=2", "command line: "
	                                        "--state.log_fsync=2: not a "
	                                        "boolean (yes or no)");
	expect_arg_error("--dealer.address=0x1",
	                 "command line: --dealer.address=0x1: not an EVM "
	                 "address (0x and 40 hex digits)");
	expect_arg_error("--rules.preset=",
	                 "command line: --rules.preset=: "
	                 "unknown preset (bethash, annakai, cryptogames)");
}

/* ---- secrets ---- */

#define SECRET "s3cr3t-XYZ"

static void test_secrets_never_printed(void **state)
{
	static const char *const files[] = {
	    "[chain]\nrpc_password = " SECRET "\n",
	    "[chain]\nrpc_user = u\nrpc_password = " SECRET
	    "\nrpc_bearer = x\n",
	    "[chain]\nrpc_bearer = " SECRET "\nrpc_user = u\n",
	    "[chain]\nrpc_bearer = " SECRET "\nrpc_password = " SECRET "\n",
	    "[chain]\nrpc_bearer = " SECRET " x\n",
	    "[chain]\nrpc_password = " SECRET "\nrpc_password = " SECRET "\n",
	    "[chain]\nrpc_bearer = " SECRET "\nrpc_bearer = " SECRET "\n",
	    "[dealer]\nrpc_password = " SECRET "\n",
	};
	static const char *const args[] = {
	    "--chain.rpc_bearer=" SECRET " x",
	    "--chain.rpc_bearer=" SECRET "\x01",
	};
	hj_config c;
	char err[HJ_ERRLEN];

	(void)state;
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		err[0] = '\0';
		assert_int_equal(load(files[i], &c, err, sizeof err), -EINVAL);
		assert_true(strlen(err) > 0);
		assert_null(strstr(err, SECRET));
		hj_config_free(&c);
	}
	for (size_t i = 0; i < sizeof args / sizeof args[0]; i++) {
		hj_config_init(&c);
		err[0] = '\0';
		assert_int_equal(
		    hj_config_set_arg(&c, args[i], err, sizeof err), -EINVAL);
		assert_null(strstr(err, SECRET));
		hj_config_free(&c);
	}
	expect_arg_error("--chain.rpc_bearer=" SECRET " x",
	                 "command line: --chain.rpc_bearer=***: blank or "
	                 "control character in token");
	/* finish() too. */
	assert_int_equal(load(MINIMAL, &c, err, sizeof err), 0);
	assert_int_equal(hj_config_set_arg(&c, "chain.rpc_password=" SECRET,
	                                   err, sizeof err),
	                 0);
	assert_int_equal(hj_config_finish(&c, err, sizeof err), -EINVAL);
	assert_string_equal(err,
	                    "[chain] rpc_password = ***: rpc_user is not set");
	hj_config_free(&c);
}

/* ---- finish ---- */

static void expect_finish_error(const char *text, const char *arg,
                                const char *want)
{
	hj_config c;
	char err[HJ_ERRLEN];

	assert_int_equal(load(text, &c, err, sizeof err), 0);
	if (arg)
		assert_int_equal(hj_config_set_arg(&c, arg, err, sizeof err),
		                 0);
	memset(err, 'X', sizeof err);
	assert_int_equal(hj_config_finish(&c, err, sizeof err), -EINVAL);
	assert_string_equal(err, want);
	hj_config_free(&c);
}

static void test_finish_errors(void **state)
{
	(void)state;
	expect_finish_error("[rules]\nmin_bet = 1\nmax_bet = 2\n", NULL,
	                    "[dealer] address: required (the address players "
	                    "send their actions to)");
	expect_finish_error("[dealer]\naddress = " ADDR "\n[rules]\n"
	                    "max_bet = 2\n",
	                    NULL, "[rules] min_bet: required");
	expect_finish_error("[dealer]\naddress = " ADDR "\n[rules]\n"
	                    "min_bet = 2\n",
	                    NULL, "[rules] max_bet: required");
	expect_finish_error(MINIMAL, "--rules.min_bet=1001",
	                    "[rules] max_bet = 1000: below min_bet 1001");
	expect_finish_error(MINIMAL, "--chain.rpc_user=bob",
	                    "[chain] rpc_user = bob: rpc_password is not set");
	expect_finish_error(
	    "[chain]\nrpc_bearer = t\n" MINIMAL, "--chain.rpc_user=bob",
	    "[chain] rpc_bearer = ***: rpc_user is set too; use "
	    "basic auth or a bearer token, not both");
	expect_finish_error("[chain]\nfamily = bitcoin\n" MINIMAL, NULL,
	                    "[chain] coin: required with family = bitcoin "
	                    "(bitcoin or litecoin: with the node's network "
	                    "it gives the address prefix)");
	expect_finish_error(MINIMAL, "--chain.coin=litecoin",
	                    "[chain] coin = litecoin: only for family = "
	                    "bitcoin");
	expect_finish_error(
	    "[chain]\nfamily = bitcoin\ncoin = litecoin\n" MINIMAL, NULL,
	    "[dealer] address = " ADDR ": not a segwit "
	    "address (bech32 or bech32m): no separator "
	    "character");
	expect_finish_error(
	    BTC_MINIMAL,
	    "--dealer.address=tc1qw508d6qejxtdg4y5r3"
	    "zarvary0c5xw7kg3g4ty",
	    "[dealer] address = tc1qw508d6qejxtdg4y5r3zarvary0c"
	    "5xw7kg3g4ty: unknown address prefix \"tc\" (known: "
	    "bc, tb, bcrt, ltc, tltc, rltc)");
	expect_finish_error(BTC_MINIMAL, "--rules.max_bet=18446744073709551616",
	                    "[rules] max_bet = 18446744073709551616: above "
	                    "2^64 - 1, the largest output value on the "
	                    "Bitcoin family");
	expect_finish_error(BTC_MINIMAL, "--chain.rpc_user=u",
	                    "[chain] rpc_cookie_file = /c: rpc_user or "
	                    "rpc_bearer is set too; use one way to "
	                    "authenticate");
	/* The cookie file's path is shown as every value is: printable,
	 * and cut when long (fuzz_config's finding). */
	expect_finish_error("[chain]\nfamily = bitcoin\ncoin = litecoin\n"
	                    "rpc_cookie_file = /c\x1b[31m\xbd\n"
	                    "[dealer]\naddress = " BTC_ADDR "\n"
	                    "[rules]\nmin_bet = 1\nmax_bet = 2\n",
	                    "--chain.rpc_bearer=t",
	                    "[chain] rpc_cookie_file = /c\\x1b[31m\\xbd: "
	                    "rpc_user or rpc_bearer is set too; use one way "
	                    "to authenticate");
	expect_finish_error(
	    BTC_MINIMAL "[chain]\nrpc_bearer = t\n",
	    "--chain.rpc_cookie_file=/"
	    "012345678901234567890123456789012345678901234567890123456789"
	    "0123456789",
	    "[chain] rpc_cookie_file = /"
	    "012345678901234567890123456789012345678901234567890123456789"
	    "012...: rpc_user or rpc_bearer is set too; use one way to "
	    "authenticate");
	/* Parsed under bitcoin, checked again under evm. */
	expect_finish_error(
	    "[chain]\nfamily = bitcoin\n[dealer]\naddress = "
	    "bc1qxyz\n[rules]\nmin_bet = 1\nmax_bet = 2\n",
	    "--chain.family=evm",
	    "[dealer] address = bc1qxyz: not an EVM address (0x "
	    "and 40 hex digits)");
}

/* confirmations = finalized or safe: the node's own final block (EVM
 * only), either way round with a number; 0 confirmations then, never
 * the family's default. */
static void test_finality(void **state)
{
	hj_config c;
	char err[HJ_ERRLEN] = "";

	(void)state;
	assert_int_equal(load("[chain]\nconfirmations = finalized\n" MINIMAL,
	                      &c, err, sizeof err),
	                 0);
	assert_int_equal(hj_config_finish(&c, err, sizeof err), 0);
	assert_int_equal(c.finality, HJ_FINALITY_FINALIZED);
	assert_int_equal(c.confirmations, 0);
	assert_string_equal(hj_finality_name(c.finality), "finalized");
	/* A node whose finalized block is its tip gives the word no meaning
	 * (ganache); block 0, a chain's only block, and a block below the
	 * tip (anvil, a real chain) are no sign of it. */
	assert_int_equal(hj_config_final_warning(&c, 12, 12, err, sizeof err),
	                 1);
	assert_string_equal(
	    err, "[chain] confirmations = finalized: the node says its "
	         "\"finalized\" block is its tip (block 12, tip 12), so the "
	         "word means nothing here: every block is dealt as soon as it "
	         "is mined, and a reorganisation of the tip stops the daemon "
	         "(exit 3); give a number of confirmations instead "
	         "(docs/OPERATION.md, \"Finality\")");
	assert_int_equal(hj_config_final_warning(&c, 0, 0, err, sizeof err), 0);
	assert_string_equal(err, "");
	assert_int_equal(hj_config_final_warning(&c, 12, 11, err, sizeof err),
	                 0);
	assert_int_equal(hj_config_final_warning(&c, 100, 36, err, sizeof err),
	                 0);
	assert_string_equal(err, "");
	/* With committed cards, each seed would be revealed at the tip. */
	c.rules.cards = HJ_CARDS_COMMITTED;
	assert_int_equal(hj_config_final_warning(&c, UINT64_MAX, UINT64_MAX,
	                                         err, sizeof err),
	                 1);
	assert_non_null(strstr(err, "(block 18446744073709551615, tip "
	                            "18446744073709551615), so the word means "
	                            "nothing here: every block is dealt, and "
	                            "its seed revealed, as soon as it is "
	                            "mined"));
	hj_config_free(&c);

	assert_int_equal(load("[chain]\nconfirmations = safe\n" MINIMAL, &c,
	                      err, sizeof err),
	                 0);
	assert_int_equal(hj_config_finish(&c, err, sizeof err), 0);
	assert_int_equal(c.finality, HJ_FINALITY_SAFE);
	assert_int_equal(c.confirmations, 0);
	assert_string_equal(hj_finality_name(c.finality), "safe");
	assert_int_equal(hj_config_final_warning(&c, 7, 7, err, sizeof err), 1);
	assert_non_null(strstr(err, "[chain] confirmations = safe: the node "
	                            "says its \"safe\" block is its tip "
	                            "(block 7, tip 7)"));
	hj_config_free(&c);

	/* A number after a word, a word after a number: the last says. */
	assert_int_equal(load("[chain]\nconfirmations = safe\n" MINIMAL, &c,
	                      err, sizeof err),
	                 0);
	assert_int_equal(
	    hj_config_set_arg(&c, "--chain.confirmations=3", err, sizeof err),
	    0);
	assert_int_equal(hj_config_finish(&c, err, sizeof err), 0);
	assert_int_equal(c.finality, HJ_FINALITY_DEPTH);
	assert_int_equal(c.confirmations, 3);
	assert_null(hj_finality_name(c.finality));
	/* A number of confirmations asks no tag: nothing to say. */
	assert_int_equal(hj_config_final_warning(&c, 7, 7, err, sizeof err), 0);
	assert_string_equal(err, "");
	hj_config_free(&c);
	assert_int_equal(
	    load("[chain]\nconfirmations = 3\n" MINIMAL, &c, err, sizeof err),
	    0);
	assert_int_equal(hj_config_set_arg(&c, "chain.confirmations=finalized",
	                                   err, sizeof err),
	                 0);
	assert_int_equal(hj_config_finish(&c, err, sizeof err), 0);
	assert_int_equal(c.finality, HJ_FINALITY_FINALIZED);
	assert_int_equal(c.confirmations, 0);
	hj_config_free(&c);

	/* Only these two words, as written. */
	ERR("[chain]\nconfirmations = Finalized\n", 2,
	    "[chain] confirmations = Finalized: neither a number of blocks (1 "
	    "to 10000) nor finalized or safe");
	ERR("[chain]\nconfirmations = finalised\n", 2,
	    "[chain] confirmations = finalised: neither a number of blocks (1 "
	    "to 10000) nor finalized or safe");
	ERR("[chain]\nconfirmations = latest\n", 2,
	    "[chain] confirmations = latest: neither a number of blocks (1 to "
	    "10000) nor finalized or safe");
	ERR("[chain]\nconfirmations = safe 3\n", 2,
	    "[chain] confirmations = safe 3: neither a number of blocks (1 to "
	    "10000) nor finalized or safe");
	expect_arg_error("--chain.confirmations=SAFE",
	                 "command line: --chain.confirmations=SAFE: neither a "
	                 "number of blocks (1 to 10000) nor finalized or "
	                 "safe");

	/* The Bitcoin family has neither block, whichever comes last. */
	expect_finish_error(BTC_MINIMAL "[chain]\nconfirmations = finalized\n",
	                    NULL,
	                    "[chain] confirmations = finalized: only for "
	                    "family = evm (the Bitcoin family has no finalized "
	                    "or safe block: give a number of blocks)");
	expect_finish_error(BTC_MINIMAL, "--chain.confirmations=safe",
	                    "[chain] confirmations = safe: only for family = "
	                    "evm (the Bitcoin family has no finalized or safe "
	                    "block: give a number of blocks)");
	expect_finish_error("[chain]\nconfirmations = safe\n" BTC_MINIMAL, NULL,
	                    "[chain] confirmations = safe: only for family = "
	                    "evm (the Bitcoin family has no finalized or safe "
	                    "block: give a number of blocks)");
	/* A number there still gets the family's default when unset. */
	assert_int_equal(load(BTC_MINIMAL "[chain]\nconfirmations = safe\n", &c,
	                      err, sizeof err),
	                 0);
	assert_int_equal(
	    hj_config_set_arg(&c, "--chain.confirmations=2", err, sizeof err),
	    0);
	assert_int_equal(hj_config_finish(&c, err, sizeof err), 0);
	assert_int_equal(c.finality, HJ_FINALITY_DEPTH);
	assert_int_equal(c.confirmations, 2);
	hj_config_free(&c);
}

/* The Bitcoin family's defaults follow the coin. */
/* [chain] push and push_url: the defaults each family derives, what
 * turns push off, what is refused. */
static void push_is(const char *text, const char *arg, int push,
                    const char *url, int why)
{
	hj_config c;
	char err[HJ_ERRLEN] = "";

	assert_int_equal(load(text, &c, err, sizeof err), 0);
	if (arg)
		assert_int_equal(hj_config_set_arg(&c, arg, err, sizeof err),
		                 0);
	assert_int_equal(hj_config_finish(&c, err, sizeof err), 0);
	assert_int_equal(c.push, push);
	if (url)
		assert_string_equal(c.push_url, url);
	else
		assert_null(c.push_url);
	assert_int_equal(c.push_off_why != NULL, why);
	hj_config_free(&c);
}

static void test_push(void **state)
{
	(void)state;
	/* EVM: rpc_url as ws://, path and all. */
	push_is(MINIMAL "[chain]\nrpc_url = http://10.0.0.7:8545/rpc?x=1\n",
	        NULL, 1, "ws://10.0.0.7:8545/rpc?x=1", 0);
	push_is(MINIMAL, "--chain.push_url=ws://[::1]:8546", 1,
	        "ws://[::1]:8546", 0);
	push_is(MINIMAL, "--chain.push=off", 0, NULL, 0);
	push_is(MINIMAL "[chain]\npush = no\npush_url = wss://x/\n", NULL, 0,
	        "wss://x/", 0);
	/* https:// gives wss://, path and all (a key in the path too). */
	push_is(MINIMAL "[chain]\nrpc_url = https://node.example/v2/KEY\n",
	        NULL, 1, "wss://node.example/v2/KEY", 0);
	push_is(MINIMAL "[chain]\nrpc_url = https://[::1]:8443\n", NULL, 1,
	        "wss://[::1]:8443", 0);
	push_is(MINIMAL "[chain]\npush_url = wss://node:8546/ws\n", NULL, 1,
	        "wss://node:8546/ws", 0);
	/* No WebSocket URL from credentials: push off, said why. */
	push_is(MINIMAL "[chain]\nrpc_url = http://u:p@node.example/\n", NULL,
	        0, NULL, 1);
	push_is(MINIMAL "[chain]\nrpc_url = https://u:p@node.example/\n", NULL,
	        0, NULL, 1);
	/* ... unless push_url says where. */
	push_is(MINIMAL "[chain]\nrpc_url = https://u:p@node.example/\n",
	        "--chain.push_url=ws://127.0.0.1:8546", 1,
	        "ws://127.0.0.1:8546", 0);
	push_is(MINIMAL "[chain]\nrpc_url = https://node.example/\n",
	        "--chain.push_url=ws://127.0.0.1:8546", 1,
	        "ws://127.0.0.1:8546", 0);
	/* Empty: back to the default. */
	push_is(MINIMAL "[chain]\npush_url = ws://x/\n", "--chain.push_url=", 1,
	        "ws://127.0.0.1:8545", 0);
	/* The Bitcoin family: rpc_url, or another http(s):// URL. */
	push_is(BTC_MINIMAL, NULL, 1, "http://127.0.0.1:9332", 0);
	push_is(BTC_MINIMAL, "--chain.push_url=https://u:p@node/x", 1,
	        "https://u:p@node/x", 0);
	push_is(BTC_MINIMAL "[chain]\nrpc_url = https://node/\n", NULL, 1,
	        "https://node/", 0);

	expect_finish_error(MINIMAL, "--chain.push_url=http://node:8546",
	                    "[chain] push_url = http://node:8546: must begin "
	                    "with ws:// or wss:// (the node's WebSocket)");
	expect_finish_error(MINIMAL, "--chain.push_url=ws://u:secret@node/",
	                    "[chain] push_url = ws://***@node/: no user or "
	                    "password here: the WebSocket is opened without "
	                    "credentials");
	expect_finish_error(MINIMAL, "--chain.push_url=wss://u:secret@node/",
	                    "[chain] push_url = wss://***@node/: no user or "
	                    "password here: the WebSocket is opened without "
	                    "credentials");
	expect_finish_error(BTC_MINIMAL, "--chain.push_url=ws://node/",
	                    "[chain] push_url = ws://node/: with family = "
	                    "bitcoin, the node's JSON-RPC URL for the long "
	                    "poll (http:// or https://)");
	ERR("[chain]\npush = maybe\n", 2,
	    "[chain] push = maybe: not a boolean (yes or no)");
	ERR("[chain]\npush_url = ws://a b/\n", 2,
	    "[chain] push_url = ws://a b/: blank or control character in URL");
	ERR("[chain]\npush_url = ws://u:pw@a\x01/\n", 2,
	    "[chain] push_url = ws://***@a\\x01/: blank or control "
	    "character in URL");
}

/* A self-signed CA certificate (openssl req -x509 -newkey ec), for
 * [chain] ca_file: the key reads it, nothing here connects. */
static const char ca_pem[] =
    "-----BEGIN CERTIFICATE-----\n"
    "MIIBjjCCATOgAwIBAgIUWt+Jv4cRrf12J8hbKvjKpykX24EwCgYIKoZIzj0EAwIw\n"
    "GzEZMBcGA1UEAwwQaGFzaGphY2stdGVzdC1jYTAgFw0yNjEyMDIxMzAwNThaGA8y\n"
    "MTI2MTEwODEzMDA1OFowGzEZMBcGA1UEAwwQaGFzaGphY2stdGVzdC1jYTBZMBMG\n"
    "ByqGSM49AgEGCCqGSM49AwEHA0IABDnC2+TO6c46zTtM74PNp5TvDFxzct4L2mlm\n"
    "JBSFMIKWbaMLPYmdP0CYTCqqi5rss2FoyIE1Bs5O2bPjNP8pasajUzBRMB0GA1Ud\n"
    "DgQWBBRjwWgzahF6YxRM3byLOv2ViC7XQzAfBgNVHSMEGDAWgBRjwWgzahF6YxRM\n"
    "3byLOv2ViC7XQzAPBgNVHRMBAf8EBTADAQH/MAoGCCqGSM49BAMCA0kAMEYCIQCx\n"
    "qmjw1QkXBv3GG+Mr3055B5JOC046wKnNx9fgmHiVaAIhAM3hUxtuCTzjHlgUxJnr\n"
    "9qGOqwnqUJIcSavOY4+4VwX7\n"
    "-----END CERTIFICATE-----\n";

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, strlen(text), f), strlen(text));
	assert_int_equal(fclose(f), 0);
}

/* The error of "[chain]\nca_file = PATH\n", line 2: "[chain] ca_file =
 * PATH: " and the reason, which begins with why. */
static void ca_file_error(const char *path, const char *why)
{
	char text[600], want[700], err[HJ_ERRLEN];
	hj_config c;
	int n = snprintf(text, sizeof text, "[chain]\nca_file = %s\n", path);

	write_conf(text, (size_t)n);
	hj_config_init(&c);
	assert_int_equal(hj_config_load(&c, conf_path, err, sizeof err),
	                 -EINVAL);
	snprintf(want, sizeof want, "%s:2: [chain] ca_file = %s: %s", conf_path,
	         path, why);
	if (strncmp(err, want, strlen(want)) != 0)
		fail_msg("\"%s\" does not begin with \"%s\"", err, want);
	assert_null(c.ca_file);
	hj_config_free(&c);
}

/* [chain] ca_file: read when it is set, in the RPC client's options
 * (hj_node_rpc_opts: the daemon's and the tool's), empty unsets. */
static void test_ca_file(void **state)
{
	char ca[400], bad[400], text[1200], err[HJ_ERRLEN];
	hj_config c;
	hj_rpc_opts o;

	(void)state;
	snprintf(ca, sizeof ca, "%s/ca.pem", tmpdir);
	snprintf(bad, sizeof bad, "%s/bad.pem", tmpdir);
	write_file(ca, ca_pem);
	snprintf(text, sizeof text,
	         MINIMAL "[chain]\nrpc_url = https://node.example/\n"
	                 "ca_file = %s\n",
	         ca);
	assert_int_equal(load(text, &c, err, sizeof err), 0);
	assert_int_equal(hj_config_finish(&c, err, sizeof err), 0);
	assert_string_equal(c.ca_file, ca);
	hj_node_rpc_opts(&c, &o);
	assert_string_equal(o.ca_file, ca);
	assert_string_equal(c.push_url, "wss://node.example/");
	/* Empty: the system's store again. */
	assert_int_equal(
	    hj_config_set_arg(&c, "--chain.ca_file=", err, sizeof err), 0);
	assert_null(c.ca_file);
	hj_node_rpc_opts(&c, &o);
	assert_null(o.ca_file);
	hj_config_free(&c);
	/* Unset by default. */
	assert_int_equal(load(MINIMAL, &c, err, sizeof err), 0);
	assert_int_equal(hj_config_finish(&c, err, sizeof err), 0);
	assert_null(c.ca_file);
	hj_config_free(&c);

	/* What cannot be used is refused at its line. */
	ca_file_error("/nonexistent/ca.pem",
	              "cannot open it: No such file or directory");
	ca_file_error(tmpdir, "not a regular file");
	ca_file_error("/dev/null", "not a regular file");
	write_file(bad, "# not PEM at all\n");
	ca_file_error(bad, "holds no PEM certificate (-----BEGIN "
	                   "CERTIFICATE-----)");
	write_file(bad, "-----BEGIN SOMETHING ELSE-----\nAAAA\n"
	                "-----END SOMETHING ELSE-----\n");
	ca_file_error(bad, "holds no PEM certificate");
	write_file(bad, "-----BEGIN CERTIFICATE-----\nAAAA\n"
	                "-----END CERTIFICATE-----\n");
	ca_file_error(bad, "a PEM block in it does not parse (OpenSSL: ");
	/* From the command line too. */
	hj_config_init(&c);
	snprintf(text, sizeof text, "--chain.ca_file=%s", bad);
	assert_int_equal(hj_config_set_arg(&c, text, err, sizeof err), -EINVAL);
	snprintf(text, sizeof text,
	         "command line: --chain.ca_file=%s: a PEM block in it does "
	         "not parse (OpenSSL: ",
	         bad);
	assert_int_equal(strncmp(err, text, strlen(text)), 0);
	hj_config_free(&c);
	unlink(ca);
	unlink(bad);
}

static void test_bitcoin_defaults(void **state)
{
	hj_config c;
	char err[HJ_ERRLEN];

	(void)state;
	setenv("HOME", "/home/op", 1);
	assert_int_equal(load("[chain]\nfamily = bitcoin\ncoin = litecoin\n"
	                      "[dealer]\naddress = " BTC_ADDR "\n[rules]\n"
	                      "min_bet = 1\nmax_bet = 2\n",
	                      &c, err, sizeof err),
	                 0);
	assert_int_equal(hj_config_finish(&c, err, sizeof err), 0);
	assert_string_equal(c.rpc_url, "http://127.0.0.1:9332");
	assert_string_equal(c.rpc_cookie_file, "/home/op/.litecoin/.cookie");
	assert_int_equal(c.confirmations, 6);
	assert_int_equal(c.batch_blocks, 8);
	assert_int_equal(c.rules.timeout_blocks, 12);
	hj_config_free(&c);

	assert_int_equal(load("[chain]\nfamily = bitcoin\ncoin = bitcoin\n"
	                      "rpc_user = u\nrpc_password = p\n"
	                      "[dealer]\naddress = " BTC_ADDR "\n[rules]\n"
	                      "min_bet = 1\nmax_bet = 2\n",
	                      &c, err, sizeof err),
	                 0);
	assert_int_equal(hj_config_finish(&c, err, sizeof err), 0);
	assert_string_equal(c.rpc_url, "http://127.0.0.1:8332");
	assert_null(c.rpc_cookie_file);
	hj_config_free(&c);

	/* EVM keeps its own. */
	assert_int_equal(load(MINIMAL, &c, err, sizeof err), 0);
	assert_int_equal(hj_config_finish(&c, err, sizeof err), 0);
	assert_string_equal(c.rpc_url, "http://127.0.0.1:8545");
	assert_int_equal(c.batch_blocks, 100);
	assert_null(c.rpc_cookie_file);
	hj_config_free(&c);

	/* No HOME and no credentials: say what to set. */
	unsetenv("HOME");
	expect_finish_error("[chain]\nfamily = bitcoin\ncoin = litecoin\n"
	                    "[dealer]\naddress = " BTC_ADDR "\n[rules]\n"
	                    "min_bet = 1\nmax_bet = 2\n",
	                    NULL,
	                    "[chain] rpc_cookie_file: required (no rpc_user, "
	                    "and no $HOME to find ~/.litecoin/.cookie)");
	expect_arg_error("--chain.coin=dogecoin",
	                 "command line: --chain.coin=dogecoin: unknown coin "
	                 "(bitcoin or litecoin)");
}

/* [payout]: the wallet that pays (Bitcoin family only), the dust limit by
 * coin, outputs per transaction. */
static void test_payout(void **state)
{
	hj_config c;
	char err[HJ_ERRLEN] = "";

	(void)state;
	assert_int_equal(load(BTC_MINIMAL, &c, err, sizeof err), 0);
	assert_int_equal(hj_config_finish(&c, err, sizeof err), 0);
	assert_null(c.payout_wallet);
	assert_amount(c.dust_limit, 3300);
	assert_int_equal(c.max_outputs, 100);
	hj_config_free(&c);

	assert_int_equal(
	    load("[chain]\nfamily = bitcoin\ncoin = bitcoin\n"
	         "rpc_cookie_file = /c\n[dealer]\naddress = " BTC_ADDR
	         "\n[rules]\nmin_bet = 1\nmax_bet = 2\n"
	         "[payout]\nwallet = dealer pays/1\n"
	         "max_outputs = 1000\n",
	         &c, err, sizeof err),
	    0);
	assert_int_equal(hj_config_finish(&c, err, sizeof err), 0);
	assert_string_equal(c.payout_wallet, "dealer pays/1");
	assert_amount(c.dust_limit, 330);
	assert_int_equal(c.max_outputs, 1000);
	/* Empty: back to unset, and to the coin's default. */
	assert_int_equal(
	    hj_config_set_arg(&c, "--payout.wallet=", err, sizeof err), 0);
	assert_null(c.payout_wallet);
	hj_config_free(&c);

	assert_int_equal(load(BTC_MINIMAL "[payout]\nwallet = w\n"
	                                  "dust_limit = 1\n",
	                      &c, err, sizeof err),
	                 0);
	assert_int_equal(hj_config_finish(&c, err, sizeof err), 0);
	assert_amount(c.dust_limit, 1);
	assert_int_equal(
	    hj_config_set_arg(&c, "--payout.dust_limit=", err, sizeof err), 0);
	assert_amount(c.dust_limit, 0);
	hj_config_free(&c);

	ERR("[payout]\ndust_limit = 0\n", 2,
	    "[payout] dust_limit = 0: out of range: must be 1 to "
	    "9223372036854775807");
	ERR("[payout]\nmax_outputs = 1001\n", 2,
	    "[payout] max_outputs = 1001: out of range: must be 1 to 1000");
	ERR("[payout]\nwallet = a\x01\n", 2,
	    "[payout] wallet = a\\x01: control character in wallet name");
	ERR("[payout]\nfee = 1\n", 2, "[payout] fee: unknown key");
	expect_finish_error(MINIMAL "[payout]\nwallet = w\n", NULL,
	                    "[payout] wallet = w: only for family = bitcoin "
	                    "(on EVM the daemon signs: [payout] dealer_key)");
}

/* EVM payouts: the key source, the fee cap and floor, the stuck time. */
/* [serve]: hashjack serve's keys, read and checked here like any other. */
static void test_serve(void **state)
{
	hj_config c;
	char err[HJ_ERRLEN] = "";

	(void)state;
	assert_int_equal(load(MINIMAL, &c, err, sizeof err), 0);
	assert_int_equal(hj_config_finish(&c, err, sizeof err), 0);
	assert_string_equal(c.serve.host, "127.0.0.1");
	assert_int_equal(c.serve.port, 8549);
	assert_int_equal(c.serve.max_age_s, 120);
	assert_int_equal(c.serve.history_blocks, 10000);
	assert_int_equal(c.serve.max_connections_per_ip, 64);
	assert_int_equal(c.serve.max_send_buffer, 1 << 20);
	hj_config_free(&c);

	assert_int_equal(load(BTC_MINIMAL, &c, err, sizeof err), 0);
	assert_int_equal(hj_config_finish(&c, err, sizeof err), 0);
	assert_int_equal(c.serve.max_age_s, 3600);
	hj_config_free(&c);
	/* The node's finalized or safe block moves an epoch at a time. */
	assert_int_equal(load("[chain]\nconfirmations = safe\n" MINIMAL, &c,
	                      err, sizeof err),
	                 0);
	assert_int_equal(hj_config_finish(&c, err, sizeof err), 0);
	assert_int_equal(c.serve.max_age_s, 900);
	hj_config_free(&c);
	assert_int_equal(load("[chain]\nconfirmations = finalized\n" MINIMAL
	                      "[serve]\nmax_age = 60\n",
	                      &c, err, sizeof err),
	                 0);
	assert_int_equal(hj_config_finish(&c, err, sizeof err), 0);
	assert_int_equal(c.serve.max_age_s, 60);
	hj_config_free(&c);

	assert_int_equal(load(MINIMAL "[serve]\nlisten = [::1]:0\n"
	                              "max_age = 30\nhistory_blocks = 5\n"
	                              "max_connections = 10\n"
	                              "max_connections_per_ip = 2\n"
	                              "max_subscriptions = 3\n"
	                              "request_timeout_ms = 100\n"
	                              "idle_timeout_ms = 200\n"
	                              "ping_interval_ms = 300\n"
	                              "max_send_buffer = 4096\n"
	                              "max_url = 64\nmax_header_bytes = 256\n"
	                              "max_headers = 4\nmax_message = 64\n"
	                              "poll_interval_ms = 10\n",
	                      &c, err, sizeof err),
	                 0);
	assert_int_equal(hj_config_finish(&c, err, sizeof err), 0);
	assert_string_equal(c.serve.host, "::1");
	assert_int_equal(c.serve.port, 0);
	assert_int_equal(c.serve.max_age_s, 30);
	assert_int_equal(c.serve.history_blocks, 5);
	assert_int_equal(c.serve.max_connections, 10);
	assert_int_equal(c.serve.max_connections_per_ip, 2);
	assert_int_equal(c.serve.max_subscriptions, 3);
	assert_int_equal(c.serve.request_timeout_ms, 100);
	assert_int_equal(c.serve.idle_timeout_ms, 200);
	assert_int_equal(c.serve.ping_interval_ms, 300);
	assert_int_equal(c.serve.max_send_buffer, 4096);
	assert_int_equal(c.serve.max_url, 64);
	assert_int_equal(c.serve.max_header_bytes, 256);
	assert_int_equal(c.serve.max_headers, 4);
	assert_int_equal(c.serve.max_message, 64);
	assert_int_equal(c.serve.poll_interval_ms, 10);
	hj_config_free(&c);

	ERR("[serve]\nlisten = localhost:80\n", 2,
	    "[serve] listen = localhost:80: not HOST:PORT with an IPv4 "
	    "address or a bracketed IPv6 one (127.0.0.1:8549, [::1]:8549)");
	ERR("[serve]\nlisten = ::1:80\n", 2,
	    "[serve] listen = ::1:80: not HOST:PORT with an IPv4 "
	    "address or a bracketed IPv6 one (127.0.0.1:8549, [::1]:8549)");
	ERR("[serve]\nlisten = 127.0.0.1:65536\n", 2,
	    "[serve] listen = 127.0.0.1:65536: out of range: must be 0 to "
	    "65535");
	ERR("[serve]\nmax_age = 0\n", 2,
	    "[serve] max_age = 0: out of range: must be 1 to 86400");
	ERR("[serve]\nmax_send_buffer = 100\n", 2,
	    "[serve] max_send_buffer = 100: out of range: must be 4096 to "
	    "1073741824");
}

static void test_metrics(void **state)
{
	hj_config c;
	char err[HJ_ERRLEN] = "";

	(void)state;
	assert_int_equal(load(MINIMAL, &c, err, sizeof err), 0);
	assert_int_equal(hj_config_finish(&c, err, sizeof err), 0);
	assert_int_equal(c.metrics.enabled, 0); /* off by default */
	assert_int_equal(c.metrics.max_lag, 10);
	hj_config_free(&c);

	assert_int_equal(load(MINIMAL "[metrics]\nlisten = 127.0.0.1:9464\n"
	                              "max_lag = 0\n",
	                      &c, err, sizeof err),
	                 0);
	assert_int_equal(hj_config_finish(&c, err, sizeof err), 0);
	assert_int_equal(c.metrics.enabled, 1);
	assert_string_equal(c.metrics.host, "127.0.0.1");
	assert_int_equal(c.metrics.port, 9464);
	assert_int_equal(c.metrics.max_lag, 0);
	/* A later "off" (an override) turns it off again. */
	assert_int_equal(
	    hj_config_set_arg(&c, "--metrics.listen=off", err, sizeof err), 0);
	assert_int_equal(c.metrics.enabled, 0);
	assert_int_equal(
	    hj_config_set_arg(&c, "--metrics.listen=[::1]:0", err, sizeof err),
	    0);
	assert_int_equal(c.metrics.enabled, 1);
	assert_string_equal(c.metrics.host, "::1");
	assert_int_equal(c.metrics.port, 0);
	hj_config_free(&c);

	ERR("[metrics]\nlisten = localhost:9464\n", 2,
	    "[metrics] listen = localhost:9464: not HOST:PORT with an IPv4 "
	    "address or a bracketed IPv6 one (127.0.0.1:8549, [::1]:8549)");
	ERR("[metrics]\nmax_lag = 1000001\n", 2,
	    "[metrics] max_lag = 1000001: out of range: must be 0 to 1000000");
	ERR("[metrics]\nport = 1\n", 2, "[metrics] port: unknown key");
}

static void test_payout_evm(void **state)
{
	hj_config c;
	char err[HJ_ERRLEN] = "";

	(void)state;
	assert_int_equal(load(MINIMAL, &c, err, sizeof err), 0);
	assert_int_equal(hj_config_finish(&c, err, sizeof err), 0);
	assert_null(c.dealer_key);
	assert_amount(c.max_fee_per_gas, 100000000000u);
	assert_amount(c.min_priority_fee, 1000000000u);
	assert_int_equal(c.stuck_after_s, 300);
	assert_true(c.min_refund_auto);
	assert_false(c.min_refund_set);
	hj_config_free(&c);

	/* min_refund: auto, or wei (0 pays every refund at once). */
	assert_int_equal(
	    load(MINIMAL "[payout]\nmin_refund = 0\n", &c, err, sizeof err), 0);
	assert_int_equal(hj_config_finish(&c, err, sizeof err), 0);
	assert_false(c.min_refund_auto);
	assert_amount(c.min_refund, 0);
	assert_int_equal(
	    hj_config_set_arg(&c,
	                      "--payout.min_refund="
	                      "340282366920938463463374607431768211455",
	                      err, sizeof err),
	    0);
	assert_amount(c.min_refund, HJ_AMOUNT_MAX);
	assert_int_equal(
	    hj_config_set_arg(&c, "--payout.min_refund=auto", err, sizeof err),
	    0);
	assert_true(c.min_refund_auto);
	hj_config_free(&c);
	ERR("[payout]\nmin_refund = 340282366920938463463374607431768211456\n",
	    2,
	    "[payout] min_refund = 340282366920938463463374607431768211456: "
	    "out of range: must be auto, or 0 to 2^128 - 1");
	ERR("[payout]\nmin_refund = 1e9\n", 2,
	    "[payout] min_refund = 1e9: not auto nor a decimal amount in wei "
	    "(digits only, no leading zero)");
	/* Empty: back to the default, as if not given. */
	assert_int_equal(
	    load(MINIMAL "[payout]\nmin_refund = 5\n", &c, err, sizeof err), 0);
	assert_int_equal(
	    hj_config_set_arg(&c, "--payout.min_refund=", err, sizeof err), 0);
	assert_true(c.min_refund_auto);
	assert_false(c.min_refund_set);
	hj_config_free(&c);
	expect_finish_error(MINIMAL "[payout]\nwallet_passphrase = /p\n", NULL,
	                    "[payout] wallet_passphrase = /p: only for family "
	                    "= bitcoin (on EVM the daemon signs with [payout] "
	                    "dealer_key)");
	expect_finish_error(BTC_MINIMAL "[payout]\nwallet_passphrase = /p\n",
	                    NULL,
	                    "[payout] wallet_passphrase = /p: no [payout] "
	                    "wallet to unlock");
	/* sweep_to: EVM, with a key, an address other than the dealer's. */
	assert_int_equal(load(MINIMAL "[payout]\ndealer_key = /k\n"
	                              "sweep_to = " ADDR_MIXD "\n"
	                              "sweep_margin = 1000000000000000000000\n"
	                              "sweep_every = 100000000\n",
	                      &c, err, sizeof err),
	                 0);
	assert_int_equal(hj_config_finish(&c, err, sizeof err), 0);
	assert_int_equal(c.sweep_addr[0], 0xab);
	assert_int_equal(c.sweep_addr[19], 0x01);
	assert_amount(c.sweep_margin, (hj_amount)1000000000u * 1000000000000u);
	assert_int_equal(c.sweep_every, 100000000);
	hj_config_free(&c);
	assert_int_equal(load(MINIMAL, &c, err, sizeof err), 0);
	assert_int_equal(hj_config_finish(&c, err, sizeof err), 0);
	assert_null(c.sweep_to);
	assert_int_equal(c.sweep_every, 7200);
	assert_amount(c.sweep_margin, 0);
	hj_config_free(&c);
	assert_int_equal(load(BTC_MINIMAL, &c, err, sizeof err), 0);
	assert_int_equal(hj_config_finish(&c, err, sizeof err), 0);
	assert_int_equal(c.sweep_every, 144);  /* about a day on Bitcoin */
	assert_amount(c.sweep_margin, 100000); /* it pays the fee */
	hj_config_free(&c);
	ERR("[payout]\nsweep_every = 0\n", 2,
	    "[payout] sweep_every = 0: out of range: must be 1 to 100000000");
	ERR("[payout]\nsweep_margin = -1\n", 2,
	    "[payout] sweep_margin = -1: not a decimal amount in base units "
	    "(wei, satoshi, litoshi: digits only, no leading zero)");
	expect_finish_error(MINIMAL "[payout]\nsweep_to = 0x12\n"
	                            "dealer_key = /k\n",
	                    NULL,
	                    "[payout] sweep_to = 0x12: not an EVM address (0x "
	                    "and 40 hex digits)");
	expect_finish_error(MINIMAL "[payout]\nsweep_to = " ADDR_LOW "\n", NULL,
	                    "[payout] sweep_to = " ADDR_LOW ": no [payout] "
	                    "dealer_key to sign the sweeps");
	expect_finish_error(
	    MINIMAL "[payout]\ndealer_key = /k\nsweep_to = " ADDR "\n", NULL,
	    "[payout] sweep_to = " ADDR ": the dealer's own "
	    "address (the cold address must be another)");
	btc_sweep_to();
	expect_finish_error(BTC_MINIMAL "[payout]\nmin_refund = 0\n", NULL,
	                    "[payout] min_refund: only for family = evm (on "
	                    "the Bitcoin family a recipient owed less than "
	                    "[payout] dust_limit waits)");

	assert_int_equal(load(MINIMAL "[payout]\ndealer_key = dealer.key\n"
	                              "max_fee_per_gas = 18446744073709551615\n"
	                              "min_priority_fee = 1\n"
	                              "stuck_after = 86400\n",
	                      &c, err, sizeof err),
	                 0);
	assert_int_equal(hj_config_finish(&c, err, sizeof err), 0);
	assert_string_equal(c.dealer_key, "dealer.key");
	assert_amount(c.max_fee_per_gas, UINT64_MAX);
	assert_amount(c.min_priority_fee, 1);
	assert_int_equal(c.stuck_after_s, 86400);
	hj_config_free(&c);

	/* Empty: back to unset. */
	assert_int_equal(
	    load(MINIMAL "[payout]\ndealer_key = /k\n", &c, err, sizeof err),
	    0);
	assert_int_equal(
	    hj_config_set_arg(&c, "--payout.dealer_key=", err, sizeof err), 0);
	assert_null(c.dealer_key);
	hj_config_free(&c);
	ERR("[payout]\nmax_fee_per_gas = 0\n", 2,
	    "[payout] max_fee_per_gas = 0: out of range: must be 1 to "
	    "18446744073709551615");
	ERR("[payout]\nmin_priority_fee = 18446744073709551616\n", 2,
	    "[payout] min_priority_fee = 18446744073709551616: out of range: "
	    "must be 1 to 18446744073709551615");
	ERR("[payout]\nstuck_after = 0\n", 2,
	    "[payout] stuck_after = 0: out of range: must be 1 to 86400");
	expect_finish_error(MINIMAL "[payout]\nmax_fee_per_gas = 10\n"
	                            "min_priority_fee = 11\n",
	                    NULL,
	                    "[payout] min_priority_fee = 11: above "
	                    "max_fee_per_gas 10 (the cap holds the tip too)");
	expect_finish_error(BTC_MINIMAL "[payout]\ndealer_key = /k\n", NULL,
	                    "[payout] dealer_key = /k: only for family = evm "
	                    "(on the Bitcoin family a node wallet pays: "
	                    "[payout] wallet)");
}

/* max_exposure: optional, 0 means no limit; the rules string names it only
 * when set, so state directories made without it still match. */
static void test_max_exposure(void **state)
{
	hj_config c;
	char err[HJ_ERRLEN] = "", rs[256];

	(void)state;
	assert_int_equal(load(MINIMAL, &c, err, sizeof err), 0);
	assert_int_equal(hj_config_finish(&c, err, sizeof err), 0);
	assert_amount(c.rules.max_exposure, 0);
	hj_config_free(&c);

	assert_int_equal(
	    load(MINIMAL "max_exposure = 0\n", &c, err, sizeof err), 0);
	assert_int_equal(hj_config_finish(&c, err, sizeof err), 0);
	assert_amount(c.rules.max_exposure, 0);
	hj_rules_format(&c.rules, rs, sizeof rs);
	assert_string_equal(
	    rs, "preset=bethash min_bet=1 max_bet=1000 timeout_blocks=100");
	hj_config_free(&c);

	/* Exactly the worst case of one max_bet Bet (4 * 1000). */
	assert_int_equal(
	    load(MINIMAL "max_exposure = 4000\n", &c, err, sizeof err), 0);
	assert_int_equal(hj_config_finish(&c, err, sizeof err), 0);
	assert_amount(c.rules.max_exposure, 4000);
	hj_rules_format(&c.rules, rs, sizeof rs);
	assert_string_equal(rs, "preset=bethash min_bet=1 max_bet=1000 "
	                        "timeout_blocks=100 max_exposure=4000");
	hj_config_free(&c);

	/* A preset named after it keeps it, as it keeps the limits. */
	assert_int_equal(load("[rules]\nmax_exposure = 5000\npreset = bethash\n"
	                      "[dealer]\naddress = " ADDR "\n[rules]\n"
	                      "min_bet = 1\nmax_bet = 1000\n",
	                      &c, err, sizeof err),
	                 0);
	assert_int_equal(hj_config_finish(&c, err, sizeof err), 0);
	assert_amount(c.rules.max_exposure, 5000);
	hj_config_free(&c);

	/* Any amount up to 2^128 - 1, on the Bitcoin family above 2^64
	 * too: a sum of worst cases is not an output value. */
	assert_int_equal(load(BTC_MINIMAL
	                      "max_exposure = "
	                      "340282366920938463463374607431768211455\n",
	                      &c, err, sizeof err),
	                 0);
	assert_int_equal(hj_config_finish(&c, err, sizeof err), 0);
	assert_amount(c.rules.max_exposure, HJ_AMOUNT_MAX);
	hj_rules_format(&c.rules, rs, sizeof rs);
	assert_string_equal(rs, "preset=bethash min_bet=1 max_bet=1000 "
	                        "timeout_blocks=12 max_exposure="
	                        "340282366920938463463374607431768211455");
	hj_config_free(&c);

	/* An override, and the override set back to no limit. */
	assert_int_equal(
	    load(MINIMAL "max_exposure = 4000\n", &c, err, sizeof err), 0);
	assert_int_equal(
	    hj_config_set_arg(&c, "--rules.max_exposure=0", err, sizeof err),
	    0);
	assert_int_equal(hj_config_finish(&c, err, sizeof err), 0);
	assert_amount(c.rules.max_exposure, 0);
	hj_config_free(&c);
}

/* The rule keys of docs/PROTOCOL.md section 7.1 override the preset's values,
 * whichever comes first in the file or on the command line. */
static void test_rule_keys(void **state)
{
	hj_config c;
	char err[HJ_ERRLEN] = "", rs[HJ_RULES_STRLEN];

	(void)state;
	assert_int_equal(load(MINIMAL "double_on = any\n"
	                              "perfect_pairs = 25,12,5\n"
	                              "preset = annakai\n"
	                              "surrender = early\n",
	                      &c, err, sizeof err),
	                 0);
	assert_int_equal(hj_config_finish(&c, err, sizeof err), 0);
	assert_string_equal(c.rules.preset, "annakai");
	assert_int_equal(c.rules.bj_num, 3); /* annakai's */
	assert_int_equal(c.rules.surrender, HJ_SURRENDER_EARLY);
	assert_int_equal(c.rules.pp_on, 1);
	hj_rules_format(&c.rules, rs, sizeof rs);
	/* double_on = any is annakai's own: not written. */
	assert_string_equal(rs, "preset=annakai min_bet=1 max_bet=1000 "
	                        "timeout_blocks=100 surrender=early "
	                        "perfect_pairs=25,12,5");
	assert_int_equal(
	    hj_config_set_arg(&c, "--rules.preset=bethash", err, sizeof err),
	    0);
	assert_int_equal(
	    hj_config_set_arg(&c, "--rules.perfect_pairs=off", err, sizeof err),
	    0);
	assert_int_equal(hj_config_finish(&c, err, sizeof err), 0);
	hj_rules_format(&c.rules, rs, sizeof rs);
	assert_string_equal(rs, "preset=bethash min_bet=1 max_bet=1000 "
	                        "timeout_blocks=100 double_on=any "
	                        "surrender=early");
	hj_config_free(&c);

	/* Side bets count in the least max_exposure. */
	ERR(MINIMAL "twenty_one_plus_three = 100,40,30,10,5\n"
	            "max_exposure = 4000\n",
	    7,
	    "[rules] max_exposure = 4000: below 105000, the worst-case "
	    "return of one max_bet Bet with side stakes of max_bet "
	    "(max_bet 1000, line 5)");
}

static void test_rule_key_errors(void **state)
{
	(void)state;
	ERR("[rules]\nblackjack_pays = 6/5\n", 2,
	    "[rules] blackjack_pays = 6/5: expected N:D, whole numbers 1 to "
	    "1000 (6:5, 3:2)");
	ERR("[rules]\nallow_player_edge = maybe\n", 2,
	    "[rules] allow_player_edge = maybe: not a boolean (yes or no)");
	ERR("[rules]\npeek = maybe\n", 2,
	    "[rules] peek = maybe: expected ace, ace_ten or none");
	ERR("[rules]\nmax_hands = 5\n", 2,
	    "[rules] max_hands = 5: expected 1, 2, 3 or 4");
	ERR("[rules]\nperfect_pairs = 25,12\n", 2,
	    "[rules] perfect_pairs = 25,12: expected off or P,C,M: three "
	    "whole numbers 0 to 1000 (25,12,5)");
	expect_arg_error("--rules.surrender=sometimes",
	                 "command line: --rules.surrender=sometimes: expected "
	                 "none, late or early");
}

static void test_max_exposure_errors(void **state)
{
	(void)state;
	ERR("[rules]\nmax_exposure = 12a\n", 2,
	    "[rules] max_exposure = 12a: not a decimal amount in base units "
	    "(digits only, no leading zero)");
	ERR("[rules]\nmax_exposure = 04000\n", 2,
	    "[rules] max_exposure = 04000: not a decimal amount in base units "
	    "(digits only, no leading zero)");
	ERR("[rules]\nmax_exposure = -1\n", 2,
	    "[rules] max_exposure = -1: not a decimal amount in base units "
	    "(digits only, no leading zero)");
	ERR("[rules]\nmax_exposure =\n", 2,
	    "[rules] max_exposure = : not a decimal amount in base units "
	    "(digits only, no leading zero)");
	ERR("[rules]\nmax_exposure = 340282366920938463463374607431768211456\n",
	    2,
	    "[rules] max_exposure = 340282366920938463463374607431768211456: "
	    "out of range: must be 0 (no limit) to 2^128 - 1");
	/* Below one max_bet Bet's worst case, at the later line. */
	ERR("[rules]\nmax_bet = 1000\nmax_exposure = 3999\n", 3,
	    "[rules] max_exposure = 3999: below 4000, the worst-case return "
	    "of one max_bet Bet (max_bet 1000, line 2)");
	ERR("[rules]\nmax_exposure = 3999\n\nmax_bet = 1000\n", 4,
	    "[rules] max_bet = 1000: its worst-case return 4000 is above "
	    "max_exposure 3999 (line 2)");
	expect_finish_error(MINIMAL, "--rules.max_exposure=3999",
	                    "[rules] max_exposure = 3999: below 4000, the "
	                    "worst-case return of one max_bet Bet (max_bet "
	                    "1000)");
	expect_finish_error(MINIMAL "max_exposure = 4000\n",
	                    "--rules.max_bet=1001",
	                    "[rules] max_exposure = 4000: below 4004, the "
	                    "worst-case return of one max_bet Bet (max_bet "
	                    "1001)");
	expect_arg_error(
	    "--rules.max_exposure=1e6",
	    "command line: --rules.max_exposure=1e6: not a decimal "
	    "amount in base units (digits only, no leading zero)");
}

/* cards = committed: what finish refuses, what hashjackd alone refuses,
 * and the warning under hash on EVM (docs/PROTOCOL.md section 15). */
#define HASH_WARNING                                                           \
	"[rules] cards = hash: on EVM whoever builds a block can choose its "  \
	"card, at the cost of one hash per try (docs/PROTOCOL.md section 15)"
#define NEEDS_KEY                                                              \
	"[rules] cards = committed needs [payout] dealer_key: hashjackd "      \
	"signs and sends its own Commits (docs/PROTOCOL.md section 15)"
#define NEEDS_WALLET                                                           \
	"[rules] cards = committed needs [payout] wallet: hashjackd sends "    \
	"its own Commits through the node's wallet, from the dealer address "  \
	"(docs/PROTOCOL.md section 15)"
/* Of 32 bytes: witness v0 (P2WSH), v1 (P2TR). */
#define BTC_P2WSH                                                              \
	"rltc1qqqqsyqcyq5rqwzqfpg9scrgwpugpzysnzs23v9ccrydpk8qarc0ss3aytx"
#define BTC_P2TR                                                               \
	"rltc1pqqqsyqcyq5rqwzqfpg9scrgwpugpzysnzs23v9ccrydpk8qarc0s6xadn6"

/* text and arg (or NULL) pass finish; then what hj_config_can_deal says
 * ("" for yes) and the warning (NULL for none). */
static void expect_cards(const char *text, const char *arg,
                         const char *can_deal, const char *warning)
{
	hj_config c;
	char err[HJ_ERRLEN] = "";

	assert_int_equal(load(text, &c, err, sizeof err), 0);
	if (arg)
		assert_int_equal(hj_config_set_arg(&c, arg, err, sizeof err),
		                 0);
	assert_int_equal(hj_config_finish(&c, err, sizeof err), 0);
	assert_string_equal(err, "");
	memset(err, 'X', sizeof err);
	err[sizeof err - 1] = '\0';
	if (can_deal[0] == '\0') {
		assert_int_equal(hj_config_can_deal(&c, err, sizeof err), 0);
	} else {
		assert_int_equal(hj_config_can_deal(&c, err, sizeof err),
		                 -ENOTSUP);
		assert_string_equal(err, can_deal);
	}
	if (warning)
		assert_string_equal(c.cards_warning, warning);
	else
		assert_null(c.cards_warning);
	hj_config_free(&c);
}

static void test_cards(void **state)
{
	hj_config c;
	char err[HJ_ERRLEN] = "";

	(void)state;
	/* hash: dealt; on EVM with the warning, whatever the depth. */
	expect_cards(MINIMAL, NULL, "", HASH_WARNING);
	expect_cards(MINIMAL "cards = hash\n", NULL, "", HASH_WARNING);
	expect_cards(MINIMAL, "--chain.confirmations=finalized", "",
	             HASH_WARNING);
	expect_cards(MINIMAL, "--chain.confirmations=1", "", HASH_WARNING);
	expect_cards(BTC_MINIMAL, NULL, "", NULL);
	expect_cards(BTC_MINIMAL, "--dealer.address=" BTC_P2TR, "", NULL);
	expect_cards(BTC_MINIMAL, "--chain.confirmations=1", "", NULL);

	/* committed: read (the tool's commands use it); dealt on EVM with
	 * the key that signs the Commits. */
	expect_cards(MINIMAL "cards = committed\n", NULL, NEEDS_KEY, NULL);
	expect_cards(MINIMAL, "--rules.cards=committed", NEEDS_KEY, NULL);
	expect_cards(MINIMAL "cards = committed\n",
	             "--payout.dealer_key=/etc/hashjack/dealer.key", "", NULL);
	/* The node's finalized and safe blocks are below the tip. */
	expect_cards(MINIMAL "cards = committed\n",
	             "--chain.confirmations=finalized", NEEDS_KEY, NULL);
	expect_cards(MINIMAL "cards = committed\n",
	             "--chain.confirmations=safe", NEEDS_KEY, NULL);
	/* BTC_ADDR is P2WPKH. */
	expect_cards(BTC_MINIMAL "cards = committed\n", NULL, NEEDS_WALLET,
	             NULL);
	expect_cards(BTC_MINIMAL "cards = committed\n",
	             "--chain.confirmations=2", NEEDS_WALLET, NULL);
	/* The Bitcoin family: the wallet sends the Commits. */
	expect_cards(BTC_MINIMAL "cards = committed\n",
	             "--payout.wallet=dealer", "", NULL);
	expect_cards(BTC_MINIMAL "cards = committed\n[payout]\nwallet = "
	                         "dealer\n",
	             "--chain.confirmations=2", "", NULL);

	/* A finish that found the warning, then committed: gone. */
	assert_int_equal(load(MINIMAL, &c, err, sizeof err), 0);
	assert_int_equal(hj_config_finish(&c, err, sizeof err), 0);
	assert_string_equal(c.cards_warning, HASH_WARNING);
	assert_int_equal(
	    hj_config_set_arg(&c, "--rules.cards=committed", err, sizeof err),
	    0);
	assert_int_equal(hj_config_finish(&c, err, sizeof err), 0);
	assert_null(c.cards_warning);
	hj_config_free(&c);

	/* One confirmation: the seed of the tip's block. */
	expect_finish_error(MINIMAL "cards = committed\n",
	                    "--chain.confirmations=1",
	                    "[chain] confirmations = 1: too few with cards = "
	                    "committed (at least 2: a seed published at the "
	                    "tip would let the next producer of a block at "
	                    "that height choose its card)");
	expect_finish_error("[chain]\nconfirmations = 1\n" BTC_MINIMAL
	                    "cards = committed\n",
	                    NULL,
	                    "[chain] confirmations = 1: too few with cards = "
	                    "committed (at least 2: a seed published at the "
	                    "tip would let the next producer of a block at "
	                    "that height choose its card)");
	/* The Bitcoin family: P2WPKH only. */
	expect_finish_error(BTC_MINIMAL "cards = committed\n",
	                    "--dealer.address=" BTC_P2WSH,
	                    "[dealer] address = " BTC_P2WSH ": with cards = "
	                    "committed, must be P2WPKH (a bech32 address of "
	                    "20 bytes, witness version 0): a Commit is the "
	                    "dealer's when an input is signed by the "
	                    "address's key");
	expect_finish_error(BTC_MINIMAL "cards = committed\n",
	                    "--dealer.address=" BTC_P2TR,
	                    "[dealer] address = " BTC_P2TR ": with cards = "
	                    "committed, must be P2WPKH (a bech32 address of "
	                    "20 bytes, witness version 0): a Commit is the "
	                    "dealer's when an input is signed by the "
	                    "address's key");
}

static void test_state_directory(void **state)
{
	hj_config c;
	char err[HJ_ERRLEN];

	(void)state;
	/* systemd's list: the first entry is ours. */
	setenv("STATE_DIRECTORY", "/var/lib/hashjackd:/var/lib/other", 1);
	assert_int_equal(load(MINIMAL, &c, err, sizeof err), 0);
	assert_int_equal(hj_config_finish(&c, err, sizeof err), 0);
	assert_string_equal(c.state_dir, "/var/lib/hashjackd");
	assert_string_equal(c.card_log, "/var/lib/hashjackd/cards.jsonl");
	hj_config_free(&c);

	setenv("STATE_DIRECTORY", "/run/state/hj", 1);
	assert_int_equal(load(MINIMAL "[state]\ncard_log = logs/c.jsonl\n", &c,
	                      err, sizeof err),
	                 0);
	assert_int_equal(hj_config_finish(&c, err, sizeof err), 0);
	assert_string_equal(c.state_dir, "/run/state/hj");
	assert_string_equal(c.card_log, "/run/state/hj/logs/c.jsonl");
	hj_config_free(&c);

	/* The file beats the environment. */
	assert_int_equal(
	    load(MINIMAL "[state]\ndirectory = /srv/hj\n", &c, err, sizeof err),
	    0);
	assert_int_equal(hj_config_finish(&c, err, sizeof err), 0);
	assert_string_equal(c.state_dir, "/srv/hj");
	assert_string_equal(c.card_log, "/srv/hj/cards.jsonl");
	hj_config_free(&c);

	/* A relative or empty $STATE_DIRECTORY is not systemd's: ignored. */
	setenv("STATE_DIRECTORY", "", 1);
	assert_int_equal(load(MINIMAL, &c, err, sizeof err), 0);
	assert_int_equal(hj_config_finish(&c, err, sizeof err), 0);
	assert_string_equal(c.state_dir, "/var/lib/hashjackd");
	hj_config_free(&c);
	unsetenv("STATE_DIRECTORY");
}

/*
 * config/hashjackd.conf.example, found next to this file: it must load as
 * it is, name every key with its default, and with the required keys set
 * give exactly the defaults it documents.
 */
static void test_example_file(void **state)
{
	static const char *const documented[] = {
	    "#family = evm\n",
	    "#rpc_url = http://127.0.0.1:8545\n",
	    "#rpc_user =\n",
	    "#rpc_password =\n",
	    "#rpc_bearer =\n",
	    "#rpc_timeout_ms = 30000\n",
	    "#rpc_max_response = 67108864\n",
	    "#confirmations = 12\n",
	    "#poll_interval_ms = 1000\n",
	    "#push = on\n",
	    "#push_url =\n",
	    "#ca_file =\n",
	    "#batch_blocks = 100\n",
	    "#start_height =\n",
	    "#address = 0x...\n",
	    "#preset = bethash\n",
	    "#min_bet = ",
	    "#max_bet = ",
	    "#timeout_blocks = 100\n",
	    "#max_exposure = 0\n",
	    "#wallet =\n",
	    "#dust_limit =\n",
	    "#max_outputs = 100\n",
	    "#directory = /var/lib/hashjackd\n",
	    "#card_log = cards.jsonl\n",
	    "#log_fsync = yes\n",
	};
	char path[1024], err[HJ_ERRLEN], text[16384];
	const char *slash = strrchr(__FILE__, '/');
	hj_config c, d;
	FILE *f;
	size_t n;

	(void)state;
	snprintf(path, sizeof path, "%.*s/../config/hashjackd.conf.example",
	         slash ? (int)(slash - __FILE__) : 1, slash ? __FILE__ : ".");
	f = fopen(path, "r");
	assert_non_null(f);
	n = fread(text, 1, sizeof text - 1, f);
	assert_true(n > 0 && n < sizeof text - 1);
	text[n] = '\0';
	fclose(f);
	for (size_t i = 0; i < sizeof documented / sizeof documented[0]; i++)
		assert_non_null(strstr(text, documented[i]));
	/* Every rule key, with the default preset's value. */
	{
		hj_rules bethash;

		assert_int_equal(hj_rules_preset("bethash", &bethash), 0);
		for (size_t i = 0; hj_rule_keys[i]; i++) {
			char line[128], v[HJ_RULE_VALUE_MAX];

			hj_rules_get_key(&bethash, hj_rule_keys[i], v);
			snprintf(line, sizeof line, "\n#%s = %s\n",
			         hj_rule_keys[i], v);
			if (strstr(text, line) == NULL)
				fail_msg("the example lacks \"%s\"", line + 1);
		}
	}

	hj_config_init(&c);
	assert_int_equal(hj_config_load(&c, path, err, sizeof err), 0);
	assert_int_equal(
	    hj_config_set_arg(&c, "--dealer.address=" ADDR, err, sizeof err),
	    0);
	assert_int_equal(
	    hj_config_set_arg(&c, "--rules.min_bet=1", err, sizeof err), 0);
	assert_int_equal(
	    hj_config_set_arg(&c, "--rules.max_bet=1000", err, sizeof err), 0);
	assert_int_equal(hj_config_finish(&c, err, sizeof err), 0);
	/* The same as a file that says only the required keys. */
	assert_int_equal(load(MINIMAL, &d, err, sizeof err), 0);
	assert_int_equal(hj_config_finish(&d, err, sizeof err), 0);
	assert_int_equal(c.family, d.family);
	assert_string_equal(c.rpc_url, d.rpc_url);
	assert_int_equal(c.rpc_timeout_ms, 30000);
	assert_int_equal(c.rpc_max_response, 67108864);
	assert_int_equal(c.confirmations, 12);
	assert_int_equal(c.poll_interval_ms, 1000);
	assert_int_equal(c.batch_blocks, 100);
	assert_false(c.start_height_set);
	assert_int_equal(c.rules.timeout_blocks, 100);
	assert_amount(c.rules.max_exposure, 0);
	assert_string_equal(c.state_dir, "/var/lib/hashjackd");
	assert_string_equal(c.card_log, "/var/lib/hashjackd/cards.jsonl");
	assert_int_equal(c.log_fsync, 1);
	assert_int_equal(memcmp(&c.rules, &d.rules, sizeof c.rules), 0);
	hj_config_free(&c);
	hj_config_free(&d);

	/* Every example value uncommented is accepted too. */
	for (char *p = text; (p = strstr(p, "\n#")) != NULL; p++) {
		char *eq = strchr(p + 2, '=');
		char *nl = strchr(p + 2, '\n');

		/* "#key = value" lines, not prose. */
		if (eq && nl && eq < nl && p[2] >= 'a' && p[2] <= 'z' &&
		    memchr(p + 2, ' ', (size_t)(eq - p - 2)) == eq - 1)
			p[1] = ' ';
	}
	/* ... with a real address for the placeholder. */
	{
		char *ph = strstr(text, "address = 0x...\n");
		char rest[16384];

		assert_non_null(ph);
		snprintf(rest, sizeof rest, "%s",
		         ph + strlen("address = 0x..."));
		snprintf(ph, sizeof text - (size_t)(ph - text),
		         "address = %s%s", ADDR, rest);
	}
	assert_int_equal(load(text, &c, err, sizeof err), 0);
	assert_int_equal(hj_config_finish(&c, err, sizeof err), 0);
	assert_string_equal(c.dealer.text, ADDR);
	assert_amount(c.rules.min_bet, 10000000000000000u);
	assert_amount(c.rules.max_bet, 1000000000000000000u);
	assert_string_equal(c.card_log, "/var/lib/hashjackd/cards.jsonl");
	assert_null(c.rpc_user);
	hj_config_free(&c);
}

/* No error buffer: the same results, nothing written. */
static void test_no_error_buffer(void **state)
{
	hj_config c;
	char path[400];

	(void)state;
	hj_config_free(NULL);
	write_conf("[chain]\nconfirmations = 0\n", 26);
	hj_config_init(&c);
	assert_int_equal(hj_config_load(&c, conf_path, NULL, 0), -EINVAL);
	snprintf(path, sizeof path, "%s/missing.conf", tmpdir);
	assert_int_equal(hj_config_load(&c, path, NULL, 0), -ENOENT);
	assert_int_equal(hj_config_set_arg(&c, "--x", NULL, 0), -EINVAL);
	assert_int_equal(hj_config_set_arg(&c, "--dealer.address=0x", NULL, 0),
	                 -EINVAL);
	assert_int_equal(
	    hj_config_set_arg(&c, "--chain.family=bitcoin", NULL, 0), 0);
	assert_int_equal(hj_config_finish(&c, NULL, 0), -EINVAL);
	hj_config_free(&c);
}

/* ---- notify ---- */

/* Waits up to 5 s for a datagram on fd; returns its text. */
static void recv_msg(int fd, char *buf, size_t n)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};
	ssize_t r;

	assert_int_equal(poll(&p, 1, 5000), 1);
	r = recv(fd, buf, n - 1, 0);
	assert_true(r >= 0);
	buf[r] = '\0';
}

static int bind_dgram(const struct sockaddr_un *sa, socklen_t len)
{
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (const struct sockaddr *)sa, len), 0);
	return fd;
}

static void test_notify_path(void **state)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	char buf[256];
	int fd;

	(void)state;
	unsetenv("NOTIFY_SOCKET");
	assert_int_equal(hj_notify("READY=1"), 0); /* not under systemd */

	/* sun_path holds 108 bytes; a deep $TMPDIR would not fit. */
	assert_true(strlen(tmpdir) + sizeof "/notify" <= sizeof sa.sun_path);
	memcpy(sa.sun_path, tmpdir, strlen(tmpdir));
	memcpy(sa.sun_path + strlen(tmpdir), "/notify", sizeof "/notify");
	fd = bind_dgram(&sa, sizeof sa);
	setenv("NOTIFY_SOCKET", sa.sun_path, 1);
	assert_int_equal(hj_notify("READY=1"), 0);
	recv_msg(fd, buf, sizeof buf);
	assert_string_equal(buf, "READY=1");
	assert_int_equal(hj_notify("STATUS=height 123, 4 open rounds"), 0);
	recv_msg(fd, buf, sizeof buf);
	assert_string_equal(buf, "STATUS=height 123, 4 open rounds");
	assert_int_equal(hj_notify("STOPPING=1"), 0);
	recv_msg(fd, buf, sizeof buf);
	assert_string_equal(buf, "STOPPING=1");
	close(fd);
	/* Nobody listening any more. */
	assert_int_equal(hj_notify("WATCHDOG=1"), -ECONNREFUSED);
	unlink(sa.sun_path);
	assert_int_equal(hj_notify("WATCHDOG=1"), -ENOENT);
	unsetenv("NOTIFY_SOCKET");
}

static void test_notify_abstract(void **state)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	char name[64], env[80], buf[256];
	socklen_t len;
	int fd, n;

	(void)state;
	n = snprintf(name, sizeof name, "hj-test-%ld-%ld", (long)getpid(),
	             (long)time(NULL));
	memcpy(sa.sun_path + 1, name, (size_t)n);
	len =
	    (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
	fd = bind_dgram(&sa, len);
	snprintf(env, sizeof env, "@%s", name);
	setenv("NOTIFY_SOCKET", env, 1);
	assert_int_equal(hj_notify("READY=1"), 0);
	recv_msg(fd, buf, sizeof buf);
	assert_string_equal(buf, "READY=1");
	assert_int_equal(hj_notify("WATCHDOG=1"), 0);
	recv_msg(fd, buf, sizeof buf);
	assert_string_equal(buf, "WATCHDOG=1");
	close(fd);

	setenv("NOTIFY_SOCKET", "relative/path", 1);
	assert_int_equal(hj_notify("READY=1"), -EAFNOSUPPORT);
	setenv("NOTIFY_SOCKET", "@", 1);
	assert_int_equal(hj_notify("READY=1"), -EINVAL);
	unsetenv("NOTIFY_SOCKET");
}

static void test_watchdog_env(void **state)
{
	char pid[32];

	(void)state;
	unsetenv("WATCHDOG_USEC");
	unsetenv("WATCHDOG_PID");
	assert_int_equal(hj_notify_watchdog_usec(), 0);
	setenv("WATCHDOG_USEC", "30000000", 1);
	assert_int_equal(hj_notify_watchdog_usec(), 30000000);
	snprintf(pid, sizeof pid, "%ld", (long)getpid());
	setenv("WATCHDOG_PID", pid, 1);
	assert_int_equal(hj_notify_watchdog_usec(), 30000000);
	snprintf(pid, sizeof pid, "%ld", (long)getpid() + 1);
	setenv("WATCHDOG_PID", pid, 1);
	assert_int_equal(hj_notify_watchdog_usec(), 0); /* our parent's */
	setenv("WATCHDOG_PID", "x", 1);
	assert_int_equal(hj_notify_watchdog_usec(), 0);
	unsetenv("WATCHDOG_PID");
	setenv("WATCHDOG_USEC", "30s", 1);
	assert_int_equal(hj_notify_watchdog_usec(), 0);
	setenv("WATCHDOG_USEC", "", 1);
	assert_int_equal(hj_notify_watchdog_usec(), 0);
	setenv("WATCHDOG_USEC", "18446744073709551616", 1);
	assert_int_equal(hj_notify_watchdog_usec(), 0);
	setenv("WATCHDOG_USEC", "18446744073709551615", 1);
	assert_true(hj_notify_watchdog_usec() == UINT64_MAX);
	unsetenv("WATCHDOG_USEC");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_full_file),
	    cmocka_unit_test(test_defaults),
	    cmocka_unit_test(test_syntax_accepted),
	    cmocka_unit_test(test_structure_errors),
	    cmocka_unit_test(test_long_lines),
	    cmocka_unit_test(test_number_errors),
	    cmocka_unit_test(test_value_errors),
	    cmocka_unit_test(test_pair_errors),
	    cmocka_unit_test(test_first_error_wins),
	    cmocka_unit_test(test_missing_file),
	    cmocka_unit_test(test_load_text),
	    cmocka_unit_test(test_overrides),
	    cmocka_unit_test(test_arg_errors),
	    cmocka_unit_test(test_secrets_never_printed),
	    cmocka_unit_test(test_finish_errors),
	    cmocka_unit_test(test_finality),
	    cmocka_unit_test(test_push),
	    cmocka_unit_test(test_ca_file),
	    cmocka_unit_test(test_bitcoin_defaults),
	    cmocka_unit_test(test_payout),
	    cmocka_unit_test(test_metrics),
	    cmocka_unit_test(test_payout_evm),
	    cmocka_unit_test(test_serve),
	    cmocka_unit_test(test_max_exposure),
	    cmocka_unit_test(test_max_exposure_errors),
	    cmocka_unit_test(test_rule_keys),
	    cmocka_unit_test(test_rule_key_errors),
	    cmocka_unit_test(test_cards),
	    cmocka_unit_test(test_state_directory),
	    cmocka_unit_test(test_example_file),
	    cmocka_unit_test(test_no_error_buffer),
	    cmocka_unit_test(test_notify_path),
	    cmocka_unit_test(test_notify_abstract),
	    cmocka_unit_test(test_watchdog_env),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
