/*
 * A card log line's height as `hashjack verify` reads it
 * (daemon/core/cardlog.h, hj_cardlog_height), any bytes: the line's own
 * form read from its first members, anything else parsed as JSON.
 *
 * Checked: a line that jansson reads as an object without a repeated key
 * has the height jansson gives it (a non-negative integer) or none, both
 * ways.  Otherwise a line that does not begin in the log's own form has
 * the height jansson gives it when repeated keys are let through (the
 * last one), or none; one that does may have the height of its first
 * members (its rest is compared byte for byte with the protocol's line).
 */
#include "fuzz.h"

#include <jansson.h>

#include "cardlog.h"

/* jansson's top-level "height" of s with flags: 1 with *h, or 0. */
static int height_of(const char *s, size_t n, size_t flags, uint64_t *h,
                     int *object)
{
	json_t *j = json_loadb(s, n, flags, NULL);
	json_t *v = json_object_get(j, "height");
	int has = json_is_integer(v) && json_integer_value(v) >= 0;
	*object = json_is_object(j);
	if (has)
		*h = (uint64_t)json_integer_value(v);
	json_decref(j);
	return has;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data;
	uint64_t h = 0, want = 0;
	int object;
	int rc = hj_cardlog_height(s, size, &h);
	int has = height_of(s, size, JSON_REJECT_DUPLICATES, &want, &object);
	if (object) {
		FUZZ_CHECK(has == (rc == 0));
		FUZZ_CHECK(!has || h == want);
		return 0;
	}
	if (rc == 0 && size > 5 && memcmp(s, "{\"v\":", 5) == 0)
		return 0; /* the log's own form */
	has = height_of(s, size, 0, &want, &object);
	FUZZ_CHECK(has == (rc == 0));
	FUZZ_CHECK(!has || h == want);
	return 0;
}
