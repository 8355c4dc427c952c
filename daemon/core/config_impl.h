/*
 * What the configuration's files share (config.c reads files and command
 * lines, config_keys.c says what each key may be, config_finish.c what
 * the keys mean together): the keys by id, and how a value is shown in a
 * message.  hj_config__ names are internal to the module.
 */
#ifndef HJ_CONFIG_IMPL_H
#define HJ_CONFIG_IMPL_H

#include <stddef.h>

#include "config.h"

#include "amount.h"

#define DEFAULT_RPC_URL   "http://127.0.0.1:8545"
#define BITCOIN_RPC_URL   "http://127.0.0.1:8332"
#define LITECOIN_RPC_URL  "http://127.0.0.1:9332"
#define DEFAULT_STATE_DIR "/var/lib/hashjackd"
#define CARD_LOG_NAME     "cards.jsonl"
#define MAX_OUTPUTS       100
/* EVM payouts: the fee cap (100 gwei), the tip floor (1 gwei), and how
 * long a transaction may stay unmined before it is replaced. */
#define MAX_FEE_PER_GAS  100000000000u
#define MIN_PRIORITY_FEE 1000000000u
#define STUCK_AFTER_S    300
/*
 * Dust: the smallest P2TR output a node relays, 3 x (43 bytes of output +
 * 67 virtual bytes to spend it) x the dust relay fee per byte.  Bitcoin
 * Core's -dustrelayfee is 3000 sat/kvB: 330.  Litecoin Core's is 10 times
 * that (30000 litoshis/kvB): 3300, and litecoind 0.21.2 refuses 3299 to a
 * P2TR address ("Transaction amount too small"), accepts 3300.
 */
#define DUST_BITCOIN  330
#define DUST_LITECOIN 3300
/* Output values are int64 on the node (CAmount). */
#define DUST_MAX INT64_MAX

/* A config file is a few dozen lines; anything this big is a mistake. */
#define MAX_FILE_SIZE (1024 * 1024)

/* Longest value shown in a message before it is cut with "...". */
#define SHOW_MAX 64

enum key_id {
	K_FAMILY,
	K_COIN,
	K_RPC_URL,
	K_RPC_USER,
	K_RPC_PASSWORD,
	K_RPC_BEARER,
	K_RPC_COOKIE_FILE,
	K_RPC_TIMEOUT_MS,
	K_RPC_MAX_RESPONSE,
	K_RPC_MAX_BATCH,
	K_CONFIRMATIONS,
	K_POLL_INTERVAL_MS,
	K_BATCH_BLOCKS,
	K_START_HEIGHT,
	K_PUSH,
	K_PUSH_URL,
	K_CA_FILE,
	K_ADDRESS,
	K_PRESET,
	K_MIN_BET,
	K_MAX_BET,
	K_TIMEOUT_BLOCKS,
	K_MAX_EXPOSURE,
	/* The rule keys, in hj_rule_keys order. */
	K_RULE_FIRST,
	K_RULE_LAST = K_RULE_FIRST + HJ_CONFIG_RULE_KEYS - 1,
	K_ALLOW_PLAYER_EDGE,
	K_PAYOUT_WALLET,
	K_DUST_LIMIT,
	K_MAX_OUTPUTS,
	K_DEALER_KEY,
	K_MAX_FEE_PER_GAS,
	K_MIN_PRIORITY_FEE,
	K_STUCK_AFTER,
	K_MIN_REFUND,
	K_WALLET_PASSPHRASE,
	K_SWEEP_TO,
	K_SWEEP_MARGIN,
	K_SWEEP_EVERY,
	K_DIRECTORY,
	K_CARD_LOG,
	K_LOG_FSYNC,
	K_REWIND_BLOCKS,
	K_SERVE_LISTEN,
	K_SERVE_MAX_AGE,
	K_SERVE_HISTORY,
	K_SERVE_MAX_CONNS,
	K_SERVE_MAX_CONNS_IP,
	K_SERVE_MAX_SUBS,
	K_SERVE_REQUEST_MS,
	K_SERVE_IDLE_MS,
	K_SERVE_PING_MS,
	K_SERVE_MAX_SEND,
	K_SERVE_MAX_URL,
	K_SERVE_MAX_HEADER_BYTES,
	K_SERVE_MAX_HEADERS,
	K_SERVE_MAX_MESSAGE,
	K_SERVE_POLL_MS,
	K_METRICS_LISTEN,
	K_METRICS_MAX_LAG,
	K_SEEDS_LENGTH,
	K_SEEDS_RENEW_BEFORE,
	K_SEEDS_LEAD,
	K_COUNT
};

/* Sets one key from its text; on error returns -EINVAL (or -ENOMEM) and
 * writes the reason, without place or value, into why. */
typedef int (*hj_config__setter)(hj_config *c, const char *v, char *why,
                                 size_t n);

struct hj_config__key {
	const char *section;
	const char *name;
	hj_config__setter set;
	int secret; /* the value is never shown */
};

/* The words of an [dealer] address that is not one, on EVM. */
#define NOT_EVM_ADDRESS "not an EVM address (0x and 40 hex digits)"

/* How a worst case is said when side bets count in it. */
#define SIDES(c)                                                               \
	((c)->rules.pp_on || (c)->rules.t3_on ? " with side stakes of max_bet" \
	                                      : "")

/* Every key, by id; the sections, NULL-terminated. */
extern const struct hj_config__key hj_config__keys[K_COUNT];
extern const char *const hj_config__sections[];

/* The key's id, or -1 (unknown key) or -2 (unknown section). */
int hj_config__find_key(const char *section, size_t slen, const char *name,
                        size_t nlen);
/* A section's index, or -1. */
int hj_config__find_section(const char *s, size_t len);
/* s[0..len) for a message: printable ASCII, other bytes as \xNN, cut at
 * SHOW_MAX with "...". */
void hj_config__show(const char *s, size_t len, char *buf, size_t n);
/* The value of key id as messages show it: secrets masked, and so is the
 * user information of a URL. */
void hj_config__show_value(int id, const char *v, char *buf, size_t n);

#endif
