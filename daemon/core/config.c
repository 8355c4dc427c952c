/*
 * hashjackd's configuration (see config.h, docs/CONFIG.md).
 *
 * inih does the INI syntax; this file does the meaning.  inih's handler is
 * not told the line number (Debian builds it without INI_HANDLER_LINENO),
 * so the file is read into memory here and handed to ini_parse_stream() one
 * whole line per reader call: the reader's line count is then the line of
 * every handler call, and inih's own error line agrees with it.
 *
 * The reader also strips leading blanks, so that inih never takes an
 * indented line for a continuation of the previous value (a value runs to
 * the end of its line, nothing more), and it checks section headers
 * itself, so that an unknown section is reported even when empty.
 *
 * Keys are validated one at a time as they are read; what involves two keys
 * (min_bet against max_bet, the RPC credentials) is checked at the end of
 * each file, with the line of the second key, and again by finish() after
 * the command-line overrides.  Secrets are never copied into a message.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ini.h>

#include "amount.h"

#define DEFAULT_RPC_URL   "http://127.0.0.1:8545"
#define BITCOIN_RPC_URL   "http://127.0.0.1:8332"
#define LITECOIN_RPC_URL  "http://127.0.0.1:9332"
#define DEFAULT_STATE_DIR "/var/lib/hashjackd"
#define CARD_LOG_NAME     "cards.jsonl"
#define MAX_OUTPUTS       100
/* EVM payouts: the fee cap (100 gwei), the tip floor (1 gwei), and how
 * long a transaction may stay unmined before it is replaced. */
#define MAX_FEE_PER_GAS  100000000000u
#define MIN_PRIORITY_FEE 1000000000u
#define STUCK_AFTER_S    300
/*
 * Dust: the smallest P2TR output a node relays, 3 x (43 bytes of output +
 * 67 virtual bytes to spend it) x the dust relay fee per byte.  Bitcoin
 * Core's -dustrelayfee is 3000 sat/kvB: 330.  Litecoin Core's is 10 times
 * that (30000 litoshis/kvB): 3300, and litecoind 0.21.2 refuses 3299 to a
 * P2TR address ("Transaction amount too small"), accepts 3300.
 */
#define DUST_BITCOIN  330
#define DUST_LITECOIN 3300
/* Output values are int64 on the node (CAmount). */
#define DUST_MAX INT64_MAX

/* A config file is a few dozen lines; anything this big is a mistake. */
#define MAX_FILE_SIZE (1024 * 1024)

/* Longest value shown in a message before it is cut with "...". */
#define SHOW_MAX 64

enum key_id {
	K_FAMILY,
	K_COIN,
	K_RPC_URL,
	K_RPC_USER,
	K_RPC_PASSWORD,
	K_RPC_BEARER,
	K_RPC_COOKIE_FILE,
	K_RPC_TIMEOUT_MS,
	K_RPC_MAX_RESPONSE,
	K_CONFIRMATIONS,
	K_POLL_INTERVAL_MS,
	K_BATCH_BLOCKS,
	K_START_HEIGHT,
	K_PUSH,
	K_PUSH_URL,
	K_ADDRESS,
	K_PRESET,
	K_MIN_BET,
	K_MAX_BET,
	K_TIMEOUT_BLOCKS,
	K_MAX_EXPOSURE,
	/* The rule keys, in hj_rule_keys order. */
	K_RULE_FIRST,
	K_RULE_LAST = K_RULE_FIRST + HJ_CONFIG_RULE_KEYS - 1,
	K_ALLOW_PLAYER_EDGE,
	K_PAYOUT_WALLET,
	K_DUST_LIMIT,
	K_MAX_OUTPUTS,
	K_DEALER_KEY,
	K_MAX_FEE_PER_GAS,
	K_MIN_PRIORITY_FEE,
	K_STUCK_AFTER,
	K_DIRECTORY,
	K_CARD_LOG,
	K_LOG_FSYNC,
	K_SERVE_LISTEN,
	K_SERVE_MAX_AGE,
	K_SERVE_HISTORY,
	K_SERVE_MAX_CONNS,
	K_SERVE_MAX_CONNS_IP,
	K_SERVE_MAX_SUBS,
	K_SERVE_REQUEST_MS,
	K_SERVE_IDLE_MS,
	K_SERVE_PING_MS,
	K_SERVE_MAX_SEND,
	K_SERVE_MAX_URL,
	K_SERVE_MAX_HEADER_BYTES,
	K_SERVE_MAX_HEADERS,
	K_SERVE_MAX_MESSAGE,
	K_SERVE_POLL_MS,
	K_METRICS_LISTEN,
	K_METRICS_MAX_LAG,
	K_COUNT
};

/* Sets one key from its text; on error returns -EINVAL (or -ENOMEM) and
 * writes the reason, without place or value, into why. */
typedef int (*setter)(hj_config *c, const char *v, char *why, size_t n);

struct key {
	const char *section;
	const char *name;
	setter set;
	int secret; /* the value is never shown */
};

static const char *const sections[] = {"chain", "dealer", "rules",   "payout",
                                       "state", "serve",  "metrics", NULL};

/* ---- values ---- */

static int set_str(char **dst, const char *v, int empty_unsets)
{
	char *s = NULL;

	if (!(empty_unsets && v[0] == '\0')) {
		s = strdup(v);
		if (s == NULL)
			return -ENOMEM;
	}
	free(*dst);
	*dst = s;
	return 0;
}

/*
 * Digits only: no sign, no blanks, no leading zero (an operator who writes
 * 010 may mean octal).  Overflow and range share one message, which gives
 * the range.
 */
static int parse_u64(const char *v, uint64_t lo, uint64_t hi, uint64_t *out,
                     char *why, size_t n)
{
	uint64_t x = 0;
	size_t i;

	if (v[0] == '\0' || (v[0] == '0' && v[1] != '\0'))
		goto nan;
	for (i = 0; v[i] != '\0'; i++) {
		unsigned d;

		if (v[i] < '0' || v[i] > '9')
			goto nan;
		d = (unsigned)(v[i] - '0');
		if (x > (UINT64_MAX - d) / 10)
			goto range;
		x = x * 10 + d;
	}
	if (x < lo || x > hi)
		goto range;
	*out = x;
	return 0;
nan:
	snprintf(why, n, "not a decimal number (digits only, no leading zero)");
	return -EINVAL;
range:
	snprintf(why, n, "out of range: must be %llu to %llu",
	         (unsigned long long)lo, (unsigned long long)hi);
	return -EINVAL;
}

static int set_unsigned(unsigned *dst, const char *v, uint64_t lo, uint64_t hi,
                        char *why, size_t n)
{
	uint64_t x;
	int r = parse_u64(v, lo, hi, &x, why, n);

	if (r == 0)
		*dst = (unsigned)x;
	return r;
}

static int set_family(hj_config *c, const char *v, char *why, size_t n)
{
	if (strcmp(v, "evm") == 0) {
		c->family = HJ_EVM;
	} else if (strcmp(v, "bitcoin") == 0) {
		c->family = HJ_BITCOIN;
	} else {
		snprintf(why, n, "unknown family (evm or bitcoin)");
		return -EINVAL;
	}
	return 0;
}

static int set_rpc_url(hj_config *c, const char *v, char *why, size_t n)
{
	if (strncmp(v, "http://", 7) != 0 && strncmp(v, "https://", 8) != 0) {
		snprintf(why, n, "must begin with http:// or https://");
		return -EINVAL;
	}
	for (const char *p = v; *p; p++) {
		if ((unsigned char)*p <= ' ' || *p == 0x7f) {
			snprintf(why, n, "blank or control character in URL");
			return -EINVAL;
		}
	}
	return set_str(&c->rpc_url, v, 0);
}

static int set_coin(hj_config *c, const char *v, char *why, size_t n)
{
	if (v[0] != '\0' && strcmp(v, "bitcoin") != 0 &&
	    strcmp(v, "litecoin") != 0) {
		snprintf(why, n, "unknown coin (bitcoin or litecoin)");
		return -EINVAL;
	}
	return set_str(&c->coin, v, 1);
}

static int set_rpc_cookie_file(hj_config *c, const char *v, char *why, size_t n)
{
	(void)why;
	(void)n;
	return set_str(&c->rpc_cookie_file, v, 1);
}

static int set_rpc_user(hj_config *c, const char *v, char *why, size_t n)
{
	/* Basic auth sends "user:password": the user cannot hold a colon. */
	if (strchr(v, ':') != NULL) {
		snprintf(why, n, "a user name cannot contain ':'");
		return -EINVAL;
	}
	return set_str(&c->rpc_user, v, 1);
}

static int set_rpc_password(hj_config *c, const char *v, char *why, size_t n)
{
	(void)why;
	(void)n;
	return set_str(&c->rpc_password, v, 1);
}

static int set_rpc_bearer(hj_config *c, const char *v, char *why, size_t n)
{
	/* It goes into an HTTP header line as is. */
	for (const char *p = v; *p; p++) {
		if ((unsigned char)*p <= ' ' || *p == 0x7f) {
			snprintf(why, n, "blank or control character in token");
			return -EINVAL;
		}
	}
	return set_str(&c->rpc_bearer, v, 1);
}

static int set_rpc_timeout_ms(hj_config *c, const char *v, char *why, size_t n)
{
	return set_unsigned(&c->rpc_timeout_ms, v, 100, 3600000, why, n);
}

static int set_rpc_max_response(hj_config *c, const char *v, char *why,
                                size_t n)
{
	uint64_t x;
	int r = parse_u64(v, 4096, 1u << 30, &x, why, n);

	if (r == 0)
		c->rpc_max_response = (size_t)x;
	return r;
}

/* A number of blocks, or the node's own final block: "finalized" or
 * "safe" (EVM's block tags; finish() refuses them on the Bitcoin
 * family, which has neither). */
static int set_confirmations(hj_config *c, const char *v, char *why, size_t n)
{
	int r;

	if (strcmp(v, "finalized") == 0 || strcmp(v, "safe") == 0) {
		c->finality =
		    v[0] == 'f' ? HJ_FINALITY_FINALIZED : HJ_FINALITY_SAFE;
		c->confirmations = 0;
		return 0;
	}
	/* Digits get the number's own reasons (a leading zero, the range);
	 * anything else is no value of this key. */
	if (v[0] == '\0' || strspn(v, "0123456789") != strlen(v)) {
		snprintf(why, n,
		         "neither a number of blocks (1 to 10000) nor "
		         "finalized or safe");
		return -EINVAL;
	}
	r = set_unsigned(&c->confirmations, v, 1, 10000, why, n);
	if (r == 0)
		c->finality = HJ_FINALITY_DEPTH;
	return r;
}

static int set_poll_interval_ms(hj_config *c, const char *v, char *why,
                                size_t n)
{
	return set_unsigned(&c->poll_interval_ms, v, 10, 3600000, why, n);
}

static int set_batch_blocks(hj_config *c, const char *v, char *why, size_t n)
{
	return set_unsigned(&c->batch_blocks, v, 1, 1000, why, n);
}

static int set_start_height(hj_config *c, const char *v, char *why, size_t n)
{
	uint64_t x;
	int r;

	/* Empty: back to "the tip at first start" (an override can say so). */
	if (v[0] == '\0') {
		c->start_height = 0;
		c->start_height_set = 0;
		return 0;
	}
	/* The store keeps heights in SQLite's signed 64-bit integers. */
	r = parse_u64(v, 0, INT64_MAX, &x, why, n);
	if (r == 0) {
		c->start_height = x;
		c->start_height_set = 1;
	}
	return r;
}

/* Its scheme is checked by finish(), which knows the family. */
static int set_push_url(hj_config *c, const char *v, char *why, size_t n)
{
	for (const char *p = v; *p; p++) {
		if ((unsigned char)*p <= ' ' || *p == 0x7f) {
			snprintf(why, n, "blank or control character in URL");
			return -EINVAL;
		}
	}
	return set_str(&c->push_url, v, 1);
}

/* An EVM address that does not parse, whatever the hex decoder found. */
#define NOT_EVM_ADDRESS "not an EVM address (0x and 40 hex digits)"

static int set_address(hj_config *c, const char *v, char *why, size_t n)
{
	/*
	 * Checked by the family known now; finish() checks again by the final
	 * family, since an override may change it after this line.
	 */
	if (c->family == HJ_EVM) {
		hj_dealer d;

		if (hj_dealer_parse(HJ_EVM, v, strlen(v), &d, why, n) < 0) {
			snprintf(why, n, NOT_EVM_ADDRESS);
			return -EINVAL;
		}
	} else if (v[0] == '\0') {
		snprintf(why, n, "empty value");
		return -EINVAL;
	}
	return set_str(&c->address, v, 0);
}

/* How a worst case is said when side bets count in it. */
#define SIDES(c)                                                               \
	((c)->rules.pp_on || (c)->rules.t3_on ? " with side stakes of max_bet" \
	                                      : "")

static int set_preset(hj_config *c, const char *v, char *why, size_t n)
{
	hj_rules r;
	size_t used = 0;

	if (hj_rules_preset(v, &r) < 0) {
		used = (size_t)snprintf(why, n, "unknown preset (");
		for (size_t i = 0; hj_preset_names[i] && used < n; i++)
			used +=
			    (size_t)snprintf(why + used, n - used, "%s%s",
			                     i ? ", " : "", hj_preset_names[i]);
		if (used < n)
			snprintf(why + used, n - used, ")");
		return -EINVAL;
	}
	/* The limits and the timeout are the dealer's, not the preset's, and
	 * so are the rule keys set before this line. */
	r.min_bet = c->rules.min_bet;
	r.max_bet = c->rules.max_bet;
	r.timeout_blocks = c->rules.timeout_blocks;
	r.max_exposure = c->rules.max_exposure;
	for (size_t i = 0; i < HJ_CONFIG_RULE_KEYS; i++)
		if (c->rule_set[i][0] != '\0')
			(void)hj_rules_set_key(&r, hj_rule_keys[i],
			                       c->rule_set[i], NULL, 0);
	c->rules = r;
	return 0;
}

/* A rule key of docs/PROTOCOL.md section 7.1 (hj_rule_keys[i]): over the
 * preset, wherever the preset is set. */
static int set_rule_key(hj_config *c, size_t i, const char *v, char *why,
                        size_t n)
{
	if (strlen(v) >= sizeof c->rule_set[i] ||
	    hj_rules_set_key(&c->rules, hj_rule_keys[i], v, why, n) != 0) {
		if (strlen(v) >= sizeof c->rule_set[i])
			snprintf(why, n, "too long");
		return -EINVAL;
	}
	snprintf(c->rule_set[i], sizeof c->rule_set[i], "%s", v);
	return 0;
}

#define RULE_SETTER(i)                                                         \
	static int set_rule_##i(hj_config *c, const char *v, char *why,        \
	                        size_t n)                                      \
	{                                                                      \
		return set_rule_key(c, (i), v, why, n);                        \
	}
RULE_SETTER(0)
RULE_SETTER(1)
RULE_SETTER(2)
RULE_SETTER(3)
RULE_SETTER(4)
RULE_SETTER(5)
RULE_SETTER(6)
RULE_SETTER(7)
RULE_SETTER(8)
RULE_SETTER(9)
RULE_SETTER(10)
RULE_SETTER(11)
RULE_SETTER(12)
#undef RULE_SETTER

static int parse_bet(const char *v, hj_amount *out, char *why, size_t n)
{
	hj_amount x;
	int r = hj_amount_parse(v, strlen(v), &x);

	if (r == -ERANGE || (r == 0 && x > HJ_MAX_BET)) {
		snprintf(why, n, "out of range: must be 1 to 2^120");
		return -EINVAL;
	}
	if (r < 0) {
		snprintf(why, n,
		         "not a decimal amount in base units (digits only, no "
		         "leading zero)");
		return -EINVAL;
	}
	if (x < 1) {
		snprintf(why, n, "out of range: must be 1 to 2^120");
		return -EINVAL;
	}
	*out = x;
	return 0;
}

static int set_min_bet(hj_config *c, const char *v, char *why, size_t n)
{
	return parse_bet(v, &c->rules.min_bet, why, n);
}

static int set_max_bet(hj_config *c, const char *v, char *why, size_t n)
{
	return parse_bet(v, &c->rules.max_bet, why, n);
}

static int set_timeout_blocks(hj_config *c, const char *v, char *why, size_t n)
{
	uint64_t x;
	int r = parse_u64(v, 1, 1000000, &x, why, n);

	if (r == 0)
		c->rules.timeout_blocks = (uint32_t)x;
	return r;
}

/* Any amount: 0 turns the limit off, and a sum of worst cases may well
 * exceed 2^120 or, on the Bitcoin family, 2^64. */
static int set_max_exposure(hj_config *c, const char *v, char *why, size_t n)
{
	hj_amount x;
	int r = hj_amount_parse(v, strlen(v), &x);

	if (r == -ERANGE) {
		snprintf(why, n,
		         "out of range: must be 0 (no limit) to 2^128 - 1");
		return -EINVAL;
	}
	if (r < 0) {
		snprintf(why, n,
		         "not a decimal amount in base units (digits only, no "
		         "leading zero)");
		return -EINVAL;
	}
	c->rules.max_exposure = x;
	return 0;
}

static int set_payout_wallet(hj_config *c, const char *v, char *why, size_t n)
{
	/* It goes into the URL path (percent-encoded) and into messages. */
	for (const char *p = v; *p; p++) {
		if ((unsigned char)*p < ' ' || *p == 0x7f) {
			snprintf(why, n, "control character in wallet name");
			return -EINVAL;
		}
	}
	return set_str(&c->payout_wallet, v, 1);
}

static int set_dust_limit(hj_config *c, const char *v, char *why, size_t n)
{
	uint64_t x;
	int r;

	/* Empty: back to the coin's default. */
	if (v[0] == '\0') {
		c->dust_limit = 0;
		return 0;
	}
	r = parse_u64(v, 1, DUST_MAX, &x, why, n);
	if (r == 0)
		c->dust_limit = x;
	return r;
}

static int set_max_outputs(hj_config *c, const char *v, char *why, size_t n)
{
	return set_unsigned(&c->max_outputs, v, 1, 1000, why, n);
}

/* Empty: unset, as for the wallet. */
static int set_dealer_key(hj_config *c, const char *v, char *why, size_t n)
{
	(void)why;
	(void)n;
	return set_str(&c->dealer_key, v, 1);
}

/* A fee in wei per gas, 1 to 2^64 - 1 (no node takes more). */
static int set_fee(hj_amount *dst, const char *v, char *why, size_t n)
{
	uint64_t x;
	int r = parse_u64(v, 1, UINT64_MAX, &x, why, n);

	if (r == 0)
		*dst = x;
	return r;
}

static int set_max_fee_per_gas(hj_config *c, const char *v, char *why, size_t n)
{
	return set_fee(&c->max_fee_per_gas, v, why, n);
}

static int set_min_priority_fee(hj_config *c, const char *v, char *why,
                                size_t n)
{
	return set_fee(&c->min_priority_fee, v, why, n);
}

static int set_stuck_after(hj_config *c, const char *v, char *why, size_t n)
{
	return set_unsigned(&c->stuck_after_s, v, 1, 86400, why, n);
}

static int set_directory(hj_config *c, const char *v, char *why, size_t n)
{
	if (v[0] != '/') {
		snprintf(why, n, "must be an absolute path");
		return -EINVAL;
	}
	return set_str(&c->state_dir, v, 0);
}

static int set_card_log(hj_config *c, const char *v, char *why, size_t n)
{
	if (v[0] == '\0') {
		snprintf(why, n, "empty value");
		return -EINVAL;
	}
	return set_str(&c->card_log, v, 0);
}

/* yes/true/on/1 or no/false/off/0. */
static int parse_bool(const char *v, int *out, char *why, size_t n)
{
	static const char *const yes[] = {"yes", "true", "on", "1", NULL};
	static const char *const no[] = {"no", "false", "off", "0", NULL};

	for (size_t i = 0; yes[i]; i++) {
		if (strcmp(v, yes[i]) == 0) {
			*out = 1;
			return 0;
		}
		if (strcmp(v, no[i]) == 0) {
			*out = 0;
			return 0;
		}
	}
	snprintf(why, n, "not a boolean (yes or no)");
	return -EINVAL;
}

static int set_log_fsync(hj_config *c, const char *v, char *why, size_t n)
{
	return parse_bool(v, &c->log_fsync, why, n);
}

static int set_push(hj_config *c, const char *v, char *why, size_t n)
{
	return parse_bool(v, &c->push, why, n);
}

static int set_allow_player_edge(hj_config *c, const char *v, char *why,
                                 size_t n)
{
	return parse_bool(v, &c->allow_player_edge, why, n);
}

/* HOST:PORT, HOST an IPv4 address or a bracketed IPv6 one, into host
 * (64 bytes) and port. */
static int parse_listen(const char *v, char host_out[64], unsigned *port_out,
                        char *why, size_t n)
{
	const char *colon = strrchr(v, ':');
	char host[64];
	unsigned char bin[16];
	uint64_t port;
	size_t hl;
	int v6 = v[0] == '[';

	if (colon == NULL || colon == v)
		goto bad;
	hl = (size_t)(colon - v);
	if (v6) {
		if (hl < 3 || v[hl - 1] != ']')
			goto bad;
		hl -= 2;
		v++;
	}
	if (hl >= sizeof host)
		goto bad;
	memcpy(host, v, hl);
	host[hl] = '\0';
	if (inet_pton(v6 ? AF_INET6 : AF_INET, host, bin) != 1)
		goto bad;
	if (parse_u64(colon + 1, 0, 65535, &port, why, n) != 0)
		return -EINVAL;
	memcpy(host_out, host, hl + 1);
	*port_out = (unsigned)port;
	return 0;
bad:
	snprintf(why, n,
	         "not HOST:PORT with an IPv4 address or a bracketed IPv6 "
	         "one (127.0.0.1:8549, [::1]:8549)");
	return -EINVAL;
}

static int set_serve_listen(hj_config *c, const char *v, char *why, size_t n)
{
	return parse_listen(v, c->serve.host, &c->serve.port, why, n);
}

/* HOST:PORT as [serve] listen, or "" (or "off"): no listener. */
static int set_metrics_listen(hj_config *c, const char *v, char *why, size_t n)
{
	if (!*v || !strcmp(v, "off")) {
		c->metrics.enabled = 0;
		return 0;
	}
	if (parse_listen(v, c->metrics.host, &c->metrics.port, why, n))
		return -EINVAL;
	c->metrics.enabled = 1;
	return 0;
}

static int set_metrics_max_lag(hj_config *c, const char *v, char *why, size_t n)
{
	return set_unsigned(&c->metrics.max_lag, v, 0, 1000000, why, n);
}

#define SERVE_UNSIGNED(name, field, lo, hi)                                    \
	static int set_serve_##name(hj_config *c, const char *v, char *why,    \
	                            size_t n)                                  \
	{                                                                      \
		return set_unsigned(&c->serve.field, v, lo, hi, why, n);       \
	}
SERVE_UNSIGNED(max_age, max_age_s, 1, 86400)
SERVE_UNSIGNED(history, history_blocks, 1, 1000000)
SERVE_UNSIGNED(max_conns, max_connections, 1, 1000000)
SERVE_UNSIGNED(max_conns_ip, max_connections_per_ip, 1, 1000000)
SERVE_UNSIGNED(max_subs, max_subscriptions, 1, 1000)
SERVE_UNSIGNED(request_ms, request_timeout_ms, 100, 3600000)
SERVE_UNSIGNED(idle_ms, idle_timeout_ms, 100, 3600000)
SERVE_UNSIGNED(ping_ms, ping_interval_ms, 100, 3600000)
SERVE_UNSIGNED(max_send, max_send_buffer, 4096, 1073741824)
SERVE_UNSIGNED(max_url, max_url, 64, 65536)
SERVE_UNSIGNED(max_header_bytes, max_header_bytes, 256, 1048576)
SERVE_UNSIGNED(max_headers, max_headers, 4, 1000)
SERVE_UNSIGNED(max_message, max_message, 64, 1048576)
SERVE_UNSIGNED(poll_ms, poll_interval_ms, 10, 3600000)

static const struct key keys[K_COUNT] = {
    [K_FAMILY] = {"chain", "family", set_family, 0},
    [K_COIN] = {"chain", "coin", set_coin, 0},
    [K_RPC_URL] = {"chain", "rpc_url", set_rpc_url, 0},
    [K_RPC_USER] = {"chain", "rpc_user", set_rpc_user, 0},
    [K_RPC_PASSWORD] = {"chain", "rpc_password", set_rpc_password, 1},
    [K_RPC_BEARER] = {"chain", "rpc_bearer", set_rpc_bearer, 1},
    [K_RPC_COOKIE_FILE] = {"chain", "rpc_cookie_file", set_rpc_cookie_file, 0},
    [K_RPC_TIMEOUT_MS] = {"chain", "rpc_timeout_ms", set_rpc_timeout_ms, 0},
    [K_RPC_MAX_RESPONSE] = {"chain", "rpc_max_response", set_rpc_max_response,
                            0},
    [K_CONFIRMATIONS] = {"chain", "confirmations", set_confirmations, 0},
    [K_POLL_INTERVAL_MS] = {"chain", "poll_interval_ms", set_poll_interval_ms,
                            0},
    [K_BATCH_BLOCKS] = {"chain", "batch_blocks", set_batch_blocks, 0},
    [K_START_HEIGHT] = {"chain", "start_height", set_start_height, 0},
    [K_PUSH] = {"chain", "push", set_push, 0},
    [K_PUSH_URL] = {"chain", "push_url", set_push_url, 0},
    [K_ADDRESS] = {"dealer", "address", set_address, 0},
    [K_PRESET] = {"rules", "preset", set_preset, 0},
    [K_MIN_BET] = {"rules", "min_bet", set_min_bet, 0},
    [K_MAX_BET] = {"rules", "max_bet", set_max_bet, 0},
    [K_TIMEOUT_BLOCKS] = {"rules", "timeout_blocks", set_timeout_blocks, 0},
    [K_MAX_EXPOSURE] = {"rules", "max_exposure", set_max_exposure, 0},
    [K_RULE_FIRST + 0] = {"rules", "blackjack_pays", set_rule_0, 0},
    [K_RULE_FIRST + 1] = {"rules", "dealer_soft17", set_rule_1, 0},
    [K_RULE_FIRST + 2] = {"rules", "peek", set_rule_2, 0},
    [K_RULE_FIRST + 3] = {"rules", "double_on", set_rule_3, 0},
    [K_RULE_FIRST + 4] = {"rules", "double_after_split", set_rule_4, 0},
    [K_RULE_FIRST + 5] = {"rules", "max_hands", set_rule_5, 0},
    [K_RULE_FIRST + 6] = {"rules", "split_by_value", set_rule_6, 0},
    [K_RULE_FIRST + 7] = {"rules", "split_aces", set_rule_7, 0},
    [K_RULE_FIRST + 8] = {"rules", "hit_split_aces", set_rule_8, 0},
    [K_RULE_FIRST + 9] = {"rules", "surrender", set_rule_9, 0},
    [K_RULE_FIRST + 10] = {"rules", "split_21_is_blackjack", set_rule_10, 0},
    [K_RULE_FIRST + 11] = {"rules", "perfect_pairs", set_rule_11, 0},
    [K_RULE_FIRST + 12] = {"rules", "twenty_one_plus_three", set_rule_12, 0},
    [K_ALLOW_PLAYER_EDGE] = {"rules", "allow_player_edge",
                             set_allow_player_edge, 0},
    [K_PAYOUT_WALLET] = {"payout", "wallet", set_payout_wallet, 0},
    [K_DUST_LIMIT] = {"payout", "dust_limit", set_dust_limit, 0},
    [K_MAX_OUTPUTS] = {"payout", "max_outputs", set_max_outputs, 0},
    [K_DEALER_KEY] = {"payout", "dealer_key", set_dealer_key, 0},
    [K_MAX_FEE_PER_GAS] = {"payout", "max_fee_per_gas", set_max_fee_per_gas, 0},
    [K_MIN_PRIORITY_FEE] = {"payout", "min_priority_fee", set_min_priority_fee,
                            0},
    [K_STUCK_AFTER] = {"payout", "stuck_after", set_stuck_after, 0},
    [K_DIRECTORY] = {"state", "directory", set_directory, 0},
    [K_CARD_LOG] = {"state", "card_log", set_card_log, 0},
    [K_LOG_FSYNC] = {"state", "log_fsync", set_log_fsync, 0},
    [K_SERVE_LISTEN] = {"serve", "listen", set_serve_listen, 0},
    [K_SERVE_MAX_AGE] = {"serve", "max_age", set_serve_max_age, 0},
    [K_SERVE_HISTORY] = {"serve", "history_blocks", set_serve_history, 0},
    [K_SERVE_MAX_CONNS] = {"serve", "max_connections", set_serve_max_conns, 0},
    [K_SERVE_MAX_CONNS_IP] = {"serve", "max_connections_per_ip",
                              set_serve_max_conns_ip, 0},
    [K_SERVE_MAX_SUBS] = {"serve", "max_subscriptions", set_serve_max_subs, 0},
    [K_SERVE_REQUEST_MS] = {"serve", "request_timeout_ms", set_serve_request_ms,
                            0},
    [K_SERVE_IDLE_MS] = {"serve", "idle_timeout_ms", set_serve_idle_ms, 0},
    [K_SERVE_PING_MS] = {"serve", "ping_interval_ms", set_serve_ping_ms, 0},
    [K_SERVE_MAX_SEND] = {"serve", "max_send_buffer", set_serve_max_send, 0},
    [K_SERVE_MAX_URL] = {"serve", "max_url", set_serve_max_url, 0},
    [K_SERVE_MAX_HEADER_BYTES] = {"serve", "max_header_bytes",
                                  set_serve_max_header_bytes, 0},
    [K_SERVE_MAX_HEADERS] = {"serve", "max_headers", set_serve_max_headers, 0},
    [K_SERVE_MAX_MESSAGE] = {"serve", "max_message", set_serve_max_message, 0},
    [K_SERVE_POLL_MS] = {"serve", "poll_interval_ms", set_serve_poll_ms, 0},
    [K_METRICS_LISTEN] = {"metrics", "listen", set_metrics_listen, 0},
    [K_METRICS_MAX_LAG] = {"metrics", "max_lag", set_metrics_max_lag, 0},
};

static int find_section(const char *s, size_t len)
{
	for (int i = 0; sections[i]; i++)
		if (strlen(sections[i]) == len &&
		    memcmp(sections[i], s, len) == 0)
			return i;
	return -1;
}

/* Returns the key's id, or -1 (unknown key) or -2 (unknown section). */
static int find_key(const char *section, size_t slen, const char *name,
                    size_t nlen)
{
	if (find_section(section, slen) < 0)
		return -2;
	for (int i = 0; i < K_COUNT; i++)
		if (strlen(keys[i].section) == slen &&
		    memcmp(keys[i].section, section, slen) == 0 &&
		    strlen(keys[i].name) == nlen &&
		    memcmp(keys[i].name, name, nlen) == 0)
			return i;
	return -1;
}

/*
 * Writes s[0..len) for a message: printable ASCII as is, other bytes as
 * \xNN, cut at SHOW_MAX with "...", so that no byte from a file reaches a
 * terminal or the journal raw.
 */
static void show(const char *s, size_t len, char *buf, size_t n)
{
	size_t o = 0;

	if (n == 0)
		return;
	for (size_t i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)s[i];
		char tmp[5];
		size_t w;

		if (i == SHOW_MAX) {
			if (o + 3 < n) {
				memcpy(buf + o, "...", 3);
				o += 3;
			}
			break;
		}
		if (ch >= 0x20 && ch < 0x7f && ch != '\\') {
			tmp[0] = (char)ch;
			w = 1;
		} else {
			snprintf(tmp, sizeof tmp, "\\x%02x", ch);
			w = 4;
		}
		if (o + w >= n)
			break;
		memcpy(buf + o, tmp, w);
		o += w;
	}
	buf[o] = '\0';
}

/* The value as messages show it: secrets masked, and so is the user
 * information of a URL ("http://user:password@host/"). */
static void show_value(int id, const char *v, char *buf, size_t n)
{
	const char *host = strstr(v, "://");
	size_t auth;

	if (id >= 0 && keys[id].secret) {
		snprintf(buf, n, "***");
		return;
	}
	if ((id == K_RPC_URL || id == K_PUSH_URL) && host != NULL) {
		host += 3;
		auth = strcspn(host, "/?#@");
		if (host[auth] == '@' && n > 8) {
			size_t pre = (size_t)(host - v);

			show(v, pre, buf, n - 4);
			pre = strlen(buf);
			memcpy(buf + pre, "***", 3);
			show(host + auth, strlen(host + auth), buf + pre + 3,
			     n - pre - 3);
			return;
		}
	}
	show(v, strlen(v), buf, n);
}

/* ---- init, free ---- */

void hj_config_init(hj_config *c)
{
	memset(c, 0, sizeof *c);
	c->family = HJ_EVM;
	/* rpc_url NULL: finish() fills the family's and coin's default. */
	c->rpc_timeout_ms = 30000;
	c->rpc_max_response = (size_t)64 * 1024 * 1024;
	/* 0 is never valid: finish() fills the family's default. */
	c->confirmations = 0;
	c->poll_interval_ms = 1000;
	c->push = 1;
	c->max_outputs = MAX_OUTPUTS;
	c->max_fee_per_gas = MAX_FEE_PER_GAS;
	c->min_priority_fee = MIN_PRIORITY_FEE;
	c->stuck_after_s = STUCK_AFTER_S;
	/* batch_blocks 0: finish() fills the family's default. */
	(void)hj_rules_preset("bethash", &c->rules);
	/* min_bet, max_bet and timeout_blocks 0 mean "not set". */
	c->rules.min_bet = 0;
	c->rules.max_bet = 0;
	c->rules.timeout_blocks = 0;
	c->log_fsync = 1;
	snprintf(c->serve.host, sizeof c->serve.host, "127.0.0.1");
	c->serve.port = 8549;
	c->metrics.max_lag = 10;
	c->serve.history_blocks = 10000;
	c->serve.max_connections = 20000;
	c->serve.max_connections_per_ip = 64;
	c->serve.max_subscriptions = 16;
	c->serve.request_timeout_ms = 10000;
	c->serve.idle_timeout_ms = 60000;
	c->serve.ping_interval_ms = 30000;
	c->serve.max_send_buffer = 1 << 20;
	c->serve.max_url = 2048;
	c->serve.max_header_bytes = 8192;
	c->serve.max_headers = 64;
	c->serve.max_message = 4096;
	c->serve.poll_interval_ms = 1000;
}

void hj_config_free(hj_config *c)
{
	if (c == NULL)
		return;
	free(c->coin);
	free(c->rpc_url);
	free(c->rpc_cookie_file);
	free(c->push_url);
	free(c->rpc_user);
	free(c->rpc_password);
	free(c->rpc_bearer);
	free(c->address);
	free(c->payout_wallet);
	free(c->dealer_key);
	free(c->state_dir);
	free(c->card_log);
	memset(c, 0, sizeof *c);
}

/* ---- the file ---- */

struct load {
	hj_config *c;
	const char *path;
	const char *p, *end;  /* the unread rest of the file */
	int line;             /* of the line last handed to inih */
	int line_of[K_COUNT]; /* where each key was set in this file, or 0 */
	int err;              /* first error, 0 if none */
	int err_line;
	char *errbuf;
	size_t errlen;
};

static void fail_at(struct load *l, int line, int err, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void fail_at(struct load *l, int line, int err, const char *fmt, ...)
{
	va_list ap;
	int used;

	if (l->err)
		return;
	l->err = err;
	l->err_line = line;
	if (l->errbuf == NULL || l->errlen == 0)
		return;
	used = snprintf(l->errbuf, l->errlen, "%s:%d: ", l->path, line);
	if (used < 0 || (size_t)used >= l->errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(l->errbuf + used, l->errlen - (size_t)used, fmt, ap);
	va_end(ap);
}

/*
 * inih's reader: one whole line per call, so the line count here is the
 * line of the handler call that follows.  Returning NULL ends the parse,
 * which is how an error found here stops inih.
 */
static char *read_line(char *str, int num, void *stream)
{
	struct load *l = stream;
	const char *nl, *s;
	size_t len;

	if (l->err || l->p >= l->end)
		return NULL;
	nl = memchr(l->p, '\n', (size_t)(l->end - l->p));
	s = l->p;
	len = nl ? (size_t)(nl - s) : (size_t)(l->end - s);
	l->p = nl ? nl + 1 : l->end;
	l->line++;

	if (memchr(s, '\0', len) != NULL) {
		fail_at(l, l->line, -EINVAL, "NUL byte in line");
		return NULL;
	}
	/* A UTF-8 byte order mark, which some editors write. */
	if (l->line == 1 && len >= 3 && memcmp(s, "\xef\xbb\xbf", 3) == 0) {
		s += 3;
		len -= 3;
	}
	while (len > 0 && (*s == ' ' || *s == '\t')) {
		s++;
		len--;
	}
	/*
	 * The line and its '\n' must fit inih's buffer whole: a longer line
	 * would be split, and its tail taken for a line of its own.  The
	 * '\n' also keeps a realloc-enabled inih from asking for more.
	 */
	if (num < 2 || len > (size_t)num - 2) {
		fail_at(l, l->line, -EINVAL, "line longer than %d bytes",
		        num - 2);
		return NULL;
	}
	if (len > 0 && s[0] == '[') {
		const char *close = memchr(s, ']', len);
		char shown[4 * SHOW_MAX + 4];

		if (close == NULL) {
			fail_at(l, l->line, -EINVAL,
			        "section header without closing ']'");
			return NULL;
		}
		if (find_section(s + 1, (size_t)(close - s - 1)) < 0) {
			show(s + 1, (size_t)(close - s - 1), shown,
			     sizeof shown);
			fail_at(l, l->line, -EINVAL,
			        "[%s]: unknown section (chain, dealer, rules, "
			        "payout, state, serve, metrics)",
			        shown);
			return NULL;
		}
	}
	memcpy(str, s, len);
	str[len] = '\n';
	str[len + 1] = '\0';
	return str;
}

static int on_key(void *user, const char *section, const char *name,
                  const char *value)
{
	struct load *l = user;
	char sec[4 * SHOW_MAX + 4], key[4 * SHOW_MAX + 4],
	    val[4 * SHOW_MAX + 4];
	char why[160];
	int id, r;

	if (l->err)
		return 1;
	id = find_key(section, strlen(section), name, strlen(name));
	show(section, strlen(section), sec, sizeof sec);
	show(name, strlen(name), key, sizeof key);
	show_value(id, value, val, sizeof val);
	/*
	 * An unknown key's value is not shown: it may be a secret under a
	 * misspelt name.  Only keys above the first header get id -2, since
	 * read_line refuses unknown headers.
	 */
	if (id == -2) {
		fail_at(
		    l, l->line, -EINVAL,
		    "%s: key outside a section ([chain], [dealer], [rules], "
		    "[payout], [state], [serve] or [metrics])",
		    key);
		return 0;
	}
	if (id < 0) {
		fail_at(l, l->line, -EINVAL, "[%s] %s: unknown key", sec, key);
		return 0;
	}
	if (l->line_of[id]) {
		fail_at(l, l->line, -EINVAL,
		        "[%s] %s = %s: duplicate key (first set at line %d)",
		        sec, key, val, l->line_of[id]);
		return 0;
	}
	why[0] = '\0';
	r = keys[id].set(l->c, value, why, sizeof why);
	if (r < 0) {
		fail_at(l, l->line, r, "[%s] %s = %s: %s", sec, key, val,
		        r == -ENOMEM ? "out of memory" : why);
		return 0;
	}
	l->line_of[id] = l->line;
	return 1;
}

/*
 * What involves two keys, when both come from this file; reported at the
 * line of the later one.  finish() checks the final values again.
 */
static void check_pairs(struct load *l)
{
	const hj_config *c = l->c;
	const int *at = l->line_of;
	char a[HJ_AMOUNT_STRLEN], b[HJ_AMOUNT_STRLEN];

	if (at[K_MIN_BET] && at[K_MAX_BET] &&
	    c->rules.min_bet > c->rules.max_bet) {
		hj_amount_format(c->rules.min_bet, a);
		hj_amount_format(c->rules.max_bet, b);
		if (at[K_MAX_BET] > at[K_MIN_BET])
			fail_at(l, at[K_MAX_BET], -EINVAL,
			        "[rules] max_bet = %s: below min_bet %s "
			        "(line %d)",
			        b, a, at[K_MIN_BET]);
		else
			fail_at(l, at[K_MIN_BET], -EINVAL,
			        "[rules] min_bet = %s: above max_bet %s "
			        "(line %d)",
			        a, b, at[K_MAX_BET]);
	}
	if (at[K_MAX_BET] && at[K_MAX_EXPOSURE] && c->rules.max_exposure &&
	    c->rules.max_exposure < hj_rules_worst_max_bet(&c->rules)) {
		char w[HJ_AMOUNT_STRLEN];

		hj_amount_format(c->rules.max_bet, a);
		hj_amount_format(c->rules.max_exposure, b);
		hj_amount_format(hj_rules_worst_max_bet(&c->rules), w);
		if (at[K_MAX_EXPOSURE] > at[K_MAX_BET])
			fail_at(l, at[K_MAX_EXPOSURE], -EINVAL,
			        "[rules] max_exposure = %s: below %s, the "
			        "worst-case return of one max_bet Bet%s "
			        "(max_bet %s, line %d)",
			        b, w, SIDES(c), a, at[K_MAX_BET]);
		else
			fail_at(l, at[K_MAX_BET], -EINVAL,
			        "[rules] max_bet = %s: its worst-case return%s "
			        "%s is above max_exposure %s (line %d)",
			        a, SIDES(c), w, b, at[K_MAX_EXPOSURE]);
	}
	if (at[K_RPC_USER] && at[K_RPC_BEARER] && c->rpc_user &&
	    c->rpc_bearer) {
		int later = at[K_RPC_USER] > at[K_RPC_BEARER];
		char u[4 * SHOW_MAX + 4];

		show_value(K_RPC_USER, c->rpc_user, u, sizeof u);
		if (later)
			fail_at(l, at[K_RPC_USER], -EINVAL,
			        "[chain] rpc_user = %s: rpc_bearer is set too "
			        "(line %d); use basic auth or a bearer token, "
			        "not both",
			        u, at[K_RPC_BEARER]);
		else
			fail_at(l, at[K_RPC_BEARER], -EINVAL,
			        "[chain] rpc_bearer = ***: rpc_user is set too "
			        "(line %d); use basic auth or a bearer token, "
			        "not both",
			        at[K_RPC_USER]);
	}
	if (at[K_RPC_USER] && c->rpc_user && c->rpc_password == NULL) {
		char u[4 * SHOW_MAX + 4];

		show_value(K_RPC_USER, c->rpc_user, u, sizeof u);
		fail_at(l, at[K_RPC_USER], -EINVAL,
		        "[chain] rpc_user = %s: rpc_password is not set", u);
	}
	if (at[K_RPC_PASSWORD] && c->rpc_password && c->rpc_user == NULL)
		fail_at(l, at[K_RPC_PASSWORD], -EINVAL,
		        "[chain] rpc_password = ***: rpc_user is not set");
}

/* Reads the file, up to MAX_FILE_SIZE + 1 bytes, into a new buffer. */
static int slurp(const char *path, char **out, size_t *outlen, char *err,
                 size_t errlen)
{
	FILE *f = NULL;
	char *buf = NULL;
	size_t len = 0;
	int r = 0;

	f = fopen(path, "re");
	if (f == NULL) {
		r = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		goto out;
	}
	buf = malloc(MAX_FILE_SIZE + 1);
	if (buf == NULL) {
		r = -ENOMEM;
		snprintf(err, errlen, "%s: out of memory", path);
		goto out;
	}
	/* One byte more than a file may hold tells a file too large. */
	len = fread(buf, 1, MAX_FILE_SIZE + 1, f);
	if (ferror(f)) {
		r = errno ? -errno : -EIO;
		snprintf(err, errlen, "%s: %s", path, strerror(-r));
		goto out;
	}
	*out = buf;
	*outlen = len;
	buf = NULL;
out:
	free(buf);
	if (f)
		fclose(f);
	return r;
}

int hj_config_load(hj_config *c, const char *path, char *err, size_t errlen)
{
	char *data = NULL;
	size_t len = 0;
	int r;

	if (err && errlen)
		err[0] = '\0';
	else
		errlen = 0;
	r = slurp(path, &data, &len, err, errlen);
	if (r < 0)
		return r;
	r = hj_config_load_text(c, path, data, len, err, errlen);
	free(data);
	return r;
}

int hj_config_load_text(hj_config *c, const char *name, const char *text,
                        size_t len, char *err, size_t errlen)
{
	struct load l;
	int r;

	if (err && errlen)
		err[0] = '\0';
	else
		errlen = 0;
	if (len > MAX_FILE_SIZE) {
		snprintf(err, errlen, "%s: larger than %d bytes", name,
		         MAX_FILE_SIZE);
		return -EINVAL;
	}
	memset(&l, 0, sizeof l);
	l.c = c;
	l.path = name;
	l.p = text;
	l.end = text + len;
	l.errbuf = err;
	l.errlen = errlen;

	r = ini_parse_stream(read_line, &l, on_key, &l);
	if (r > 0 && (l.err == 0 || r < l.err_line)) {
		/* inih's own complaint: its line count is ours. */
		l.err = 0;
		fail_at(&l, r, -EINVAL,
		        "expected [section], key = value or a comment");
	} else if (r < 0 && l.err == 0) {
		fail_at(&l, l.line, -ENOMEM, "out of memory");
	}
	if (l.err == 0)
		check_pairs(&l);
	return l.err;
}

/* ---- the command line ---- */

int hj_config_set_arg(hj_config *c, const char *arg, char *err, size_t errlen)
{
	const char *a = arg, *dot, *eq;
	char shown[4 * SHOW_MAX + 4], why[160];
	int id, r;

	if (err == NULL)
		errlen = 0;
	if (strncmp(a, "--", 2) == 0)
		a += 2;
	eq = strchr(a, '=');
	dot = eq ? memchr(a, '.', (size_t)(eq - a)) : NULL;
	if (eq == NULL || dot == NULL) {
		/* No key known, so no way to tell a secret: show none of it. */
		show(a, eq ? (size_t)(eq - a) : strlen(a), shown, sizeof shown);
		if (errlen)
			snprintf(err, errlen,
			         "command line: --%s: expected "
			         "--section.key=value",
			         shown);
		return -EINVAL;
	}
	id = find_key(a, (size_t)(dot - a), dot + 1, (size_t)(eq - dot - 1));
	show(a, (size_t)(eq - a), shown, sizeof shown);
	if (id < 0) {
		if (errlen)
			snprintf(err, errlen, "command line: --%s: unknown %s",
			         shown, id == -2 ? "section" : "key");
		return -EINVAL;
	}
	why[0] = '\0';
	r = keys[id].set(c, eq + 1, why, sizeof why);
	if (r < 0 && errlen) {
		char val[4 * SHOW_MAX + 4];

		show_value(id, eq + 1, val, sizeof val);
		snprintf(err, errlen, "command line: --%s=%s: %s", shown, val,
		         r == -ENOMEM ? "out of memory" : why);
	}
	return r;
}

/* ---- after everything ---- */

static int fill_str(char **dst, const char *v, char *err, size_t errlen)
{
	if (*dst != NULL)
		return 0;
	*dst = strdup(v);
	if (*dst == NULL) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	return 0;
}

/* dir + "/" + name, or name alone when it is absolute. */
static char *join(const char *dir, const char *name)
{
	size_t dl = strlen(dir), nl = strlen(name);
	char *s;

	if (name[0] == '/')
		return strdup(name);
	while (dl > 1 && dir[dl - 1] == '/')
		dl--;
	s = malloc(dl + 1 + nl + 1);
	if (s == NULL)
		return NULL;
	memcpy(s, dir, dl);
	s[dl] = '/';
	memcpy(s + dl + 1, name, nl + 1);
	return s;
}

/* Whether the URL's authority holds "user[:password]@". */
static int has_userinfo(const char *url)
{
	const char *host = strstr(url, "://");
	size_t n;

	if (host == NULL)
		return 0;
	host += 3;
	n = strcspn(host, "/?#");
	return memchr(host, '@', n) != NULL;
}

/*
 * push_url: EVM, a ws:// URL (no TLS, no credentials: the WebSocket
 * client sends none), by default rpc_url with ws:// for http://; the
 * Bitcoin family, the long poll's JSON-RPC URL (rpc_url's credentials),
 * by default rpc_url.  With push off it is not used, nor checked.  An
 * EVM rpc_url that gives no ws:// URL (https://, credentials) turns push
 * off with push_off_why rather than refuse a configuration that polled
 * well before push existed.
 */
static int finish_push(hj_config *c, char *err, size_t errlen)
{
	char shown[4 * SHOW_MAX + 4];
	char *u;

	if (!c->push)
		return 0;
	if (c->push_url)
		show_value(K_PUSH_URL, c->push_url, shown, sizeof shown);
	if (c->family != HJ_EVM) {
		if (c->push_url == NULL)
			return fill_str(&c->push_url, c->rpc_url, err, errlen);
		if (strncmp(c->push_url, "http://", 7) != 0 &&
		    strncmp(c->push_url, "https://", 8) != 0) {
			snprintf(
			    err, errlen,
			    "[chain] push_url = %s: with family = bitcoin, "
			    "the node's JSON-RPC URL for the long poll "
			    "(http:// or https://)",
			    shown);
			return -EINVAL;
		}
		return 0;
	}
	if (c->push_url) {
		if (strncmp(c->push_url, "wss://", 6) == 0) {
			snprintf(
			    err, errlen,
			    "[chain] push_url = %s: wss:// is not supported "
			    "(no TLS here): use ws:// on localhost or to a "
			    "TLS-terminating proxy on this machine, or set "
			    "push = off",
			    shown);
			return -EINVAL;
		}
		if (strncmp(c->push_url, "ws://", 5) != 0) {
			snprintf(err, errlen,
			         "[chain] push_url = %s: must begin with ws:// "
			         "(the node's WebSocket)",
			         shown);
			return -EINVAL;
		}
		if (has_userinfo(c->push_url)) {
			snprintf(err, errlen,
			         "[chain] push_url = %s: no user or password "
			         "here: the WebSocket is opened without "
			         "credentials",
			         shown);
			return -EINVAL;
		}
		return 0;
	}
	/* No default from these: push is off, and the daemon says why. */
	if (strncmp(c->rpc_url, "https://", 8) == 0) {
		c->push = 0;
		c->push_off_why =
		    "rpc_url is https://, and wss:// is not supported (no TLS "
		    "here): set [chain] push_url to a ws:// URL of the node's "
		    "WebSocket (on localhost, or a TLS-terminating proxy on "
		    "this machine), or push = off to silence this";
		return 0;
	}
	if (has_userinfo(c->rpc_url)) {
		c->push = 0;
		c->push_off_why =
		    "rpc_url has a user or password, which the WebSocket "
		    "would not send: set [chain] push_url to the node's ws:// "
		    "URL, or push = off to silence this";
		return 0;
	}
	/* http://REST -> ws://REST */
	u = malloc(strlen(c->rpc_url) + 1 - 2);
	if (u == NULL) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	memcpy(u, "ws", 2);
	memcpy(u + 2, c->rpc_url + 4, strlen(c->rpc_url + 4) + 1);
	c->push_url = u;
	return 0;
}

int hj_config_state_paths(hj_config *c, char *err, size_t errlen)
{
	if (c->state_dir == NULL) {
		/* systemd's StateDirectory= sets $STATE_DIRECTORY, a
		 * colon-separated list of absolute paths; ours is the first. */
		const char *env = getenv("STATE_DIRECTORY");
		size_t n = env ? strcspn(env, ":") : 0;

		if (env && env[0] == '/' && n > 0)
			c->state_dir = strndup(env, n);
		else
			c->state_dir = strdup(DEFAULT_STATE_DIR);
		if (c->state_dir == NULL)
			goto nomem;
	}
	if (c->card_log == NULL || c->card_log[0] != '/') {
		char *p = join(c->state_dir,
		               c->card_log ? c->card_log : CARD_LOG_NAME);

		if (p == NULL)
			goto nomem;
		free(c->card_log);
		c->card_log = p;
	}
	return 0;
nomem:
	snprintf(err, errlen, "out of memory");
	return -ENOMEM;
}

int hj_config_finish(hj_config *c, char *err, size_t errlen)
{
	char why[160], shown[4 * SHOW_MAX + 4], none[320];
	char a[HJ_AMOUNT_STRLEN], b[HJ_AMOUNT_STRLEN];
	int evm, r;

	if (err == NULL || errlen == 0) {
		err = none;
		errlen = sizeof none;
	}
	err[0] = '\0';
	evm = c->family == HJ_EVM;
	if (evm && c->coin) {
		snprintf(err, errlen,
		         "[chain] coin = %s: only for family = bitcoin",
		         c->coin);
		return -EINVAL;
	}
	if (!evm && c->coin == NULL) {
		snprintf(err, errlen,
		         "[chain] coin: required with family = bitcoin "
		         "(bitcoin or litecoin: with the node's network it "
		         "gives the address prefix)");
		return -EINVAL;
	}
	r = fill_str(&c->rpc_url,
	             evm                               ? DEFAULT_RPC_URL
	             : strcmp(c->coin, "bitcoin") == 0 ? BITCOIN_RPC_URL
	                                               : LITECOIN_RPC_URL,
	             err, errlen);
	if (r < 0)
		return r;
	if (c->rpc_cookie_file && (c->rpc_user || c->rpc_bearer)) {
		show(c->rpc_cookie_file, strlen(c->rpc_cookie_file), shown,
		     sizeof shown);
		snprintf(err, errlen,
		         "[chain] rpc_cookie_file = %s: rpc_user or "
		         "rpc_bearer is set too; use one way to authenticate",
		         shown);
		return -EINVAL;
	}
	if (!evm && !c->rpc_cookie_file && !c->rpc_user && !c->rpc_bearer) {
		/* The node's default data directory, main network. */
		const char *home = getenv("HOME");
		char path[4096];

		if (home == NULL || home[0] != '/') {
			snprintf(err, errlen,
			         "[chain] rpc_cookie_file: required (no "
			         "rpc_user, and no $HOME to find "
			         "~/.%s/.cookie)",
			         c->coin);
			return -EINVAL;
		}
		snprintf(path, sizeof path, "%s/.%s/.cookie", home, c->coin);
		r = fill_str(&c->rpc_cookie_file, path, err, errlen);
		if (r < 0)
			return r;
	}
	if (evm && c->payout_wallet) {
		show(c->payout_wallet, strlen(c->payout_wallet), shown,
		     sizeof shown);
		snprintf(err, errlen,
		         "[payout] wallet = %s: only for family = bitcoin (on "
		         "EVM the daemon signs: [payout] dealer_key)",
		         shown);
		return -EINVAL;
	}
	if (!evm && c->dealer_key) {
		show(c->dealer_key, strlen(c->dealer_key), shown, sizeof shown);
		snprintf(err, errlen,
		         "[payout] dealer_key = %s: only for family = evm (on "
		         "the Bitcoin family a node wallet pays: [payout] "
		         "wallet)",
		         shown);
		return -EINVAL;
	}
	if (evm && c->min_priority_fee > c->max_fee_per_gas) {
		char tip[HJ_AMOUNT_STRLEN], cap[HJ_AMOUNT_STRLEN];

		snprintf(
		    err, errlen,
		    "[payout] min_priority_fee = %s: above max_fee_per_gas "
		    "%s (the cap holds the tip too)",
		    hj_amount_format(c->min_priority_fee, tip),
		    hj_amount_format(c->max_fee_per_gas, cap));
		return -EINVAL;
	}
	if (!evm && c->dust_limit == 0)
		c->dust_limit = strcmp(c->coin, "bitcoin") == 0 ? DUST_BITCOIN
		                                                : DUST_LITECOIN;
	if (c->batch_blocks == 0)
		c->batch_blocks = evm ? 100 : 8;
	if (!evm && c->finality) {
		snprintf(err, errlen,
		         "[chain] confirmations = %s: only for family = evm "
		         "(the Bitcoin family has no finalized or safe block: "
		         "give a number of blocks)",
		         hj_finality_name(c->finality));
		return -EINVAL;
	}
	if (c->confirmations == 0 && !c->finality)
		c->confirmations = evm ? 12 : 6;
	if (c->serve.max_age_s == 0)
		c->serve.max_age_s =
		    hj_config_serve_max_age(evm, c->finality != 0);
	if (c->rules.timeout_blocks == 0)
		c->rules.timeout_blocks =
		    evm ? HJ_TIMEOUT_EVM : HJ_TIMEOUT_BITCOIN;

	if (c->rpc_user && c->rpc_bearer) {
		snprintf(err, errlen,
		         "[chain] rpc_bearer = ***: rpc_user is set too; use "
		         "basic auth or a bearer token, not both");
		return -EINVAL;
	}
	if (c->rpc_user && c->rpc_password == NULL) {
		show_value(K_RPC_USER, c->rpc_user, shown, sizeof shown);
		snprintf(err, errlen,
		         "[chain] rpc_user = %s: rpc_password is not set",
		         shown);
		return -EINVAL;
	}
	if (c->rpc_password && c->rpc_user == NULL) {
		snprintf(err, errlen,
		         "[chain] rpc_password = ***: rpc_user is not set");
		return -EINVAL;
	}

	r = finish_push(c, err, errlen);
	if (r < 0)
		return r;

	if (c->address == NULL) {
		snprintf(err, errlen,
		         "[dealer] address: required (the address players "
		         "send their actions to)");
		return -EINVAL;
	}
	/* The one place the address is parsed: everything after uses
	 * c->dealer.  EVM's reason is the key's own sentence, as when the
	 * line was read. */
	if (hj_dealer_parse(c->family, c->address, strlen(c->address),
	                    &c->dealer, why, sizeof why) < 0) {
		if (evm)
			snprintf(why, sizeof why, NOT_EVM_ADDRESS);
		show(c->address, strlen(c->address), shown, sizeof shown);
		snprintf(err, errlen, "[dealer] address = %s: %s", shown, why);
		return -EINVAL;
	}
	if (!evm) {
		/* Outputs carry 64-bit values: so does every stake. */
		if (c->rules.max_bet > UINT64_MAX) {
			snprintf(err, errlen,
			         "[rules] max_bet = %s: above 2^64 - 1, the "
			         "largest output value on the Bitcoin family",
			         hj_amount_format(c->rules.max_bet, b));
			return -EINVAL;
		}
	}

	if (c->rules.min_bet == 0) {
		snprintf(err, errlen, "[rules] min_bet: required");
		return -EINVAL;
	}
	if (c->rules.max_bet == 0) {
		snprintf(err, errlen, "[rules] max_bet: required");
		return -EINVAL;
	}
	if (c->rules.min_bet > c->rules.max_bet) {
		snprintf(err, errlen, "[rules] max_bet = %s: below min_bet %s",
		         hj_amount_format(c->rules.max_bet, b),
		         hj_amount_format(c->rules.min_bet, a));
		return -EINVAL;
	}
	if (c->rules.max_exposure &&
	    c->rules.max_exposure < hj_rules_worst_max_bet(&c->rules)) {
		char w[HJ_AMOUNT_STRLEN];

		snprintf(err, errlen,
		         "[rules] max_exposure = %s: below %s, the worst-case "
		         "return of one max_bet Bet%s (max_bet %s)",
		         hj_amount_format(c->rules.max_exposure, a),
		         hj_amount_format(hj_rules_worst_max_bet(&c->rules), w),
		         SIDES(c), hj_amount_format(c->rules.max_bet, b));
		return -EINVAL;
	}
	if (hj_rules_check(&c->rules, why, sizeof why) < 0) {
		snprintf(err, errlen, "[rules] %s", why);
		return -EINVAL;
	}
	return hj_config_state_paths(c, err, errlen);
}

unsigned hj_config_serve_max_age(int evm, int finality)
{
	/* A few blocks' time; the node's finalized or safe block moves an
	 * epoch (6.4 minutes on Ethereum) at a time. */
	return !evm ? 3600 : finality ? 900 : 120;
}
