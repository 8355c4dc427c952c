/*
 * hashjackd: the Hash Blackjack dealer daemon.  Parses the command line and
 * the configuration, builds what the dealer is made of (the store, the
 * table, the node's client and the family's backend, the family's payer),
 * hands them to the follower (follower.c), and turns signals into its
 * stop and its card log's reopening.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <uv.h>

#include "checkpoint.h"
#include "config.h"
#include "dealer_key.h"
#include "edge.h"
#include "follower.h"
#include "log.h"
#include "node.h"
#include "notify.h"
#include "payout_btc.h"
#include "payout_evm.h"
#include "quote.h"
#include "rpclog.h"
#include "say.h"
#include "store.h"
#include "wakeup.h"
#include "wallet_pass.h"

#define EX_USAGE_      64
#define EX_CONFIG_     78
#define DEFAULT_CONFIG "/etc/hashjack/hashjackd.conf"

static void usage(FILE *out)
{
	fprintf(out,
	        "Usage: hashjackd [-c FILE] [--check-config] [--debug] "
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
	        "                        (with confirmations = finalized or "
	        "safe, also what\n"
	        "                        the node answers for that block)\n"
	        "  --debug               also log, at priority 7, where each "
	        "committed batch\n"
	        "                        of blocks spent its time "
	        "(docs/OPERATION.md)\n"
	        "  -h, --help            print this help and exit\n"
	        "  -V, --version         print the version and exit\n"
	        "\n"
	        "Signals: SIGTERM or SIGINT finish the block in hand, commit "
	        "and exit 0;\nSIGHUP reopens the card log (logrotate).\n"
	        "\n"
	        "With [metrics] listen set, GET /metrics (Prometheus text) and "
	        "GET /healthz\n(200, or 503 with the reasons) answer on that "
	        "address.\n"
	        "\n"
	        "Exit status:\n"
	        "  0   stopped by a signal\n"
	        "  1   failure (state, card log or node; see the log)\n"
	        "  3   reorganisation deeper than the confirmations (or of a "
	        "finalized\n      or safe block): nothing changed\n"
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

/*
 * The rule set's exact house edge and its side bets' (game/edge.h):
 * refused when one favours the player, unless allow_player_edge.  *e gets
 * the edges for print_config.
 */
static int check_edge(const hj_config *c, hj_edge *e, char *err, size_t errlen)
{
	const char *what = NULL;
	double v = 0;

	hj_edge_compute(&c->rules, e);
	if (e->edge < 0)
		what = "the house edge", v = e->edge;
	else if (e->pp_on && e->pp_edge < 0)
		what = "perfect_pairs' house edge", v = e->pp_edge;
	else if (e->t3_on && e->t3_edge < 0)
		what = "twenty_one_plus_three's house edge", v = e->t3_edge;
	if (what == NULL || c->allow_player_edge)
		return 0;
	hj_say(err, errlen,
	       "[rules]: %s is %.6f %%: this rule set favours the player "
	       "(hashjack edge shows why); set allow_player_edge = yes to "
	       "deal it anyway",
	       what, 100 * v);
	return -EINVAL;
}

static void print_config(const hj_config *c, const hj_edge *e)
{
	char rules[HJ_RULES_STRLEN], url[512], fin[48];
	int v6 = strchr(c->metrics.host, ':') != NULL;

	hj_rules_format(&c->rules, rules, sizeof rules);
	hj_url_shown(c->rpc_url, url, sizeof url);
	if (c->finality)
		snprintf(fin, sizeof fin, "final at the node's %s block",
		         hj_finality_name(c->finality));
	else
		snprintf(fin, sizeof fin, "%u confirmations", c->confirmations);
	printf("configuration OK\n"
	       "chain: %s%s%s at %s, %s, poll every %u ms\n"
	       "dealer: %s\nrules: %s\nstate: %s (undo of the last %" PRIu64
	       " blocks)\ncard log: %s (fsync %s)\n",
	       hj_family_name(c->family), c->coin ? " " : "",
	       c->coin ? c->coin : "", url, fin, c->poll_interval_ms,
	       c->dealer.text, rules, c->state_dir, c->rewind_blocks,
	       c->card_log, c->log_fsync ? "yes" : "no");
	if (c->push) {
		hj_url_shown(c->push_url, url, sizeof url);
		printf("push: on, %s (%s), polling stays\n", url,
		       hj_node_backend_ops(c)->push_how);
	} else {
		printf("push: off%s%s\n", c->push_off_why ? ": " : "",
		       c->push_off_why ? c->push_off_why : "");
	}
	/* Said when it matters: a CA file, or a node reached over TLS. */
	if (c->ca_file)
		printf("tls: the node's certificates checked against ca_file "
		       "%s only\n",
		       c->ca_file);
	else if (!strncmp(c->rpc_url, "https://", 8) ||
	         (c->push && (!strncmp(c->push_url, "https://", 8) ||
	                      !strncmp(c->push_url, "wss://", 6))))
		printf("tls: the node's certificates checked against the "
		       "system's CA store\n");
	printf("house edge: %.6f %%", 100 * e->edge);
	if (e->pp_on)
		printf(", perfect pairs %.6f %%", 100 * e->pp_edge);
	if (e->t3_on)
		printf(", 21+3 %.6f %%", 100 * e->t3_edge);
	printf("%s\n",
	       c->allow_player_edge ? " (allow_player_edge = yes)" : "");
	if (c->payout_wallet) {
		char dust[HJ_AMOUNT_STRLEN];

		printf("payouts: wallet %s, dust limit %s, at most %u "
		       "outputs per transaction%s%s\n",
		       c->payout_wallet, hj_amount_format(c->dust_limit, dust),
		       c->max_outputs,
		       c->wallet_passphrase ? ", unlocked only while it signs, "
		                              "with the passphrase of "
		                            : "",
		       c->wallet_passphrase ? c->wallet_passphrase : "");
	} else if (c->dealer_key) {
		char cap[HJ_AMOUNT_STRLEN], tip[HJ_AMOUNT_STRLEN],
		    min[HJ_AMOUNT_STRLEN + 8];

		if (c->min_refund_auto)
			snprintf(min, sizeof min, "auto");
		else
			hj_amount_format(c->min_refund, min);
		printf("payouts: signed with the key %s (its address is the "
		       "dealer's), fees at most %s wei per gas, tip at least "
		       "%s, replaced when unmined for %u s, min_refund %s\n",
		       c->dealer_key, hj_amount_format(c->max_fee_per_gas, cap),
		       hj_amount_format(c->min_priority_fee, tip),
		       c->stuck_after_s, min);
	} else {
		printf("payouts: recorded, not sent (no [payout] %s)\n",
		       c->family == HJ_EVM ? "dealer_key" : "wallet");
	}
	/* finish() refuses sweep_to without a wallet or a key. */
	if (c->sweep_to) {
		char margin[HJ_AMOUNT_STRLEN];
		int evm = c->family == HJ_EVM;

		printf("sweeps: %s goes to %s, at most once every %" PRIu64
		       " blocks (the reserve: %s, and a margin of %s%s)\n",
		       evm ? "what exceeds the reserve"
		           : "what the wallet holds beyond the reserve",
		       evm ? c->sweep_to : c->sweep_text, c->sweep_every,
		       evm ? "owed, in flight, the open rounds' worst case, gas"
		           : "owed, the open rounds' worst case",
		       hj_amount_format(c->sweep_margin, margin),
		       evm ? " wei" : " that pays the sweep's fee");
	}
	if (c->metrics.enabled)
		printf("metrics: http://%s%s%s:%u/metrics and /healthz (503 "
		       "beyond %u final blocks waiting)\n",
		       v6 ? "[" : "", c->metrics.host, v6 ? "]" : "",
		       c->metrics.port, c->metrics.max_lag);
	else
		printf("metrics: off (no [metrics] listen)\n");
	printf(strchr(c->serve.host, ':')
	           ? "serve: [%s]:%u, /healthz stale after %u s (hashjack "
	             "serve's; hashjackd does not use it)\n"
	           : "serve: %s:%u, /healthz stale after %u s (hashjack "
	             "serve's; hashjackd does not use it)\n",
	       c->serve.host, c->serve.port, c->serve.max_age_s);
}

/*
 * The EVM dealer key, read once before anything starts so that a key that
 * is missing, readable by others or of another address is a configuration
 * error (exit 78) that --check-config reports too.  The payer reads it
 * again for itself; this copy is wiped at once.
 */
static int check_dealer_key(const hj_config *c, char *err, size_t errlen)
{
	uint8_t sk[HJ_EVM_SECKEY_LEN];
	hj_secp *ctx;
	char why[HJ_ERRLEN];
	int rc;

	if (c->dealer_key == NULL)
		return 0;
	if (hj_secp_new(&ctx, why, sizeof why) != 0) {
		hj_say(err, errlen, "%s", why);
		return -ENOMEM;
	}
	rc = hjd_dealer_key_load(ctx, c->dealer_key, c->dealer.addr, sk, NULL,
	                         why, sizeof why);
	explicit_bzero(sk, sizeof sk);
	hj_secp_free(ctx);
	if (rc)
		hj_say(err, errlen, "[payout] dealer_key = %s: %s",
		       c->dealer_key, why);
	return rc;
}

/* The wallet's passphrase, read once before anything starts, as the
 * dealer key is, and wiped at once: the payer reads it for itself. */
static int check_wallet_pass(const hj_config *c, char *err, size_t errlen)
{
	char pass[HJD_WALLET_PASS_MAX + 1], why[HJ_ERRLEN];
	int rc;

	if (c->wallet_passphrase == NULL)
		return 0;
	rc = hjd_wallet_pass_read(c->wallet_passphrase, pass, why, sizeof why);
	explicit_bzero(pass, sizeof pass);
	if (rc)
		hj_say(err, errlen, "[payout] wallet_passphrase = %s: %s",
		       c->wallet_passphrase, why);
	return rc;
}

/*
 * --check-config with [chain] confirmations = finalized or safe: the
 * node's block of the tag and its tip, asked once (two attempts, a few
 * seconds at most), since a node whose block of the tag is its tip gives
 * the word no meaning (hj_config_final_warning).  Says what the node
 * answered on stdout, the warning on stderr as a start would; a node that
 * does not answer leaves the configuration OK.
 */
struct final_check {
	hj_rpc *rpc;
	uint64_t tip, final;
	int answered;
	char err[HJ_ERRLEN];
};

static void on_check_final(void *arg, uint64_t tip, uint64_t final,
                           const char *error)
{
	struct final_check *q = arg;

	q->answered = error == NULL;
	q->tip = tip;
	q->final = final;
	if (error)
		hj_say(q->err, sizeof q->err, "%s", error);
	hj_rpc_close(q->rpc, NULL, NULL);
	q->rpc = NULL;
}

static void check_node_final(const hj_config *c)
{
	const char *tag = hj_finality_name(c->finality);
	struct final_check q = {0};
	char warning[HJ_ERRLEN];
	hj_backend *be = NULL;
	uv_loop_t loop;
	hj_rpc_opts o;
	int rc;

	if (tag == NULL || uv_loop_init(&loop) != 0)
		return;
	hj_node_rpc_opts(c, &o);
	o.max_attempts = 2;
	o.give_up_ms = 5000;
	if (o.timeout_ms > 5000)
		o.timeout_ms = 5000;
	rc = hj_rpc_new(&loop, &o, &q.rpc, q.err, sizeof q.err);
	if (rc == 0)
		rc = hj_node_backend_new(c, q.rpc, &be, q.err, sizeof q.err);
	if (rc == 0 && !be->ops->final) {
		hj_say(q.err, sizeof q.err, "the family has no such block");
		rc = -EINVAL;
	}
	if (rc == 0 &&
	    (rc = be->ops->final(be, c->finality, on_check_final, &q)) != 0)
		hj_say(q.err, sizeof q.err, "%s", strerror(-rc));
	if (rc != 0 && q.rpc) {
		hj_rpc_close(q.rpc, NULL, NULL);
		q.rpc = NULL;
	}
	uv_run(&loop, UV_RUN_DEFAULT);
	if (be)
		be->ops->free(be);
	(void)uv_loop_close(&loop);
	if (!q.answered) {
		printf("node: its \"%s\" block not checked: %s\n", tag, q.err);
		return;
	}
	printf("node: its \"%s\" block %" PRIu64 ", tip %" PRIu64 "\n", tag,
	       q.final, q.tip);
	if (hj_config_final_warning(c, q.tip, q.final, warning, sizeof warning))
		hjd_log(HJD_LOG_WARNING, "%s", warning);
}

/* ---- running ---- */

/* SIGTERM or SIGINT before the loop's handlers exist (the first
 * milliseconds: opening the store, the lock): remembered, then acted on as
 * soon as they do, so that an early stop still exits 0. */
static volatile sig_atomic_t early_signal;

static void on_early_signal(int signum)
{
	early_signal = signum;
}

static void catch_early_signals(void)
{
	struct sigaction early = {.sa_handler = on_early_signal};

	sigemptyset(&early.sa_mask);
	sigaction(SIGTERM, &early, NULL);
	sigaction(SIGINT, &early, NULL);
}

static void on_signal(uv_signal_t *s, int signum)
{
	hjd_follower *f = s->data;

	if (signum == SIGHUP)
		hjd_follower_reopen_log(f);
	else
		hjd_follower_stop(f, signum == SIGTERM ? "SIGTERM" : "SIGINT");
}

static void on_watchdog(uv_timer_t *t)
{
	(void)t;
	hj_notify("WATCHDOG=1");
}

static int mkdir_p(const char *dir)
{
	char path[4096];
	size_t n = strlen(dir);

	if (n == 0 || n >= sizeof path)
		return -ENAMETOOLONG;
	memcpy(path, dir, n + 1);
	for (size_t i = 1; i <= n; i++) {
		if (path[i] != '/' && path[i] != '\0')
			continue;
		char c = path[i];
		path[i] = '\0';
		if (mkdir(path, 0700) != 0 && errno != EEXIST)
			return -errno;
		path[i] = c;
	}
	return 0;
}

/* The state directory, and in it the lock that keeps a second daemon out:
 * it would deal the same blocks twice into the same card log.  Returns the
 * lock's descriptor, or -1 after saying why. */
static int lock_state(const hj_config *cfg)
{
	int rc = mkdir_p(cfg->state_dir), fd;

	if (rc) {
		hjd_log(HJD_LOG_ERR, "state directory %s: %s", cfg->state_dir,
		        strerror(-rc));
		return -1;
	}
	fd = hj_store_lock_dir(cfg->state_dir);
	if (fd < 0) {
		hjd_log(HJD_LOG_ERR, "state directory %s: %s", cfg->state_dir,
		        fd == -EWOULDBLOCK ? "another hashjackd is using it"
		                           : strerror(-fd));
		return -1;
	}
	return fd;
}

/* The family's payer, when the configuration says how to pay: 0 with *out
 * (NULL when payouts are only recorded), or a negative errno with err. */
static int payer_new(const hj_config *cfg, const hjd_payer_opts *o,
                     hjd_payer **out, char *err, size_t errlen)
{
	*out = NULL;
	if (cfg->family == HJ_BITCOIN && cfg->payout_wallet) {
		hjd_btc_payout po = {
		    .wallet = cfg->payout_wallet,
		    .dust_limit = cfg->dust_limit,
		    .max_outputs = cfg->max_outputs,
		    .wallet_passphrase = cfg->wallet_passphrase,
		    .sweep_len = cfg->sweep_to ? cfg->sweep_len : 0,
		    .sweep_margin = cfg->sweep_margin,
		    .sweep_every = cfg->sweep_every};
		memcpy(po.sweep_to, cfg->sweep_addr, sizeof po.sweep_to);
		return hjd_btc_payer_new(o, &po, out, err, errlen);
	}
	if (cfg->family == HJ_EVM && cfg->dealer_key) {
		hjd_evm_payout po = {.key_source = cfg->dealer_key,
		                     .max_fee_per_gas = cfg->max_fee_per_gas,
		                     .min_priority_fee = cfg->min_priority_fee,
		                     .stuck_after_s = cfg->stuck_after_s,
		                     .min_refund_auto = cfg->min_refund_auto,
		                     .min_refund = cfg->min_refund,
		                     .sweep = cfg->sweep_to != NULL,
		                     .sweep_margin = cfg->sweep_margin,
		                     .sweep_every = cfg->sweep_every};
		memcpy(po.sweep_to, cfg->sweep_addr, sizeof po.sweep_to);
		return hjd_evm_payer_new(o, &po, out, err, errlen);
	}
	return 0;
}

/* What turns signals into the follower's stop and its log's reopening, and
 * tells systemd the daemon lives; closed when the follower stops. */
struct process {
	uv_signal_t sigs[3];
	uv_timer_t watchdog;
	hjd_metrics *metrics; /* its listener too */
	hjd_wakeup *wakeup;   /* push (wakeup.h), NULL when off or until the
	                         follower has caught up */
	/* What the push is started with once the follower follows the tip:
	 * the backend's push() (the follower owns be, alive until it
	 * stops, and it stops the push first). */
	uv_loop_t *loop;
	const hj_config *cfg;
	hj_backend *be;
	const hj_rpc_opts *node;
	hjd_follower *f;
};

static const int signums[3] = {SIGTERM, SIGINT, SIGHUP};

static void process_start(struct process *p, uv_loop_t *loop, hjd_follower *f,
                          const hj_config *cfg, hj_backend *be,
                          const hj_rpc_opts *node)
{
	uint64_t wd = hj_notify_watchdog_usec();

	p->wakeup = NULL;
	p->loop = loop;
	p->f = f;
	p->cfg = cfg;
	p->be = be;
	p->node = node;
	for (size_t i = 0; i < 3; i++) {
		uv_signal_init(loop, &p->sigs[i]);
		p->sigs[i].data = f;
		uv_signal_start(&p->sigs[i], on_signal, signums[i]);
	}
	uv_timer_init(loop, &p->watchdog);
	if (wd)
		uv_timer_start(&p->watchdog, on_watchdog, wd / 2000, wd / 2000);
}

static void process_close(void *arg)
{
	struct process *p = arg;

	for (size_t i = 0; i < 3; i++)
		uv_close((uv_handle_t *)&p->sigs[i], NULL);
	uv_close((uv_handle_t *)&p->watchdog, NULL);
	hjd_wakeup_close(p->wakeup);
	p->wakeup = NULL;
	hjd_metrics_close(p->metrics, NULL, NULL);
	p->metrics = NULL;
}

/* The follower has caught up: the push wake-up from now on.  Not before:
 * wakes are ignored in the catch-up, and a Bitcoin-family long poll would
 * hold one of the node's RPC threads that the catch-up could use. */
static void process_following(void *arg)
{
	struct process *p = arg;

	/* A push that cannot start was said; the follower polls anyway. */
	(void)hjd_wakeup_start(p->loop, p->cfg, p->be, p->node, p->f,
	                       &p->wakeup);
}

/* [metrics] listen: the listener for /metrics and /healthz.  Returns 0, or
 * -1 after saying why. */
static int metrics_listen(const hj_config *cfg, uv_loop_t *loop, hjd_metrics *m,
                          hjd_follower *f)
{
	char err[HJ_ERRLEN];
	unsigned port = 0;
	int v6 = strchr(cfg->metrics.host, ':') != NULL;

	if (hjd_metrics_listen(m, loop, cfg->metrics.host, cfg->metrics.port,
	                       hjd_follower_snapshot, f, &port, err,
	                       sizeof err)) {
		hjd_log(HJD_LOG_ERR, "[metrics] listen: %s", err);
		return -1;
	}
	hjd_log(HJD_LOG_NOTICE, "metrics: listening on http://%s%s%s:%u/",
	        v6 ? "[" : "", cfg->metrics.host, v6 ? "]" : "", port);
	return 0;
}

/* Runs the dealer until a signal stops it (0) or a fatal condition. */
static int run(const hj_config *cfg)
{
	char err[HJ_ERRLEN], dbpath[4200];
	uv_loop_t loop;
	struct process proc;
	hjd_rpclog rpclog;
	hj_store *store = NULL;
	hj_table *table = NULL;
	hj_rpc *rpc = NULL;
	hj_backend *be = NULL;
	hjd_follower *f = NULL;
	hjd_payer *payer = NULL;
	hjd_checkpoint *ckpt = NULL;
	hj_rpc_opts o;
	int lockfd, rc = HJD_EXIT_FAILURE;

	lockfd = lock_state(cfg);
	if (lockfd < 0)
		return HJD_EXIT_FAILURE;
	snprintf(dbpath, sizeof dbpath, "%s/" HJ_STORE_FILE, cfg->state_dir);
	if (hj_store_open(dbpath, &store, err, sizeof err)) {
		hjd_log(HJD_LOG_ERR, "%s", err);
		close(lockfd);
		return HJD_EXIT_FAILURE;
	}
	hj_store_set_rewind_blocks(store, cfg->rewind_blocks);
	if (hj_table_new(&cfg->rules, &table) != 0 ||
	    uv_loop_init(&loop) != 0) {
		hjd_log(HJD_LOG_ERR, "out of memory");
		hj_table_free(table);
		hj_store_close(store);
		close(lockfd);
		return HJD_EXIT_FAILURE;
	}

	if (hjd_checkpoint_new(&loop, store, dbpath, &ckpt, err, sizeof err))
		hjd_log(HJD_LOG_WARNING,
		        "%s; the database is checkpointed after the commits "
		        "instead, as SQLite does by default",
		        err);

	proc.metrics = NULL;
	if (cfg->metrics.enabled &&
	    hjd_metrics_new(cfg->metrics.max_lag, &proc.metrics) != 0) {
		hjd_log(HJD_LOG_ERR, "out of memory");
		goto out;
	}
	hj_node_rpc_opts(cfg, &o);
	o.max_inflight = HJD_FOLLOWER_INFLIGHT;
	hjd_rpclog_init(&rpclog, proc.metrics, 0);
	o.on_retry = hjd_rpclog_retry;
	o.on_limit = hjd_rpclog_limit;
	o.arg = &rpclog;
	o.observe = hjd_rpclog_observe;
	o.observe_arg = &rpclog;
	/* The client and the backend say why in err; the follower's options
	 * come from a checked configuration, so it fails for memory only. */
	if (hj_rpc_new(&loop, &o, &rpc, err, sizeof err) == 0 &&
	    hj_node_backend_new(cfg, rpc, &be, err, sizeof err) == 0 &&
	    hjd_follower_new(
	        &(hjd_follower_opts){.loop = &loop,
	                             .cfg = cfg,
	                             .store = store,
	                             .table = table,
	                             .rpc = rpc,
	                             .be = be,
	                             .metrics = proc.metrics,
	                             .checkpoint = ckpt,
	                             .on_stop = process_close,
	                             .on_following = process_following,
	                             .arg = &proc},
	        &f) != 0)
		snprintf(err, sizeof err, "out of memory");
	if (!f) {
		hjd_log(HJD_LOG_ERR, "%s", err);
		if (be)
			be->ops->free(be);
		hj_rpc_close(rpc, NULL, NULL);
		hjd_metrics_close(proc.metrics, NULL, NULL);
		goto out;
	}
	process_start(&proc, &loop, f, cfg, be, &o);
	if (proc.metrics && metrics_listen(cfg, &loop, proc.metrics, f)) {
		hjd_follower_fail(f, HJD_EXIT_FAILURE);
		goto out;
	}
	if (payer_new(cfg,
	              &(hjd_payer_opts){.loop = &loop,
	                                .store = store,
	                                .node = &o,
	                                .dealer = &cfg->dealer,
	                                .confirmations = cfg->confirmations,
	                                .table = table,
	                                .on_status = hjd_follower_payer_status,
	                                .on_fatal = hjd_follower_payer_fatal,
	                                .arg = f},
	              &payer, err, sizeof err)) {
		hjd_log(HJD_LOG_ERR, "%s", err);
		hjd_follower_fail(f, HJD_EXIT_FAILURE);
		goto out;
	}
	hjd_follower_set_payer(f, payer);
	if (early_signal) {
		hjd_follower_stop(f, early_signal == SIGINT ? "SIGINT"
		                                            : "SIGTERM");
	} else {
		hjd_log(HJD_LOG_NOTICE,
		        "hashjackd %s: node %s, state %s, card log %s",
		        HJ_VERSION_STRING, cfg->rpc_url, cfg->state_dir,
		        cfg->card_log);
		hjd_follower_start(f);
	}
out:
	uv_run(&loop, UV_RUN_DEFAULT);
	hjd_checkpoint_close(ckpt);
	uv_run(&loop, UV_RUN_DEFAULT); /* its handle's close */
	if (uv_loop_close(&loop) != 0)
		hjd_log(HJD_LOG_WARNING, "event loop closed with handles open");
	if (f)
		rc = hjd_follower_exit_code(f);
	hjd_follower_free(f);
	hj_table_free(table);
	hj_store_close(store);
	close(lockfd);
	return rc;
}

int main(int argc, char **argv)
{
	hj_config cfg;
	const char *path = NULL;
	int check = 0, rc;
	hj_edge edge;
	char err[HJ_ERRLEN];

	catch_early_signals();
	/* The push WebSocket writes with write(2): a node gone meanwhile is
	 * an error said, not the daemon's death (chain/wsclient.h). */
	signal(SIGPIPE, SIG_IGN);
	hj_config_init(&cfg);
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			hj_config_free(&cfg);
			return 0;
		} else if (!strcmp(a, "-V") || !strcmp(a, "--version")) {
			printf("hashjackd %s\n", HJ_VERSION_STRING);
			hj_config_free(&cfg);
			return 0;
		} else if (!strcmp(a, "-c") || !strcmp(a, "--config")) {
			if (i + 1 >= argc) {
				fprintf(stderr, "hashjackd: %s needs a file\n",
				        a);
				hj_config_free(&cfg);
				return EX_USAGE_;
			}
			path = argv[++i];
		} else if (!strncmp(a, "--config=", 9)) {
			path = a + 9;
		} else if (!strcmp(a, "--check-config")) {
			check = 1;
		} else if (!strcmp(a, "--debug")) {
			hjd_log_debug(1);
		}
	}
	/* The file first, then the overrides on top of it. */
	if (!path && access(DEFAULT_CONFIG, F_OK) == 0)
		path = DEFAULT_CONFIG;
	if (path && hj_config_load(&cfg, path, err, sizeof err)) {
		hjd_log(HJD_LOG_ERR, "%s", err);
		hj_config_free(&cfg);
		return EX_CONFIG_;
	}
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "-c") || !strcmp(a, "--config")) {
			i++;
			continue;
		}
		if (!strncmp(a, "--config=", 9) ||
		    !strcmp(a, "--check-config") || !strcmp(a, "--debug"))
			continue;
		if (strncmp(a, "--", 2) != 0 || !strchr(a, '.') ||
		    !strchr(a, '=')) {
			fprintf(stderr,
			        "hashjackd: unknown argument \"%s\" (try "
			        "--help)\n",
			        a);
			hj_config_free(&cfg);
			return EX_USAGE_;
		}
		if (hj_config_set_arg(&cfg, a, err, sizeof err)) {
			hjd_log(HJD_LOG_ERR, "%s", err);
			hj_config_free(&cfg);
			return EX_CONFIG_;
		}
	}
	if (hj_config_finish(&cfg, err, sizeof err)) {
		hjd_log(HJD_LOG_ERR, "%s%s%s", path ? path : "",
		        path ? ": " : "", err);
		hj_config_free(&cfg);
		return EX_CONFIG_;
	}
	/* What the daemon alone refuses: the tool reads these
	 * configurations. */
	if (hj_config_can_deal(&cfg, err, sizeof err) ||
	    check_dealer_key(&cfg, err, sizeof err) ||
	    check_wallet_pass(&cfg, err, sizeof err) ||
	    check_edge(&cfg, &edge, err, sizeof err)) {
		hjd_log(HJD_LOG_ERR, "%s", err);
		hj_config_free(&cfg);
		return EX_CONFIG_;
	}
	/* Said at every start, and by --check-config, on stderr. */
	if (cfg.cards_warning)
		hjd_log(HJD_LOG_WARNING, "%s", cfg.cards_warning);
	if (check) {
		print_config(&cfg, &edge);
		fflush(stdout);
		check_node_final(&cfg);
		hj_config_free(&cfg);
		return 0;
	}
	rc = run(&cfg);
	hj_config_free(&cfg);
	return rc;
}
