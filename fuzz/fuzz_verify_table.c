/*
 * `hashjack verify --table`: the dealer's table, GET /v1/table's answer
 * (docs/API.md), from the dealer's API or a file, applied as configuration
 * keys (cli/verify_table.h), then the configuration finished as verify
 * does.
 *
 * Checked: a refusal has a message naming the table's field, one line of
 * printable ASCII; an accepted table leaves the chain it names as a
 * string; hj_config_free frees everything (LeakSanitizer).
 */
#include "fuzz.h"

#include "config.h"
#include "say.h"
#include "verify_table.h"

static int printable(const char *s)
{
	for (; *s; s++)
		if (*s < 0x20 || *s > 0x7e)
			return 0;
	return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	hj_config cfg;
	char chain[200], err[HJ_ERRLEN] = "";
	hj_config_init(&cfg);
	int rc = hjc_verify_table_apply(&cfg, (const char *)data, size, chain,
	                                sizeof chain, err, sizeof err);
	if (rc) {
		FUZZ_CHECK(strncmp(err, "table: ", 7) == 0);
		FUZZ_CHECK(printable(err));
	} else {
		FUZZ_CHECK(memchr(chain, 0, sizeof chain) != NULL);
		err[0] = 0;
		if (hj_config_set_arg(&cfg, "chain.rpc_url=http://127.0.0.1:1",
		                      err, sizeof err) == 0 &&
		    hj_config_finish(&cfg, err, sizeof err) != 0)
			FUZZ_CHECK(err[0] != 0);
	}
	hj_config_free(&cfg);
	return 0;
}
