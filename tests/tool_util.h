/*
 * A small harness for the tests that run the real `hashjack` binary on
 * databases of their own (tests/test_ledger.c, tests/test_status.c): one
 * mkdtemp directory, the tool run with its exit status, standard output and
 * standard error captured, and databases written with the daemon's store
 * (daemon/core/store.h) or plain SQL.
 *
 * The binary is the `hashjack` next to the test in the build directory
 * (or $HJ_HASHJACK).  Failures are cmocka failures.
 */
#ifndef HJ_TEST_TOOL_UTIL_H
#define HJ_TEST_TOOL_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "store.h"

/* The test's directory, and the command its RUN runs ("ledger", ...). */
extern char tmpdir[64];
extern const char *tool_cmd;

/* Finds the binary and makes tmpdir, for `hashjack cmd`: 0, or -1 (said
 * on standard error when there is no binary). */
int tool_setup(const char *cmd);
/* Removes tmpdir and everything in it. */
int tool_teardown(void);

/* tmpdir/name; the last 16 results stay valid. */
const char *path_in(const char *name);
/* A hashjackd configuration tmpdir/name whose [state] directory is dir
 * (NULL: none), a dealer's minimal one otherwise; returns its path. */
const char *conf_in(const char *name, const char *dir);
/* db-wal and db-shm. */
void wal_shm(const char *db, char *wal, char *shm, size_t n);

/* ---- running the tool ---- */

struct res {
	int rc;
	char out[32768];
	char err[4096];
	int64_t t0, t1; /* the clock before and after the run */
	double secs;    /* how long it ran */
};

/*
 * Runs `hashjack ARGS...` with $STATE_DIRECTORY set to statedir
 * (unset when NULL), standard output to out (a file in tmpdir when NULL;
 * r->out is then empty).
 */
void runv(struct res *r, const char *statedir, const char *out,
          const char *const *args);

/* `hashjack <tool_cmd> ...` */
#define RUN(r, ...)                                                            \
	runv((r), NULL, NULL,                                                  \
	     (const char *const[]){tool_cmd, __VA_ARGS__, NULL})

/* Exit status, stdout and stderr, exactly. */
void expect(const struct res *r, int rc, const char *out, const char *err);
/* A usage error: exit 64, the message and the --help line. */
void expect_usage(const struct res *r, const char *msg);

/* ---- building databases with the daemon's store ---- */

/* len bytes tag. */
hj_id id_of(uint8_t tag, uint8_t len);
hj_id id_hex(const char *hex);

/* Transaction tag (txid: 32 bytes tag), a Bet of value; rejected ones
 * with HJ_R_WRONG_VALUE. */
void add_tx(hj_store *s, uint64_t height, uint8_t tag, const hj_id *sender,
            hj_amount value, const char *outcome, const hj_id *round);

hj_store *store_open(const char *path, const char *family, const char *chain,
                     const char *dealer, const char *rules);
void store_begin(hj_store *s);
void store_commit(hj_store *s);

/* SQL on a database that no store has open. */
void sql(const char *path, const char *text);

/* ---- the fixtures' chain values ---- */

#define HEX32(b)   b b b b b b b b b b b b b b b b b b b b b b b b b b b b b b b b
#define X          "1111111111111111111111111111111111111111"
#define Y          "f39fd6e51aad88f6f4ce6ab8827279cfffb92266"
#define EVM_DEALER "0x70997970c51812dc3a010c7d01b50e0d17dc79c8"
/* BIP-86's first receiving key (m/86'/0'/0'/0/0) and the key of
 * docs/BITCOIN-KEYS.md's example key file, with their addresses on
 * Litecoin regtest (tests/player.sh checks them with an independent
 * implementation). */
#define P86 "cc8a4bc64d897bddc5fbc2f670f7a8ba0b386779106cf1223c6fc5d7cd6fc115"
#define RLTC86                                                                 \
	"rltc1p5cyxnuxmeuwuvkwfem96lqzszd02n6xdcjrs20cac6yqjjwudpxqytm4cm"
#define PDOC "dff1d77f2a671c5f36183726db2341be58feae1da2deced843240f7b502ba659"
#define RLTCDOC                                                                \
	"rltc1p0t2rw5pjcw8t5n7xphk2wharpgaxhhe0kw8huctj3r3dxampzl9sdp4qm8"
#define LTC_CHAIN                                                              \
	"bitcoin:litecoin:regtest:"                                            \
	"530827f38f93b43ed12af0b3ad25a288dc02ed74d6d7857862df51fc56c416f9"
#define LTC_DEALER "rltc1qmk0xvyew4vfp6axd85z85s30szcka03uf2e9x7"

#endif
