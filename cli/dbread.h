/*
 * Reading the dealer daemon's database from the command-line tool, without
 * disturbing the daemon: what `hashjack ledger` and `hashjack status`
 * share (docs/CLI.md, "Reading without disturbing the daemon").  Where the
 * database is, how it is opened read-only with no file created beside it,
 * the retries while the daemon starts or stops, the check that the file is
 * hashjackd's, what its meta row says (the chain), and how
 * the tool writes amounts and the database's text.
 *
 * Functions that can fail return a sysexits(3) code (0 on success) with the
 * reason in the caller's err buffer; nothing here prints or logs, but for
 * hj_dbread_fail and hj_dbread_usage, which the two subcommands print
 * their messages with.
 */
#ifndef HJ_DBREAD_H
#define HJ_DBREAD_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>
#include <sqlite3.h>

#include "amount.h"

/* The schema versions this tool reads (daemon/store.c writes the last). */
#define HJ_DBREAD_SCHEMA_MAX 3

/*
 * The subcommand cmd's ("ledger", "status") messages: stdout is flushed,
 * then "hashjack: CMD: " and the message go to stderr on one line.
 * hj_dbread_fail returns code; hj_dbread_usage adds a line "Try 'hashjack
 * CMD --help'." and returns EX_USAGE.
 */
int hj_dbread_fail(const char *cmd, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int hj_dbread_usage(const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The message into err (vsnprintf: cut to errlen). */
void hj_dbread_say(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/*
 * The command line of `ledger` and `status`: options only, "--opt VALUE",
 * "--opt=VALUE", or a flag alone; each at most once; "--" ends them and
 * nothing may follow.  names[i] is an option ("--db"), flag[i] nonzero
 * when it takes no value.  v[i] gets its value (borrowed from argv; the
 * option itself for a flag) or NULL when absent.  Returns 0, or -1 with
 * the usage message in err ("unknown option \"--x\"", ...).
 */
int hj_dbread_options(int argc, char **argv, const char *const *names,
                      const unsigned char *flag, size_t n, const char **v,
                      char *err, size_t errlen);

/*
 * The database file: file (--db) when not NULL, else DIR/hashjackd.sqlite
 * for dir (--state), else for the daemon's default directory (the first
 * entry of $STATE_DIRECTORY when it is an absolute path, else
 * /var/lib/hashjackd).  Caller frees; NULL when out of memory.
 */
char *hj_dbread_path(const char *file, const char *dir);

/*
 * What a read does inside its read transaction, once the file is known to
 * be hashjackd's (meta and payouts tables, application_id, a schema
 * version from 1 to HJ_DBREAD_SCHEMA_MAX, passed as version).  Returns 0
 * or a sysexits code with err.
 */
typedef int (*hj_dbread_fn)(sqlite3 *db, const char *path, int version,
                            void *arg, char *err, size_t errlen);

/*
 * Opens path read-only and runs fn in one read transaction, then closes
 * the connection.  Nothing beside the database is created or removed:
 * while a -wal file exists it is read through a VFS that creates and
 * deletes nothing; without one the file is read as immutable and checked
 * unchanged afterwards.  When the daemon starts or stops during the read
 * it starts over (reset(arg) first, when not NULL), at most 3 times, then
 * EX_TEMPFAIL.  Returns 0 or fn's code, or EX_NOINPUT (cannot open),
 * EX_DATAERR (not hashjackd's), EX_IOERR, EX_SOFTWARE, with err.
 */
int hj_dbread(const char *path, hj_dbread_fn fn, void (*reset)(void *arg),
              void *arg, char *err, size_t errlen);

/* What a failed SQLite call on db means as an exit status; err says what
 * ("PATH: WHAT: SQLite's message"). */
int hj_dbread_sql_fail(sqlite3 *db, const char *path, const char *what,
                       char *err, size_t errlen);

/* One integer: the first column of sql's first row. */
int hj_dbread_int(sqlite3 *db, const char *path, const char *sql, int64_t *v,
                  char *err, size_t errlen);

/* The chain a database belongs to, from meta.family and meta.chain. */
typedef struct hj_dbchain {
	int evm;           /* else the Bitcoin family */
	const char *unit;  /* "ETH", "BTC", "LTC" */
	const char *base;  /* its base unit: "wei", "satoshi", "litoshi" */
	unsigned decimals; /* of the unit: 18 or 8 */
	const char *hrp;   /* Bitcoin family: tr(P)'s prefix */
	char id[200];      /* meta.chain, for messages */
} hj_dbchain;

/* "evm" with "evm:<chain id>", or "bitcoin" with
 * "bitcoin:<coin>:<network>:<genesis>".  Returns 0 or EX_DATAERR with
 * err ("PATH: meta: ..."). */
int hj_dbread_chain(const char *path, const char *family, const char *id,
                    hj_dbchain *c, char *err, size_t errlen);

/* v base units in the coin's unit, exact, without trailing zeros: "1.5",
 * "0.000000000000000001", "2". */
#define HJ_COINS_STRLEN 48
char *hj_dbread_coins(hj_amount v, unsigned decimals,
                      char buf[HJ_COINS_STRLEN]);

/* A growing string; p is NUL-terminated.  After a failed allocation
 * nomem is set and later calls do nothing.  The owner frees p. */
struct hj_buf {
	char *p;
	size_t n, cap;
	int nomem;
};

void hj_buf_put(struct hj_buf *b, const char *s, size_t n);
void hj_buf_str(struct hj_buf *b, const char *s);

/* Text from the database for a line of output: printable ASCII stays, a
 * backslash becomes \\ and every other byte \xNN, so that it is one line
 * and its length is its width. */
void hj_buf_printable(struct hj_buf *b, const char *s);

/* A JSON string of database text; bytes that are not UTF-8 are written
 * as hj_buf_printable writes them rather than refused.  New reference;
 * NULL when out of memory. */
json_t *hj_dbread_json_text(const char *s);

#endif
