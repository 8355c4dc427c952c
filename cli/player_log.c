/*
 * `hashjack player ACTION --log CARDLOG` (player.h, hjc_player_log_round):
 * the key's open round and its seq, followed line by line through the card
 * log's reader (daemon/core/cardlog.h), which alone knows what a line is.
 * This file keeps the command's own words for a refused line and what
 * only it checks: one chain, heights that follow, a Bet at a time.
 */
#include "player.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sysexits.h>

#include "cardlog.h"
#include "hex.h"
#include "player_impl.h"
#include "quote.h"
#include "say.h"

/* The scan: the key's latest round, followed line by line. */
struct scan {
	const char *name; /* the log's name in messages */
	hj_id pk;         /* P as the log's "player" holds it */
	char pk_text[2 * HJ_XONLY_LEN + 3];
	unsigned long line;
	int have_height;
	uint64_t height, first_height;
	/* The key's latest round: open from its Bet until its settle. */
	int found, open;
	hj_id round;
	char round_text[2 * 32 + 3]; /* as the log writes it */
	unsigned long bet_line, end_line;
	uint64_t bet_height, end_height;
	uint64_t seq;
	char *err;
	size_t errlen;
};

/* "NAME:LINE: " then the message; returns EX_DATAERR. */
static int bad_log(struct scan *sc, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static int bad_log(struct scan *sc, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(sc->err, sc->errlen, "%s:%lu: ", sc->name, sc->line);

	if (n > 0 && (size_t)n < sc->errlen) {
		va_start(ap, fmt);
		hj_vsay(sc->err + n, sc->errlen - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return EX_DATAERR;
}

static const char *type_word(int type)
{
	return type == HJ_EV_ACTION    ? "action"
	       : type == HJ_EV_TIMEOUT ? "timeout"
	                               : "settle";
}

/* A line the reader refused, in the words this command has always used
 * where it had its own; the reader's elsewhere. */
static int refused(struct scan *sc, const hj_cardlog_err *e)
{
	switch (e->at) {
	case HJ_CARDLOG_AT_LINE:
		if (!e->json)
			break;
		hj_say(sc->err, sc->errlen, "%s:%lu:%d: %s", sc->name, sc->line,
		       e->column, e->msg);
		return EX_DATAERR;
	case HJ_CARDLOG_AT_V:
		return bad_log(
		    sc,
		    "\"v\" is not 1 to %d: not a block-to-card log "
		    "line of a version this tool reads (docs/LOG.md)",
		    HJ_CARDLOG_VERSION);
	case HJ_CARDLOG_AT_CHAIN:
		return bad_log(
		    sc,
		    "chain %s: not a Bitcoin-family log (player "
		    "commands read lines with \"chain\":\"bitcoin\")",
		    e->shown[0] ? e->shown : "missing");
	case HJ_CARDLOG_AT_HEIGHT:
		return bad_log(sc, "\"height\" missing or not a block height");
	case HJ_CARDLOG_AT_EVENTS:
		return bad_log(sc, "\"events\" missing or not an array");
	case HJ_CARDLOG_AT_EVENT:
		if (e->key == NULL)
			return bad_log(sc,
			               "events[%zu]: not an object with a "
			               "\"type\"",
			               e->index);
		if (strcmp(e->key, "round") == 0 &&
		    (e->type == HJ_EV_ACTION || e->type == HJ_EV_TIMEOUT ||
		     e->type == HJ_EV_SETTLE)) {
			if (e->shown[0] == '\0')
				return bad_log(sc,
				               "events[%zu]: %s event without "
				               "\"round\"",
				               e->index, type_word(e->type));
			return bad_log(sc,
			               "events[%zu]: round %s is not a "
			               "Bitcoin-family round id (64 lower-case "
			               "hex digits)",
			               e->index, e->shown);
		}
		if (e->type == HJ_EV_ACTION && e->shown[0] == '\0' &&
		    (strcmp(e->key, "action") == 0 ||
		     strcmp(e->key, "player") == 0))
			return bad_log(sc,
			               "events[%zu]: action event without "
			               "\"action\" or \"player\"",
			               e->index);
		break;
	default:
		break;
	}
	return bad_log(sc, "%s", e->msg);
}

/*
 * One event.  seq follows the engine (game/table.c): apply() increments a
 * round's seq once for each accepted action after the Bet and for each
 * timeout, and each is logged as exactly one "action" or "timeout" event
 * of the round; a rejection changes nothing.
 */
static int scan_event(struct scan *sc, size_t i, const hj_cardlog_ev *ev)
{
	char shown[HJ_CARDLOG_SHOWN], player[2 * 32 + 3];

	if (ev->type != HJ_EV_ACTION && ev->type != HJ_EV_TIMEOUT &&
	    ev->type != HJ_EV_SETTLE)
		return 0;
	if (ev->type == HJ_EV_ACTION) {
		int mine = hj_id_eq(&ev->player, &sc->pk);

		if (ev->act == HJ_BET && mine) {
			if (sc->open)
				return bad_log(
				    sc,
				    "events[%zu]: a second Bet by P while its "
				    "round %s (line %lu) is open, which the "
				    "engine never accepts: not a dealer's log",
				    i, sc->round_text, sc->bet_line);
			sc->round = ev->round;
			hj_hex_encode(ev->round.b, ev->round.len, 0,
			              sc->round_text);
			sc->found = sc->open = 1;
			sc->seq = 0;
			sc->bet_line = sc->line;
			sc->bet_height = sc->height;
			return 0;
		}
		if (!sc->open || !hj_id_eq(&ev->round, &sc->round))
			return 0;
		if (!mine) {
			hj_hex_encode(ev->player.b, ev->player.len, 0, player);
			hj_quote(player, shown, sizeof shown);
			return bad_log(
			    sc,
			    "events[%zu]: a %s of round %s by player "
			    "%s, not by the round's P",
			    i, hj_act_name(ev->act), sc->round_text, shown);
		}
	} else if (!sc->open || !hj_id_eq(&ev->round, &sc->round)) {
		return 0;
	}
	if (ev->type == HJ_EV_SETTLE) {
		sc->open = 0;
		sc->end_line = sc->line;
		sc->end_height = sc->height;
		return 0;
	}
	if (sc->seq == UINT32_MAX)
		return bad_log(sc, "round %s has more than 4294967295 actions",
		               sc->round_text);
	sc->seq++;
	return 0;
}

static int scan_line(struct scan *sc, const char *text, size_t len)
{
	hj_cardlog_line l;
	hj_cardlog_err e;
	int rc;

	/* Versions 1 and 2 count a round's actions alike: a log that spans
	 * a dealer's upgrade reads whole. */
	rc = hj_cardlog_read(text, len, HJ_BITCOIN, &l, &e);
	if (rc == -ENOMEM) {
		hj_say(sc->err, sc->errlen, "out of memory reading %s",
		       sc->name);
		return EX_SOFTWARE;
	}
	if (rc)
		return refused(sc, &e);
	/* Heights are below 2^63: the previous one + 1 cannot wrap. */
	if (sc->have_height && l.height != sc->height + 1) {
		rc = bad_log(sc,
		             "height %llu does not follow height %llu of line "
		             "%lu: a block is missing or repeated",
		             (unsigned long long)l.height,
		             (unsigned long long)sc->height, sc->line - 1);
		goto out;
	}
	sc->height = l.height;
	if (!sc->have_height)
		sc->first_height = sc->height;
	sc->have_height = 1;
	for (size_t i = 0; i < l.nevents && rc == 0; i++)
		rc = scan_event(sc, i, &l.events[i]);
out:
	hj_cardlog_line_free(&l);
	return rc;
}

/*
 * Reads one line, at most max bytes before its newline, into *buf (grown
 * up to max + 1 bytes).  Returns 1 with *len and *nl (whether a newline
 * ended it), 0 at the end of the file, -EMSGSIZE, -EIO or -ENOMEM.
 */
static int read_line(FILE *f, char **buf, size_t *cap, size_t max, size_t *len,
                     int *nl)
{
	size_t n = 0;
	int c;

	*nl = 0;
	while ((c = getc_unlocked(f)) != EOF) {
		if (c == '\n') {
			*nl = 1;
			break;
		}
		if (n == max)
			return -EMSGSIZE;
		if (n == *cap) {
			size_t want = *cap ? 2 * *cap : 4096;
			char *b;

			if (want > max)
				want = max;
			b = realloc(*buf, want);
			if (b == NULL)
				return -ENOMEM;
			*buf = b;
			*cap = want;
		}
		(*buf)[n++] = (char)c;
	}
	if (ferror(f))
		return -EIO;
	*len = n;
	return n > 0 || *nl;
}

int hjc_player_log_round(FILE *f, const char *name,
                         const uint8_t pk[HJ_XONLY_LEN], hjc_player_round *out,
                         char *err, size_t errlen)
{
	struct scan sc = {.name = name, .err = err, .errlen = errlen};
	/* A log line is at most HJ_CARDLOG_MAX bytes, its "\n" included. */
	const size_t max = HJ_CARDLOG_MAX - 1;
	char *buf = NULL;
	size_t cap = 0, len;
	int rc = 0, got, nl;

	sc.pk.len = HJ_XONLY_LEN;
	memcpy(sc.pk.b, pk, HJ_XONLY_LEN);
	hj_hex_encode(pk, HJ_XONLY_LEN, 0, sc.pk_text);
	while ((got = read_line(f, &buf, &cap, max, &len, &nl)) == 1) {
		sc.line++;
		if (!nl) {
			/* The daemon writes whole lines: this one is cut,
			 * or still being written. */
			rc = bad_log(&sc, "the last line has no newline: the "
			                  "log is cut short (or was being "
			                  "written; try again)");
			goto out;
		}
		rc = scan_line(&sc, buf, len);
		if (rc)
			goto out;
	}
	if (got == -EMSGSIZE) {
		sc.line++;
		rc = bad_log(&sc, "line longer than %zu bytes: not a card log",
		             max);
	} else if (got == -EIO) {
		hj_say(err, errlen, "reading card log %s: %s", sc.name,
		       strerror(errno));
		rc = EX_IOERR;
	} else if (got == -ENOMEM) {
		hj_say(err, errlen, "out of memory reading %s", sc.name);
		rc = EX_SOFTWARE;
	} else if (sc.line == 0) {
		hj_say(err, errlen, "%s: empty: no block, so no round",
		       sc.name);
		rc = EX_DATAERR;
	} else if (!sc.found) {
		hj_say(err, errlen,
		       "%s: no Bet by P %s in heights %llu to %llu (lines 1 "
		       "to %lu): no round to act on",
		       sc.name, sc.pk_text, (unsigned long long)sc.first_height,
		       (unsigned long long)sc.height, sc.line);
		rc = EX_DATAERR;
	} else if (!sc.open) {
		hj_say(err, errlen,
		       "%s: no open round of P %s: its latest round %s (Bet "
		       "at height %llu, line %lu) settled at height %llu "
		       "(line %lu)",
		       sc.name, sc.pk_text, sc.round_text,
		       (unsigned long long)sc.bet_height, sc.bet_line,
		       (unsigned long long)sc.end_height, sc.end_line);
		rc = EX_DATAERR;
	} else {
		memcpy(out->round, sc.round_text, sizeof out->round);
		out->seq = (uint32_t)sc.seq;
	}
out:
	free(buf);
	return rc;
}

int hjc_player__log_find(const char *path, const uint8_t pk[HJ_XONLY_LEN],
                         hjc_player_round *out, char *err, size_t errlen)
{
	struct stat st;
	FILE *f;
	int rc;

	if (strcmp(path, "-") == 0)
		return hjc_player_log_round(stdin, "<stdin>", pk, out, err,
		                            errlen);
	f = fopen(path, "r");
	if (f == NULL) {
		hj_say(err, errlen, "cannot open card log %s: %s", path,
		       strerror(errno));
		return EX_NOINPUT;
	}
	if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
		hj_say(err, errlen, "cannot open card log %s: %s", path,
		       strerror(EISDIR));
		fclose(f);
		return EX_NOINPUT;
	}
	rc = hjc_player_log_round(f, path, pk, out, err, errlen);
	fclose(f);
	return rc;
}
