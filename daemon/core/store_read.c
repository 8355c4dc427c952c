/*
 * The store's read-only side (store.h, "Reading without disturbing the
 * daemon"): how the `hashjack` tool opens the daemon's database, and the
 * typed reads it uses instead of SQL of its own.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "hex.h"
#include "quote.h"
#include "say.h"
#include "store_impl.h"

/* ---- reading without disturbing the daemon ----
 *
 * The daemon's database is in WAL mode, where a reader never blocks the
 * writer.  But a plain read-only SQLite connection still writes beside the
 * database: it creates the -wal and -shm files when they are missing (the
 * daemon is stopped), and those files, created by root, would keep a
 * DynamicUser daemon from opening its own database (docs/STATE.md).  So
 * hj_store_read reads in one of two ways, chosen by whether the -wal file
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
 * in memory and print only after hj_store_read returned: output piped into
 * a pager never holds a read transaction open, which would keep the
 * daemon's checkpoints from cutting its WAL back.
 *
 * The typed reads check every column they return against the schema; a
 * reader is how an operator finds a damaged row, so each message names
 * the row and the column.
 */

/* Reads started over because the daemon started or stopped meanwhile. */
#define READ_ATTEMPTS 3
/* Room for a quoted value in a message (hj_quote cuts longer ones). */
#define SHOWLEN 100

/*
 * A failed SQLite call of a reader, as hj_store_read's codes: the file is
 * not a database or has a schema this store does not read (-EINVAL), its
 * WAL could not be opened (-ENOENT), it was busy (-EAGAIN).
 */
static int read_fail(hj_store *s, const char *what, char *err, size_t errlen)
{
	int rc = sqlite3_extended_errcode(s->db) & 0xff;

	switch (rc) {
	case SQLITE_NOTADB:
		hj_say(err, errlen, "%s: not an SQLite database (%s)", s->path,
		       sqlite3_errmsg(s->db));
		return -EINVAL;
	case SQLITE_CANTOPEN:
		/* The file itself opened (check_file): its WAL did not. */
		hj_say(
		    err, errlen,
		    "%s: %s: %s (its -wal or -shm file may be unreadable: run "
		    "as root or as the daemon's user)",
		    s->path, what, sqlite3_errmsg(s->db));
		return -ENOENT;
	}
	hj_say(err, errlen, "%s: %s: %s", s->path, what, sqlite3_errmsg(s->db));
	switch (rc) {
	case SQLITE_CORRUPT:
	case SQLITE_ERROR: /* a schema this store does not read */
	case SQLITE_MISMATCH:
		return -EINVAL;
	case SQLITE_PERM:
	case SQLITE_AUTH:
		return -ENOENT;
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return -EAGAIN;
	case SQLITE_NOMEM:
		return -ENOMEM;
	default:
		return -EIO;
	}
}

static int nomem(char *err, size_t errlen)
{
	hj_say(err, errlen, "out of memory");
	return -ENOMEM;
}

/* "PATH: WHAT: column COL does not hold what the schema says". */
static int damaged(hj_store *s, const char *what, const char *col, char *err,
                   size_t errlen)
{
	hj_say(err, errlen,
	       "%s: %s: column %s does not hold what the schema says "
	       "(docs/STATE.md)",
	       s->path, what, col);
	return -EINVAL;
}

/* One integer: the first column of sql's first row. */
static int read_int(hj_store *s, const char *sql, int64_t *v, char *err,
                    size_t errlen)
{
	sqlite3_stmt *st = NULL;
	int ret = 0;

	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return read_fail(s, "read the schema", err, errlen);
	if (sqlite3_step(st) == SQLITE_ROW)
		*v = sqlite3_column_int64(st, 0);
	else
		ret = read_fail(s, "read the schema", err, errlen);
	sqlite3_finalize(st);
	return ret;
}

/* Whether this is the daemon's database, in the words of docs/STATE.md;
 * nothing is created or migrated. */
static int read_identity(hj_store *s, char *err, size_t errlen)
{
	int64_t has_meta = 0, has_payouts = 0, app = 0, ver = 0;
	int ret;

	ret = read_int(s,
	               "SELECT count(*) FROM sqlite_schema WHERE type = "
	               "'table' AND name = 'meta'",
	               &has_meta, err, errlen);
	if (ret == 0)
		ret =
		    read_int(s,
		             "SELECT count(*) FROM sqlite_schema WHERE type = "
		             "'table' AND name = 'payouts'",
		             &has_payouts, err, errlen);
	if (ret == 0)
		ret = read_int(s, "PRAGMA application_id", &app, err, errlen);
	if (ret == 0)
		ret = read_int(s, "PRAGMA user_version", &ver, err, errlen);
	if (ret)
		return ret;
	if (!has_meta || !has_payouts) {
		hj_say(err, errlen,
		       "%s: not a hashjackd database: no table%s %s%s%s",
		       s->path, !has_meta && !has_payouts ? "s" : "",
		       has_meta ? "" : "\"meta\"",
		       !has_meta && !has_payouts ? " and " : "",
		       has_payouts ? "" : "\"payouts\"");
		return -EINVAL;
	}
	ret = hj_store__check_version(s, app, ver, 1, err, errlen);
	if (ret == 0)
		s->version = (int)ver;
	return ret;
}

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
static int read_once(const char *path, int immutable, hj_store_read_fn fn,
                     void *arg, char *err, size_t errlen)
{
	const char *vfs = ro_vfs_name();
	char *uri = uri_of(path, immutable);
	hj_store *s = calloc(1, sizeof *s);
	int rc, ret;

	if (s != NULL)
		s->path = strdup(path);
	if (vfs == NULL || uri == NULL || s == NULL || s->path == NULL) {
		hj_say(err, errlen, "cannot set up SQLite's read-only access");
		ret = -ENOMEM;
		goto out;
	}
	rc = sqlite3_open_v2(
	    uri, &s->db,
	    SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, vfs);
	if (rc != SQLITE_OK) {
		if (s->db == NULL) {
			hj_say(err, errlen, "%s: cannot open: %s", path,
			       sqlite3_errstr(rc));
			ret = -ENOMEM;
		} else {
			ret = read_fail(s, "cannot open", err, errlen);
		}
		goto out;
	}
	sqlite3_extended_result_codes(s->db, 1);
	sqlite3_busy_timeout(s->db, HJ_BUSY_TIMEOUT_MS);
	/* The last connection to close would checkpoint the WAL into the
	 * database file: never this one. */
	sqlite3_db_config(s->db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, NULL);

	/* One snapshot for the identity and everything fn reads. */
	if (sqlite3_exec(s->db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK) {
		ret = read_fail(s, "begin", err, errlen);
		goto out;
	}
	ret = read_identity(s, err, errlen);
	if (ret == 0)
		ret = fn(s, arg, err, errlen);
	/* Only reads happened: the end of the transaction cannot lose
	 * anything, and the connection closes anyway. */
	sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL);
out:
	free(uri);
	hj_store_close(s);
	return ret;
}

/* The database file, opened and checked the way open(2) sees it, so that
 * a missing file is never created and its error is the system's. */
static int check_file(const char *path, struct stat *st, char *err,
                      size_t errlen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);

	if (fd < 0) {
		hj_say(err, errlen, "cannot open database %s: %s", path,
		       strerror(errno));
		return -ENOENT;
	}
	if (fstat(fd, st) != 0) {
		hj_say(err, errlen, "cannot stat database %s: %s", path,
		       strerror(errno));
		close(fd);
		return -EIO;
	}
	close(fd);
	if (!S_ISREG(st->st_mode)) {
		hj_say(err, errlen, "cannot open database %s: %s", path,
		       S_ISDIR(st->st_mode) ? strerror(EISDIR)
		                            : "not a regular file");
		return -ENOENT;
	}
	/* The daemon's first open, before it wrote anything.  (SQLite would
	 * also delete a WAL beside an empty database file.) */
	if (st->st_size == 0) {
		hj_say(err, errlen,
		       "%s: an empty file: not a hashjackd database (yet)",
		       path);
		return -EINVAL;
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
	hj_say(err, errlen, "cannot stat %s: %s", path, strerror(errno));
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

int hj_store_read(const char *path, hj_store_read_fn fn,
                  void (*reset)(void *arg), void *arg, char *err, size_t errlen)
{
	size_t n = strlen(path);
	char *wal = malloc(n + 5);
	struct stat before, after;
	int ret = 0, had_wal, has_wal;

	if (wal == NULL)
		return nomem(err, errlen);
	memcpy(wal, path, n);
	memcpy(wal + n, "-wal", 5);
	for (int attempt = 0; attempt < READ_ATTEMPTS; attempt++) {
		if (reset != NULL)
			reset(arg);
		ret = check_file(path, &before, err, errlen);
		if (ret)
			goto out;
		had_wal = exists(wal, err, errlen);
		if (had_wal < 0) {
			ret = -EIO;
			goto out;
		}
		ret = read_once(path, !had_wal, fn, arg, err, errlen);
		has_wal = exists(wal, err, errlen);
		if (has_wal < 0) {
			ret = -EIO;
			goto out;
		}
		if (had_wal) {
			/* The daemon removed its WAL as this read began. */
			if (ret == -ENOENT && !has_wal)
				continue;
			goto out;
		}
		if (!has_wal && stat(path, &after) == 0 &&
		    same_file(&before, &after))
			goto out;
	}
	hj_say(err, errlen,
	       "%s: the database changed while it was read (%d times): the "
	       "daemon is starting or stopping; try again",
	       path, READ_ATTEMPTS);
	ret = -EAGAIN;
out:
	free(wal);
	return ret;
}

int hj_store_version(const hj_store *s)
{
	return s->version;
}

/* ---- typed reads: the columns as the schema says they are ---- */

static int is_int(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_INTEGER;
}

/* A TEXT column, borrowed until the next step: 0, -1 when it is not TEXT
 * (or NULL where nullable allows it: *out NULL), -ENOMEM. */
static int text_col(sqlite3_stmt *st, int i, int nullable, const char **out)
{
	*out = NULL;
	if (nullable && sqlite3_column_type(st, i) == SQLITE_NULL)
		return 0;
	if (sqlite3_column_type(st, i) != SQLITE_TEXT)
		return -1;
	*out = (const char *)sqlite3_column_text(st, i);
	return *out ? 0 : -ENOMEM;
}

/* A canonical amount in a TEXT column; 0 or -1. */
static int amount_col(sqlite3_stmt *st, int i, hj_amount *v)
{
	const char *t;

	if (sqlite3_column_type(st, i) != SQLITE_TEXT)
		return -1;
	t = (const char *)sqlite3_column_text(st, i);
	if (t == NULL ||
	    hj_amount_parse(t, (size_t)sqlite3_column_bytes(st, i), v))
		return -1;
	return 0;
}

/* A 32-byte BLOB column; 0 or -1. */
static int hash_col(sqlite3_stmt *st, int i, uint8_t b[32])
{
	if (sqlite3_column_type(st, i) != SQLITE_BLOB ||
	    sqlite3_column_bytes(st, i) != 32)
		return -1;
	memcpy(b, sqlite3_column_blob(st, i), 32);
	return 0;
}

/* An id column that may be NULL (id->len 0); 0 or -1. */
static int maybe_id(sqlite3_stmt *st, int i, hj_id *id)
{
	memset(id, 0, sizeof *id);
	if (sqlite3_column_type(st, i) == SQLITE_NULL)
		return 0;
	return hj_store__column_id(st, i, id);
}

/* An INTEGER column that may be NULL; 0 or -1. */
static int maybe_int(sqlite3_stmt *st, int i, hj_maybe_i64 *v)
{
	v->set = sqlite3_column_type(st, i) != SQLITE_NULL;
	v->v = sqlite3_column_int64(st, i);
	return v->set && !is_int(st, i) ? -1 : 0;
}

int hj_store_get_meta(hj_store *s, hj_meta_row *m, int *found, char *err,
                      size_t errlen)
{
	static const char *const col[] = {"family", "chain", "dealer", "rules"};
	char **dst[4] = {&m->family, &m->chain, &m->dealer, &m->rules};
	sqlite3_stmt *st = NULL;
	int rc, ret = 0;

	memset(m, 0, sizeof *m);
	*found = 0;
	if (sqlite3_prepare_v2(s->db,
	                       "SELECT family, chain, dealer, rules FROM meta "
	                       "WHERE id = 1",
	                       -1, &st, NULL) != SQLITE_OK)
		return read_fail(s, "read meta", err, errlen);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		for (int i = 0; i < 4 && ret == 0; i++) {
			const char *t;
			int r = text_col(st, i, 0, &t);

			if (r == -1)
				ret = damaged(s, "meta", col[i], err, errlen);
			else if (r || (*dst[i] = strdup(t)) == NULL)
				ret = nomem(err, errlen);
		}
		*found = ret == 0;
	} else if (rc != SQLITE_DONE) {
		ret = read_fail(s, "read meta", err, errlen);
	}
	sqlite3_finalize(st);
	if (ret)
		hj_meta_row_clear(m);
	return ret;
}

void hj_meta_row_clear(hj_meta_row *m)
{
	free(m->family);
	free(m->chain);
	free(m->dealer);
	free(m->rules);
	memset(m, 0, sizeof *m);
}

int hj_store_count_payouts(hj_store *s, uint64_t *n, char *err, size_t errlen)
{
	int64_t v = 0;
	int ret = read_int(s, "SELECT count(*) FROM payouts", &v, err, errlen);

	if (ret == 0)
		*n = (uint64_t)v;
	return ret;
}

int hj_store_read_cursor(hj_store *s, hj_cursor *c, int *found, char *err,
                         size_t errlen)
{
	sqlite3_stmt *st = NULL;
	int rc, ret = 0;

	*found = 0;
	memset(c, 0, sizeof *c);
	if (sqlite3_prepare_v2(s->db,
	                       "SELECT height, hash, log_offset, log_dev, "
	                       "log_ino FROM cursor WHERE id = 1",
	                       -1, &st, NULL) != SQLITE_OK)
		return read_fail(s, "read cursor", err, errlen);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		if (!is_int(st, 0))
			ret = damaged(s, "cursor", "height", err, errlen);
		else if (hash_col(st, 1, c->hash))
			ret = damaged(s, "cursor", "hash", err, errlen);
		else if (!is_int(st, 2) || sqlite3_column_int64(st, 2) < 0)
			ret = damaged(s, "cursor", "log_offset", err, errlen);
		else if (!is_int(st, 3) || !is_int(st, 4))
			ret = damaged(s, "cursor", "log_dev", err, errlen);
		/* The bits of a uint64: -1 is the mark before block 0; dev
		 * and ino are stored the same way. */
		c->height = (uint64_t)sqlite3_column_int64(st, 0);
		c->log_offset = (uint64_t)sqlite3_column_int64(st, 2);
		c->log_dev = (uint64_t)sqlite3_column_int64(st, 3);
		c->log_ino = (uint64_t)sqlite3_column_int64(st, 4);
		*found = ret == 0;
	} else if (rc != SQLITE_DONE) {
		ret = read_fail(s, "read cursor", err, errlen);
	}
	sqlite3_finalize(st);
	return ret;
}

int hj_store_each_round(hj_store *s, int (*fn)(void *arg, const hj_round *r),
                        void *arg, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	char why[HJ_ERRLEN], hex[65];
	size_t n = 0;
	int rc, ret = 0;

	if (sqlite3_prepare_v2(s->db,
	                       "SELECT id, data FROM rounds ORDER BY "
	                       "bet_height, bet_tx_index",
	                       -1, &st, NULL) != SQLITE_OK)
		return read_fail(s, "read rounds", err, errlen);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int len = sqlite3_column_bytes(st, 1);
		hj_round r;
		hj_id id;

		n++;
		if (hj_store__column_id(st, 0, &id)) {
			hj_say(err, errlen,
			       "%s: open round %zu: no valid round id", s->path,
			       n);
			ret = -EINVAL;
			break;
		}
		hj_store__id_hex(&id, hex);
		if (sqlite3_column_type(st, 1) != SQLITE_BLOB ||
		    len > HJ_ROUND_ENCODED_MAX) {
			hj_say(err, errlen,
			       "%s: round %s: data is not a round encoding (%d "
			       "bytes)",
			       s->path, hex, len);
			ret = -EINVAL;
			break;
		}
		if (hj_round_decode(sqlite3_column_blob(st, 1), (size_t)len, &r,
		                    why, sizeof why)) {
			hj_say(err, errlen, "%s: round %s: %s", s->path, hex,
			       why);
			ret = -EINVAL;
			break;
		}
		if (!hj_id_eq(&id, &r.id)) {
			hj_say(err, errlen,
			       "%s: round %s: the encoded round has another id",
			       s->path, hex);
			ret = -EINVAL;
			break;
		}
		ret = fn(arg, &r);
		if (ret)
			break;
	}
	if (ret == 0 && rc != SQLITE_DONE)
		ret = read_fail(s, "read rounds", err, errlen);
	sqlite3_finalize(st);
	return ret;
}

int hj_store_each_commit(hj_store *s, int (*fn)(void *arg, const hj_commit *c),
                         void *arg, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	size_t n = 0;
	int rc, ret = 0;

	if (s->version < 4) /* the commits table came with schema 4 */
		return 0;
	if (sqlite3_prepare_v2(s->db,
	                       "SELECT height, tx_index, txid, start, length, "
	                       "commitment FROM commits ORDER BY height, "
	                       "tx_index",
	                       -1, &st, NULL) != SQLITE_OK)
		return read_fail(s, "read commits", err, errlen);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		hj_commit c;

		n++;
		if (hj_store__column_commit(st, &c)) {
			hj_say(err, errlen, "%s: commit %zu: not a Commit",
			       s->path, n);
			ret = -EINVAL;
			break;
		}
		ret = fn(arg, &c);
		if (ret)
			break;
	}
	if (ret == 0 && rc != SQLITE_DONE)
		ret = read_fail(s, "read commits", err, errlen);
	sqlite3_finalize(st);
	return ret;
}

/* The payout at st as a row; -EINVAL naming the column that does not
 * hold what the schema says. */
static int payout_row(hj_store *s, sqlite3_stmt *st, hj_payout_row *p,
                      char *err, size_t errlen)
{
	/* The columns of each_payout's query, in order. */
	static const char *const col[] = {"id",
	                                  "kind",
	                                  "state",
	                                  "recipient",
	                                  "amount",
	                                  "round",
	                                  "hand",
	                                  "txid",
	                                  "created_height",
	                                  "submitted_txid",
	                                  "nonce",
	                                  "submitted_height",
	                                  "submitted_at",
	                                  "confirmed_height",
	                                  "last_error",
	                                  "orphaned"};
	char shown[SHOWLEN], what[SHOWLEN + 16];
	hj_maybe_i64 created;
	int bad = -1, r;

	memset(p, 0, sizeof *p);
	r = text_col(st, 0, 0, &p->id);
	if (r == -ENOMEM)
		return nomem(err, errlen);
	if (r) {
		hj_say(err, errlen, "%s: a payout whose id is not text",
		       s->path);
		return -EINVAL;
	}
	if ((r = text_col(st, 1, 0, &p->kind)) != 0)
		bad = 1;
	else if ((r = text_col(st, 2, 0, &p->state)) != 0)
		bad = 2;
	else if (amount_col(st, 4, &p->amount))
		bad = 4;
	else if (maybe_id(st, 5, &p->round))
		bad = 5;
	else if (maybe_int(st, 6, &p->hand))
		bad = 6;
	else if (maybe_id(st, 7, &p->txid))
		bad = 7;
	else if (maybe_int(st, 8, &created) || !created.set)
		bad = 8;
	else if (maybe_id(st, 9, &p->submitted_txid))
		bad = 9;
	else if (maybe_int(st, 10, &p->nonce))
		bad = 10;
	else if (maybe_int(st, 11, &p->submitted_height))
		bad = 11;
	else if (maybe_int(st, 12, &p->submitted_at))
		bad = 12;
	else if (maybe_int(st, 13, &p->confirmed_height))
		bad = 13;
	else if ((r = text_col(st, 14, 1, &p->last_error)) != 0)
		bad = 14;
	else if (maybe_int(st, 15, &p->orphaned))
		bad = 15;
	if (r == -ENOMEM)
		return nomem(err, errlen);
	if (bad >= 0) {
		hj_quote(p->id, shown, sizeof shown);
		snprintf(what, sizeof what, "payout %s", shown);
		return damaged(s, what, col[bad], err, errlen);
	}
	p->created_height = created.v;
	/* What the recipient must be depends on the chain: the caller
	 * checks its length. */
	p->has_recipient = sqlite3_column_type(st, 3) != SQLITE_NULL;
	if (p->has_recipient)
		(void)hj_store__column_id(st, 3, &p->recipient);
	return 0;
}

int hj_store_each_payout(hj_store *s, const hj_payout_filter *f,
                         int (*fn)(void *arg, const hj_payout_row *p),
                         void *arg, char *err, size_t errlen)
{
	/* ?1 state, ?2 kind, ?3 round, ?4 recipient, ?5 1 for unattributed
	 * only.  Oldest debt first; the id orders payouts of one block.
	 * orphaned came with schema 7. */
#define EACH_PAYOUT_SQL(orphaned)                                              \
	"SELECT id, kind, state, recipient, amount, round, hand, txid,"        \
	" created_height, submitted_txid, nonce, submitted_height,"            \
	" submitted_at, confirmed_height, last_error, " orphaned               \
	" FROM payouts"                                                        \
	" WHERE (?1 IS NULL OR state = ?1) AND (?2 IS NULL OR kind = ?2)"      \
	" AND (?3 IS NULL OR round = ?3) AND (?4 IS NULL OR recipient = ?4)"   \
	" AND (?5 = 0 OR recipient IS NULL)"                                   \
	" ORDER BY created_height, id"
	static const char sql_v7[] = EACH_PAYOUT_SQL("orphaned");
	static const char sql_v1[] = EACH_PAYOUT_SQL("NULL");
#undef EACH_PAYOUT_SQL
	const char *sql = s->version >= 7 ? sql_v7 : sql_v1;
	static const hj_payout_filter all = {0};
	sqlite3_stmt *st = NULL;
	hj_payout_row p;
	int rc, ret = 0;

	if (f == NULL)
		f = &all;
	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return read_fail(s, "read payouts", err, errlen);
	/* The values are borrowed from f, which outlives st. */
	if (hj_store__bind_text(st, 1, f->state) ||
	    hj_store__bind_text(st, 2, f->kind) ||
	    hj_store__bind_id(st, 3, f->round) ||
	    hj_store__bind_id(st, 4, f->recipient) ||
	    sqlite3_bind_int(st, 5, f->unattributed != 0)) {
		ret = read_fail(s, "read payouts", err, errlen);
		goto out;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		ret = payout_row(s, st, &p, err, errlen);
		if (ret == 0)
			ret = fn(arg, &p);
		if (ret)
			break;
	}
	if (ret == 0 && rc != SQLITE_DONE)
		ret = read_fail(s, "read payouts", err, errlen);
out:
	sqlite3_finalize(st);
	return ret;
}

/* Adds v to t; -1 when the sum would not fit 128 bits. */
static int tally_add(hj_tally *t, hj_amount v)
{
	if (v > HJ_AMOUNT_MAX - t->sum)
		return -1;
	t->sum += v;
	t->n++;
	return 0;
}

int hj_store_payout_totals(hj_store *s, hj_payout_totals *t, char *err,
                           size_t errlen)
{
	/* A payout in a planned batch (schema 2 on) is still owed; a
	 * rewind orphans payouts from schema 7 on. */
	static const char sql_v1[] =
	    "SELECT id, state, recipient IS NULL, 0, amount, 0 FROM payouts";
#define TOTALS_SQL(orphaned)                                                   \
	"SELECT p.id, p.state, p.recipient IS NULL, EXISTS (SELECT 1 "         \
	"FROM payout_batch_items i JOIN payout_batches b ON b.id = "           \
	"i.batch WHERE i.payout = p.id AND b.state = 'planned'), "             \
	"p.amount, " orphaned " FROM payouts p"
	static const char sql_v2[] = TOTALS_SQL("0");
	static const char sql_v7[] = TOTALS_SQL("p.orphaned IS NOT NULL");
#undef TOTALS_SQL
	const char *sql = s->version >= 7   ? sql_v7
	                  : s->version >= 2 ? sql_v2
	                                    : sql_v1;
	sqlite3_stmt *st = NULL;
	char shown[SHOWLEN], what[SHOWLEN + 16];
	int rc, ret = 0;

	memset(t, 0, sizeof *t);
	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return read_fail(s, "read payouts", err, errlen);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *id = (const char *)sqlite3_column_text(st, 0);
		const char *state = (const char *)sqlite3_column_text(st, 1);
		const char *bad = NULL;
		hj_amount v = 0;
		int over = 0;

		hj_quote(id ? id : "", shown, sizeof shown);
		if (sqlite3_column_type(st, 1) != SQLITE_TEXT || state == NULL)
			bad = "state";
		else if (amount_col(st, 4, &v))
			bad = "amount";
		if (bad != NULL) {
			snprintf(what, sizeof what, "payout %s", shown);
			ret = damaged(s, what, bad, err, errlen);
			break;
		}
		if (id != NULL && strncmp(id, "sweep:", 6) == 0)
			over = tally_add(strcmp(state, "confirmed") == 0
			                     ? &t->swept
			                     : &t->sweeping,
			                 v);
		if (sqlite3_column_int(st, 5))
			over |= tally_add(&t->orphaned, v);
		if (strcmp(state, "owed") == 0) {
			over |= tally_add(&t->owed, v);
			if (sqlite3_column_int(st, 2))
				over |= tally_add(&t->unattributed, v);
			if (sqlite3_column_int(st, 3))
				over |= tally_add(&t->planned, v);
		} else if (strcmp(state, "submitted") == 0) {
			over |= tally_add(&t->submitted, v);
		} else if (strcmp(state, "confirmed") == 0) {
			over |= tally_add(&t->confirmed, v);
		} else {
			char s2[SHOWLEN];

			hj_quote(state, s2, sizeof s2);
			hj_say(
			    err, errlen,
			    "%s: payout %s: state %s is not owed, submitted or "
			    "confirmed",
			    s->path, shown, s2);
			ret = -EINVAL;
			break;
		}
		if (over) {
			hj_say(err, errlen,
			       "%s: the payouts' sum exceeds 2^128 - 1 base "
			       "units: not a real ledger",
			       s->path);
			ret = -ERANGE;
			break;
		}
	}
	if (ret == 0 && rc != SQLITE_DONE)
		ret = read_fail(s, "read payouts", err, errlen);
	sqlite3_finalize(st);
	return ret;
}

int hj_store_get_balance(hj_store *s, hj_balance_row *b, int *found, char *err,
                         size_t errlen)
{
	sqlite3_stmt *st = NULL;
	const char *bad = NULL, *warning = NULL;
	int rc, ret = 0, r = 0;

	memset(b, 0, sizeof *b);
	*found = 0;
	if (s->version < 3)
		return 0;
	if (sqlite3_prepare_v2(s->db,
	                       "SELECT amount, height, at, warning FROM "
	                       "dealer_balance WHERE id = 1",
	                       -1, &st, NULL) != SQLITE_OK)
		return read_fail(s, "read the balance", err, errlen);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		if (amount_col(st, 0, &b->amount))
			bad = "amount";
		else if (!is_int(st, 1))
			bad = "height";
		else if (!is_int(st, 2))
			bad = "at";
		else if ((r = text_col(st, 3, 1, &warning)) == -1)
			bad = "warning";
		if (bad != NULL)
			ret = damaged(s, "dealer_balance", bad, err, errlen);
		else if (r || (warning && !(b->warning = strdup(warning))))
			ret = nomem(err, errlen);
		b->height = sqlite3_column_int64(st, 1);
		b->at = sqlite3_column_int64(st, 2);
		*found = ret == 0;
	} else if (rc != SQLITE_DONE) {
		ret = read_fail(s, "read the balance", err, errlen);
	}
	sqlite3_finalize(st);
	return ret;
}

int hj_store_each_open_batch(hj_store *s,
                             int (*fn)(void *arg, const hj_open_batch *b),
                             void *arg, char *err, size_t errlen)
{
	/* EVM transactions (schema 3): the one output's address, how many
	 * versions were signed and the latest one's hash. */
	static const char sql_v3[] =
	    "SELECT b.id, b.state, b.txid, b.outputs, b.total, b.created_at, "
	    "b.nonce, (SELECT o.address FROM payout_batch_outputs o WHERE "
	    "o.batch = b.id ORDER BY o.address LIMIT 1), (SELECT count(*) "
	    "FROM payout_tx_versions v WHERE v.batch = b.id), (SELECT v.hash "
	    "FROM payout_tx_versions v WHERE v.batch = b.id ORDER BY v.seq "
	    "DESC LIMIT 1) FROM payout_batches b WHERE b.state IN "
	    "('planned', 'sent') ORDER BY b.id";
	static const char sql_v2[] =
	    "SELECT b.id, b.state, b.txid, b.outputs, b.total, b.created_at, "
	    "NULL, NULL, 0, NULL FROM payout_batches b WHERE b.state IN "
	    "('planned', 'sent') ORDER BY b.id";
	sqlite3_stmt *st = NULL;
	int rc, ret = 0;

	if (s->version < 2)
		return 0;
	if (sqlite3_prepare_v2(s->db, s->version >= 3 ? sql_v3 : sql_v2, -1,
	                       &st, NULL) != SQLITE_OK)
		return read_fail(s, "read payout batches", err, errlen);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *state = (const char *)sqlite3_column_text(st, 1);
		const char *bad = NULL;
		hj_open_batch b;
		char what[48];
		int r = 0;

		memset(&b, 0, sizeof b);
		b.id = sqlite3_column_int64(st, 0);
		b.sent = state != NULL && strcmp(state, "sent") == 0;
		b.has_txid = sqlite3_column_type(st, 2) != SQLITE_NULL;
		b.has_hash = sqlite3_column_type(st, 9) != SQLITE_NULL;
		if (b.has_txid && hash_col(st, 2, b.txid))
			bad = "txid";
		else if (!is_int(st, 3))
			bad = "outputs";
		else if (amount_col(st, 4, &b.total))
			bad = "total";
		else if (!is_int(st, 5))
			bad = "created_at";
		else if (maybe_int(st, 6, &b.nonce))
			bad = "nonce";
		else if (b.has_hash && hash_col(st, 9, b.hash))
			bad = "hash of payout_tx_versions";
		else if ((r = text_col(st, 7, 1, &b.address)) == -1)
			bad = "address of payout_batch_outputs";
		if (r == -ENOMEM) {
			ret = nomem(err, errlen);
			break;
		}
		if (bad != NULL) {
			snprintf(what, sizeof what, "payout batch %lld",
			         (long long)b.id);
			ret = damaged(s, what, bad, err, errlen);
			break;
		}
		b.outputs = sqlite3_column_int64(st, 3);
		b.created_at = sqlite3_column_int64(st, 5);
		b.versions = sqlite3_column_int64(st, 8);
		ret = fn(arg, &b);
		if (ret)
			break;
	}
	if (ret == 0 && rc != SQLITE_DONE)
		ret = read_fail(s, "read payout batches", err, errlen);
	sqlite3_finalize(st);
	return ret;
}
