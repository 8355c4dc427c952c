/*
 * The replay document reader (cli/replay.h, hjc_replay_run), both
 * families: the input is a document ("chain": "evm" or "bitcoin", docs/
 * CLI.md), read from memory, its log written to memory.
 *
 * A refusal has a message that names the document, and a bad document
 * (-EINVAL) writes nothing: the whole document is checked before the
 * first line.  A document played writes one line per block, in order, each
 * a log line that the log's reader (daemon/core/cardlog.h,
 * hj_cardlog_read) reads as the document's family, of this version, with
 * the block's height, hash and parent; and what the dealer writes for a Bitcoin
 * document, the player's card log reader (cli/player.h) reads: each
 * player who made a Bet finds an open round or is told that the latest
 * one settled, never that the log is bad.
 */
#include "fuzz.h"

#include <errno.h>
#include <jansson.h>

#include "cardlog.h"
#include "hex.h"
#include "player.h"
#include "replay.h"
#include "say.h"

#define NAME "doc.json"
/* Players whose rounds are looked up in a Bitcoin document's log. */
#define PLAYERS 4

static int starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* The string member key of o, "" when absent or not a string. */
static const char *str(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

/* Bets' players of one log line, added to pk[0..*n) when new. */
static void bets(const hj_cardlog_line *l, uint8_t pk[PLAYERS][HJ_XONLY_LEN],
                 size_t *n)
{
	size_t k;

	for (size_t i = 0; i < l->nevents; i++) {
		const hj_cardlog_ev *ev = &l->events[i];

		if (ev->type != HJ_EV_ACTION || ev->act != HJ_BET)
			continue;
		/* The log writes P, an x-only key. */
		FUZZ_CHECK(ev->player.len == HJ_XONLY_LEN);
		for (k = 0;
		     k < *n && memcmp(pk[k], ev->player.b, HJ_XONLY_LEN) != 0;
		     k++)
			;
		if (k == *n && *n < PLAYERS)
			memcpy(pk[(*n)++], ev->player.b, HJ_XONLY_LEN);
	}
}

/* The bytes of a hash the document gives (either case, "0x" or not). */
static void doc_hash(const json_t *blk, const char *key, uint8_t out[32])
{
	const char *s = str(blk, key);

	FUZZ_CHECK(hj_hex_decode_exact(s, strlen(s), HJ_HEX_OPTIONAL, out, 32,
	                               NULL, 0) == 0);
}

/* The log of a Bitcoin document, as the player reads it. */
static void player_reads(const char *log, size_t len,
                         uint8_t pk[PLAYERS][HJ_XONLY_LEN], size_t n)
{
	for (size_t k = 0; k < n; k++) {
		FILE *f = fmemopen((void *)log, len, "r");
		hjc_player_round r;
		char err[HJ_ERRLEN] = "";
		int rc;

		FUZZ_CHECK(f != NULL);
		rc = hjc_player_log_round(f, "log", pk[k], &r, err, sizeof err);
		fclose(f);
		if (rc != 0 && !starts(err, "log: no open round of P "))
			fprintf(stderr, "player: %s\n", err);
		FUZZ_CHECK(rc == 0 || starts(err, "log: no open round of P "));
	}
}

/* A played document's log: one line per block, each the block's. */
static void check_log(const uint8_t *data, size_t size, const char *log,
                      size_t len)
{
	uint8_t pk[PLAYERS][HJ_XONLY_LEN];
	size_t npk = 0, at = 0, i;
	json_t *doc, *blocks, *blk;
	const char *chain;
	int btc;

	/* The reader took it: it is a JSON document. */
	doc =
	    json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, NULL);
	FUZZ_CHECK(doc != NULL);
	chain = str(doc, "chain");
	btc = strcmp(chain, "bitcoin") == 0;
	blocks = json_object_get(doc, "blocks");
	FUZZ_CHECK(json_is_array(blocks));
	json_array_foreach(blocks, i, blk)
	{
		const char *nl = memchr(log + at, '\n', len - at);
		uint8_t hash[32], parent[32];
		hj_cardlog_line line;
		hj_cardlog_err err;

		FUZZ_CHECK(nl != NULL);
		if (hj_cardlog_read(log + at, (size_t)(nl - log - at),
		                    btc ? HJ_BITCOIN : HJ_EVM, &line,
		                    &err) != 0) {
			fprintf(stderr, "replay's line refused: %s\n%.*s\n",
			        err.msg, (int)(nl - log - at), log + at);
			abort();
		}
		FUZZ_CHECK(line.version == HJ_CARDLOG_VERSION);
		FUZZ_CHECK(line.height == (uint64_t)json_integer_value(
		                              json_object_get(blk, "height")));
		/* Hashes as the document gives them. */
		doc_hash(blk, "hash", hash);
		doc_hash(blk, "parent", parent);
		FUZZ_CHECK(memcmp(line.hash, hash, 32) == 0);
		FUZZ_CHECK(memcmp(line.parent, parent, 32) == 0);
		if (btc)
			bets(&line, pk, &npk);
		hj_cardlog_line_free(&line);
		at = (size_t)(nl - log) + 1;
	}
	FUZZ_CHECK(at == len);
	if (btc)
		player_reads(log, len, pk, npk);
	json_decref(doc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char empty[1];
	FILE *in = fmemopen(size ? (void *)data : empty, size, "r");
	char *log = NULL, err[HJ_ERRLEN] = "";
	size_t len = 0;
	FILE *out = open_memstream(&log, &len);
	int rc;

	FUZZ_CHECK(in != NULL && out != NULL);
	rc = hjc_replay_run(in, NAME, out, err, sizeof err);
	fclose(in);
	FUZZ_CHECK(fclose(out) == 0);
	/* Nothing to read or write can fail in memory; a line of 16 MiB
	 * is out of reach but allowed. */
	FUZZ_CHECK(rc == 0 || rc == -EINVAL || rc == -EMSGSIZE);
	if (rc != 0) {
		FUZZ_CHECK(starts(err, NAME ":") && strlen(err) > 10);
		if (rc == -EINVAL)
			FUZZ_CHECK(len == 0);
	} else {
		check_log(data, size, log, len);
	}
	free(log);
	return 0;
}
