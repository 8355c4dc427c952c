/*
 * The card log scan of `hashjack player <action> --log CARDLOG`
 * (cli/player.h, hjc_player_log_round, in cli/player_log.c): a log read
 * from memory, line by line through the log's reader (fuzz_cardlog_read
 * fuzzes the reader alone), then followed as the command follows it:
 * heights, one open Bet at a time, the round's actions.  When the
 * input begins with a line of 64 hex digits, that line is the player's
 * key P and the rest is the log; otherwise the whole input is the log and
 * P is the player of the Bitcoin replay samples (tests/replay/ok/btc_*).
 *
 * A log either gives a round (64 lower-case hex digits, as the log writes
 * ids) and its seq, or is refused as bad data with a message that names
 * it.  A valid log (one that gives a round, or has no open round of P)
 * given twice, as a rotated log's file given twice would be, is refused at
 * the first line of the second copy: its height does not follow.
 */
#include "fuzz.h"

#include <sysexits.h>

#include "hex.h"
#include "player.h"
#include "say.h"

#define NAME "card.log"

/* f9308a01...36f9: the player of every Bitcoin replay sample. */
static const uint8_t sample_pk[HJ_XONLY_LEN] = {
    0xf9, 0x30, 0x8a, 0x01, 0x92, 0x58, 0xc3, 0x10, 0x49, 0x34, 0x4f,
    0x85, 0xf8, 0x9d, 0x52, 0x29, 0xb5, 0x31, 0xc8, 0x45, 0x83, 0x6f,
    0x99, 0xb0, 0x86, 0x01, 0xf1, 0x13, 0xbc, 0xe0, 0x36, 0xf9,
};

static int find(const uint8_t *log, size_t n, const uint8_t pk[HJ_XONLY_LEN],
                hjc_player_round *out, char *err, size_t errlen)
{
	static char empty[1];
	FILE *f = fmemopen(n ? (void *)log : empty, n, "r");
	int rc;

	FUZZ_CHECK(f != NULL);
	rc = hjc_player_log_round(f, NAME, pk, out, err, errlen);
	fclose(f);
	return rc;
}

static int starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

static int is_lower_hex(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') ||
		      (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return 1;
}

/* The valid log log[0..n) given twice. */
static void twice(const uint8_t *log, size_t n, const uint8_t pk[HJ_XONLY_LEN])
{
	uint8_t *two = malloc(2 * n);
	size_t lines = 0;
	hjc_player_round r;
	char err[HJ_ERRLEN], want[64];
	int rc;

	FUZZ_CHECK(two != NULL);
	memcpy(two, log, n);
	memcpy(two + n, log, n);
	for (size_t i = 0; i < n; i++)
		lines += log[i] == '\n';
	rc = find(two, 2 * n, pk, &r, err, sizeof err);
	free(two);
	FUZZ_CHECK(rc == EX_DATAERR);
	snprintf(want, sizeof want, NAME ":%zu: height ", lines + 1);
	FUZZ_CHECK(starts(err, want));
	FUZZ_CHECK(strstr(err, " does not follow height ") != NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t pk[HJ_XONLY_LEN];
	const uint8_t *log = data;
	size_t n = size;
	hjc_player_round a;
	char err[HJ_ERRLEN];
	int rc;

	memcpy(pk, sample_pk, sizeof pk);
	if (size > 2 * HJ_XONLY_LEN && data[2 * HJ_XONLY_LEN] == '\n' &&
	    hj_hex_decode_exact((const char *)data, 2 * HJ_XONLY_LEN,
	                        HJ_HEX_BARE, pk, sizeof pk, NULL, 0) == 0) {
		log = data + 2 * HJ_XONLY_LEN + 1;
		n = size - 2 * HJ_XONLY_LEN - 1;
	}

	memset(&a, 0, sizeof a);
	err[0] = '\0';
	rc = find(log, n, pk, &a, err, sizeof err);
	/* Memory cannot fail to read; out of memory would be a crash. */
	FUZZ_CHECK(rc == 0 || rc == EX_DATAERR);
	if (rc != 0) {
		FUZZ_CHECK(starts(err, NAME) && strlen(err) > strlen(NAME) + 2);
	} else {
		FUZZ_CHECK(strlen(a.round) == 2 * 32);
		FUZZ_CHECK(is_lower_hex(a.round, 2 * 32));
	}

	if (rc == 0 || starts(err, NAME ": no Bet by P") ||
	    starts(err, NAME ": no open round of P"))
		twice(log, n, pk);
	return 0;
}
