/* `hashjack edge`: the exact house edge of a rule set (edge.h). */
#include "edge_cmd.h"

#include "edge.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

#include <jansson.h>

#include "config.h"
#include "quote.h"
#include "rules.h"
#include "tool.h"

#define CMD "edge"

static const char usage[] =
    "Usage: hashjack edge [-c FILE] [preset=NAME] [KEY=VALUE]... "
    "[--json]\n"
    "\n"
    "Prints the exact house edge of a rule set (docs/PROTOCOL.md\n"
    "section 7.1): the player's expected loss per unit of the Bet's main\n"
    "stake under the best strategy, every card independent (an infinite\n"
    "deck), insurance never taken; then each side bet's edge, and the\n"
    "strategy chart of the first decision on two cards.  Computed, not\n"
    "simulated.\n"
    "\n"
    "The rule set starts as bethash; -c FILE takes the [rules] of a\n"
    "hashjackd configuration file (its preset and rule keys); then each\n"
    "argument in order: preset=NAME (or --preset NAME, --rules.preset=NAME)\n"
    "starts again from that preset, KEY=VALUE (or --rules.KEY=VALUE, as\n"
    "hashjackd takes it) sets one rule key (docs/CONFIG.md: blackjack_pays,\n"
    "dealer_soft17, peek, double_on, double_after_split, max_hands,\n"
    "split_by_value, split_aces, hit_split_aces, surrender,\n"
    "split_21_is_blackjack, perfect_pairs, twenty_one_plus_three).\n"
    "\n"
    "Example:\n"
    "  $ hashjack edge preset=annakai perfect_pairs=25,12,5\n"
    "\n"
    "A negative edge favours the player: hashjackd refuses such a rule set\n"
    "unless [rules] allow_player_edge = yes.\n"
    "\n"
    "Options:\n"
    "  -c, --config FILE  read the rules of a hashjackd configuration file\n"
    "  --json             one JSON object instead of text\n"
    "  -h, --help         print this help and exit\n"
    "\n"
    "Exit status: 0 ok, 64 usage error (a bad key or value is named),\n"
    "66 cannot read FILE, 78 FILE is not a valid configuration.\n";

int hjc_edge_help(void)
{
	fputs(usage, stdout);
	return EX_OK;
}

/* "bethash 6:5 ..." the rule set's keys, one "key=value" each. */
static void print_keys(const hj_rules *r)
{
	printf("rules:  preset=%s", r->preset);
	for (size_t i = 0; hj_rule_keys[i]; i++) {
		char v[HJ_RULE_VALUE_MAX];
		hj_rules_get_key(r, hj_rule_keys[i], v);
		printf(" %s=%s", hj_rule_keys[i], v);
	}
	printf("\n");
}

static const char *const ups[10] = {"2", "3", "4", "5",  "6",
                                    "7", "8", "9", "10", "A"};

static void print_row(const char *label, const char *cells)
{
	printf("%-9s", label);
	for (int c = 0; c < 10; c++)
		printf(" %3c", cells[c]);
	printf("\n");
}

static void print_text(const hj_rules *r, const hj_edge *e)
{
	char v[HJ_RULE_VALUE_MAX], label[16];

	print_keys(r);
	printf("house edge: %.6f %%%s\n", 100 * e->edge,
	       e->edge < 0 ? "  (favours the player)" : "");
	if (e->pp_on) {
		hj_rules_get_key(r, "perfect_pairs", v);
		printf("perfect pairs %s: %.6f %%%s\n", v, 100 * e->pp_edge,
		       e->pp_edge < 0 ? "  (favours the player)" : "");
	}
	if (e->t3_on) {
		hj_rules_get_key(r, "twenty_one_plus_three", v);
		printf("21+3 %s: %.6f %%%s\n", v, 100 * e->t3_edge,
		       e->t3_edge < 0 ? "  (favours the player)" : "");
	}
	printf("\nthe first decision on two cards (S stand, H hit, D double, "
	       "P split,\nR surrender; - no such hand), by the dealer's up "
	       "card:\n");
	printf("%-9s", "");
	for (int c = 0; c < 10; c++)
		printf(" %3s", ups[c]);
	printf("\n");
	for (int t = 5; t <= 19; t++) {
		snprintf(label, sizeof label, "hard %d", t);
		print_row(label, e->hard[t]);
	}
	for (int t = 13; t <= 20; t++) {
		snprintf(label, sizeof label, "soft %d", t);
		print_row(label, e->soft[t]);
	}
	for (int p = 2; p <= 11; p++) {
		snprintf(label, sizeof label, "pair %s", ups[p - 2]);
		print_row(label, e->pairs[p == 11 ? 1 : p]);
	}
}

static json_t *row_json(const char *cells)
{
	json_t *o = json_object();
	for (int c = 0; c < 10; c++) {
		char s[2] = {cells[c], 0};
		json_object_set_new(o, ups[c], json_string(s));
	}
	return o;
}

json_t *hjc_edge_json(const hj_rules *r, const hj_edge *e)
{
	json_t *o = json_object(), *rules = json_object(), *chart;
	json_t *hard = json_object(), *soft = json_object(),
	       *pairs = json_object();
	char v[HJ_RULE_VALUE_MAX], key[8], num[32];

	if (!o || !rules || !hard || !soft || !pairs) {
		json_decref(o);
		json_decref(rules);
		json_decref(hard);
		json_decref(soft);
		json_decref(pairs);
		return NULL;
	}
	json_object_set_new(rules, "preset", json_string(r->preset));
	for (size_t i = 0; hj_rule_keys[i]; i++) {
		hj_rules_get_key(r, hj_rule_keys[i], v);
		json_object_set_new(rules, hj_rule_keys[i], json_string(v));
	}
	json_object_set_new(o, "rules", rules);
	/* Percent with six decimals, as text: exactly what is printed. */
	snprintf(num, sizeof num, "%.6f", 100 * e->edge);
	json_object_set_new(o, "houseEdgePercent", json_string(num));
	if (e->pp_on) {
		snprintf(num, sizeof num, "%.6f", 100 * e->pp_edge);
		json_object_set_new(o, "perfectPairsEdgePercent",
		                    json_string(num));
	}
	if (e->t3_on) {
		snprintf(num, sizeof num, "%.6f", 100 * e->t3_edge);
		json_object_set_new(o, "pokerEdgePercent", json_string(num));
	}
	for (int t = 5; t <= 19; t++) {
		snprintf(key, sizeof key, "%d", t);
		json_object_set_new(hard, key, row_json(e->hard[t]));
	}
	for (int t = 13; t <= 20; t++) {
		snprintf(key, sizeof key, "%d", t);
		json_object_set_new(soft, key, row_json(e->soft[t]));
	}
	for (int p = 2; p <= 11; p++)
		json_object_set_new(pairs, ups[p - 2],
		                    row_json(e->pairs[p == 11 ? 1 : p]));
	chart = json_object();
	json_object_set_new(chart, "hard", hard);
	json_object_set_new(chart, "soft", soft);
	json_object_set_new(chart, "pairs", pairs);
	json_object_set_new(o, "chart", chart);
	return o;
}

static int print_json(const hj_rules *r, const hj_edge *e)
{
	json_t *o = hjc_edge_json(r, e);
	char *s = o ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;

	json_decref(o);
	if (s == NULL)
		return EX_SOFTWARE;
	printf("%s\n", s);
	free(s);
	return EX_OK;
}

int hjc_edge_main(int argc, char **argv)
{
	hj_rules r;
	hj_edge e;
	int json = 0;
	char why[HJ_ERRLEN], shown[96], arg[256];

	(void)hj_rules_preset("bethash", &r);
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i], *eq;

		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0)
			return hjc_edge_help();
		if (strcmp(a, "--json") == 0) {
			json = 1;
			continue;
		}
		if (strcmp(a, "--config") == 0 || strcmp(a, "-c") == 0) {
			hj_config c;
			char err[HJ_ERRLEN];
			int rc;

			if (i + 1 >= argc)
				return hjc_tool_usage(CMD, "%s: FILE missing",
				                      a);
			hj_config_init(&c);
			rc = hj_config_load(&c, argv[++i], err, sizeof err);
			if (rc == 0)
				r = c.rules;
			hj_config_free(&c);
			if (rc != 0) {
				fprintf(stderr, "hashjack: edge: %s\n", err);
				return rc == -ENOENT ? EX_NOINPUT : EX_CONFIG;
			}
			continue;
		}
		/* The spellings of the other commands: --preset NAME,
		 * --preset=NAME and --rules.KEY=VALUE are preset=NAME and
		 * KEY=VALUE. */
		if (strcmp(a, "--preset") == 0) {
			if (i + 1 >= argc)
				return hjc_tool_usage(CMD, "--preset: NAME "
				                           "missing");
			snprintf(arg, sizeof arg, "preset=%s", argv[++i]);
			a = arg;
		} else if (strncmp(a, "--preset=", 9) == 0 ||
		           strncmp(a, "--rules.", 8) == 0) {
			a += a[2] == 'p' ? 2 : 8;
		} else if (hjc_tool_is_key(a)) {
			hj_quote(a, shown, sizeof shown);
			return hjc_tool_usage(
			    CMD,
			    "%s: edge reads only [rules] keys "
			    "(--rules.KEY=VALUE)",
			    shown);
		}
		eq = strchr(a, '=');
		if (a[0] == '-' || eq == NULL) {
			hj_quote(a, shown, sizeof shown);
			return hjc_tool_usage(
			    CMD,
			    "%s: not an option, preset=NAME or "
			    "KEY=VALUE",
			    shown);
		}
		if (strncmp(a, "preset=", 7) == 0) {
			if (hj_rules_preset(eq + 1, &r) != 0) {
				hj_quote(eq + 1, shown, sizeof shown);
				return hjc_tool_usage(
				    CMD,
				    "preset=%s: not a preset (bethash, "
				    "annakai, cryptogames)",
				    shown);
			}
			continue;
		}
		char key[64];
		size_t klen = (size_t)(eq - a);
		if (klen >= sizeof key)
			klen = sizeof key - 1;
		memcpy(key, a, klen);
		key[klen] = '\0';
		int rc = hj_rules_set_key(&r, key, eq + 1, why, sizeof why);
		if (rc == -ENOENT) {
			hj_quote(key, shown, sizeof shown);
			return hjc_tool_usage(CMD, "%s: not a rule key", shown);
		}
		if (rc != 0) {
			hj_quote(eq + 1, shown, sizeof shown);
			return hjc_tool_usage(CMD, "%s = %s: %s", key, shown,
			                      why);
		}
	}
	hj_edge_compute(&r, &e);
	if (json)
		return print_json(&r, &e);
	print_text(&r, &e);
	return EX_OK;
}
