/*
 * The action payload (docs/PROTOCOL.md section 11).
 *
 *   bytes 0-1  magic 48 4A ("HJ")
 *   byte  2    version 01
 *   byte  3    action 01 Bet .. 07 Peek
 *   ...        action fields, integers big-endian
 *
 * EVM: the transaction's input data.  Bitcoin family: the data of the first
 * OP_RETURN output that begins with the magic; the Bet carries the player's
 * x-only key, every other action ends with the 8-byte short round id and a
 * 64-byte BIP-340 signature.
 */
#ifndef HJ_PAYLOAD_H
#define HJ_PAYLOAD_H

#include <stddef.h>
#include <stdint.h>

#include "action.h"

#define HJ_MAGIC0  0x48
#define HJ_MAGIC1  0x4a
#define HJ_VERSION 0x01
/* Longest payload of either family: a Bitcoin Peek, 4 + 1 + 8 + 64. */
#define HJ_PAYLOAD_MAX 77
/* A Commit, either family: head, H (u64), L (u32), s_0 (32 bytes). */
#define HJ_COMMIT_LEN 48

typedef enum hj_family { HJ_EVM = 0, HJ_BITCOIN = 1 } hj_family;

/* The family's name as the configuration, the card log and the state write
 * it: "evm", "bitcoin". */
const char *hj_family_name(hj_family fam);

/* A parsed payload.  Fields an action does not carry are zero. */
typedef struct hj_payload {
	hj_act act;
	uint8_t insurance;      /* Peek: 1 insurance taken, 0 declined */
	uint64_t side_pp;       /* Bet: perfect-pairs stake, 0 when absent */
	uint64_t side_t3;       /* Bet: 21+3 stake, 0 when absent */
	uint8_t key[32];        /* Bitcoin Bet: the player's x-only key P */
	uint8_t round[8];       /* Bitcoin, not Bet: short round id */
	uint8_t sig[64];        /* Bitcoin, not Bet: BIP-340 signature */
	uint64_t start;         /* Commit: H */
	uint32_t length;        /* Commit: L */
	uint8_t commitment[32]; /* Commit: s_0 */
} hj_payload;

/*
 * Parses p[0..n).  Returns HJ_OK and fills *out; HJ_R_NO_MAGIC when the data
 * does not begin with 48 4A (a plain transfer, not an action); or the reason
 * the payload is malformed (HJ_R_TRUNCATED, HJ_R_BAD_VERSION,
 * HJ_R_UNKNOWN_ACTION, HJ_R_BAD_LENGTH, HJ_R_TOO_LONG, HJ_R_BAD_FIELD).  On a
 * malformed payload whose action byte is known, out->act is set so that the
 * rejection can name the action; otherwise out->act is HJ_ACT_NONE.
 * Side stakes are parsed here; whether they are offered is the table's call.
 * A Commit (action 08) is parsed the same in both families, whatever the
 * rules: any length but HJ_COMMIT_LEN, or L = 0, is HJ_R_MALFORMED; under
 * cards = hash the table takes action 08 as unknown (docs/PROTOCOL.md
 * section 15).
 */
int hj_payload_parse(hj_family fam, const uint8_t *p, size_t n,
                     hj_payload *out);

/*
 * Encodes *pl for fam into out (HJ_PAYLOAD_MAX bytes) and returns its length.
 * Side stakes are written only when non-zero (perfect pairs is written as 0
 * when only the 21+3 stake is set).  Bitcoin non-Bet payloads end with
 * round[] and sig[] as given.  A Commit is its 48 bytes, in both families.
 */
size_t hj_payload_encode(hj_family fam, const hj_payload *pl,
                         uint8_t out[HJ_PAYLOAD_MAX]);

#endif
