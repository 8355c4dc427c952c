/*
 * The configuration's keys (config_impl.h): each key's section and name,
 * what its value may be and how it is set, and how a value is shown in a
 * message.  A value is checked alone here; what two keys mean together is
 * config_finish.c's.
 */
#include "config_impl.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "amount.h"
#include "say.h"
#include "tls.h"

const char *const hj_config__sections[] = {"chain",   "dealer", "rules",
                                           "payout",  "state",  "serve",
                                           "metrics", "seeds",  NULL};

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
	hj_say(why, n, "not a decimal number (digits only, no leading zero)");
	return -EINVAL;
range:
	hj_say(why, n, "out of range: must be %llu to %llu",
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
		hj_say(why, n, "unknown family (evm or bitcoin)");
		return -EINVAL;
	}
	return 0;
}

static int set_rpc_url(hj_config *c, const char *v, char *why, size_t n)
{
	if (strncmp(v, "http://", 7) != 0 && strncmp(v, "https://", 8) != 0) {
		hj_say(why, n, "must begin with http:// or https://");
		return -EINVAL;
	}
	for (const char *p = v; *p; p++) {
		if ((unsigned char)*p <= ' ' || *p == 0x7f) {
			hj_say(why, n, "blank or control character in URL");
			return -EINVAL;
		}
	}
	return set_str(&c->rpc_url, v, 0);
}

static int set_coin(hj_config *c, const char *v, char *why, size_t n)
{
	if (v[0] != '\0' && strcmp(v, "bitcoin") != 0 &&
	    strcmp(v, "litecoin") != 0) {
		hj_say(why, n, "unknown coin (bitcoin or litecoin)");
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
		hj_say(why, n, "a user name cannot contain ':'");
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
			hj_say(why, n, "blank or control character in token");
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

static int set_rpc_max_batch(hj_config *c, const char *v, char *why, size_t n)
{
	return set_unsigned(&c->rpc_max_batch, v, 1, 10000, why, n);
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
		hj_say(why, n,
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
			hj_say(why, n, "blank or control character in URL");
			return -EINVAL;
		}
	}
	return set_str(&c->push_url, v, 1);
}

/* A PEM file of CA certificates, read now (tls.h): one that cannot be
 * used is an error at its line, not at the first connection.  Empty
 * means unset: the system's CA store. */
static int set_ca_file(hj_config *c, const char *v, char *why, size_t n)
{
	int r;

	if (v[0] != '\0') {
		r = hj_tls_ca_check(v, why, n);
		if (r < 0)
			return r == -ENOMEM ? -ENOMEM : -EINVAL;
	}
	return set_str(&c->ca_file, v, 1);
}

/* An EVM address that does not parse, whatever the hex decoder found. */

static int set_address(hj_config *c, const char *v, char *why, size_t n)
{
	/*
	 * Checked by the family known now; finish() checks again by the final
	 * family, since an override may change it after this line.
	 */
	if (c->family == HJ_EVM) {
		hj_dealer d;

		if (hj_dealer_parse(HJ_EVM, v, strlen(v), &d, why, n) < 0) {
			hj_say(why, n, NOT_EVM_ADDRESS);
			return -EINVAL;
		}
	} else if (v[0] == '\0') {
		hj_say(why, n, "empty value");
		return -EINVAL;
	}
	return set_str(&c->address, v, 0);
}

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
			hj_say(why, n, "too long");
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
RULE_SETTER(13)
#undef RULE_SETTER

static int parse_bet(const char *v, hj_amount *out, char *why, size_t n)
{
	hj_amount x;
	int r = hj_amount_parse(v, strlen(v), &x);

	if (r == -ERANGE || (r == 0 && x > HJ_MAX_BET)) {
		hj_say(why, n, "out of range: must be 1 to 2^120");
		return -EINVAL;
	}
	if (r < 0) {
		hj_say(why, n,
		       "not a decimal amount in base units (digits only, no "
		       "leading zero)");
		return -EINVAL;
	}
	if (x < 1) {
		hj_say(why, n, "out of range: must be 1 to 2^120");
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
		hj_say(why, n,
		       "out of range: must be 0 (no limit) to 2^128 - 1");
		return -EINVAL;
	}
	if (r < 0) {
		hj_say(why, n,
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
			hj_say(why, n, "control character in wallet name");
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

/* "auto", or an amount in wei (0: every refund paid at once); empty: back
 * to the default, as if not given. */
static int set_min_refund(hj_config *c, const char *v, char *why, size_t n)
{
	hj_amount x;
	int r;

	c->min_refund_set = v[0] != '\0';
	if (v[0] == '\0' || strcmp(v, "auto") == 0) {
		c->min_refund_auto = 1;
		c->min_refund = 0;
		return 0;
	}
	r = hj_amount_parse(v, strlen(v), &x);
	if (r < 0) {
		hj_say(why, n,
		       r == -ERANGE
		           ? "out of range: must be auto, or 0 to 2^128 - 1"
		           : "not auto nor a decimal amount in wei (digits "
		             "only, no leading zero)");
		return -EINVAL;
	}
	c->min_refund_auto = 0;
	c->min_refund = x;
	return 0;
}

static int set_wallet_passphrase(hj_config *c, const char *v, char *why,
                                 size_t n)
{
	(void)why;
	(void)n;
	return set_str(&c->wallet_passphrase, v, 1);
}

static int set_sweep_to(hj_config *c, const char *v, char *why, size_t n)
{
	(void)why;
	(void)n;
	return set_str(&c->sweep_to, v, 1);
}

/* Any amount in base units: what is kept beyond the reserve.  Empty: the
 * family's default. */
static int set_sweep_margin(hj_config *c, const char *v, char *why, size_t n)
{
	hj_amount x;
	int r;

	if (v[0] == '\0') {
		c->sweep_margin_set = 0;
		return 0;
	}
	r = hj_amount_parse(v, strlen(v), &x);

	if (r < 0) {
		hj_say(why, n,
		       r == -ERANGE
		           ? "out of range: must be 0 to 2^128 - 1"
		           : "not a decimal amount in base units (wei, "
		             "satoshi, litoshi: digits only, no leading "
		             "zero)");
		return -EINVAL;
	}
	c->sweep_margin = x;
	c->sweep_margin_set = 1;
	return 0;
}

static int set_rewind_blocks(hj_config *c, const char *v, char *why, size_t n)
{
	return parse_u64(v, 1, 100000000, &c->rewind_blocks, why, n);
}

/* Empty: the family's default. */
static int set_sweep_every(hj_config *c, const char *v, char *why, size_t n)
{
	int r;

	if (v[0] == '\0') {
		c->sweep_every_set = 0;
		return 0;
	}
	r = parse_u64(v, 1, 100000000, &c->sweep_every, why, n);

	c->sweep_every_set = r == 0;
	return r;
}

static int set_stuck_after(hj_config *c, const char *v, char *why, size_t n)
{
	return set_unsigned(&c->stuck_after_s, v, 1, 86400, why, n);
}

static int set_directory(hj_config *c, const char *v, char *why, size_t n)
{
	if (v[0] != '/') {
		hj_say(why, n, "must be an absolute path");
		return -EINVAL;
	}
	return set_str(&c->state_dir, v, 0);
}

static int set_card_log(hj_config *c, const char *v, char *why, size_t n)
{
	if (v[0] == '\0') {
		hj_say(why, n, "empty value");
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
	hj_say(why, n, "not a boolean (yes or no)");
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
	hj_say(why, n,
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

/* [seeds]: making a chain walks it once, so its length is bounded
 * (daemon/seedchain.h, HJD_SEEDS_MAX). */
static int set_seeds_length(hj_config *c, const char *v, char *why, size_t n)
{
	return set_unsigned(&c->seeds.length, v, 1, 100000000, why, n);
}

static int set_seeds_renew_before(hj_config *c, const char *v, char *why,
                                  size_t n)
{
	return set_unsigned(&c->seeds.renew_before, v, 1, 100000000, why, n);
}

static int set_seeds_lead(hj_config *c, const char *v, char *why, size_t n)
{
	return set_unsigned(&c->seeds.lead, v, 1, 1000000, why, n);
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

const struct hj_config__key hj_config__keys[K_COUNT] = {
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
    [K_RPC_MAX_BATCH] = {"chain", "rpc_max_batch", set_rpc_max_batch, 0},
    [K_CONFIRMATIONS] = {"chain", "confirmations", set_confirmations, 0},
    [K_POLL_INTERVAL_MS] = {"chain", "poll_interval_ms", set_poll_interval_ms,
                            0},
    [K_BATCH_BLOCKS] = {"chain", "batch_blocks", set_batch_blocks, 0},
    [K_START_HEIGHT] = {"chain", "start_height", set_start_height, 0},
    [K_PUSH] = {"chain", "push", set_push, 0},
    [K_PUSH_URL] = {"chain", "push_url", set_push_url, 0},
    [K_CA_FILE] = {"chain", "ca_file", set_ca_file, 0},
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
    [K_RULE_FIRST + 13] = {"rules", "cards", set_rule_13, 0},
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
    [K_MIN_REFUND] = {"payout", "min_refund", set_min_refund, 0},
    [K_SWEEP_TO] = {"payout", "sweep_to", set_sweep_to, 0},
    [K_SWEEP_MARGIN] = {"payout", "sweep_margin", set_sweep_margin, 0},
    [K_SWEEP_EVERY] = {"payout", "sweep_every", set_sweep_every, 0},
    [K_WALLET_PASSPHRASE] = {"payout", "wallet_passphrase",
                             set_wallet_passphrase, 0},
    [K_DIRECTORY] = {"state", "directory", set_directory, 0},
    [K_CARD_LOG] = {"state", "card_log", set_card_log, 0},
    [K_LOG_FSYNC] = {"state", "log_fsync", set_log_fsync, 0},
    [K_REWIND_BLOCKS] = {"state", "rewind_blocks", set_rewind_blocks, 0},
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
    [K_SEEDS_LENGTH] = {"seeds", "length", set_seeds_length, 0},
    [K_SEEDS_RENEW_BEFORE] = {"seeds", "renew_before", set_seeds_renew_before,
                              0},
    [K_SEEDS_LEAD] = {"seeds", "lead", set_seeds_lead, 0},
};

int hj_config__find_section(const char *s, size_t len)
{
	for (int i = 0; hj_config__sections[i]; i++)
		if (strlen(hj_config__sections[i]) == len &&
		    memcmp(hj_config__sections[i], s, len) == 0)
			return i;
	return -1;
}

/* Returns the key's id, or -1 (unknown key) or -2 (unknown section). */
int hj_config__find_key(const char *section, size_t slen, const char *name,
                        size_t nlen)
{
	if (hj_config__find_section(section, slen) < 0)
		return -2;
	for (int i = 0; i < K_COUNT; i++)
		if (strlen(hj_config__keys[i].section) == slen &&
		    memcmp(hj_config__keys[i].section, section, slen) == 0 &&
		    strlen(hj_config__keys[i].name) == nlen &&
		    memcmp(hj_config__keys[i].name, name, nlen) == 0)
			return i;
	return -1;
}

/*
 * Writes s[0..len) for a message: printable ASCII as is, other bytes as
 * \xNN, cut at SHOW_MAX with "...", so that no byte from a file reaches a
 * terminal or the journal raw.
 */
void hj_config__show(const char *s, size_t len, char *buf, size_t n)
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
void hj_config__show_value(int id, const char *v, char *buf, size_t n)
{
	const char *host = strstr(v, "://");
	size_t auth;

	if (id >= 0 && hj_config__keys[id].secret) {
		snprintf(buf, n, "***");
		return;
	}
	if ((id == K_RPC_URL || id == K_PUSH_URL) && host != NULL) {
		host += 3;
		auth = strcspn(host, "/?#@");
		if (host[auth] == '@' && n > 8) {
			size_t pre = (size_t)(host - v);

			hj_config__show(v, pre, buf, n - 4);
			pre = strlen(buf);
			memcpy(buf + pre, "***", 3);
			hj_config__show(host + auth, strlen(host + auth),
			                buf + pre + 3, n - pre - 3);
			return;
		}
	}
	hj_config__show(v, strlen(v), buf, n);
}
