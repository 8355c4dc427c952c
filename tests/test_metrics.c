/*
 * The Prometheus text writer (daemon/core/prom.c) with exact bytes, and
 * hashjackd's /metrics page and /healthz answer (daemon/metrics.c) from
 * counted events and made-up snapshots; the listener itself against a
 * fake connection (daemon/core/http.h's hj_server_fake).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "metrics.h"
#include "prom.h"
#include "reason.h"

static char *take(hj_prom *t)
{
	char *out;
	size_t len;
	assert_int_equal(hj_prom_take(t, &out, &len), 0);
	assert_int_equal(strlen(out), len);
	return out;
}

static void test_prom_text(void **state)
{
	hj_prom t = {0};
	const char *l[] = {"method", "a\"b\\c\nd", "outcome", "ok"};
	(void)state;
	hj_prom_family(&t, "x_total", "counter", "help with \\ and\nnewline");
	hj_prom_sample_u64(&t, "x_total", l, 2, UINT64_MAX);
	hj_prom_gauge(&t, "g", "a gauge", -1);
	hj_prom_sample(&t, "g", NULL, 0, 0.25);
	hj_prom_sample(&t, "g", NULL, 0, NAN);
	hj_prom_sample(&t, "g", NULL, 0, -INFINITY);
	hj_prom_sample(&t, "g", NULL, 0, 1e300);
	/* The fewest digits that read back as the same double: a log age of
	 * nanoseconds is 9 digits, not %.17g's 17; a sum that needs 17 has
	 * them. */
	hj_prom_sample(&t, "g", NULL, 0, 0.927349368);
	hj_prom_sample(&t, "g", NULL, 0, 0.1 + 0.2);
	hj_prom_sample(&t, "g", NULL, 0, 1.0 / 3);
	hj_prom_sample(&t, "g", NULL, 0, 2.5e-7);
	char *s = take(&t);
	assert_string_equal(
	    s, "# HELP x_total help with \\\\ and\\nnewline\n"
	       "# TYPE x_total counter\n"
	       "x_total{method=\"a\\\"b\\\\c\\nd\",outcome=\"ok\"} "
	       "18446744073709551615\n"
	       "# HELP g a gauge\n# TYPE g gauge\ng -1\n"
	       "g 0.25\ng NaN\ng -Inf\ng 1e+300\ng 0.927349368\n"
	       "g 0.30000000000000004\ng 0.3333333333333333\ng 2.5e-07\n");
	free(s);
}

static void test_prom_hist(void **state)
{
	hj_prom t = {0};
	hj_prom_hist h = {0};
	const char *l[] = {"m", "x"};
	(void)state;
	hj_prom_observe(&h, 0.0004);
	hj_prom_observe(&h, 0.003);
	hj_prom_observe(&h, 0.003);
	hj_prom_observe(&h, 42);
	hj_prom_observe(&h, -1); /* a clock step back counts as 0 */
	hj_prom_hist_samples(&t, "d_seconds", l, 1, &h);
	char *s = take(&t);
	/* Cumulative: <= 0.0005 holds 2 (0.0004 and 0), <= 0.005 holds 4,
	 * 42 only in +Inf. */
	assert_non_null(
	    strstr(s, "d_seconds_bucket{m=\"x\",le=\"0.0005\"} 2\n"));
	assert_non_null(
	    strstr(s, "d_seconds_bucket{m=\"x\",le=\"0.0025\"} 2\n"));
	assert_non_null(
	    strstr(s, "d_seconds_bucket{m=\"x\",le=\"0.005\"} 4\n"));
	assert_non_null(strstr(s, "d_seconds_bucket{m=\"x\",le=\"10\"} 4\n"));
	assert_non_null(strstr(s, "d_seconds_bucket{m=\"x\",le=\"+Inf\"} 5\n"));
	assert_non_null(strstr(s, "d_seconds_sum{m=\"x\"} 42.0064\n"));
	assert_non_null(strstr(s, "d_seconds_count{m=\"x\"} 5\n"));
	free(s);
}

static void test_prom_bad_names(void **state)
{
	hj_prom t = {0};
	const char *bad_label[] = {"a:b", "v"};
	char *out;
	size_t len;
	(void)state;
	assert_true(hj_prom_name_ok("a_b:c9", 0));
	assert_false(hj_prom_name_ok("9a", 0));
	assert_false(hj_prom_name_ok("a-b", 0));
	assert_false(hj_prom_name_ok("", 0));
	assert_false(hj_prom_name_ok("a:b", 1));
	hj_prom_gauge(&t, "ok", "fine", 1);
	hj_prom_sample(&t, "ok", bad_label, 1, 1);
	/* Nothing served rather than a page with a broken line. */
	assert_int_equal(hj_prom_take(&t, &out, &len), -1);
	assert_null(out);
	hj_prom_gauge(&t, "bad name", "x", 1);
	assert_int_equal(hj_prom_take(&t, &out, &len), -1);
}

/* The sample line of name (with labels, as written) in page, or fails. */
static double sample(const char *page, const char *name)
{
	char key[256];
	snprintf(key, sizeof key, "\n%s ", name);
	const char *p = strstr(page, key);
	if (!p)
		fail_msg("no sample %s in:\n%s", name, page);
	return strtod(p + strlen(key), NULL);
}

static void snap_healthy(hjd_metrics_snap *s)
{
	memset(s, 0, sizeof *s);
	s->have_tip = 1;
	s->tip = 120;
	s->final_tip = 120;
	s->have_height = 1;
	s->height = 120;
	s->open_rounds = 2;
	s->exposure = 5000;
	s->have_totals = 1;
	s->totals.owed = (hj_tally){1, 10};
	s->totals.submitted = (hj_tally){2, 20};
	s->totals.confirmed = (hj_tally){3, (hj_amount)1 << 70};
	s->have_payer = 1;
	s->pay.warning = "";
	s->pay.have_balance = 1;
	s->pay.balance = 123456789;
	s->pay.passes = 7;
	s->pay.send_failures = 1;
}

static void test_page(void **state)
{
	hjd_metrics *m;
	hjd_metrics_snap s;
	hj_action tx = {0};
	char *page;
	size_t len;
	(void)state;
	assert_int_equal(hjd_metrics_new(10, &m), 0);
	hjd_metrics_block(m, 3, 0.002);
	hjd_metrics_block(m, 0, 0.001);
	hjd_metrics_commit(m, 0.02);
	hjd_metrics_event(m, &(hj_event){.type = HJ_EV_ACTION, .tx = &tx});
	hjd_metrics_event(
	    m, &(hj_event){.type = HJ_EV_REJECT, .reason = HJ_R_BET_LIMITS});
	hjd_metrics_event(
	    m, &(hj_event){.type = HJ_EV_REJECT, .reason = HJ_R_BET_LIMITS});
	hjd_metrics_event(m, &(hj_event){.type = HJ_EV_DEPOSIT, .tx = &tx});
	hjd_metrics_event(m, &(hj_event){.type = HJ_EV_SETTLE});
	hjd_metrics_event(m, &(hj_event){.type = HJ_EV_DRAW});
	hjd_metrics_rpc(m, "eth_blockNumber", HJ_RPC_OK, 1500);
	hjd_metrics_rpc(m, "eth_blockNumber", HJ_RPC_RETRIED, 0);
	hjd_metrics_retry(m,
	                  &(hj_rpc_retry){.what = "eth_blockNumber: HTTP 429",
	                                  .attempt = 1,
	                                  .cause = HJ_RPC_CAUSE_RATE});
	hjd_metrics_limit(m, &(hj_rpc_limit){.method = "eth_getBlockByNumber",
	                                     .limit = 6,
	                                     .refused = 12,
	                                     .why = "batch too large"});
	hjd_metrics_rpc(m, "getblock", HJ_RPC_ERROR, 20000);
	hjd_metrics_rpc(NULL, "x", HJ_RPC_OK, 1); /* nothing to count */
	snap_healthy(&s);
	assert_int_equal(hjd_metrics_text(m, &s, &page, &len), 0);
	assert_float_equal(sample(page, "hashjackd_blocks_total"), 2, 0);
	assert_float_equal(sample(page, "hashjackd_transactions_total"), 3, 0);
	assert_float_equal(sample(page, "hashjackd_actions_accepted_total"), 1,
	                   0);
	assert_float_equal(sample(page, "hashjackd_actions_rejected_total{"
	                                "reason=\"bet_out_of_limits\"}"),
	                   2, 0);
	assert_float_equal(
	    sample(page,
	           "hashjackd_actions_rejected_total{reason=\"no_round\"}"),
	    0, 0);
	assert_null(strstr(page, "reason=\"no_magic\""));
	assert_float_equal(sample(page, "hashjackd_deposits_total"), 1, 0);
	assert_float_equal(sample(page, "hashjackd_rounds_settled_total"), 1,
	                   0);
	assert_float_equal(sample(page, "hashjackd_block_height"), 120, 0);
	assert_float_equal(sample(page, "hashjackd_open_rounds"), 2, 0);
	assert_float_equal(
	    sample(page, "hashjackd_payouts_amount{state=\"confirmed\"}"),
	    ldexp(1, 70), 0);
	assert_float_equal(
	    sample(page, "hashjackd_payouts{state=\"in_flight\"}"), 2, 0);
	assert_float_equal(sample(page, "hashjackd_balance"), 123456789, 0);
	assert_float_equal(sample(page,
	                          "hashjackd_rpc_requests_total{method=\"eth_"
	                          "blockNumber\",outcome=\"retried\"}"),
	                   1, 0);
	assert_float_equal(
	    sample(page, "hashjackd_rpc_requests_total{method=\"getblock\","
	                 "outcome=\"error\"}"),
	    1, 0);
	assert_float_equal(
	    sample(page, "hashjackd_rpc_retries_total{cause=\"rate_limited\"}"),
	    1, 0);
	assert_float_equal(
	    sample(page, "hashjackd_rpc_retries_total{cause=\"timeout\"}"), 0,
	    0);
	assert_float_equal(sample(page, "hashjackd_rpc_batch_refusals_total"),
	                   1, 0);
	assert_float_equal(sample(page,
	                          "hashjackd_rpc_batch_limit{method=\"eth_"
	                          "getBlockByNumber\"}"),
	                   6, 0);
	/* The retry is the node's trouble until a request succeeds. */
	assert_float_equal(sample(page, "hashjackd_node_up"), 1, 0);
	assert_float_equal(
	    sample(page, "hashjackd_rpc_duration_seconds_bucket{method=\"eth_"
	                 "blockNumber\",le=\"0.0025\"}"),
	    1, 0);
	assert_float_equal(
	    sample(page, "hashjackd_block_duration_seconds_count"), 2, 0);
	free(page);

	/* Before the node answered: heights -1, no payer: its gauges left
	 * out. */
	memset(&s, 0, sizeof s);
	assert_int_equal(hjd_metrics_text(m, &s, &page, &len), 0);
	assert_float_equal(sample(page, "hashjackd_node_tip_height"), -1, 0);
	assert_float_equal(sample(page, "hashjackd_block_height"), -1, 0);
	assert_float_equal(sample(page, "hashjackd_payouts_enabled"), 0, 0);
	assert_null(strstr(page, "hashjackd_balance"));
	assert_null(strstr(page, "hashjackd_payouts{"));
	free(page);
	hjd_metrics_close(m, NULL, NULL);
}

/* /healthz's status and its reasons joined by "|". */
static int health(hjd_metrics *m, const hjd_metrics_snap *s, char *why,
                  size_t n)
{
	char *out;
	size_t len;
	int st = hjd_metrics_health(m, s, &out, &len);
	json_t *o = json_loadb(out, len, 0, NULL);
	json_t *r;
	size_t i;
	assert_non_null(o);
	assert_true(json_is_boolean(json_object_get(o, "ok")));
	assert_int_equal(json_is_true(json_object_get(o, "ok")), st == 200);
	why[0] = '\0';
	json_array_foreach(json_object_get(o, "reasons"), i, r)
	{
		size_t k = strlen(why);
		snprintf(why + k, n - k, "%s%s", i ? "|" : "",
		         json_string_value(r));
	}
	json_decref(o);
	free(out);
	return st;
}

static void test_health(void **state)
{
	hjd_metrics *m;
	hjd_metrics_snap s;
	char why[2000];
	(void)state;

	assert_int_equal(hjd_metrics_new(10, &m), 0);
	snap_healthy(&s);
	assert_int_equal(health(m, &s, why, sizeof why), 200);
	assert_string_equal(why, "");

	memset(&s, 0, sizeof s);
	assert_int_equal(health(m, &s, why, sizeof why), 503);
	assert_string_equal(why, "starting: the node has not answered yet");

	snap_healthy(&s);
	hjd_metrics_retry(
	    m, &(hj_rpc_retry){.what = "eth_blockNumber: connection refused",
	                       .attempt = 1,
	                       .cause = HJ_RPC_CAUSE_CONNECT});
	assert_int_equal(health(m, &s, why, sizeof why), 503);
	assert_string_equal(why, "node unreachable (no connection), 1 failed "
	                         "attempt since 0 s ago: eth_blockNumber: "
	                         "connection refused");
	/* The condition that holds now: the last cause, the attempts since
	 * the last success. */
	hjd_metrics_retry(m, &(hj_rpc_retry){.what = "eth_blockNumber: HTTP "
	                                             "429: \"slow down\"",
	                                     .attempt = 2,
	                                     .cause = HJ_RPC_CAUSE_RATE});
	assert_int_equal(health(m, &s, why, sizeof why), 503);
	assert_string_equal(why, "node rate-limiting our requests (HTTP 429), "
	                         "2 failed attempts since 0 s ago: "
	                         "eth_blockNumber: HTTP 429: \"slow down\"");
	hjd_metrics_rpc(m, "eth_blockNumber", HJ_RPC_OK, 10);
	assert_int_equal(health(m, &s, why, sizeof why), 200);

	s.lag_blocks = 10; /* max_lag itself is fine */
	assert_int_equal(health(m, &s, why, sizeof why), 200);
	s.lag_blocks = 11;
	s.lag_seconds = 42.4;
	s.pay.halted = 1;
	s.pay.warning = "the node dropped a payout; see docs";
	assert_int_equal(health(m, &s, why, sizeof why), 503);
	assert_string_equal(why,
	                    "lagging: 11 final blocks not processed (more than "
	                    "max_lag 10), the oldest waiting 42 s|payouts "
	                    "halted: the node dropped a payout; see docs");
	snap_healthy(&s);
	s.pay.insufficient = 1;
	s.pay.warning = "INSUFFICIENT FUNDS: x";
	assert_int_equal(health(m, &s, why, sizeof why), 503);
	assert_string_equal(why, "insufficient funds: INSUFFICIENT FUNDS: x");
	s.have_payer = 0; /* only recorded: no payer's condition */
	assert_int_equal(health(m, &s, why, sizeof why), 200);
	s.stopping = 1;
	assert_int_equal(health(m, &s, why, sizeof why), 503);
	assert_string_equal(why, "stopping");
	hjd_metrics_close(m, NULL, NULL);
}

/* A warning (the node's finalized block is its tip) is said in
 * "warnings", after the rest, and leaves a healthy daemon healthy; the key
 * is there only with one. */
static void test_health_warning(void **state)
{
	hjd_metrics *m;
	hjd_metrics_snap s;
	char why[2000], *out;
	size_t len;
	(void)state;

	assert_int_equal(hjd_metrics_new(10, &m), 0);
	snap_healthy(&s);
	assert_int_equal(hjd_metrics_health(m, &s, &out, &len), 200);
	assert_string_equal(out, "{\"ok\":true,\"reasons\":[],\"height\":120,"
	                         "\"tip\":120,\"lagBlocks\":0}");
	free(out);
	s.warning = "[chain] confirmations = finalized: \"x\"";
	assert_int_equal(hjd_metrics_health(m, &s, &out, &len), 200);
	assert_int_equal(len, strlen(out));
	assert_string_equal(
	    out, "{\"ok\":true,\"reasons\":[],\"height\":120,"
	         "\"tip\":120,\"lagBlocks\":0,\"warnings\":[\"[chain] "
	         "confirmations = finalized: \\\"x\\\"\"]}");
	free(out);
	/* Unhealthy for another reason: 503 for that reason alone. */
	s.stopping = 1;
	assert_int_equal(health(m, &s, why, sizeof why), 503);
	assert_string_equal(why, "stopping");
	assert_int_equal(hjd_metrics_health(m, &s, &out, &len), 503);
	assert_non_null(strstr(out, ",\"warnings\":[\"[chain] confirmations"));
	free(out);
	hjd_metrics_close(m, NULL, NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_prom_text),
	    cmocka_unit_test(test_prom_hist),
	    cmocka_unit_test(test_prom_bad_names),
	    cmocka_unit_test(test_page),
	    cmocka_unit_test(test_health),
	    cmocka_unit_test(test_health_warning),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
