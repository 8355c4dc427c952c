/*
 * The rules as one line of text (rules.h, "The rules as text"): the form
 * meta.rules keeps in the daemon's database (docs/STATE.md), which
 * hashjackd compares with its configuration at every start and `hashjack
 * status` and `hashjack serve` read back.  Those bytes are in every
 * database there is, so the writer's output never changes, and the parser
 * reads that one form and nothing else.
 */
#include "rules.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "quote.h"
#include "say.h"

/* Room for a quoted value in a message: hj_quote cuts longer ones. */
#define SHOWLEN 100

void hj_rules_format(const hj_rules *r, char *buf, size_t n)
{
	char a[HJ_AMOUNT_STRLEN], b[HJ_AMOUNT_STRLEN], e[HJ_AMOUNT_STRLEN];
	hj_rules base;
	int used;

	used = snprintf(
	    buf, n, "preset=%s min_bet=%s max_bet=%s timeout_blocks=%u%s%s",
	    r->preset ? r->preset : "", hj_amount_format(r->min_bet, a),
	    hj_amount_format(r->max_bet, b), (unsigned)r->timeout_blocks,
	    r->max_exposure ? " max_exposure=" : "",
	    r->max_exposure ? hj_amount_format(r->max_exposure, e) : "");
	/* Then each rule key whose value is not the preset's. */
	if (!r->preset || hj_rules_preset(r->preset, &base) != 0)
		return;
	for (size_t i = 0; hj_rule_keys[i] && used >= 0 && (size_t)used < n;
	     i++) {
		char mine[HJ_RULE_VALUE_MAX], theirs[HJ_RULE_VALUE_MAX];

		hj_rules_get_key(r, hj_rule_keys[i], mine);
		hj_rules_get_key(&base, hj_rule_keys[i], theirs);
		if (strcmp(mine, theirs) != 0)
			used += snprintf(buf + used, n - (size_t)used, " %s=%s",
			                 hj_rule_keys[i], mine);
	}
}

/* The value of "key=" at *s, up to the next space or the end; *s moves
 * past it.  NULL when *s does not begin with key=. */
static const char *rules_field(const char **s, const char *key, size_t *len)
{
	size_t k = strlen(key);
	const char *v;

	if (strncmp(*s, key, k) != 0 || (*s)[k] != '=')
		return NULL;
	v = *s + k + 1;
	*len = strcspn(v, " ");
	*s = v + *len;
	return v;
}

int hj_rules_parse(const char *s, hj_rules *out, char *err, size_t errlen)
{
	static const char *const key[] = {"preset", "min_bet", "max_bet",
	                                  "timeout_blocks", "max_exposure"};
	hj_amount amt[5] = {0};
	char name[32], why[HJ_ERRLEN], shown[SHOWLEN];
	const char *p = s, *v;
	size_t len = 0;
	int nkeys = 0;
	hj_rules r;

	for (int i = 0; i < 5; i++, nkeys++) {
		/* max_exposure is the only optional limit, and the last. */
		if (i == 4 && strncmp(p, " max_exposure=", 14) != 0)
			break;
		if (i > 0 && *p++ != ' ') {
			hj_say(err, errlen, "expected a space at offset %zu",
			       (size_t)(p - 1 - s));
			return -EINVAL;
		}
		v = rules_field(&p, key[i], &len);
		if (v == NULL) {
			hj_say(err, errlen, "expected \"%s=\" at offset %zu",
			       key[i], (size_t)(p - s));
			return -EINVAL;
		}
		if (i == 0) {
			if (len >= sizeof name)
				len = sizeof name - 1;
			memcpy(name, v, len);
			name[len] = '\0';
		} else if (hj_amount_parse(v, len, &amt[i])) {
			hj_say(err, errlen,
			       "%s: \"%.*s\" is not a canonical decimal",
			       key[i], (int)(len > 40 ? 40 : len), v);
			return -EINVAL;
		}
	}
	/* Written only when not 0, so 0 is not the canonical form. */
	if (nkeys == 5 && amt[4] == 0) {
		hj_say(
		    err, errlen,
		    "max_exposure: 0 is never written (no limit leaves the key "
		    "out)");
		return -EINVAL;
	}
	if (amt[3] > UINT32_MAX) {
		hj_say(err, errlen, "timeout_blocks: above 4294967295");
		return -EINVAL;
	}
	if (hj_rules_preset(name, &r) != 0) {
		hj_quote(name, shown, sizeof shown);
		hj_say(err, errlen,
		       "preset %s: not a preset this hashjack knows", shown);
		return -EINVAL;
	}
	/* The rule keys that differ from the preset, in hj_rule_keys order,
	 * each written only when it differs. */
	for (size_t k = 0; *p == ' ' && hj_rule_keys[k]; k++) {
		char val[HJ_RULE_VALUE_MAX], preset_val[HJ_RULE_VALUE_MAX];
		const char *q = p + 1;

		v = rules_field(&q, hj_rule_keys[k], &len);
		if (v == NULL)
			continue; /* not written: the preset's value */
		p = q;
		if (len >= sizeof val) {
			hj_say(err, errlen, "%s: value too long",
			       hj_rule_keys[k]);
			return -EINVAL;
		}
		memcpy(val, v, len);
		val[len] = '\0';
		hj_rules_get_key(&r, hj_rule_keys[k], preset_val);
		if (hj_rules_set_key(&r, hj_rule_keys[k], val, why,
		                     sizeof why)) {
			hj_quote(val, shown, sizeof shown);
			hj_say(err, errlen, "%s=%s: %s", hj_rule_keys[k], shown,
			       why);
			return -EINVAL;
		}
		if (strcmp(val, preset_val) == 0) {
			hj_say(err, errlen,
			       "%s=%s: the preset's own value is never "
			       "written",
			       hj_rule_keys[k], val);
			return -EINVAL;
		}
	}
	if (*p != '\0') {
		hj_say(err, errlen, "unexpected text at offset %zu",
		       (size_t)(p - s));
		return -EINVAL;
	}
	r.min_bet = amt[1];
	r.max_bet = amt[2];
	r.timeout_blocks = (uint32_t)amt[3];
	r.max_exposure = amt[4];
	if (hj_rules_check(&r, why, sizeof why)) {
		hj_say(err, errlen, "%s", why);
		return -EINVAL;
	}
	*out = r;
	return 0;
}
