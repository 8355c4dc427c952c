/*
 * The dealer's address of either family (chain/dealer.h): the first byte
 * picks the family, the rest is the text.  Accepted EVM text is "0x" and
 * 40 hex digits, kept as canonical lower case that parses again to the
 * same bytes.  Accepted Bitcoin-family text is kept as given; its script
 * has a segwit shape (OP_0 or OP_1..OP_16, one push of the whole program,
 * 20 or 32 bytes under OP_0), its prefix is one of the chains', the
 * address decodes to the same program, and the text parses again, also in
 * lower case, to the same script.  A refusal says why, even in a buffer
 * of one byte.
 */
#include <errno.h>

#include "fuzz.h"

#include "bech32.h"
#include "dealer.h"
#include "say.h"

static const char *const known_hrps[] = {"bc",  "tb",   "bcrt",
                                         "ltc", "tltc", "rltc"};

static char low(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

static void check_evm(const char *s, size_t len, const hj_dealer *d)
{
	hj_dealer again;

	FUZZ_CHECK(len == 2 + 2 * HJ_EVM_ADDR_LEN);
	FUZZ_CHECK(strlen(d->text) == len);
	FUZZ_CHECK(d->text[0] == '0' && d->text[1] == 'x');
	for (size_t i = 0; i < len; i++) {
		FUZZ_CHECK(d->text[i] == low(s[i]));
		FUZZ_CHECK(i < 2 || (d->text[i] >= '0' && d->text[i] <= '9') ||
		           (d->text[i] >= 'a' && d->text[i] <= 'f'));
	}
	FUZZ_CHECK(hj_dealer_parse(HJ_EVM, d->text, len, &again, NULL, 0) == 0);
	FUZZ_CHECK(memcmp(again.addr, d->addr, sizeof d->addr) == 0);
	FUZZ_CHECK(strcmp(again.text, d->text) == 0);
}

static void check_btc(const char *s, size_t len, const hj_dealer *d)
{
	uint8_t prog[HJ_SEGWIT_PROG_MAX];
	char lower[HJ_DEALER_TEXT_MAX];
	size_t plen, known = 0;
	hj_dealer again;
	int ver;

	FUZZ_CHECK(len < sizeof d->text && strlen(d->text) == len);
	FUZZ_CHECK(memcmp(d->text, s, len) == 0);
	for (size_t i = 0; i < sizeof known_hrps / sizeof *known_hrps; i++)
		known += d->hrp == known_hrps[i] ||
		         (d->hrp != NULL && strcmp(d->hrp, known_hrps[i]) == 0);
	FUZZ_CHECK(known == 1);

	FUZZ_CHECK(d->script_len >= 4 && d->script_len <= HJ_BTC_SCRIPT_MAX);
	FUZZ_CHECK(d->script[0] == 0x00 ||
	           (d->script[0] >= 0x51 && d->script[0] <= 0x60));
	FUZZ_CHECK(d->script[1] == d->script_len - 2);
	FUZZ_CHECK(d->script[0] != 0x00 || d->script[1] == 20 ||
	           d->script[1] == 32);

	FUZZ_CHECK(hj_segwit_decode(d->hrp, d->text, &ver, prog, &plen, NULL,
	                            0) == HJ_B32_OK);
	FUZZ_CHECK(ver == (d->script[0] ? d->script[0] - 0x50 : 0));
	FUZZ_CHECK(plen == d->script_len - 2 &&
	           memcmp(prog, d->script + 2, plen) == 0);

	FUZZ_CHECK(hj_dealer_parse(HJ_BITCOIN, d->text, len, &again, NULL, 0) ==
	           0);
	FUZZ_CHECK(again.script_len == d->script_len &&
	           memcmp(again.script, d->script, d->script_len) == 0);
	for (size_t i = 0; i <= len; i++)
		lower[i] = low(d->text[i]);
	FUZZ_CHECK(hj_dealer_parse(HJ_BITCOIN, lower, len, &again, NULL, 0) ==
	           0);
	FUZZ_CHECK(again.script_len == d->script_len &&
	           memcmp(again.script, d->script, d->script_len) == 0 &&
	           strcmp(again.hrp, d->hrp) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = {data, size};
	hj_family fam = fuzz_u8(&in) & 1 ? HJ_BITCOIN : HJ_EVM;
	const char *s = (const char *)in.p;
	char why[HJ_ERRLEN], tiny[1];
	hj_dealer d, other;
	int rc;

	why[0] = '\0';
	rc = hj_dealer_parse(fam, s, in.n, &d, why, sizeof why);
	tiny[0] = 'x';
	FUZZ_CHECK(hj_dealer_parse(fam, s, in.n, &other, tiny, sizeof tiny) ==
	           rc);
	if (rc != 0) {
		FUZZ_CHECK(rc == -EINVAL && why[0] != '\0' && tiny[0] == '\0');
		return 0;
	}
	FUZZ_CHECK(d.family == fam);
	if (fam == HJ_EVM)
		check_evm(s, in.n, &d);
	else
		check_btc(s, in.n, &d);
	return 0;
}
