/*
 * Seed chain benchmark, one core (daemon/seedchain.h): what committed
 * cards cost hashjackd, against a baseline measured in the same run.
 *
 *   baseline: one SHA-256 of 32 bytes (hj_sha256), chained L times as a
 *             chain is hashed down: the least any reveal can cost.
 *   open:     hjd_seedchain_open of a chain of L seeds: the file read and
 *             checked, its checkpoints read from their cache and checked
 *             at both ends (about sqrt(L) hashes): what a start costs.
 *   walk:     the same open without the cache (removed first): one walk
 *             of L hashes keeping the checkpoints, what making a chain
 *             costs (and a start whose cache is lost).
 *   reveal:   every seed s_1 .. s_L in order (what dealing does), per
 *             seed: one hash on average, the segment below each
 *             checkpoint walked once.
 *   keyed card: hj_seed_card, the HMAC-SHA256 of a block hash under its
 *             seed, per block (the other cost of committed cards).
 *   out of order: reveals at random indexes, each in a segment not the
 *             last one walked (a restart mid-chain): one segment walk.
 *
 * Each measurement is run ROUNDS times in turn and the fastest kept; the
 * ratios are against the baseline's fastest.  Times are the thread's CPU
 * time (the open's file read and checks included).  Memory is the heap the open
 * chain holds (mallinfo2), its checkpoints and its segment.
 *
 * Usage: bench_seeds [--length L] [--rounds N]  (1,000,000 and 3)
 */
#include <errno.h>
#include <malloc.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hex.h"
#include "say.h"
#include "seedchain.h"
#include "sha256.h"

#define OUT_OF_ORDER 200

static volatile uint8_t sink;

/* The thread's CPU time: the figures hold on a machine shared with other
 * work, where wall-clock time would count the time another ran. */
static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t rng = 0x243f6a8885a308d3ull;

static uint64_t rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 2685821657736338717ull;
}

/* Seconds for `n` chained SHA-256 of 32 bytes. */
static double time_sha(uint32_t n)
{
	uint8_t s[HJ_SHA256_LEN] = {1};
	double t0 = now();

	for (uint32_t i = 0; i < n; i++)
		hj_sha256(s, sizeof s, s);
	sink ^= s[0];
	return now() - t0;
}

/* Seconds for `n` keyed cards (an HMAC-SHA256 each, hj_seed_card): what
 * dealing a block costs beyond its seed. */
static double time_card(uint32_t n)
{
	uint8_t seed[HJ_SEED_LEN] = {2}, hash[32] = {3};
	char hex[65];
	hj_card card;
	unsigned acc = 0;
	double t0 = now(), t;

	for (uint32_t i = 0; i < n; i++) {
		hash[i & 31] ^= (uint8_t)i;
		hj_seed_card(seed, hash, hex, &card);
		acc += card.rank;
	}
	t = now() - t0;
	sink ^= (uint8_t)acc;
	return t;
}

/* Seconds to open the chain; *heap gets the heap it holds open. */
static double time_open(const char *dir, const uint8_t c[HJ_SEED_LEN],
                        uint32_t length, hjd_seedchain **sc, size_t *heap)
{
	char err[HJ_ERRLEN];
	size_t before = mallinfo2().uordblks;
	double t0 = now(), t;

	if (hjd_seedchain_open(dir, c, length, sc, err, sizeof err)) {
		fprintf(stderr, "bench_seeds: %s\n", err);
		exit(1);
	}
	t = now() - t0;
	*heap = mallinfo2().uordblks - before;
	return t;
}

/* Seconds to reveal s_1 .. s_L in order. */
static double time_forwards(hjd_seedchain *sc, uint32_t length)
{
	uint8_t s[HJ_SEED_LEN];
	uint8_t acc = 0;
	double t0 = now(), t;

	for (uint32_t i = 1; i <= length; i++) {
		hjd_seedchain_reveal(sc, i, s);
		acc ^= s[i & 31];
	}
	t = now() - t0;
	sink ^= acc;
	return t;
}

/* Seconds per reveal at a random index, each after one elsewhere. */
static double time_out_of_order(hjd_seedchain *sc, uint32_t length)
{
	uint8_t s[HJ_SEED_LEN];
	double total = 0;

	for (int n = 0; n < OUT_OF_ORDER; n++) {
		uint32_t i = 1 + (uint32_t)(rnd() % length);
		double t0;

		/* The other end of the chain first: i's segment is not
		 * the one kept (for L of 2 segments or more). */
		hjd_seedchain_reveal(sc, i > length / 2 ? 1 : length, s);
		t0 = now();
		hjd_seedchain_reveal(sc, i, s);
		total += now() - t0;
		sink ^= s[0];
	}
	return total / OUT_OF_ORDER;
}

/* s_1 hashes to the commitment and s_(i+1) to s_i at a few indexes: the
 * reveals timed are the chain's. */
static int check(hjd_seedchain *sc, const uint8_t c[HJ_SEED_LEN],
                 uint32_t length)
{
	uint8_t a[HJ_SEED_LEN], b[HJ_SEED_LEN];

	hjd_seedchain_reveal(sc, 1, a);
	hj_sha256(a, sizeof a, a);
	if (memcmp(a, c, HJ_SEED_LEN) != 0)
		return -1;
	for (int n = 0; n < 100 && length > 1; n++) {
		uint32_t i = 1 + (uint32_t)(rnd() % (length - 1));

		hjd_seedchain_reveal(sc, i, a);
		hjd_seedchain_reveal(sc, i + 1, b);
		hj_sha256(b, sizeof b, b);
		if (memcmp(a, b, HJ_SEED_LEN) != 0)
			return -1;
	}
	return 0;
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

static int number(const char *s, unsigned long lo, unsigned long hi,
                  unsigned long *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || *s == '-' || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

static int usage(void)
{
	fprintf(stderr,
	        "usage: bench_seeds [--length L (1 to %u)] "
	        "[--rounds N (1 to 100)]\n",
	        HJD_SEEDS_MAX);
	return 64;
}

int main(int argc, char **argv)
{
	char dir[] = "/tmp/hj-bench-seeds-XXXXXX", err[HJ_ERRLEN];
	char path[sizeof dir + 8 + 2 * HJ_SEED_LEN], hex[2 * HJ_SEED_LEN + 1];
	unsigned long length = 1000000, rounds = 3;
	uint8_t c[HJ_SEED_LEN];
	double sha = 1e30, open = 1e30, fwd = 1e30, ooo = 1e30, card = 1e30;
	double walk = 1e30;
	char marks[sizeof dir + 16 + 2 * HJ_SEED_LEN];
	size_t heap = 0;
	cpu_set_t set;
	int rc = 0;

	for (int i = 1; i < argc; i++) {
		if (i + 1 < argc && strcmp(argv[i], "--length") == 0) {
			if (number(argv[++i], 1, HJD_SEEDS_MAX, &length))
				return usage();
		} else if (i + 1 < argc && strcmp(argv[i], "--rounds") == 0) {
			if (number(argv[++i], 1, 100, &rounds))
				return usage();
		} else {
			return usage();
		}
	}
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof set, &set);
	machine();
	if (!mkdtemp(dir)) {
		perror("bench_seeds: mkdtemp");
		return 1;
	}
	if (hjd_seedchain_create(dir, (uint32_t)length, c, err, sizeof err)) {
		fprintf(stderr, "bench_seeds: %s\n", err);
		rmdir(dir);
		return 1;
	}
	for (unsigned long r = 0; r < rounds; r++) {
		hjd_seedchain *sc;
		size_t h;
		double t;

		if ((t = time_sha((uint32_t)length)) < sha)
			sha = t;
		hj_hex_encode(c, HJ_SEED_LEN, 0, hex);
		snprintf(marks, sizeof marks, "%s/seeds/%s.marks", dir, hex);
		unlink(marks); /* this open walks, and writes them again */
		if ((t = time_open(dir, c, (uint32_t)length, &sc, &h)) < walk)
			walk = t;
		hjd_seedchain_free(sc);
		if ((t = time_open(dir, c, (uint32_t)length, &sc, &h)) < open)
			open = t;
		heap = h;
		if ((t = time_forwards(sc, (uint32_t)length)) < fwd)
			fwd = t;
		if ((t = time_card((uint32_t)length)) < card)
			card = t;
		if ((t = time_out_of_order(sc, (uint32_t)length)) < ooo)
			ooo = t;
		if (r == 0 && check(sc, c, (uint32_t)length)) {
			fprintf(stderr, "bench_seeds: a revealed seed does "
			                "not hash to the one before it\n");
			rc = 1;
		}
		hjd_seedchain_free(sc);
	}

	double ns = 1e9 * sha / (double)length;
	double k = 1;

	while (k * k < (double)length)
		k++;
	printf("seed chain of L = %lu seeds, best of %lu rounds\n", length,
	       rounds);
	printf("sha256 of 32 bytes (baseline): %7.1f ns\n", ns);
	printf("open, checkpoints cached:      %7.3f ms   (a start)\n",
	       1e3 * open);
	printf("open, one walk of L:           %7.1f ms   %6.1f ns per seed"
	       "   ratio %.2f (a new chain)\n",
	       1e3 * walk, 1e9 * walk / (double)length, walk / sha);
	printf("reveal, every seed forwards:   %7.1f ns per reveal"
	       "   ratio %.2f (expected 1 to 2)\n",
	       1e9 * fwd / (double)length, fwd / sha);
	printf("keyed card (HMAC-SHA256):      %7.1f ns per card"
	       "     ratio %.2f\n",
	       1e9 * card / (double)length, card / sha);
	printf("reveal, out of order:          %7.1f us per reveal"
	       "   ratio %.0f (one segment walk, about sqrt(L) = %.0f "
	       "hashes)\n",
	       1e6 * ooo, 1e9 * ooo / ns, k);
	printf("memory of the open chain: %.1f KiB of heap (2 sqrt(L) seeds "
	       "of 32 bytes: %.1f KiB)\n",
	       (double)heap / 1024, 2 * k * HJ_SEED_LEN / 1024);

	hj_hex_encode(c, HJ_SEED_LEN, 0, hex);
	snprintf(path, sizeof path, "%s/seeds/%s", dir, hex);
	unlink(path);
	unlink(marks);
	snprintf(path, sizeof path, "%s/seeds", dir);
	rmdir(path);
	rmdir(dir);
	return rc;
}
