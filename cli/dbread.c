/*
 * Reading the daemon's database without disturbing it (see dbread.h; the
 * schema is in docs/STATE.md).
 *
 * The daemon's database is in WAL mode, where a reader never blocks the
 * writer.  But a plain read-only SQLite connection still writes beside the
 * database: it creates the -wal and -shm files when they are missing (the
 * daemon is stopped), and those files, created by root, would keep a
 * DynamicUser daemon from opening its own database (docs/STATE.md).  So
 * this file reads in one of two ways, chosen by whether the -wal file
 * exists:
 *
 * - It exists: a connection (the daemon, or one that crashed) uses the
 *   WAL, which may hold committed data the database file does not.  Read
 *   it normally, read-only, through a VFS that never creates or deletes a
 *   file: if the daemon closed and removed its WAL in the meantime, the
 *   open fails instead of creating one, and the read starts over.
 * - It does not: no connection is open and the database file holds every
 *   commit.  Read it as immutable (no locks, no -shm, no -wal), and check
 *   afterwards that the -wal is still absent and the file unchanged
 *   (inode, size, times); otherwise a daemon started meanwhile, and the
 *   read starts over.
 *
 * Callers read everything they need in the one read transaction, keep it
 * in memory and print only after hj_dbread returned: output piped into a
 * pager never holds a read transaction open, which would keep the
 * daemon's checkpoints from cutting its WAL back.
 */
#include "dbread.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sysexits.h>
#include <unistd.h>

#include "hex.h"
#include "quote.h"
#include "taproot.h"

#define DB_NAME "hashjackd.sqlite"
/* The daemon's default (daemon/config.c), when $STATE_DIRECTORY is unset. */
#define DEFAULT_STATE_DIR "/var/lib/hashjackd"
/* What the daemon writes: PRAGMA application_id "HJKD". */
#define HJ_APPLICATION_ID 0x484a4b44
/* A WAL reader waits only while another connection recovers the WAL
 * index after a crash; the daemon's own writes never make it wait. */
#define BUSY_TIMEOUT_MS 5000
/* Reads started over because the daemon started or stopped meanwhile. */
#define ATTEMPTS 3
/* Room for a quoted value in a message (hj_quote cuts longer ones). */
#define SHOWLEN 100

/* ---- messages --------------------------------------------------------- */

/* "hashjack: CMD: MESSAGE" on stderr, after what is on stdout; no
 * newline. */
__attribute__((format(printf, 2, 0))) static void
tell(const char *cmd, const char *fmt, va_list ap)
{
	fflush(stdout);
	fprintf(stderr, "hashjack: %s: ", cmd);
	vfprintf(stderr, fmt, ap);
}

int hj_dbread_fail(const char *cmd, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tell(cmd, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return code;
}

int hj_dbread_usage(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tell(cmd, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'hashjack %s --help'.\n", cmd);
	return EX_USAGE;
}

void hj_dbread_say(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* ---- command line ----------------------------------------------------- */

int hj_dbread_options(int argc, char **argv, const char *const *names,
                      const unsigned char *flag, size_t n, const char **v,
                      char *err, size_t errlen)
{
	char shown[SHOWLEN];

	for (size_t o = 0; o < n; o++)
		v[o] = NULL;
	for (int i = 0; i < argc; i++) {
		const char *arg = argv[i], *eq;
		size_t len, o;

		if (strcmp(arg, "--") == 0) {
			if (i + 1 < argc) {
				hj_quote(argv[i + 1], shown, sizeof shown);
				hj_dbread_say(err, errlen,
				              "unexpected argument %s", shown);
				return -1;
			}
			break;
		}
		if (arg[0] != '-' || arg[1] == '\0') {
			hj_quote(arg, shown, sizeof shown);
			hj_dbread_say(err, errlen, "unexpected argument %s",
			              shown);
			return -1;
		}
		eq = strchr(arg, '=');
		len = eq ? (size_t)(eq - arg) : strlen(arg);
		for (o = 0; o < n; o++)
			if (strlen(names[o]) == len &&
			    strncmp(arg, names[o], len) == 0)
				break;
		if (o == n) {
			hj_quote(arg, shown, sizeof shown);
			hj_dbread_say(err, errlen, "unknown option %s", shown);
			return -1;
		}
		if (v[o] != NULL) {
			hj_dbread_say(err, errlen, "%s given twice", names[o]);
			return -1;
		}
		if (flag[o]) {
			if (eq != NULL) {
				hj_dbread_say(err, errlen, "%s takes no value",
				              names[o]);
				return -1;
			}
			v[o] = arg;
		} else if (eq != NULL) {
			v[o] = eq + 1;
		} else if (i + 1 < argc) {
			v[o] = argv[++i];
		} else {
			hj_dbread_say(err, errlen, "%s needs a value",
			              names[o]);
			return -1;
		}
	}
	return 0;
}

/* DIR/hashjackd.sqlite; caller frees. */
static char *db_in(const char *dir)
{
	size_t n = strlen(dir);
	char *p;

	while (n > 1 && dir[n - 1] == '/')
		n--;
	p = malloc(n + 1 + sizeof DB_NAME);
	if (p != NULL)
		snprintf(p, n + 1 + sizeof DB_NAME, "%.*s/%s", (int)n, dir,
		         DB_NAME);
	return p;
}

char *hj_dbread_path(const char *file, const char *dir)
{
	const char *env;
	char *d, *p;
	size_t n;

	if (file != NULL)
		return strdup(file);
	if (dir != NULL)
		return db_in(dir);
	/* The daemon's rule (daemon/config.c): systemd's $STATE_DIRECTORY is
	 * a colon-separated list of absolute paths, the first one is ours. */
	env = getenv("STATE_DIRECTORY");
	n = env ? strcspn(env, ":") : 0;
	d = env && env[0] == '/' && n > 0 ? strndup(env, n)
	                                  : strdup(DEFAULT_STATE_DIR);
	p = d ? db_in(d) : NULL;
	free(d);
	return p;
}

/* ---- SQLite ----------------------------------------------------------- */

int hj_dbread_sql_fail(sqlite3 *db, const char *path, const char *what,
                       char *err, size_t errlen)
{
	int rc = sqlite3_extended_errcode(db) & 0xff;

	hj_dbread_say(err, errlen, "%s: %s: %s", path, what,
	              sqlite3_errmsg(db));
	switch (rc) {
	case SQLITE_NOTADB:
		hj_dbread_say(err, errlen, "%s: not an SQLite database (%s)",
		              path, sqlite3_errmsg(db));
		return EX_DATAERR;
	case SQLITE_CORRUPT:
	case SQLITE_ERROR: /* a schema this hashjack does not read */
	case SQLITE_MISMATCH:
		return EX_DATAERR;
	case SQLITE_CANTOPEN:
		/* The file itself opened (check_file): its WAL did not. */
		hj_dbread_say(
		    err, errlen,
		    "%s: %s: %s (its -wal or -shm file may be unreadable: run "
		    "as root or as the daemon's user)",
		    path, what, sqlite3_errmsg(db));
		return EX_NOINPUT;
	case SQLITE_PERM:
	case SQLITE_AUTH:
		return EX_NOINPUT;
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return EX_TEMPFAIL;
	case SQLITE_NOMEM:
		return EX_SOFTWARE;
	default:
		return EX_IOERR;
	}
}

int hj_dbread_int(sqlite3 *db, const char *path, const char *sql, int64_t *v,
                  char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	int ret = 0;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return hj_dbread_sql_fail(db, path, "read the schema", err,
		                          errlen);
	if (sqlite3_step(st) == SQLITE_ROW)
		*v = sqlite3_column_int64(st, 0);
	else
		ret = hj_dbread_sql_fail(db, path, "read the schema", err,
		                         errlen);
	sqlite3_finalize(st);
	return ret;
}

/* Whether this is the daemon's database, in the words of docs/STATE.md;
 * *version is its schema version. */
static int check_identity(sqlite3 *db, const char *path, int *version,
                          char *err, size_t errlen)
{
	int64_t has_meta = 0, has_payouts = 0, app = 0, ver = 0;
	int rc;

	rc = hj_dbread_int(db, path,
	                   "SELECT count(*) FROM sqlite_schema WHERE type = "
	                   "'table' AND name = 'meta'",
	                   &has_meta, err, errlen);
	if (rc == 0)
		rc = hj_dbread_int(db, path,
		                   "SELECT count(*) FROM sqlite_schema WHERE "
		                   "type = 'table' AND name = 'payouts'",
		                   &has_payouts, err, errlen);
	if (rc == 0)
		rc = hj_dbread_int(db, path, "PRAGMA application_id", &app, err,
		                   errlen);
	if (rc == 0)
		rc = hj_dbread_int(db, path, "PRAGMA user_version", &ver, err,
		                   errlen);
	if (rc)
		return rc;
	if (!has_meta || !has_payouts) {
		hj_dbread_say(err, errlen,
		              "%s: not a hashjackd database: no table%s %s%s%s",
		              path, !has_meta && !has_payouts ? "s" : "",
		              has_meta ? "" : "\"meta\"",
		              !has_meta && !has_payouts ? " and " : "",
		              has_payouts ? "" : "\"payouts\"");
		return EX_DATAERR;
	}
	if (app != HJ_APPLICATION_ID) {
		hj_dbread_say(
		    err, errlen,
		    "%s: not a hashjackd database: application_id 0x%08llx, "
		    "expected 0x%08x",
		    path, (unsigned long long)(uint32_t)app, HJ_APPLICATION_ID);
		return EX_DATAERR;
	}
	if (ver > HJ_DBREAD_SCHEMA_MAX) {
		hj_dbread_say(
		    err, errlen,
		    "%s: schema version %lld was written by a newer hashjackd; "
		    "this hashjack reads version %d",
		    path, (long long)ver, HJ_DBREAD_SCHEMA_MAX);
		return EX_DATAERR;
	}
	if (ver < 1) {
		hj_dbread_say(err, errlen,
		              "%s: hashjackd database without a schema version "
		              "(user_version %lld)",
		              path, (long long)ver);
		return EX_DATAERR;
	}
	*version = (int)ver;
	return 0;
}

/* ---- opening without a trace ------------------------------------------ */

/*
 * A VFS that is the default one except that it never creates a WAL or a
 * journal file and never deletes any file.  The connection is read-only,
 * so the database file itself is never written or created either.
 */
static sqlite3_vfs ro_vfs;
static sqlite3_vfs *ro_base;

static int ro_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *file,
                   int flags, int *out)
{
	(void)vfs;
	if (flags & (SQLITE_OPEN_WAL | SQLITE_OPEN_MAIN_JOURNAL |
	             SQLITE_OPEN_SUPER_JOURNAL))
		flags &= ~SQLITE_OPEN_CREATE;
	return ro_base->xOpen(ro_base, name, file, flags, out);
}

static int ro_delete(sqlite3_vfs *vfs, const char *name, int sync_dir)
{
	(void)vfs;
	(void)name;
	(void)sync_dir;
	return SQLITE_IOERR_DELETE;
}

static const char *ro_vfs_name(void)
{
	if (ro_base == NULL) {
		sqlite3_vfs *base = sqlite3_vfs_find(NULL);

		if (base == NULL)
			return NULL;
		ro_vfs = *base;
		ro_vfs.pNext = NULL;
		ro_vfs.zName = "hashjack-readonly";
		ro_vfs.xOpen = ro_open;
		ro_vfs.xDelete = ro_delete;
		if (sqlite3_vfs_register(&ro_vfs, 0) != SQLITE_OK)
			return NULL;
		ro_base = base;
	}
	return ro_vfs.zName;
}

/* "file:" URI of path, every byte but [A-Za-z0-9/._~-] percent-encoded
 * (a path may hold '?', '#' or '%').  Caller frees. */
static char *uri_of(const char *path, int immutable)
{
	static const char hexd[] = "0123456789ABCDEF";
	const char *tail = immutable ? "?mode=ro&immutable=1" : "?mode=ro";
	size_t n = strlen(path), w = 0;
	char *u = malloc(3 * n + 8 + strlen(tail) + 1);

	if (u == NULL)
		return NULL;
	/* "file://" and an empty authority keep a path beginning "//"
	 * from being read as one. */
	w += (size_t)snprintf(u, 8, "%s", path[0] == '/' ? "file://" : "file:");
	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || strchr("/._~-", *p)) {
			u[w++] = (char)*p;
		} else {
			u[w++] = '%';
			u[w++] = hexd[*p >> 4];
			u[w++] = hexd[*p & 15];
		}
	}
	memcpy(u + w, tail, strlen(tail) + 1);
	return u;
}

/* One read, in one read transaction. */
static int read_once(const char *path, int immutable, hj_dbread_fn fn,
                     void *arg, char *err, size_t errlen)
{
	const char *vfs = ro_vfs_name();
	char *uri = uri_of(path, immutable);
	sqlite3 *db = NULL;
	int rc, ret, version = 0;

	if (vfs == NULL || uri == NULL) {
		free(uri);
		hj_dbread_say(err, errlen,
		              "cannot set up SQLite's read-only access");
		return EX_SOFTWARE;
	}
	rc = sqlite3_open_v2(
	    uri, &db,
	    SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, vfs);
	free(uri);
	if (rc != SQLITE_OK) {
		if (db == NULL) {
			hj_dbread_say(err, errlen, "%s: cannot open: %s", path,
			              sqlite3_errstr(rc));
			return EX_SOFTWARE;
		}
		ret = hj_dbread_sql_fail(db, path, "cannot open", err, errlen);
		goto out;
	}
	sqlite3_extended_result_codes(db, 1);
	sqlite3_busy_timeout(db, BUSY_TIMEOUT_MS);
	/* The last connection to close would checkpoint the WAL into the
	 * database file: never this one. */
	sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, NULL);

	/* One snapshot for the identity and everything fn reads. */
	if (sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK) {
		ret = hj_dbread_sql_fail(db, path, "begin", err, errlen);
		goto out;
	}
	ret = check_identity(db, path, &version, err, errlen);
	if (ret == 0)
		ret = fn(db, path, version, arg, err, errlen);
	/* Only reads happened: the end of the transaction cannot lose
	 * anything, and the connection closes anyway. */
	sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
out:
	sqlite3_close(db);
	return ret;
}

/* The database file, opened and checked the way open(2) sees it, so that
 * a missing file is never created and its error is the system's. */
static int check_file(const char *path, struct stat *st, char *err,
                      size_t errlen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);

	if (fd < 0) {
		hj_dbread_say(err, errlen, "cannot open database %s: %s", path,
		              strerror(errno));
		return EX_NOINPUT;
	}
	if (fstat(fd, st) != 0) {
		hj_dbread_say(err, errlen, "cannot stat database %s: %s", path,
		              strerror(errno));
		close(fd);
		return EX_IOERR;
	}
	close(fd);
	if (!S_ISREG(st->st_mode)) {
		hj_dbread_say(err, errlen, "cannot open database %s: %s", path,
		              S_ISDIR(st->st_mode) ? strerror(EISDIR)
		                                   : "not a regular file");
		return EX_NOINPUT;
	}
	/* The daemon's first open, before it wrote anything.  (SQLite would
	 * also delete a WAL beside an empty database file.) */
	if (st->st_size == 0) {
		hj_dbread_say(
		    err, errlen,
		    "%s: an empty file: not a hashjackd database (yet)", path);
		return EX_DATAERR;
	}
	return 0;
}

/* 1 when path exists, 0 when it does not, -1 with err otherwise. */
static int exists(const char *path, char *err, size_t errlen)
{
	struct stat st;

	if (lstat(path, &st) == 0)
		return 1;
	if (errno == ENOENT)
		return 0;
	hj_dbread_say(err, errlen, "cannot stat %s: %s", path, strerror(errno));
	return -1;
}

static int same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino &&
	       a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
	       a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
	       a->st_ctim.tv_sec == b->st_ctim.tv_sec &&
	       a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

int hj_dbread(const char *path, hj_dbread_fn fn, void (*reset)(void *arg),
              void *arg, char *err, size_t errlen)
{
	size_t n = strlen(path);
	char *wal = malloc(n + 5);
	struct stat before, after;
	int rc = 0, had_wal, has_wal;

	if (wal == NULL) {
		hj_dbread_say(err, errlen, "out of memory");
		return EX_SOFTWARE;
	}
	memcpy(wal, path, n);
	memcpy(wal + n, "-wal", 5);
	for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
		if (reset != NULL)
			reset(arg);
		rc = check_file(path, &before, err, errlen);
		if (rc)
			goto out;
		had_wal = exists(wal, err, errlen);
		if (had_wal < 0) {
			rc = EX_IOERR;
			goto out;
		}
		rc = read_once(path, !had_wal, fn, arg, err, errlen);
		has_wal = exists(wal, err, errlen);
		if (has_wal < 0) {
			rc = EX_IOERR;
			goto out;
		}
		if (had_wal) {
			/* The daemon removed its WAL as this read began. */
			if (rc == EX_NOINPUT && !has_wal)
				continue;
			goto out;
		}
		if (!has_wal && stat(path, &after) == 0 &&
		    same_file(&before, &after))
			goto out;
	}
	hj_dbread_say(
	    err, errlen,
	    "%s: the database changed while it was read (%d times): the "
	    "daemon is starting or stopping; try again",
	    path, ATTEMPTS);
	rc = EX_TEMPFAIL;
out:
	free(wal);
	return rc;
}

/* ---- what meta says --------------------------------------------------- */

static int all_hex(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (hj_hex_digit((unsigned char)s[i]) < 0)
			return 0;
	return 1;
}

/* As chain/evm_backend.c and chain/btc_backend.c write them. */
int hj_dbread_chain(const char *path, const char *family, const char *id,
                    hj_dbchain *c, char *err, size_t errlen)
{
	char fam[SHOWLEN], shown[SHOWLEN], coin[32], net[32], why[200];
	const char *p, *q;
	size_t n;

	memset(c, 0, sizeof *c);
	hj_quote(family, fam, sizeof fam);
	hj_quote(id, shown, sizeof shown);
	snprintf(c->id, sizeof c->id, "%s", id);
	if (strcmp(family, "evm") == 0) {
		n = strlen(id);
		if (n < 5 || n > 24 || strncmp(id, "evm:", 4) != 0 ||
		    strspn(id + 4, "0123456789") != n - 4)
			goto bad;
		c->evm = 1;
		c->unit = "ETH";
		c->base = "wei";
		c->decimals = 18;
		return 0;
	}
	if (strcmp(family, "bitcoin") != 0) {
		hj_dbread_say(
		    err, errlen,
		    "%s: meta: family %s is not a chain family this hashjack "
		    "knows (evm, bitcoin)",
		    path, fam);
		return EX_DATAERR;
	}
	if (strncmp(id, "bitcoin:", 8) != 0)
		goto bad;
	p = id + 8;
	q = strchr(p, ':');
	if (q == NULL || (size_t)(q - p) >= sizeof coin)
		goto bad;
	snprintf(coin, sizeof coin, "%.*s", (int)(q - p), p);
	p = q + 1;
	q = strchr(p, ':');
	if (q == NULL || (size_t)(q - p) >= sizeof net)
		goto bad;
	snprintf(net, sizeof net, "%.*s", (int)(q - p), p);
	if (strlen(q + 1) != 64 || !all_hex(q + 1, 64))
		goto bad;
	if (hj_taproot_hrp(coin, net, &c->hrp, why, sizeof why)) {
		hj_dbread_say(err, errlen, "%s: meta: chain %s: %s", path,
		              shown, why);
		return EX_DATAERR;
	}
	if (strcmp(coin, "litecoin") == 0) {
		c->unit = "LTC";
		c->base = "litoshi";
	} else {
		c->unit = "BTC";
		c->base = "satoshi";
	}
	c->decimals = 8;
	return 0;
bad:
	hj_dbread_say(
	    err, errlen,
	    "%s: meta: chain %s is not a chain identity of family %s "
	    "(\"evm:<chain id>\" or \"bitcoin:<coin>:<network>:<genesis>\")",
	    path, shown, fam);
	return EX_DATAERR;
}

/* ---- output ----------------------------------------------------------- */

char *hj_dbread_coins(hj_amount v, unsigned decimals, char buf[HJ_COINS_STRLEN])
{
	char d[HJ_AMOUNT_STRLEN];
	size_t n = strlen(hj_amount_format(v, d)), f, w = 0;

	if (n <= decimals) {
		/* 0.000ddd: the leading zeros of the fraction, then d
		 * without its trailing zeros. */
		f = n;
		while (f > 0 && d[f - 1] == '0')
			f--;
		buf[w++] = '0';
		if (f > 0) {
			buf[w++] = '.';
			for (size_t i = n; i < decimals; i++)
				buf[w++] = '0';
			memcpy(buf + w, d, f);
			w += f;
		}
		buf[w] = '\0';
		return buf;
	}
	memcpy(buf, d, n - decimals);
	w = n - decimals;
	f = decimals;
	while (f > 0 && d[n - decimals + f - 1] == '0')
		f--;
	if (f > 0) {
		buf[w++] = '.';
		memcpy(buf + w, d + n - decimals, f);
		w += f;
	}
	buf[w] = '\0';
	return buf;
}

void hj_buf_put(struct hj_buf *b, const char *s, size_t n)
{
	if (b->nomem)
		return;
	if (b->n + n + 1 > b->cap) {
		size_t cap = (b->n + n + 1) * 2;
		char *p = realloc(b->p, cap);

		if (p == NULL) {
			b->nomem = 1;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->n, s, n);
	b->n += n;
	b->p[b->n] = '\0';
}

void hj_buf_str(struct hj_buf *b, const char *s)
{
	hj_buf_put(b, s, strlen(s));
}

void hj_buf_printable(struct hj_buf *b, const char *s)
{
	static const char hexd[] = "0123456789abcdef";

	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		char esc[4] = {'\\', 'x', hexd[*p >> 4], hexd[*p & 15]};

		if (*p == '\\')
			hj_buf_put(b, "\\\\", 2);
		else if (*p >= 0x20 && *p < 0x7f)
			hj_buf_put(b, (const char *)p, 1);
		else
			hj_buf_put(b, esc, 4);
	}
}

json_t *hj_dbread_json_text(const char *s)
{
	struct hj_buf b = {0};
	json_t *j = json_string(s);

	if (j != NULL)
		return j;
	hj_buf_printable(&b, s);
	j = b.nomem ? NULL : json_string(b.p);
	free(b.p);
	return j;
}
