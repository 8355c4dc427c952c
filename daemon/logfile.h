/*
 * The block-to-card log file.  Each line is appended with one write(2) on
 * an O_APPEND descriptor, so `tail -F` never sees half a line.  The file's
 * committed length is kept in the store's cursor with the file's identity
 * (device, inode): after a crash, lines past it (written, never committed)
 * are cut off and written again, so the log ends byte-identical to that
 * of a run that never stopped.
 *
 * fsync policy: with sync on (the default) the file is fsync'ed before the
 * store commits the batch whose lines it holds, so a committed cursor never
 * points past data that a power loss could take.  With sync off, a power
 * loss can leave the file shorter than the cursor; the daemon then refuses
 * to start and says so.
 */
#ifndef HJD_LOGFILE_H
#define HJD_LOGFILE_H

#include <stddef.h>
#include <stdint.h>

#include "say.h"
#include "store.h"

typedef struct hjd_logfile {
	char *path;
	int fd;
	uint64_t offset; /* committed length plus what was appended since */
	uint64_t dev, ino;
	int sync;
	/* What open had to repair, for the caller to log. */
	char note[HJ_ERRLEN];
} hjd_logfile;

/*
 * Opens path (created 0644 if missing) and brings it to the cursor's state:
 *   - cur NULL (no block processed yet): the file must be empty or absent;
 *   - the file is the cursor's (same dev and ino): lines past
 *     cur->log_offset are cut; a shorter file is an error (lines lost);
 *   - another file (rotated while the daemon was down, or just before a
 *     crash): it must be empty, and logging continues in it from offset 0.
 *     The cursor's file, when it is still in the same directory under
 *     another name, is cut back to cur->log_offset: lines past it were
 *     never committed and are written again in the new file.
 * What was repaired is described in lf->note (empty when nothing was).
 * Returns 0 or a negative errno with the reason in err.
 */
int hjd_logfile_open(hjd_logfile *lf, const char *path, const hj_cursor *cur,
                     int sync, char *err, size_t errlen);

/* Appends one line with a single write.  A short write is undone
 * (truncated back) and reported. */
int hjd_logfile_append(hjd_logfile *lf, const char *line, size_t len, char *err,
                       size_t errlen);

/* fsync when sync is on; 0 otherwise. */
int hjd_logfile_sync(hjd_logfile *lf, char *err, size_t errlen);

/* After logrotate moved the file: closes it and opens path anew (created
 * empty if missing); offset becomes the new file's length. */
int hjd_logfile_reopen(hjd_logfile *lf, char *err, size_t errlen);

/* Puts the file's identity and length into cur. */
void hjd_logfile_mark(const hjd_logfile *lf, hj_cursor *cur);

void hjd_logfile_close(hjd_logfile *lf);

#endif
