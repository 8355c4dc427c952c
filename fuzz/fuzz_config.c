/*
 * hashjackd's configuration (daemon/core/config.h) as the daemon reads it: the
 * file (hj_config_load_text), then the command-line overrides
 * (hj_config_set_arg), then hj_config_finish, stopping at the first
 * error.
 *
 * The input: its first byte says where two secrets go (low two bits:
 * rpc_password, next two: rpc_bearer; 0 nowhere, 1 a "[chain]" section
 * before the file, 2 one after it, 3 an override before the others); the
 * rest is the file, up to a line "--", after which each line that is not
 * empty is one override ("--chain.confirmations=3").
 *
 * Checked (docs/CONFIG.md): every error has a message, from its place
 * ("NAME:LINE: ..." or "NAME: ...", "command line: --...", or finish()'s
 * "[section] ..."), all printable ASCII, never holding a secret; what
 * finishes is a configuration the daemon can run with (the rules involving
 * two keys, the family's keys, confirmations a number or, on EVM only,
 * finalized or safe, absolute state paths); hj_config_free
 * frees everything (LeakSanitizer).  $HOME and $STATE_DIRECTORY, which
 * finish() reads, are fixed.
 */
#include "fuzz.h"

#include <errno.h>

#include "amount.h"
#include "config.h"
#include "rules.h"
#include "say.h"

#define NAME "fuzz.conf"
/* Secrets no valid input holds by chance: the bearer has no blanks. */
#define PASSWORD "pw sEcReT;93#xq"
#define BEARER   "Tok3n-zq8Vw7.JkLm"

int LLVMFuzzerInitialize(int *argc, char ***argv);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	setenv("HOME", "/home/fuzz", 1);
	setenv("STATE_DIRECTORY", "/var/lib/hashjackd-fuzz:/var/lib/other", 1);
	return 0;
}

enum where { NOWHERE, BEFORE, AFTER, OVERRIDE };

/* The secrets' values, where a message could show them. */
struct secrets {
	const char *v[2];
	size_t n;
};

static void check_err(const char *err, const char *prefix,
                      const struct secrets *s)
{
	FUZZ_CHECK(strncmp(err, prefix, strlen(prefix)) == 0);
	FUZZ_CHECK(strlen(err) > strlen(prefix));
	/* Values are shown printable: other bytes as \xNN. */
	for (const char *p = err; *p; p++)
		FUZZ_CHECK(*p >= 0x20 && *p < 0x7f);
	for (size_t i = 0; i < s->n; i++)
		FUZZ_CHECK(strstr(err, s->v[i]) == NULL);
}

static int has(const char *s, const char *prefix)
{
	return s != NULL && strncmp(s, prefix, strlen(prefix)) == 0;
}

/* What the daemon may assume of a configuration that finished. */
static void check_config(const hj_config *c)
{
	int evm = c->family == HJ_EVM;
	char why[HJ_ERRLEN];

	FUZZ_CHECK(evm || c->family == HJ_BITCOIN);
	FUZZ_CHECK(evm ? c->coin == NULL
	               : (strcmp(c->coin, "bitcoin") == 0 ||
	                  strcmp(c->coin, "litecoin") == 0));
	FUZZ_CHECK(has(c->rpc_url, "http://") || has(c->rpc_url, "https://"));
	FUZZ_CHECK((c->rpc_user == NULL) == (c->rpc_password == NULL));
	FUZZ_CHECK(!(c->rpc_user && c->rpc_bearer));
	FUZZ_CHECK(!(c->rpc_cookie_file && (c->rpc_user || c->rpc_bearer)));
	FUZZ_CHECK(evm || c->rpc_user || c->rpc_bearer || c->rpc_cookie_file);
	FUZZ_CHECK(c->rpc_timeout_ms >= 100 && c->rpc_timeout_ms <= 3600000);
	FUZZ_CHECK(c->rpc_max_response >= 4096 &&
	           c->rpc_max_response <= (size_t)1 << 30);
	/* A number of blocks, or the node's own final block on EVM only. */
	if (c->finality == HJ_FINALITY_DEPTH)
		FUZZ_CHECK(c->confirmations >= 1 && c->confirmations <= 10000);
	else
		FUZZ_CHECK(evm && c->confirmations == 0 &&
		           hj_finality_name(c->finality) != NULL);
	FUZZ_CHECK(c->batch_blocks >= 1 && c->batch_blocks <= 1000);
	FUZZ_CHECK(!c->start_height_set || c->start_height <= INT64_MAX);
	/* Push on has a URL the family's client takes; off by finish()
	 * only on EVM, with why. */
	FUZZ_CHECK(!c->push || (evm ? has(c->push_url, "ws://") ||
	                                  has(c->push_url, "wss://")
	                            : has(c->push_url, "http://") ||
	                                  has(c->push_url, "https://")));
	FUZZ_CHECK(!c->push_off_why || (evm && !c->push));
	/* A CA file is a path read once (hj_tls_ca_check), never "". */
	FUZZ_CHECK(c->ca_file == NULL || c->ca_file[0] != '\0');
	FUZZ_CHECK(c->address != NULL && c->dealer.family == c->family);

	FUZZ_CHECK(c->rules.min_bet >= 1 &&
	           c->rules.min_bet <= c->rules.max_bet);
	FUZZ_CHECK(c->rules.max_bet <= (evm ? HJ_MAX_BET : UINT64_MAX));
	FUZZ_CHECK(c->rules.timeout_blocks >= 1);
	FUZZ_CHECK(c->rules.max_exposure == 0 ||
	           c->rules.max_exposure >= hj_rules_worst_max_bet(&c->rules));
	FUZZ_CHECK(hj_rules_check(&c->rules, why, sizeof why) == 0);

	FUZZ_CHECK(evm ? c->payout_wallet == NULL : c->dealer_key == NULL);
	FUZZ_CHECK(evm || c->dust_limit >= 1);
	FUZZ_CHECK(c->max_outputs >= 1 && c->max_outputs <= 1000);
	FUZZ_CHECK(!evm || (c->min_priority_fee >= 1 &&
	                    c->min_priority_fee <= c->max_fee_per_gas));
	FUZZ_CHECK(has(c->state_dir, "/") && has(c->card_log, "/"));
}

/* Appends n bytes to buf[*len..), which has room. */
static void put(char *buf, size_t *len, const char *s, size_t n)
{
	memcpy(buf + *len, s, n);
	*len += n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const key[2] = {"rpc_password", "rpc_bearer"};
	static const char *const value[2] = {PASSWORD, BEARER};
	const char *text = (const char *)data + (size > 0);
	size_t n = size - (size > 0), flen, len = 0;
	const char *sep, *args;
	char *file, *argv, line[256], err[HJ_ERRLEN];
	enum where at[2];
	struct secrets sec = {{NULL, NULL}, 0};
	hj_config c;
	int rc = 0;

	for (int i = 0; i < 2; i++) {
		at[i] =
		    size > 0 ? (enum where)(data[0] >> (2 * i) & 3) : NOWHERE;
		/* A message may show what the input itself holds. */
		if (at[i] != NOWHERE &&
		    memmem(data, size, value[i], strlen(value[i])) == NULL)
			sec.v[sec.n++] = value[i];
	}
	sep = memmem(text, n, "\n--\n", 4);
	flen = sep ? (size_t)(sep - text) + 1 : n;
	args = sep ? sep + 4 : text + n;

	file = malloc(flen + 2 * sizeof line + 2);
	FUZZ_CHECK(file != NULL);
	for (int i = 0; i < 2; i++) {
		if (at[i] != BEFORE)
			continue;
		snprintf(line, sizeof line, "[chain]\n%s = %s\n", key[i],
		         value[i]);
		put(file, &len, line, strlen(line));
	}
	put(file, &len, text, flen);
	for (int i = 0; i < 2; i++) {
		if (at[i] != AFTER)
			continue;
		snprintf(line, sizeof line, "\n[chain]\n%s = %s\n", key[i],
		         value[i]);
		put(file, &len, line, strlen(line));
	}

	hj_config_init(&c);
	rc = hj_config_load_text(&c, NAME, file, len, err, sizeof err);
	free(file);
	if (rc != 0) {
		FUZZ_CHECK(rc == -EINVAL || rc == -ENOMEM);
		check_err(err, NAME, &sec);
		goto out;
	}
	FUZZ_CHECK(err[0] == '\0');
	for (int i = 0; i < 2 && rc == 0; i++) {
		if (at[i] != OVERRIDE)
			continue;
		snprintf(line, sizeof line, "--chain.%s=%s", key[i], value[i]);
		rc = hj_config_set_arg(&c, line, err, sizeof err);
		FUZZ_CHECK(rc == 0);
	}
	/* The overrides: one a line, as argv would hold them (a NUL ends
	 * them, as it would an argument). */
	argv = strndup(args, (size_t)(text + n - args));
	FUZZ_CHECK(argv != NULL);
	for (char *a = argv, *end; sep != NULL && a != NULL && rc == 0;
	     a = end) {
		end = strchr(a, '\n');
		if (end != NULL)
			*end++ = '\0';
		if (*a == '\0')
			continue;
		rc = hj_config_set_arg(&c, a, err, sizeof err);
		if (rc != 0) {
			FUZZ_CHECK(rc == -EINVAL || rc == -ENOMEM);
			check_err(err, "command line: --", &sec);
		}
	}
	free(argv);
	if (rc != 0)
		goto out;
	rc = hj_config_finish(&c, err, sizeof err);
	if (rc != 0) {
		FUZZ_CHECK(rc == -EINVAL || rc == -ENOMEM);
		check_err(err, "[", &sec);
	} else {
		check_config(&c);
	}
out:
	hj_config_free(&c);
	return 0;
}
