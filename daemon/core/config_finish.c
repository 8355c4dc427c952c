/*
 * The configuration after every file and command-line key
 * (config_impl.h): the family's defaults for what was not given, what two
 * keys mean together, the state directory's paths; and what a node's
 * answer says of confirmations = finalized or safe.
 */
#include "config_impl.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "btc.h"
#include "say.h"

/* ---- after everything ---- */

static int fill_str(char **dst, const char *v, char *err, size_t errlen)
{
	if (*dst != NULL)
		return 0;
	*dst = strdup(v);
	if (*dst == NULL) {
		hj_say(err, errlen, "out of memory");
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
 * push_url: EVM, a ws:// or wss:// URL (no credentials: the WebSocket
 * client sends none), by default rpc_url with ws:// for http:// and
 * wss:// for https://; the Bitcoin family, the long poll's JSON-RPC URL
 * (rpc_url's credentials), by default rpc_url.  With push off it is not
 * used, nor checked.  An EVM rpc_url that gives no WebSocket URL (one
 * with credentials) turns push off with push_off_why rather than refuse
 * a configuration that polled well before push existed.
 */
static int finish_push(hj_config *c, char *err, size_t errlen)
{
	char shown[4 * SHOW_MAX + 4];
	char *u;

	if (!c->push)
		return 0;
	if (c->push_url)
		hj_config__show_value(K_PUSH_URL, c->push_url, shown,
		                      sizeof shown);
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
		if (strncmp(c->push_url, "ws://", 5) != 0 &&
		    strncmp(c->push_url, "wss://", 6) != 0) {
			hj_say(err, errlen,
			       "[chain] push_url = %s: must begin with ws:// "
			       "or wss:// (the node's WebSocket)",
			       shown);
			return -EINVAL;
		}
		if (has_userinfo(c->push_url)) {
			hj_say(err, errlen,
			       "[chain] push_url = %s: no user or password "
			       "here: the WebSocket is opened without "
			       "credentials",
			       shown);
			return -EINVAL;
		}
		return 0;
	}
	/* No default from this: push is off, and the daemon says why. */
	if (has_userinfo(c->rpc_url)) {
		c->push = 0;
		c->push_off_why =
		    "rpc_url has a user or password, which the WebSocket "
		    "would not send: set [chain] push_url to the node's ws:// "
		    "or wss:// URL, or push = off to silence this";
		return 0;
	}
	/* http://REST -> ws://REST, https://REST -> wss://REST */
	u = malloc(strlen(c->rpc_url) + 1 - 2);
	if (u == NULL) {
		hj_say(err, errlen, "out of memory");
		return -ENOMEM;
	}
	memcpy(u, "ws", 2);
	memcpy(u + 2, c->rpc_url + 4, strlen(c->rpc_url + 4) + 1);
	c->push_url = u;
	return 0;
}

/*
 * cards (docs/PROTOCOL.md section 15), after the dealer's address and the
 * depth are known.  committed: a seed is published when its block is
 * dealt, so that block must not be the tip (the next producer of a block
 * at that height would know the card); finalized and safe are deeper than
 * the tip.  On the Bitcoin family a Commit is the dealer's when an input
 * is signed by the key of its P2WPKH program, the only form parsed here
 * (the protocol also allows P2PKH, which hj_dealer_parse does not read).
 * hash on EVM: allowed, with cards_warning.
 */
static int finish_cards(hj_config *c, char *err, size_t errlen)
{
	char shown[4 * SHOW_MAX + 4];

	c->cards_warning = NULL;
	if (c->rules.cards != HJ_CARDS_COMMITTED) {
		if (c->family == HJ_EVM)
			c->cards_warning =
			    "[rules] cards = hash: on EVM whoever builds a "
			    "block can choose its card, at the cost of one "
			    "hash per try (docs/PROTOCOL.md section 15)";
		return 0;
	}
	if (!c->finality && c->confirmations < 2) {
		hj_say(err, errlen,
		       "[chain] confirmations = %u: too few with cards = "
		       "committed (at least 2: a seed published at the tip "
		       "would let the next producer of a block at that "
		       "height choose its card)",
		       c->confirmations);
		return -EINVAL;
	}
	if (c->family != HJ_EVM &&
	    !(c->dealer.script_len == 22 && c->dealer.script[0] == 0 &&
	      c->dealer.script[1] == 20)) {
		hj_config__show(c->address, strlen(c->address), shown,
		                sizeof shown);
		hj_say(err, errlen,
		       "[dealer] address = %s: with cards = committed, must "
		       "be P2WPKH (a bech32 address of 20 bytes, witness "
		       "version 0): a Commit is the dealer's when an input "
		       "is signed by the address's key",
		       shown);
		return -EINVAL;
	}
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
	hj_say(err, errlen, "out of memory");
	return -ENOMEM;
}

/*
 * The Bitcoin family's [payout] sweep_to, once the dealer's address is
 * read: a segwit address of the dealer's network, P2WPKH (version 0, 20
 * bytes) or P2TR (version 1, 32 bytes), whose program goes to sweep_addr
 * (the ledger's recipient of a sweep, the address made again from it by
 * its length), and not the dealer's.  -EINVAL with err.
 */
static int finish_btc_sweep(hj_config *c, char *err, size_t errlen)
{
	char shown[200], why[HJ_ERRLEN];
	hj_dealer cold;
	int v;

	hj_config__show(c->sweep_to, strlen(c->sweep_to), shown, sizeof shown);
	if (hj_dealer_parse(HJ_BITCOIN, c->sweep_to, strlen(c->sweep_to), &cold,
	                    why, sizeof why) < 0) {
		hj_say(err, errlen, "[payout] sweep_to = %s: %s", shown, why);
		return -EINVAL;
	}
	if (strcmp(cold.hrp, c->dealer.hrp) != 0) {
		hj_say(err, errlen,
		       "[payout] sweep_to = %s: an address of another network "
		       "(prefix %s) than the dealer's (%s)",
		       shown, cold.hrp, c->dealer.hrp);
		return -EINVAL;
	}
	v = cold.script[0] == 0 ? 0 : cold.script[0] - 0x50;
	if (!((v == 0 && cold.script_len == 22) ||
	      (v == 1 && cold.script_len == 34))) {
		hj_say(err, errlen,
		       "[payout] sweep_to = %s: not a P2WPKH or P2TR address "
		       "(witness version %d, a program of %zu bytes); give "
		       "one of those",
		       shown, v, cold.script_len - 2);
		return -EINVAL;
	}
	if (cold.script_len == c->dealer.script_len &&
	    memcmp(cold.script, c->dealer.script, cold.script_len) == 0) {
		hj_say(err, errlen,
		       "[payout] sweep_to = %s: the dealer's own address (the "
		       "cold address must be another)",
		       shown);
		return -EINVAL;
	}
	c->sweep_len = cold.script_len - 2;
	memcpy(c->sweep_addr, cold.script + 2, c->sweep_len);
	if (hj_btc_sweep_address(cold.hrp, c->sweep_addr, c->sweep_len,
	                         c->sweep_text, why, sizeof why)) {
		hj_say(err, errlen, "[payout] sweep_to = %s: %s", shown, why);
		return -EINVAL;
	}
	return 0;
}

int hj_config_finish(hj_config *c, char *err, size_t errlen)
{
	char why[HJ_ERRLEN], shown[4 * SHOW_MAX + 4], none[HJ_ERRLEN];
	char a[HJ_AMOUNT_STRLEN], b[HJ_AMOUNT_STRLEN];
	int evm, r;

	if (err == NULL || errlen == 0) {
		err = none;
		errlen = sizeof none;
	}
	err[0] = '\0';
	evm = c->family == HJ_EVM;
	if (evm && c->coin) {
		hj_say(err, errlen,
		       "[chain] coin = %s: only for family = bitcoin", c->coin);
		return -EINVAL;
	}
	if (!evm && c->coin == NULL) {
		hj_say(err, errlen,
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
		hj_config__show(c->rpc_cookie_file, strlen(c->rpc_cookie_file),
		                shown, sizeof shown);
		hj_say(err, errlen,
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
			hj_say(err, errlen,
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
		hj_config__show(c->payout_wallet, strlen(c->payout_wallet),
		                shown, sizeof shown);
		hj_say(err, errlen,
		       "[payout] wallet = %s: only for family = bitcoin (on "
		       "EVM the daemon signs: [payout] dealer_key)",
		       shown);
		return -EINVAL;
	}
	if (!evm && c->dealer_key) {
		hj_config__show(c->dealer_key, strlen(c->dealer_key), shown,
		                sizeof shown);
		hj_say(err, errlen,
		       "[payout] dealer_key = %s: only for family = evm (on "
		       "the Bitcoin family a node wallet pays: [payout] "
		       "wallet)",
		       shown);
		return -EINVAL;
	}
	if (evm && c->wallet_passphrase) {
		hj_config__show(c->wallet_passphrase,
		                strlen(c->wallet_passphrase), shown,
		                sizeof shown);
		hj_say(err, errlen,
		       "[payout] wallet_passphrase = %s: only for family = "
		       "bitcoin (on EVM the daemon signs with [payout] "
		       "dealer_key)",
		       shown);
		return -EINVAL;
	}
	if (!evm && c->wallet_passphrase && !c->payout_wallet) {
		hj_config__show(c->wallet_passphrase,
		                strlen(c->wallet_passphrase), shown,
		                sizeof shown);
		hj_say(err, errlen,
		       "[payout] wallet_passphrase = %s: no [payout] wallet "
		       "to unlock",
		       shown);
		return -EINVAL;
	}
	if (!c->sweep_every_set)
		c->sweep_every = evm ? 7200 : 144;
	/* On the Bitcoin family the margin pays the sweep's fee. */
	if (!c->sweep_margin_set)
		c->sweep_margin = evm ? 0 : 100000;
	if (c->sweep_to && !evm) {
		hj_config__show(c->sweep_to, strlen(c->sweep_to), shown,
		                sizeof shown);
		if (!c->payout_wallet) {
			hj_say(err, errlen,
			       "[payout] sweep_to = %s: no [payout] wallet to "
			       "send the sweeps",
			       shown);
			return -EINVAL;
		}
		/* The address itself once the dealer's is read: its network
		 * must be the dealer's. */
	} else if (c->sweep_to) {
		hj_dealer cold;

		hj_config__show(c->sweep_to, strlen(c->sweep_to), shown,
		                sizeof shown);
		if (!c->dealer_key) {
			hj_say(err, errlen,
			       "[payout] sweep_to = %s: no [payout] dealer_key "
			       "to sign the sweeps",
			       shown);
			return -EINVAL;
		}
		if (hj_dealer_parse(HJ_EVM, c->sweep_to, strlen(c->sweep_to),
		                    &cold, why, sizeof why) < 0) {
			hj_say(err, errlen, "[payout] sweep_to = %s: %s", shown,
			       NOT_EVM_ADDRESS);
			return -EINVAL;
		}
		memcpy(c->sweep_addr, cold.addr, 20);
		c->sweep_len = 20;
	}
	if (!evm && c->min_refund_set) {
		hj_say(err, errlen,
		       "[payout] min_refund: only for family = evm (on the "
		       "Bitcoin family a recipient owed less than [payout] "
		       "dust_limit waits)");
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
		hj_say(err, errlen,
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
		hj_say(err, errlen,
		       "[chain] rpc_bearer = ***: rpc_user is set too; use "
		       "basic auth or a bearer token, not both");
		return -EINVAL;
	}
	if (c->rpc_user && c->rpc_password == NULL) {
		hj_config__show_value(K_RPC_USER, c->rpc_user, shown,
		                      sizeof shown);
		hj_say(err, errlen,
		       "[chain] rpc_user = %s: rpc_password is not set", shown);
		return -EINVAL;
	}
	if (c->rpc_password && c->rpc_user == NULL) {
		hj_say(err, errlen,
		       "[chain] rpc_password = ***: rpc_user is not set");
		return -EINVAL;
	}

	r = finish_push(c, err, errlen);
	if (r < 0)
		return r;

	if (c->address == NULL) {
		hj_say(err, errlen,
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
		hj_config__show(c->address, strlen(c->address), shown,
		                sizeof shown);
		hj_say(err, errlen, "[dealer] address = %s: %s", shown, why);
		return -EINVAL;
	}
	if (c->sweep_to && !evm && finish_btc_sweep(c, err, errlen))
		return -EINVAL;
	if (c->sweep_to && evm &&
	    memcmp(c->sweep_addr, c->dealer.addr, 20) == 0) {
		hj_config__show(c->sweep_to, strlen(c->sweep_to), shown,
		                sizeof shown);
		hj_say(err, errlen,
		       "[payout] sweep_to = %s: the dealer's own address (the "
		       "cold address must be another)",
		       shown);
		return -EINVAL;
	}
	if (!evm) {
		/* Outputs carry 64-bit values: so does every stake. */
		if (c->rules.max_bet > UINT64_MAX) {
			hj_say(err, errlen,
			       "[rules] max_bet = %s: above 2^64 - 1, the "
			       "largest output value on the Bitcoin family",
			       hj_amount_format(c->rules.max_bet, b));
			return -EINVAL;
		}
	}

	if (c->rules.min_bet == 0) {
		hj_say(err, errlen, "[rules] min_bet: required");
		return -EINVAL;
	}
	if (c->rules.max_bet == 0) {
		hj_say(err, errlen, "[rules] max_bet: required");
		return -EINVAL;
	}
	if (c->rules.min_bet > c->rules.max_bet) {
		hj_say(err, errlen, "[rules] max_bet = %s: below min_bet %s",
		       hj_amount_format(c->rules.max_bet, b),
		       hj_amount_format(c->rules.min_bet, a));
		return -EINVAL;
	}
	if (c->rules.max_exposure &&
	    c->rules.max_exposure < hj_rules_worst_max_bet(&c->rules)) {
		char w[HJ_AMOUNT_STRLEN];

		hj_say(err, errlen,
		       "[rules] max_exposure = %s: below %s, the worst-case "
		       "return of one max_bet Bet%s (max_bet %s)",
		       hj_amount_format(c->rules.max_exposure, a),
		       hj_amount_format(hj_rules_worst_max_bet(&c->rules), w),
		       SIDES(c), hj_amount_format(c->rules.max_bet, b));
		return -EINVAL;
	}
	if (hj_rules_check(&c->rules, why, sizeof why) < 0) {
		hj_say(err, errlen, "[rules] %s", why);
		return -EINVAL;
	}
	r = finish_cards(c, err, errlen);
	if (r < 0)
		return r;
	return hj_config_state_paths(c, err, errlen);
}

int hj_config_can_deal(const hj_config *c, char *err, size_t errlen)
{
	if (c->rules.cards != HJ_CARDS_COMMITTED)
		return 0;
	if (c->family != HJ_EVM) {
		if (c->payout_wallet)
			return 0;
		hj_say(err, errlen,
		       "[rules] cards = committed needs [payout] wallet: "
		       "hashjackd sends its own Commits through the node's "
		       "wallet, from the dealer address (docs/PROTOCOL.md "
		       "section 15)");
		return -ENOTSUP;
	}
	if (!c->dealer_key) {
		hj_say(err, errlen,
		       "[rules] cards = committed needs [payout] dealer_key: "
		       "hashjackd signs and sends its own Commits "
		       "(docs/PROTOCOL.md section 15)");
		return -ENOTSUP;
	}
	return 0;
}

unsigned hj_config_serve_max_age(int evm, int finality)
{
	/* A few blocks' time; the node's finalized or safe block moves an
	 * epoch (6.4 minutes on Ethereum) at a time. */
	return !evm ? 3600 : finality ? 900 : 120;
}

int hj_config_final_warning(const hj_config *c, uint64_t tip, uint64_t final,
                            char *msg, size_t len)
{
	const char *tag = hj_finality_name(c->finality);

	hj_say(msg, len, "%s", "");
	if (tag == NULL || tip == 0 || final != tip)
		return 0;
	hj_say(msg, len,
	       "[chain] confirmations = %s: the node says its \"%s\" block "
	       "is its tip (block %" PRIu64 ", tip %" PRIu64
	       "), so the word means nothing here: every block is dealt%s as "
	       "soon as it is mined, and a reorganisation of the tip stops the "
	       "daemon (exit 3); give a number of confirmations instead "
	       "(docs/OPERATION.md, \"Finality\")",
	       tag, tag, final, tip,
	       c->rules.cards == HJ_CARDS_COMMITTED ? ", and its seed revealed,"
	                                            : "");
	return 1;
}
