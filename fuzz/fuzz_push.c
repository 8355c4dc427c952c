/*
 * The readers of what a node says to hashjackd's push wake-up
 * (chain/push.c): an EVM node's WebSocket messages (the answer to
 * eth_subscribe, eth_subscription notifications, anything else) and a
 * Bitcoin-family node's waitfornewblock answer.
 *
 * Input: a byte; even: the rest is "SUB\nTEXT" (SUB, the subscription id
 * the client holds, may be empty; no newline: all TEXT) and TEXT goes to
 * hj_push__evm_read; odd: the rest is JSON (any value; not JSON: nothing
 * to read) and goes to hj_push__btc_read.
 *
 * Checked: a known kind; out NUL-terminated, printable ASCII; SUBSCRIBED
 * only for an object with "id" 1, its id 1 to HJ_PUSH_MAX_SUB characters,
 * and a notification of that id read back with it is HEAD; REFUSED with a
 * reason; HEAD only with a SUB; nothing but IGNORED for text jansson does
 * not take as an object.  A hash read is 64 lower-case hex digits, the
 * "hash" member's in lower case.  No crash, no sanitizer report, nothing
 * leaks.
 */
#include "fuzz.h"

#include <jansson.h>

#include "push.h"

static int printable(const char *s)
{
	for (; *s; s++)
		if (*s < ' ' || *s > '~')
			return 0;
	return 1;
}

static void evm(const char *p, size_t n)
{
	const char *nl = memchr(p, '\n', n);
	char sub[256], out[256];
	size_t sl = 0;

	if (nl && (size_t)(nl - p) < sizeof sub) {
		sl = (size_t)(nl - p);
		memcpy(sub, p, sl);
		n -= sl + 1;
		p = nl + 1;
	}
	sub[sl] = 0;
	enum hj_push_msg k = hj_push__evm_read(p, n, sub, out, sizeof out);
	FUZZ_CHECK(k == HJ_PUSH_IGNORED || k == HJ_PUSH_SUBSCRIBED ||
	           k == HJ_PUSH_REFUSED || k == HJ_PUSH_HEAD);
	FUZZ_CHECK(strlen(out) < sizeof out && printable(out));
	json_t *j = json_loadb(p, n, 0, NULL);
	FUZZ_CHECK(k == HJ_PUSH_IGNORED || json_is_object(j));
	if (k == HJ_PUSH_SUBSCRIBED || k == HJ_PUSH_REFUSED) {
		json_t *id = json_object_get(j, "id");
		FUZZ_CHECK(json_is_integer(id) && json_integer_value(id) == 1);
		FUZZ_CHECK(out[0] != 0);
	}
	json_decref(j);
	if (k == HJ_PUSH_HEAD)
		FUZZ_CHECK(sl > 0);
	if (k == HJ_PUSH_SUBSCRIBED) {
		char note[600], o2[8];
		FUZZ_CHECK(strlen(out) <= HJ_PUSH_MAX_SUB);
		/* Its notifications, read with it, wake.  The id is
		 * printable; quotes and backslashes are escaped. */
		size_t w = 0;
		w += (size_t)snprintf(note, sizeof note,
		                      "{\"method\":\"eth_subscription\","
		                      "\"params\":{\"subscription\":\"");
		for (const char *q = out; *q; q++) {
			if (*q == '"' || *q == '\\')
				note[w++] = '\\';
			note[w++] = *q;
		}
		w += (size_t)snprintf(note + w, sizeof note - w,
		                      "\",\"result\":{}}}");
		FUZZ_CHECK(hj_push__evm_read(note, w, out, o2, sizeof o2) ==
		           HJ_PUSH_HEAD);
	}
}

static void btc(const char *p, size_t n)
{
	char out[65];
	json_t *j = json_loadb(p, n, JSON_DECODE_ANY, NULL);
	if (!j)
		return;
	if (hj_push__btc_read(j, out) == 0) {
		const char *h = json_string_value(json_object_get(j, "hash"));
		FUZZ_CHECK(h && strlen(out) == 64);
		for (size_t i = 0; i < 64; i++) {
			char c = h[i] >= 'A' && h[i] <= 'F' ? (char)(h[i] + 32)
			                                    : h[i];
			FUZZ_CHECK(out[i] == c);
			FUZZ_CHECK((c >= '0' && c <= '9') ||
			           (c >= 'a' && c <= 'f'));
		}
	}
	json_decref(j);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	if (data[0] & 1)
		btc((const char *)data + 1, size - 1);
	else
		evm((const char *)data + 1, size - 1);
	return 0;
}
