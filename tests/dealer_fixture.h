/*
 * A dealer without a node, for what reads a dealer's state from outside
 * (hashjack serve's unit tests, its fuzz targets and its benchmark): a
 * state directory whose database and card log are written by the
 * dealer's own code (store, deal, cardlog, effects), one block per call,
 * each in one transaction after its line, as hashjackd does.
 */
#ifndef HJ_DEALER_FIXTURE_H
#define HJ_DEALER_FIXTURE_H

#include <stddef.h>
#include <stdint.h>

#include "action.h"
#include "payload.h"
#include "rules.h"
#include "seed.h"

typedef struct hj_fixture hj_fixture;

/*
 * Creates dir/hashjackd.sqlite and dir/cards.jsonl (dir must exist) for a
 * dealer of family fam under rules, whose next block is `first`.  The
 * EVM dealer is 0x00..0dea1e, chain "evm:31337"; the Bitcoin family's a
 * regtest litecoin address.  NULL with err on failure.
 */
hj_fixture *hj_fixture_new(const char *dir, hj_family fam,
                           const hj_rules *rules, uint64_t first, char *err,
                           size_t errlen);
void hj_fixture_free(hj_fixture *f);

const char *hj_fixture_db(const hj_fixture *f);
const char *hj_fixture_log(const hj_fixture *f);
/* The height the next block gets. */
uint64_t hj_fixture_next(const hj_fixture *f);

/*
 * Deals the next block: its hash is `hash` (32 bytes, display order), or
 * when NULL one made from the height that yields a card; txs are its
 * transactions to the dealer.  Appends the line, then commits the
 * rounds, the transactions, the payouts and the cursor.  0, or a
 * negative errno with err.
 */
int hj_fixture_block(hj_fixture *f, const uint8_t *hash, const hj_action *txs,
                     size_t ntx, char *err, size_t errlen);

/* Under cards = committed, where hj_fixture_block takes each block's seed
 * (docs/PROTOCOL.md section 15); borrowed while f is used.  Without one
 * a committed block under a chain in force is refused. */
void hj_fixture_seeds(hj_fixture *f, const hj_seed_source *seeds);

/* Calls fn(ctx, height) in hj_fixture_block just before the block's line
 * is written, on the caller's thread: a benchmark's clock for the moment
 * a reader of the log can first see the line.  fn NULL: no call. */
void hj_fixture_on_write(hj_fixture *f, void (*fn)(void *ctx, uint64_t height),
                         void *ctx);

/* logrotate, then SIGHUP: renames the log to LOG.1 and writes the next
 * lines to a new LOG, whose identity the cursor takes at once.  0 or a
 * negative errno with err. */
int hj_fixture_rotate(hj_fixture *f, char *err, size_t errlen);

/* A block hash whose card is the given rank (1..13) and suit (0..3),
 * varied by salt. */
void hj_fixture_hash(unsigned rank, unsigned suit, uint64_t salt,
                     uint8_t hash[32]);

/* EVM transactions from player (20 bytes, the last byte p), txid from n:
 * a Bet of value (side stakes pp, t3) and the other actions. */
hj_action hj_fixture_bet(uint8_t p, uint64_t n, hj_amount value, uint64_t pp,
                         uint64_t t3);
hj_action hj_fixture_act(uint8_t p, uint64_t n, hj_act act, hj_amount value);

/* The dealer's Commit (EVM, from the dealer), txid from n: the chain of
 * length seeds from block start whose commitment is s0. */
hj_action hj_fixture_commit(uint64_t n, uint64_t start, uint32_t length,
                            const uint8_t s0[HJ_SEED_LEN]);

#endif
