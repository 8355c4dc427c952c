/*
 * The backends' own checks of what they are asked (chain/evm_backend.h,
 * chain/btc_backend.h), before any request: a range they refuse makes no
 * call and never calls back.  What they make of the node's answers is
 * fuzzed (fuzz/fuzz_evm_backend.c, fuzz/fuzz_btc_backend.c) and played end
 * to end (tests/e2e).
 *
 * The client points at a port where nothing listens: a call that got
 * through would stay pending (hj_rpc_pending) and be dropped by
 * hj_rpc_close, and no callback may run.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <uv.h>

#include "btc_backend.h"
#include "dealer.h"
#include "evm_backend.h"
#include "rpc.h"

static struct fx {
	uv_loop_t loop;
	hj_rpc *rpc;
	unsigned ncb;
} F;

static void fx_start(void)
{
	hj_rpc_opts o;
	char err[256];

	memset(&F, 0, sizeof F);
	assert_int_equal(uv_loop_init(&F.loop), 0);
	hj_rpc_opts_default(&o);
	o.url = "http://127.0.0.1:1/";
	F.rpc = hj_rpc_new(&F.loop, &o, err, sizeof err);
	if (F.rpc == NULL)
		fail_msg("hj_rpc_new: %s", err);
}

/* The daemon's order: the client first, then the backend. */
static void fx_end(hj_backend *b)
{
	hj_rpc_close(F.rpc, NULL, NULL);
	assert_int_equal(uv_run(&F.loop, UV_RUN_DEFAULT), 0);
	b->ops->free(b);
	assert_int_equal(uv_loop_close(&F.loop), 0);
	assert_int_equal(F.ncb, 0);
}

static void on_blocks(void *arg, hj_chain_block *blocks, size_t n,
                      const char *error)
{
	(void)arg;
	(void)blocks;
	(void)n;
	(void)error;
	F.ncb++;
}

/* blocks(from, n) must name n heights that exist: from + n - 1 at most
 * 2^64 - 1 on EVM (a quantity); past it the range wrapped to block 0 and
 * the callback would have had block 0 after block 2^64 - 1. */
static void test_evm_range(void **state)
{
	static const char addr[] = "0xdcdcf319ef991916ce062146aa804597059416d8";
	hj_dealer d;
	hj_backend *b;

	(void)state;
	fx_start();
	assert_int_equal(
	    hj_dealer_parse(HJ_EVM, addr, strlen(addr), &d, NULL, 0), 0);
	b = hj_evm_backend_new(F.rpc, &d);
	assert_non_null(b);
	assert_int_equal(b->ops->blocks(b, 5, 0, on_blocks, NULL), -EINVAL);
	assert_int_equal(b->ops->blocks(b, UINT64_MAX, 2, on_blocks, NULL),
	                 -EINVAL);
	assert_int_equal(
	    b->ops->blocks(b, UINT64_MAX - 14, 16, on_blocks, NULL), -EINVAL);
	assert_int_equal(hj_rpc_pending(F.rpc), 0);
	/* The top of the range is still a height. */
	assert_int_equal(b->ops->blocks(b, UINT64_MAX, 1, on_blocks, NULL), 0);
	assert_int_equal(
	    b->ops->blocks(b, UINT64_MAX - 15, 16, on_blocks, NULL), 0);
	assert_int_equal(hj_rpc_pending(F.rpc), 2);
	fx_end(b);
}

/* getblockhash takes a JSON integer: heights stay below 2^63. */
static void test_btc_range(void **state)
{
	static const char addr[] =
	    "rltc1q2qv83f0js2q05qxm9kkv87eedpe3udq3j3t8e4";
	hj_dealer d;
	hj_backend *b;
	char err[200];

	(void)state;
	fx_start();
	assert_int_equal(
	    hj_dealer_parse(HJ_BITCOIN, addr, strlen(addr), &d, NULL, 0), 0);
	b = hj_btc_backend_new(F.rpc, "litecoin", &d, err, sizeof err);
	assert_non_null(b);
	assert_int_equal(b->ops->blocks(b, 5, 0, on_blocks, NULL), -EINVAL);
	assert_int_equal(
	    b->ops->blocks(b, (uint64_t)INT64_MAX, 1, on_blocks, NULL),
	    -EINVAL);
	assert_int_equal(b->ops->blocks(b, UINT64_MAX, 2, on_blocks, NULL),
	                 -EINVAL);
	assert_int_equal(hj_rpc_pending(F.rpc), 0);
	assert_int_equal(
	    b->ops->blocks(b, (uint64_t)INT64_MAX - 2, 2, on_blocks, NULL), 0);
	assert_int_equal(hj_rpc_pending(F.rpc), 1);
	fx_end(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_evm_range),
	    cmocka_unit_test(test_btc_range),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
