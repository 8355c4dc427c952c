#include "logfile.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int open_fd(hjd_logfile *lf, struct stat *st, char *err, size_t errlen)
{
	int fd =
	    open(lf->path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		int e = errno;
		hj_say(err, errlen, "card log %s: cannot open: %s", lf->path,
		       strerror(e));
		return -e;
	}
	if (fstat(fd, st) != 0) {
		int e = errno;
		close(fd);
		hj_say(err, errlen, "card log %s: %s", lf->path, strerror(e));
		return -e;
	}
	lf->fd = fd;
	lf->dev = (uint64_t)st->st_dev;
	lf->ino = (uint64_t)st->st_ino;
	return 0;
}

/*
 * After a rotation the file the cursor describes lives on under another
 * name, possibly with lines written after the last commit.  Finds it in
 * path's directory and cuts it back to the committed length.
 */
static void cut_rotated(hjd_logfile *lf, const hj_cursor *cur)
{
	char tmp[4096], dir[4096];
	struct dirent *de;
	DIR *d;
	int found = 0;

	snprintf(tmp, sizeof tmp, "%s", lf->path);
	snprintf(dir, sizeof dir, "%s", dirname(tmp));
	d = opendir(dir);
	while (d && (de = readdir(d)) != NULL) {
		struct stat st;
		char p[4400];

		snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
		if (lstat(p, &st) != 0 || !S_ISREG(st.st_mode) ||
		    (uint64_t)st.st_dev != cur->log_dev ||
		    (uint64_t)st.st_ino != cur->log_ino)
			continue;
		found = 1;
		if ((uint64_t)st.st_size <= cur->log_offset)
			break;
		if (truncate(p, (off_t)cur->log_offset) == 0)
			snprintf(lf->note, sizeof lf->note,
			         "previous card log %.300s cut from %" PRIu64
			         " to %" PRIu64
			         " bytes (lines written after the last commit)",
			         p, (uint64_t)st.st_size, cur->log_offset);
		else
			snprintf(lf->note, sizeof lf->note,
			         "previous card log %.300s holds %" PRIu64
			         " bytes past the last commit and could not be "
			         "cut (%s): remove them by hand",
			         p, (uint64_t)st.st_size - cur->log_offset,
			         strerror(errno));
		break;
	}
	if (d)
		closedir(d);
	if (!found)
		snprintf(
		    lf->note, sizeof lf->note,
		    "previous card log (inode %" PRIu64
		    ") is not beside %.300s: if it holds more than %" PRIu64
		    " bytes, the rest was never committed and is written "
		    "again in the new file",
		    cur->log_ino, lf->path, cur->log_offset);
}

int hjd_logfile_open(hjd_logfile *lf, const char *path, const hj_cursor *cur,
                     int sync, char *err, size_t errlen)
{
	struct stat st;
	int rc;

	memset(lf, 0, sizeof *lf);
	lf->fd = -1;
	lf->sync = sync;
	lf->path = strdup(path);
	if (!lf->path) {
		hj_say(err, errlen, "out of memory");
		return -ENOMEM;
	}
	rc = open_fd(lf, &st, err, errlen);
	if (rc)
		return rc;

	uint64_t size = (uint64_t)st.st_size;
	int same = cur && cur->log_dev == lf->dev && cur->log_ino == lf->ino;
	if (same) {
		if (size < cur->log_offset) {
			hj_say(err, errlen,
			       "card log %s: %" PRIu64
			       " bytes, but the state says %" PRIu64
			       " were written and committed: lines were "
			       "lost (restore the file, or move it away "
			       "and start a new state directory)",
			       path, size, cur->log_offset);
			return -EIO;
		}
		if (size > cur->log_offset &&
		    ftruncate(lf->fd, (off_t)cur->log_offset) != 0) {
			int e = errno;
			hj_say(err, errlen,
			       "card log %s: cannot cut to %" PRIu64
			       " bytes: %s",
			       path, cur->log_offset, strerror(e));
			return -e;
		}
		lf->offset = cur->log_offset;
		return 0;
	}
	if (size != 0) {
		hj_say(err, errlen,
		       "card log %s already holds %" PRIu64
		       " bytes that this state did not write (%s); move it "
		       "away or point [state] card_log elsewhere",
		       path, size,
		       cur ? "the file was replaced"
		           : "no block processed yet");
		return -EEXIST;
	}
	if (cur)
		cut_rotated(lf, cur);
	lf->offset = 0;
	return 0;
}

int hjd_logfile_append(hjd_logfile *lf, const char *line, size_t len, char *err,
                       size_t errlen)
{
	ssize_t n;

	do
		n = write(lf->fd, line, len);
	while (n < 0 && errno == EINTR);
	if (n == (ssize_t)len) {
		lf->offset += len;
		return 0;
	}
	int e = n < 0 ? errno : ENOSPC;
	/* Never leave half a line: cut back to the last whole one. */
	if (n > 0 && ftruncate(lf->fd, (off_t)lf->offset) != 0)
		hj_say(err, errlen,
		       "card log %s: short write, and cutting it back "
		       "failed: %s",
		       lf->path, strerror(errno));
	else
		hj_say(err, errlen, "card log %s: write failed: %s", lf->path,
		       strerror(e));
	return -e;
}

int hjd_logfile_sync(hjd_logfile *lf, char *err, size_t errlen)
{
	if (!lf->sync)
		return 0;
	if (fsync(lf->fd) != 0) {
		int e = errno;
		hj_say(err, errlen, "card log %s: fsync: %s", lf->path,
		       strerror(e));
		return -e;
	}
	return 0;
}

int hjd_logfile_reopen(hjd_logfile *lf, char *err, size_t errlen)
{
	struct stat st;
	int old = lf->fd;
	int rc = open_fd(lf, &st, err, errlen);

	if (rc)
		return rc; /* keep writing to the old file */
	if (old >= 0)
		close(old);
	lf->offset = (uint64_t)st.st_size;
	return 0;
}

void hjd_logfile_mark(const hjd_logfile *lf, hj_cursor *cur)
{
	cur->log_offset = lf->offset;
	cur->log_dev = lf->dev;
	cur->log_ino = lf->ino;
}

void hjd_logfile_close(hjd_logfile *lf)
{
	if (lf->fd >= 0)
		close(lf->fd);
	lf->fd = -1;
	free(lf->path);
	lf->path = NULL;
}
