/*
 * hashjackd: the Hash Blackjack dealer daemon.  Parses the command line and
 * the configuration, then follows the chain (follower.c).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "dealer_key.h"
#include "follower.h"
#include "log.h"
#include "store.h"

#define EX_USAGE_      64
#define EX_CONFIG_     78
#define DEFAULT_CONFIG "/etc/hashjack/hashjackd.conf"

static void usage(FILE *out)
{
	fprintf(out,
	        "Usage: hashjackd [-c FILE] [--check-config] "
	        "[--SECTION.KEY=VALUE]...\n"
	        "       hashjackd --help | --version\n"
	        "\n"
	        "The Hash Blackjack dealer: follows a node, deals every final "
	        "block as a\ncard, settles rounds, pays what is owed (with "
	        "[payout] wallet or\ndealer_key; else records it) and writes "
	        "the block-to-card log.\n"
	        "\n"
	        "Options:\n"
	        "  -c, --config FILE     configuration file "
	        "(default " DEFAULT_CONFIG ",\n"
	        "                        read when it exists)\n"
	        "  --SECTION.KEY=VALUE   set one configuration key, over the "
	        "file\n"
	        "                        (e.g. --chain.rpc_url=http://"
	        "127.0.0.1:8545)\n"
	        "  --check-config        validate the configuration, print it, "
	        "and exit\n"
	        "  -h, --help            print this help and exit\n"
	        "  -V, --version         print the version and exit\n"
	        "\n"
	        "Signals: SIGTERM or SIGINT finish the block in hand, commit "
	        "and exit 0;\nSIGHUP reopens the card log (logrotate).\n"
	        "\n"
	        "Exit status:\n"
	        "  0   stopped by a signal\n"
	        "  1   failure (state, card log or node; see the log)\n"
	        "  3   reorganisation deeper than the confirmations: nothing "
	        "changed\n"
	        "  4   the state directory belongs to another chain, dealer or "
	        "rules\n"
	        "  64  usage error\n"
	        "  78  configuration error (the dealer key included)\n"
	        "\n"
	        "Every key is documented in hashjackd.conf.example and "
	        "docs/CONFIG.md;\noperation in docs/OPERATION.md, payouts in "
	        "docs/PAYOUTS.md and\ndocs/PAYOUTS-EVM.md; `hashjack status` "
	        "shows the state.\n");
}

/* The URL without any "user:password@" it carries. */
static void url_shown(const char *url, char *out, size_t n)
{
	const char *scheme = strstr(url, "://");
	const char *host = scheme ? scheme + 3 : url;
	const char *at = strchr(host, '@');
	const char *slash = strchr(host, '/');

	if (at && (!slash || at < slash))
		snprintf(out, n, "%.*s***@%s", (int)(host - url), url, at + 1);
	else
		snprintf(out, n, "%s", url);
}

static void print_config(const hjd_config *c)
{
	char rules[256], url[512];

	hj_store_rules_str(&c->rules, rules, sizeof rules);
	url_shown(c->rpc_url, url, sizeof url);
	printf("configuration OK\n"
	       "chain: %s%s%s at %s, %u confirmations, poll every %u ms\n"
	       "dealer: %s\nrules: %s\nstate: %s\ncard log: %s (fsync %s)\n",
	       c->family, c->coin ? " " : "", c->coin ? c->coin : "", url,
	       c->confirmations, c->poll_interval_ms, c->dealer, rules,
	       c->state_dir, c->card_log, c->log_fsync ? "yes" : "no");
	if (c->payout_wallet) {
		char dust[HJ_AMOUNT_STRLEN];

		printf("payouts: wallet %s, dust limit %s, at most %u "
		       "outputs per transaction\n",
		       c->payout_wallet, hj_amount_format(c->dust_limit, dust),
		       c->max_outputs);
	} else if (c->dealer_key) {
		char cap[HJ_AMOUNT_STRLEN], tip[HJ_AMOUNT_STRLEN];

		printf("payouts: signed with the key %s (its address is the "
		       "dealer's), fees at most %s wei per gas, tip at least "
		       "%s, replaced when unmined for %u s\n",
		       c->dealer_key, hj_amount_format(c->max_fee_per_gas, cap),
		       hj_amount_format(c->min_priority_fee, tip),
		       c->stuck_after_s);
	} else {
		printf("payouts: recorded, not sent (no [payout] %s)\n",
		       strcmp(c->family, "evm") == 0 ? "dealer_key" : "wallet");
	}
}

/*
 * The EVM dealer key, read once before anything starts so that a key that
 * is missing, readable by others or of another address is a configuration
 * error (exit 78) that --check-config reports too.  The payer reads it
 * again for itself; this copy is wiped at once.
 */
static int check_dealer_key(const hjd_config *c, char *err, size_t errlen)
{
	uint8_t sk[HJ_EVM_SECKEY_LEN];
	hj_secp *ctx;
	char why[600];
	int rc;

	if (c->dealer_key == NULL)
		return 0;
	ctx = hj_secp_new(why, sizeof why);
	if (ctx == NULL) {
		snprintf(err, errlen, "%s", why);
		return -ENOMEM;
	}
	rc = hj_dealer_key_load(ctx, c->dealer_key, c->dealer, sk, NULL, why,
	                        sizeof why);
	explicit_bzero(sk, sizeof sk);
	hj_secp_free(ctx);
	if (rc)
		snprintf(err, errlen, "[payout] dealer_key = %s: %s",
		         c->dealer_key, why);
	return rc;
}

int main(int argc, char **argv)
{
	hjd_config cfg;
	const char *path = NULL;
	int check = 0, rc;
	char err[1200];

	hjd_catch_early_signals();
	hjd_config_init(&cfg);
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			hjd_config_free(&cfg);
			return 0;
		} else if (!strcmp(a, "-V") || !strcmp(a, "--version")) {
			printf("hashjackd %s\n", HJ_VERSION_STRING);
			hjd_config_free(&cfg);
			return 0;
		} else if (!strcmp(a, "-c") || !strcmp(a, "--config")) {
			if (i + 1 >= argc) {
				fprintf(stderr, "hashjackd: %s needs a file\n",
				        a);
				hjd_config_free(&cfg);
				return EX_USAGE_;
			}
			path = argv[++i];
		} else if (!strncmp(a, "--config=", 9)) {
			path = a + 9;
		} else if (!strcmp(a, "--check-config")) {
			check = 1;
		}
	}
	/* The file first, then the overrides on top of it. */
	if (!path && access(DEFAULT_CONFIG, F_OK) == 0)
		path = DEFAULT_CONFIG;
	if (path && hjd_config_load(&cfg, path, err, sizeof err)) {
		hjd_log(HJD_LOG_ERR, "%s", err);
		hjd_config_free(&cfg);
		return EX_CONFIG_;
	}
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "-c") || !strcmp(a, "--config")) {
			i++;
			continue;
		}
		if (!strncmp(a, "--config=", 9) || !strcmp(a, "--check-config"))
			continue;
		if (strncmp(a, "--", 2) != 0 || !strchr(a, '.') ||
		    !strchr(a, '=')) {
			fprintf(stderr,
			        "hashjackd: unknown argument \"%s\" (try "
			        "--help)\n",
			        a);
			hjd_config_free(&cfg);
			return EX_USAGE_;
		}
		if (hjd_config_set_arg(&cfg, a, err, sizeof err)) {
			hjd_log(HJD_LOG_ERR, "%s", err);
			hjd_config_free(&cfg);
			return EX_CONFIG_;
		}
	}
	if (hjd_config_finish(&cfg, err, sizeof err)) {
		hjd_log(HJD_LOG_ERR, "%s%s%s", path ? path : "",
		        path ? ": " : "", err);
		hjd_config_free(&cfg);
		return EX_CONFIG_;
	}
	if (check_dealer_key(&cfg, err, sizeof err)) {
		hjd_log(HJD_LOG_ERR, "%s", err);
		hjd_config_free(&cfg);
		return EX_CONFIG_;
	}
	if (check) {
		print_config(&cfg);
		hjd_config_free(&cfg);
		return 0;
	}
	rc = hjd_follow(&cfg);
	hjd_config_free(&cfg);
	return rc;
}
