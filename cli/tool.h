/*
 * What the tool's two database commands, `hashjack ledger` and `hashjack
 * status`, share besides the database itself (which they read through the
 * store: daemon/core/store.h, hj_store_read and the typed reads): their
 * messages and command lines, where the database is, what a failed read
 * means as an exit status, the chain a database belongs to as the tool
 * shows it (units, address prefix), and how amounts and the database's
 * text are written out.
 *
 * Nothing here prints but hjc_tool_fail and hjc_tool_usage, which the two
 * commands print their messages with.
 */
#ifndef HJC_TOOL_H
#define HJC_TOOL_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "amount.h"
#include "backend.h"
#include "buf.h"
#include "config.h"
#include "driver.h"
#include "rpc.h"
#include "say.h"

/*
 * The command cmd's ("ledger", "status") messages: stdout is flushed,
 * then "hashjack: CMD: " and the message go to stderr on one line.
 * hjc_tool_fail returns code; hjc_tool_usage adds a line "Try 'hashjack
 * CMD --help'." and returns EX_USAGE.
 */
int hjc_tool_fail(const char *cmd, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int hjc_tool_usage(const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* "hashjack: CMD: " and the message on stderr, on a line of its own (after
 * stdout is flushed and a progress line ended): a note, not a failure. */
void hjc_tool_note(const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/*
 * The progress line of a long command (`verify`, `export`): one line on
 * stderr, rewritten in place, only when stderr is a terminal
 * (hjc_tool_progress_on).  Every message of hjc_tool_fail, hjc_tool_usage
 * and hjc_tool_note ends it first; a command that prints to stdout ends it
 * with hjc_tool_progress_end.
 */
int hjc_tool_progress_on(void);
void hjc_tool_progress(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
void hjc_tool_progress_end(void);

/* A negative errno of hj_store_read (daemon/core/store.h) as a sysexits(3)
 * status: EX_NOINPUT, EX_DATAERR, EX_TEMPFAIL, EX_SOFTWARE, EX_IOERR. */
int hjc_tool_exit_code(int err);

/*
 * The command line of `ledger` and `status`: options only, "--opt VALUE",
 * "--opt=VALUE", or a flag alone; each at most once; "--" ends them and
 * nothing may follow.  Configuration keys ("--SECTION.KEY=VALUE") are
 * left for hjc_tool_where.  names[i] is an option ("--db"), flag[i] nonzero
 * when it takes no value.  v[i] gets its value (borrowed from argv; the
 * option itself for a flag) or NULL when absent.  Returns 0, or -1 with
 * the usage message in err ("unknown option \"--x\"", ...).
 */
int hjc_tool_options(int argc, char **argv, const char *const *names,
                     const unsigned char *flag, size_t n, const char **v,
                     char *err, size_t errlen);

/*
 * Where the daemon's database is, as every command that reads it takes it
 * (`ledger`, `status`): -c FILE (hashjackd's configuration: the database
 * in its [state] directory), --state-dir DIR (--state is its older
 * spelling), --db FILE (the file itself); at most one of them.  Their
 * names come first in the command's option list (HJC_TOOL_WHERE_OPTS), so
 * that hjc_tool_options puts their values in v[0..HJC_TOOL_WHERE_N).
 */
#define HJC_TOOL_WHERE_OPTS "-c", "--config", "--state-dir", "--state", "--db"
#define HJC_TOOL_WHERE_N    5
/* The database file from those values (v) and argv's "--SECTION.KEY=VALUE"
 * over -c's configuration (or over the defaults, without -c).  *path is
 * the caller's to free.  Returns EX_OK, or a sysexits(3) code after
 * saying why (hjc_tool_usage, hjc_tool_fail). */
int hjc_tool_where(const char *cmd, const char *const *v, int argc, char **argv,
                   char **path);
/* The lines of a command's help that say those options. */
/* clang-format off: one line of help a line here */
#define HJC_TOOL_WHERE_HELP                                                    \
	"  -c, --config FILE    hashjackd's configuration: reads the "         \
	"database\n"                                                           \
	"                       in its [state] directory\n"                    \
	"  --state-dir DIR      the daemon's state directory: reads\n"         \
	"                       DIR/hashjackd.sqlite (--state DIR: the "       \
	"same)\n"                                                              \
	"  --db FILE            the database file itself\n"                    \
	"                       (none of the three: the daemon's default, "    \
	"the\n"                                                                \
	"                       first entry of $STATE_DIRECTORY, else\n"       \
	"                       /var/lib/hashjackd)\n"                         \
	"  --SECTION.KEY=VALUE  a configuration key over -c's (e.g.\n"         \
	"                       --state.directory=DIR)\n"
/* clang-format on */

/* Nonzero when a is a configuration key given on the command line,
 * "--SECTION.KEY=VALUE". */
int hjc_tool_is_key(const char *a);

/*
 * The configuration of a command that takes hashjackd's (`verify`,
 * `export`, `serve`): cfg (hj_config_init'ed) loaded from file, when not
 * NULL; then pre(cfg, arg), when not NULL (keys from elsewhere: it says
 * what is wrong itself and returns a sysexits(3) code); then every
 * "--SECTION.KEY=VALUE" of argv over them; then finished
 * (hj_config_finish) when file or pre is not NULL.  Returns EX_OK, or
 * EX_CONFIG for the file, EX_USAGE for a key, or pre's code, after saying
 * why.
 */
int hjc_tool_config(const char *cmd, hj_config *cfg, const char *file,
                    int (*pre)(hj_config *cfg, void *arg), void *arg, int argc,
                    char **argv);

/*
 * The node client's options of a command that reads a node (`verify`,
 * `export`): hashjackd's (hj_node_rpc_opts) for cfg, each failed attempt
 * said on stderr as "hashjack: CMD: node: ...".  A command that must end
 * (follow 0) gives up on a request after HJC_TOOL_RPC_ATTEMPTS attempts or
 * HJC_TOOL_RPC_GIVE_UP_S seconds, whichever comes first (the request then
 * ends with the last failure: the command exits 69).  A command that
 * follows (follow 1) retries for ever, and says so once per outage: the
 * first failed attempt, then "answering again" when an answer comes.
 * One command per process: the outage's state is the process's.
 */
#define HJC_TOOL_RPC_ATTEMPTS  8
#define HJC_TOOL_RPC_GIVE_UP_S 60
void hjc_tool_rpc_opts(const char *cmd, const hj_config *cfg, int follow,
                       hj_rpc_opts *o);

/*
 * A command's way to a node's blocks (`verify`, `export`): the client of
 * hjc_tool_rpc_opts, the configured family's backend over it (told
 * keep_all when asked) and a block driver over that, of d's options (its
 * loop and backend filled in here).  Returns 0, or a negative errno with
 * err; either way the loop is then run to its end after
 * hjc_tool_node_close, which frees what was made.
 */
typedef struct hjc_tool_node {
	hj_rpc *rpc;
	hj_backend *be;
	hj_driver *drv;
	int closed;
} hjc_tool_node;
int hjc_tool_node_open(hjc_tool_node *n, const char *cmd, uv_loop_t *loop,
                       const hj_config *cfg, int follow, int keep_all,
                       hj_driver_opts *d, char *err, size_t errlen);
/* The driver closed (no callback after this) and the client: the driver
 * and the backend are freed once the client can no longer call back, from
 * the loop; n must live until then.  Twice is fine. */
void hjc_tool_node_close(hjc_tool_node *n);

/*
 * The database file: file (--db) when not NULL, else DIR/hashjackd.sqlite
 * for dir (--state), else for the daemon's default directory (the first
 * entry of $STATE_DIRECTORY when it is an absolute path, else
 * /var/lib/hashjackd).  Caller frees; NULL when out of memory.
 */
char *hjc_tool_db_path(const char *file, const char *dir);

/* The chain a database belongs to, from meta.family and meta.chain. */
typedef struct hjc_tool_chain {
	int evm;           /* else the Bitcoin family */
	const char *unit;  /* "ETH", "BTC", "LTC" */
	const char *base;  /* its base unit: "wei", "satoshi", "litoshi" */
	unsigned decimals; /* of the unit: 18 or 8 */
	const char *hrp;   /* Bitcoin family: tr(P)'s prefix */
	char id[200];      /* meta.chain, for messages */
} hjc_tool_chain;

/* "evm" with "evm:<chain id>", or "bitcoin" with
 * "bitcoin:<coin>:<network>:<genesis>", of the database at path.
 * Returns 0 or -EINVAL with err ("PATH: meta: ..."). */
int hjc_tool_chain_of(const char *path, const char *family, const char *id,
                      hjc_tool_chain *c, char *err, size_t errlen);

/* v base units in the coin's unit, exact, without trailing zeros: "1.5",
 * "0.000000000000000001", "2". */
#define HJC_COINS_STRLEN 48
char *hjc_tool_coins(hj_amount v, unsigned decimals,
                     char buf[HJC_COINS_STRLEN]);

/* Text from the database for a line of output: printable ASCII stays, a
 * backslash becomes \\ and every other byte \xNN, so that it is one line
 * and its length is its width. */
void hjc_tool_printable(hj_buf *b, const char *s);

/* A JSON string of database text; bytes that are not UTF-8 are written
 * as hjc_tool_printable writes them rather than refused.  New reference;
 * NULL when out of memory. */
json_t *hjc_tool_json_text(const char *s);

#endif
