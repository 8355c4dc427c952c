/*
 * hashjackd's configuration: an INI file (read with inih) and command-line
 * overrides.  Every key, its default and its meaning are in
 * config/hashjackd.conf.example; docs/CONFIG.md says the same for readers.
 *
 * Errors name the place (file:line, or "command line"), the section and key,
 * the value, and the reason; the daemon exits with status 78 (EX_CONFIG).
 */
#ifndef HJ_CONFIG_H
#define HJ_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "backend.h"
#include "dealer.h"
#include "payload.h"
#include "rules.h"

/* The rule keys of docs/PROTOCOL.md section 7.1 (hj_rule_keys). */
#define HJ_CONFIG_RULE_KEYS 14

typedef struct hj_config {
	/* [chain] */
	hj_family family; /* HJ_EVM (default) or HJ_BITCOIN */
	char *coin;       /* Bitcoin family: "bitcoin" or "litecoin" */
	char *rpc_url;    /* default by family and coin: http://127.0.0.1:8545
	                     (EVM), :8332 (bitcoin), :9332 (litecoin) */
	char *rpc_user;   /* basic auth, NULL when unset */
	char *rpc_password;
	char *rpc_bearer;          /* bearer token, NULL when unset */
	char *rpc_cookie_file;     /* Bitcoin Core-style cookie; Bitcoin
	                              family default ~/.<coin>/.cookie when
	                              neither rpc_user nor this is set */
	unsigned rpc_timeout_ms;   /* default 30000 */
	size_t rpc_max_response;   /* default 64 MiB */
	unsigned rpc_max_batch;    /* calls per HTTP request, default 100 */
	unsigned confirmations;    /* default 12 on EVM, 6 on Bitcoin; 0
	                              with finality */
	hj_finality finality;      /* "finalized" or "safe" (EVM only):
	                              the node's own final block instead
	                              of a number; HJ_FINALITY_DEPTH
	                              (default): confirmations */
	unsigned poll_interval_ms; /* default 1000 */
	unsigned batch_blocks;    /* blocks per catch-up request, default 100 */
	uint64_t start_height;    /* valid when start_height_set */
	int start_height_set;     /* unset: the tip at first start */
	int push;                 /* 1 (default): wake on the node's new blocks
	                             (chain/push.h) besides polling; 0: poll */
	char *push_url;           /* with push: EVM the node's ws:// or wss://
	                             URL, default rpc_url as ws:// (wss:// for
	                             https://); Bitcoin family the long poll's
	                             http(s):// URL, default rpc_url */
	const char *push_off_why; /* set by finish() when it turned push off:
	                             an EVM rpc_url with credentials gives no
	                             WebSocket URL */
	char *ca_file; /* a PEM file of the CA certificates trusted for the
	                  node's https:// and wss:// (RPC and push) instead
	                  of the system's CA store; NULL: the system's.
	                  Checked when set (tls.h, hj_tls_ca_check) */
	/* [dealer] */
	char *address;    /* required: the text as configured */
	hj_dealer dealer; /* the address parsed by finish(): EVM 0x + 40
	                     hex (text in lower case), Bitcoin family a
	                     segwit address of a known prefix */
	/* [rules] */
	hj_rules rules; /* preset (default bethash), min_bet and
	                   max_bet required, timeout_blocks default
	                   by family (100 EVM, 12 Bitcoin), the rule
	                   keys the preset's unless set */
	/* The rule keys set (hj_rule_keys order), "" where the preset's
	 * value stands: a preset named later keeps them. */
	char rule_set[HJ_CONFIG_RULE_KEYS][HJ_RULE_VALUE_MAX];
	int allow_player_edge; /* 1: deal a rule set whose house edge, or a
	                          side bet's, is negative (default 0) */
	/* Set by finish() under cards = hash on EVM, where whoever builds a
	 * block can choose its card: static text, which hashjackd logs at
	 * start and with --check-config.  NULL otherwise. */
	const char *cards_warning;
	/* [payout] */
	char *payout_wallet;  /* the node wallet that pays (Bitcoin family),
	                         NULL: payouts are only recorded */
	hj_amount dust_limit; /* base units; 0 until finish() fills the
	                         coin's default (330 bitcoin, 3300 litecoin) */
	unsigned max_outputs; /* outputs per payout transaction, default 100 */
	char *wallet_passphrase;    /* Bitcoin family: the encrypted wallet's
	                               passphrase, a path or a systemd
	                               credential name (wallet_pass.h); NULL:
	                               the wallet is not unlocked */
	char *dealer_key;           /* EVM: the dealer's secret key, a path or a
	                               systemd credential name (dealer_key.h);
	                               NULL: payouts are only recorded */
	hj_amount max_fee_per_gas;  /* EVM: cap in wei, default 100 gwei */
	hj_amount min_priority_fee; /* EVM: tip floor in wei, default 1 gwei */
	unsigned stuck_after_s;     /* EVM: replace a transaction unmined for
	                               this long, default 300 */
	/* EVM: the least a recipient owed only refunds is paid (wei).  auto
	 * (the default): a transfer's own cost at the fees of the moment
	 * (docs/PAYOUTS-EVM.md, "Small refunds"); else min_refund, 0 paying
	 * every refund at once.  min_refund_set: the key was given. */
	int min_refund_auto, min_refund_set;
	hj_amount min_refund;
	/* Sweeps to cold storage (docs/PAYOUTS-EVM.md, docs/PAYOUTS.md,
	 * "Sweeps to cold storage"): sweep_to NULL, none; else the cold
	 * address, checked by finish() into sweep_addr[0..sweep_len): EVM its
	 * 20 bytes; Bitcoin family its witness program, 20 bytes (P2WPKH,
	 * version 0) or 32 (P2TR, version 1), and sweep_text its address in
	 * lower case.  The margin kept beyond what is owed, in flight and at
	 * stake (base units; default 0 on EVM, 100000 on the Bitcoin family,
	 * where it pays the sweep's fee), and the blocks between two sweeps
	 * (default 7200 on EVM, 144 on the Bitcoin family); _set: given. */
	char *sweep_to;
	uint8_t sweep_addr[32];
	size_t sweep_len;
	char sweep_text[96];
	hj_amount sweep_margin;
	uint64_t sweep_every;
	int sweep_every_set, sweep_margin_set;
	uint64_t rewind_blocks; /* [state]: blocks of undo kept (store.h) */
	/* [state] */
	char *state_dir; /* default $STATE_DIRECTORY, else
	                    /var/lib/hashjackd */
	char *card_log;  /* default <state_dir>/cards.jsonl */
	int log_fsync;   /* 1 (default): fsync the card log before
	                    each commit; 0: leave it to the kernel */
	/* [seeds]: hashjackd's seed chains under cards = committed
	 * (docs/PROTOCOL.md section 15; docs/OPERATION.md, "Committed
	 * cards") */
	struct hjd_seeds_config {
		unsigned length;       /* seeds per chain, default 1000000 */
		unsigned renew_before; /* commit the next chain when the one in
		                          force has this many seeds left,
		                          default 1000 */
		unsigned lead; /* a first (or replacing) chain starts this many
		                  blocks after the tip, default 50 */
	} seeds;
	/* [serve]: `hashjack serve`, the read-only round API (docs/API.md);
	 * the daemon reads and checks these, and uses none. */
	struct hjd_serve_config {
		char host[64];           /* listen address, default 127.0.0.1 */
		unsigned port;           /* default 8549; 0: any free port */
		unsigned max_age_s;      /* /healthz: 503 when the last block is
		                            older; 0 until finish(): 120 EVM,
		                            3600 Bitcoin family */
		unsigned history_blocks; /* kept for ?from=, default 10000 */
		unsigned max_connections;        /* default 20000 */
		unsigned max_connections_per_ip; /* default 64 */
		unsigned max_subscriptions;      /* per WebSocket, default 16 */
		unsigned request_timeout_ms;     /* default 10000 */
		unsigned idle_timeout_ms;        /* default 60000 */
		unsigned ping_interval_ms;       /* default 30000 */
		unsigned max_send_buffer;        /* bytes, default 1 MiB */
		unsigned max_url;                /* bytes, default 2048 */
		unsigned max_header_bytes;       /* default 8192 */
		unsigned max_headers;            /* default 64 */
		unsigned max_message;            /* a client's, default 4096 */
		unsigned poll_interval_ms;       /* the log's, besides inotify,
		                                    default 1000 */
	} serve;
	/* [metrics]: hashjackd's /metrics and /healthz (docs/OPERATION.md) */
	struct hjd_metrics_config {
		int enabled;      /* listen was set (not "" or "off") */
		char host[64];    /* listen address */
		unsigned port;    /* 0: any free port */
		unsigned max_lag; /* /healthz: 503 with more final blocks than
		                     this waiting, default 10 */
	} metrics;
} hj_config;

/* Fills defaults (nothing required is set). */
void hj_config_init(hj_config *c);
void hj_config_free(hj_config *c);

/* Reads path into c (keys not in the file keep their values).  Returns 0,
 * or -EINVAL / -ENOENT with "path:line: [section] key = value: reason". */
int hj_config_load(hj_config *c, const char *path, char *err, size_t errlen);

/*
 * What hj_config_load does once it has read the file: text[0..len) (no
 * NUL needed; one inside is an error) is the file's content, and messages
 * call it name, as they would the file's path.  Returns 0, or -EINVAL
 * (-ENOMEM) with "name:line: [section] key = value: reason", or "name:
 * larger than 1048576 bytes".  text is borrowed.
 */
int hj_config_load_text(hj_config *c, const char *name, const char *text,
                        size_t len, char *err, size_t errlen);

/* One override from the command line, "section.key=value".  Returns 0 or
 * -EINVAL with "command line: --section.key=value: reason". */
int hj_config_set_arg(hj_config *c, const char *arg, char *err, size_t errlen);

/* After the file and the overrides: required keys present, defaults that
 * depend on others (family, state_dir) filled in, rules checked. */
int hj_config_finish(hj_config *c, char *err, size_t errlen);

/*
 * What hashjackd can deal, after hj_config_finish: a configuration the tool
 * reads (hashjack edge, status, ...) may still be one the daemon cannot
 * run: cards = committed without the means to send a Commit, that is
 * without [payout] wallet on the Bitcoin family (the wallet spends an
 * output of the dealer address) or [payout] dealer_key on EVM (the daemon
 * signs its own Commits).  Returns 0, or -ENOTSUP with the reason.
 */
int hj_config_can_deal(const hj_config *c, char *err, size_t errlen);

/* The part of hj_config_finish that needs no other key: state_dir's
 * default ($STATE_DIRECTORY's first entry, else /var/lib/hashjackd) and
 * card_log's (cards.jsonl), relative to state_dir.  0 or -ENOMEM. */
int hj_config_state_paths(hj_config *c, char *err, size_t errlen);

/*
 * What one answer of the node to [chain] confirmations = finalized or safe
 * (the backend's final(): its block of the tag, then its tip) says of the
 * word: a node whose block of the tag is its tip (block 0 aside, the only
 * block a short chain has) gives it no meaning, as ganache does
 * (docs/OPERATION.md, "Finality"): every block would be dealt as soon as
 * it is mined.  Returns 1 with the warning in msg (the node's answer, the
 * heights, what follows, what to set instead), else 0 and msg "": with a
 * number of confirmations, or a final block below the tip.
 */
int hj_config_final_warning(const hj_config *c, uint64_t tip, uint64_t final,
                            char *msg, size_t len);

/* [serve] max_age's default, in seconds: the family's (evm nonzero for
 * EVM), with finality nonzero for confirmations = finalized or safe. */
unsigned hj_config_serve_max_age(int evm, int finality);

#endif
