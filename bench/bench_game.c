/*
 * Engine benchmark, one core: card derivations per second and complete
 * random rounds per second, each with a baseline measured in the same run.
 *
 *   cards:  baseline = reading every digit of the same hashes (a checksum),
 *           the least work any derivation must do.
 *   rounds: baseline = producing the same random inputs (cards, decisions)
 *           without the engine.
 *
 * Then the rounds under each preset with both side bets on (issue 12),
 * and the time of the exact house edge (hashjack edge) of each preset,
 * each against the bethash figure measured in the same run.
 *
 * Targets (issue 2): 10 million cards/s, 1 million rounds/s.
 * Usage: bench_game [seconds per measurement, default 1]
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "card.h"
#include "edge.h"
#include "table.h"

#define NHASH 4096

static uint64_t rng = 0x243f6a8885a308d3ull;

static uint64_t rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 2685821657736338717ull;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static char hashes[NHASH][67];
static volatile unsigned sink_u;

static void make_hashes(void)
{
	static const char hex[] = "0123456789abcdef";
	for (int i = 0; i < NHASH; i++) {
		hashes[i][0] = '0';
		hashes[i][1] = 'x';
		for (int j = 0; j < 64; j++)
			hashes[i][2 + j] = hex[rnd() & 15];
		hashes[i][66] = 0;
	}
}

/* Returns derivations per second over about `secs` seconds. */
static double bench_cards(double secs, int baseline)
{
	unsigned long n = 0;
	unsigned acc = 0;
	double t0 = now(), t;
	do {
		for (int i = 0; i < NHASH; i++) {
			if (baseline) {
				const unsigned char *p =
				    (const unsigned char *)hashes[i] + 2;
				for (int j = 0; j < 64; j++)
					acc += p[j];
			} else {
				hj_card c;
				hj_card_from_hash(hashes[i], 66, &c, NULL, 0);
				acc += c.rank;
			}
		}
		n += NHASH;
		t = now() - t0;
	} while (t < secs);
	sink_u = acc;
	return (double)n / t;
}

static void count_settle(void *ctx, const hj_event *e)
{
	if (e->type == HJ_EV_SETTLE)
		++*(unsigned long *)ctx;
}

/* Side stakes of each Bet (0: none). */
static uint64_t side_stake;

/* A random decision for the round of player 1, or none. */
static int decide(const hj_round *r, hj_action *a)
{
	unsigned d = (unsigned)(rnd() % 100);
	memset(a, 0, sizeof *a);
	a->kind = HJ_TX_ACTION;
	a->sender.len = 20;
	a->sender.b[0] = 1;
	if (!r) {
		a->act = HJ_BET;
		a->side_pp = a->side_t3 = side_stake;
		a->value = 1000 + 2 * side_stake;
		return 1;
	}
	if (!hj_round_waiting(r))
		return 0;
	if (r->peek_due) {
		a->act = HJ_PEEK;
		return 1;
	}
	int hi = hj_round_active_hand(r);
	a->act = d < 45   ? HJ_HIT
	         : d < 85 ? HJ_STAND
	         : d < 93 ? HJ_DOUBLE
	                  : HJ_SPLIT;
	if (a->act == HJ_DOUBLE || a->act == HJ_SPLIT)
		a->value = r->hands[hi].stake;
	return 1;
}

static double bench_rounds(double secs, int baseline, double *blocks_per_round,
                           const char *preset, int sides)
{
	hj_rules ru;
	if (hj_rules_preset(preset, &ru) != 0 ||
	    (sides &&
	     (hj_rules_set_key(&ru, "perfect_pairs", "25,12,5", NULL, 0) != 0 ||
	      hj_rules_set_key(&ru, "twenty_one_plus_three", "100,40,30,10,5",
	                       NULL, 0) != 0)))
		exit(1);
	side_stake = sides ? 100 : 0;
	ru.min_bet = 1;
	ru.max_bet = 1000000;
	ru.timeout_blocks = 100;
	hj_table *t;
	unsigned long settled = 0, nb = 0, fake = 0;
	uint64_t h = 1;
	double t0 = now(), el;
	hj_action a;

	if (hj_table_new(&ru, &t) != 0)
		exit(1);
	do {
		for (int k = 0; k < 4096; k++, h++, nb++) {
			hj_card c = {0};
			uint64_t x = rnd();
			if (x % 64) {
				c.rank = (uint8_t)(1 + (x >> 8) % 13);
				c.suit = (uint8_t)((x >> 16) & 3);
			}
			if (baseline) {
				/* Same inputs, no engine: one "round" per 8
				 * blocks, about what the engine sees. */
				const hj_round *r = NULL;
				fake += decide(r, &a) + c.rank;
				settled += (nb & 7) == 0;
				continue;
			}
			const hj_round *r =
			    hj_table_count(t) ? hj_table_round(t, 0) : NULL;
			int n = decide(r, &a);
			hj_table_apply_block(t, h, &c, &a, (size_t)n,
			                     count_settle, &settled);
		}
		el = now() - t0;
	} while (el < secs);
	sink_u = (unsigned)fake;
	hj_table_free(t);
	*blocks_per_round = settled ? (double)nb / (double)settled : 0;
	return (double)settled / el;
}

static void machine(void)
{
	char line[256], model[256] = "unknown";
	FILE *f = fopen("/proc/cpuinfo", "r");
	while (f && fgets(line, sizeof line, f)) {
		if (strncmp(line, "model name", 10) == 0) {
			char *p = strchr(line, ':');
			if (p) {
				snprintf(model, sizeof model, "%s", p + 2);
				model[strcspn(model, "\n")] = 0;
			}
			break;
		}
	}
	if (f)
		fclose(f);
	printf("machine: %s, %ld online cpus, pinned to cpu 0, %s\n", model,
	       sysconf(_SC_NPROCESSORS_ONLN), __VERSION__);
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? strtod(argv[1], NULL) : 1.0;
	cpu_set_t set;
	double bpr, bbpr;

	if (!(secs > 0 && secs < 3600)) {
		fprintf(stderr,
		        "bench_game: seconds must be between 0 and "
		        "3600, got \"%s\"\n",
		        argv[1]);
		return 64;
	}
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof set, &set);
	machine();
	make_hashes();

	double cb = bench_cards(secs, 1), c = bench_cards(secs, 0);
	printf("cards:  %.2f M/s   baseline (read 64 digits) %.2f M/s   "
	       "ratio %.2f   target 10 M/s: %s\n",
	       c / 1e6, cb / 1e6, c / cb, c >= 10e6 ? "met" : "MISSED");

	double rb = bench_rounds(secs, 1, &bbpr, "bethash", 0);
	double r = bench_rounds(secs, 0, &bpr, "bethash", 0);
	printf("rounds: %.2f M/s (%.1f blocks/round)   baseline (inputs only) "
	       "%.2f M/s   ratio %.2f   target 1 M/s: %s\n",
	       r / 1e6, bpr, rb / 1e6, r / rb, r >= 1e6 ? "met" : "MISSED");
	(void)bbpr;

	/* Every preset, both side bets on, against bethash without them. */
	for (size_t i = 0; hj_preset_names[i]; i++) {
		double p = bench_rounds(secs, 0, &bpr, hj_preset_names[i], 1);
		printf("rounds, %s with side bets: %.2f M/s (%.1f "
		       "blocks/round)   ratio to bethash %.2f\n",
		       hj_preset_names[i], p / 1e6, bpr, p / r);
	}

	/* The exact edge of each preset (both side bets on), the best of
	 * five runs each. */
	double base = 0;
	for (size_t i = 0; hj_preset_names[i]; i++) {
		hj_rules ru;
		hj_edge e;
		double best = 1e9;

		hj_rules_preset(hj_preset_names[i], &ru);
		hj_rules_set_key(&ru, "perfect_pairs", "25,12,5", NULL, 0);
		hj_rules_set_key(&ru, "twenty_one_plus_three", "100,40,30,10,5",
		                 NULL, 0);
		for (int k = 0; k < 5; k++) {
			double t0 = now();
			hj_edge_compute(&ru, &e);
			if (now() - t0 < best)
				best = now() - t0;
		}
		if (i == 0)
			base = best;
		printf("edge, %s: %.1f ms (house edge %.6f %%)   ratio to "
		       "bethash %.2f\n",
		       hj_preset_names[i], best * 1e3, 100 * e.edge,
		       best / base);
	}
	return 0;
}
