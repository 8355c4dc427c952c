/*
 * What tests/test_cardlog.c and tests/test_deal.c share: the example lines
 * of docs/LOG.md, verbatim, with the ids and block hashes they use, and
 * the checks every card log line must pass: one line, printable; read back
 * by the log's reader (daemon/core/cardlog.h, hj_cardlog_read) to exactly
 * what it was written from; and what only a test checks, byte by byte:
 * keys in the documented order.  Failures are cmocka failures.
 */
#ifndef HJ_TEST_CARDLOG_UTIL_H
#define HJ_TEST_CARDLOG_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "cardlog.h"

/* ---- docs/LOG.md's example events ---- */

#define DOC_DRAW_PLAYER                                                        \
	"{\"type\":\"draw\",\"round\":"                                        \
	"\"0x49fa7a95e44374c316a495802714d23197b6893b693c0844018b3893e53e56ca" \
	"\",\"handOwner\":\"Player\",\"handIndex\":0,\"card\":\"AS\"}"
#define DOC_DRAW_DEALER                                                        \
	"{\"type\":\"draw\",\"round\":"                                        \
	"\"0x49fa7a95e44374c316a495802714d23197b6893b693c0844018b3893e53e56ca" \
	"\",\"handOwner\":\"Dealer\",\"card\":\"9D\"}"
#define DOC_BET                                                                \
	"{\"type\":\"action\",\"action\":\"Bet\",\"round\":"                   \
	"\"0x49fa7a95e44374c316a495802714d23197b6893b693c0844018b3893e53e56ca" \
	"\",\"player\":\"0xc425efb5524ad63f1341d1631a24dfb05e18c196\",\"tx\":" \
	"\"0x49fa7a95e44374c316a495802714d23197b6893b693c0844018b3893e53e56ca" \
	"\",\"txIndex\":0,\"stake\":\"1001\"}"
#define DOC_HIT                                                                \
	"{\"type\":\"action\",\"action\":\"Hit\",\"round\":"                   \
	"\"0x44ea916eeaff17aa3c6919f60eef1aa6e974e1d5f1d305367fab10976a8f4f5e" \
	"\",\"player\":\"0x729e5dd9543406ef34d5d0e04e75c8b7abacc470\",\"tx\":" \
	"\"0xe281f365d7f6202dc06457606314f6f32c8c9c2c561e1e2239f05084a84ef56f" \
	"\",\"txIndex\":0,\"handIndex\":0,\"stake\":\"0\"}"
#define DOC_STAND                                                              \
	"{\"type\":\"action\",\"action\":\"Stand\",\"round\":"                 \
	"\"0xfac92b878df0ac51b821c7f7a13d2a9c1dd3d005c55c980c382ff5e9c4137b27" \
	"\",\"player\":\"0x9765c9ccf4eddb13218b495193a2d93a43befe7d\",\"tx\":" \
	"\"0xdd7b90bcf35a700f3ec806a7d47f6cb02442da3f3ed370d4e149a8c25b7c102d" \
	"\",\"txIndex\":0,\"handIndex\":0,\"stake\":\"0\"}"
#define DOC_DOUBLE                                                             \
	"{\"type\":\"action\",\"action\":\"Double\",\"round\":"                \
	"\"0xb9faad841fa83286a9d1dccecfcf35934ddff91c5fde58cb6768bd670437f35a" \
	"\",\"player\":\"0x72bc1cc485f385d22f19744ad31f983e53a77043\",\"tx\":" \
	"\"0x2d82cacd0a06ef55e0120fede520b4f5dde315cfbfd071720554e73c75cddffc" \
	"\",\"txIndex\":1,\"handIndex\":0,\"stake\":\"200000000000000000\"}"
#define DOC_SPLIT                                                              \
	"{\"type\":\"action\",\"action\":\"Split\",\"round\":"                 \
	"\"0xe66ec702a1660ea3016dc666225d7367ff9b8c08fb436950359754fb1073ae74" \
	"\",\"player\":\"0x55dc773bab423d7883496618050e585e4ccd9a64\",\"tx\":" \
	"\"0x6121adaaa0370659323ad58d7d8835ff4b90dc346b994fd9046b26f4832fcbd5" \
	"\",\"txIndex\":0,\"handIndex\":0,\"stake\":\"40000\"}"
#define DOC_SURRENDER                                                          \
	"{\"type\":\"action\",\"action\":\"Surrender\",\"round\":"             \
	"\"0x0828d3963e8cb099cb1f85b0e7ec1fb741cbe5bce85073dc9575472fb1b123ba" \
	"\",\"player\":\"0xef10e41dd87b9d06dca223552fbdff865daa912c\",\"tx\":" \
	"\"0xe926f27b0d8da88b6f41c68e50329624e884b14c33ef49c5b13a30299ff18ff1" \
	"\",\"txIndex\":0,\"handIndex\":0,\"stake\":\"0\"}"
#define DOC_PEEK                                                               \
	"{\"type\":\"action\",\"action\":\"Peek\",\"round\":"                  \
	"\"0x0f6b6d28cff7817ee87309b75aa073e0f8c2d72e3c67b94fcff6163f268e336b" \
	"\",\"player\":\"0x5d5af84c79a7e6cdbfa7e6254f2ed933d97ac7e8\",\"tx\":" \
	"\"0x25997f8b6dcbe332895ab9f04ee1f634415b85b30f68c8e35839e5c56332e8e7" \
	"\",\"txIndex\":1,\"insurance\":true,\"stake\":\"500\"}"
#define DOC_REJECT_VALUE                                                       \
	"{\"type\":\"reject\",\"tx\":"                                         \
	"\"0x4de50b0883a4161836805f42a0315a1ac1237702374ff131db387459ef376d2c" \
	"\",\"txIndex\":0,\"from\":"                                           \
	"\"0x72bc1cc485f385d22f19744ad31f983e53a77043\",\"action\":"           \
	"\"Double\",\"round\":"                                                \
	"\"0xb9faad841fa83286a9d1dccecfcf35934ddff91c5fde58cb6768bd670437f35a" \
	"\",\"reason\":\"wrong_value\",\"refund\":\"100000000000000000\"}"
#define DOC_REJECT_NO_ROUND                                                    \
	"{\"type\":\"reject\",\"tx\":"                                         \
	"\"0x9093eb1982c2734a052a1fe010e07af71395a851e38dab5ca9095761ad521c6f" \
	"\",\"txIndex\":2,\"from\":"                                           \
	"\"0xcbf0d16f1a9f0694b2cb582727d27321692aee78\",\"action\":\"Hit\","   \
	"\"reason\":\"no_round\",\"refund\":\"7\"}"
#define DOC_REJECT_VERSION                                                     \
	"{\"type\":\"reject\",\"tx\":"                                         \
	"\"0x482d29a83cc63e29a25285c0876ee453a7d8340f4c1e9ecf84c5cc341261343e" \
	"\",\"txIndex\":3,\"from\":"                                           \
	"\"0xadbed635d1e91cbff60f22b437fbc3fad70caf70\",\"reason\":\"bad_"     \
	"version\",\"refund\":\"1000\"}"
#define DOC_DEPOSIT                                                            \
	"{\"type\":\"deposit\",\"tx\":"                                        \
	"\"0x159b8d6f44e8b82aada74fc6692999f10e6da8a4e15215e82cd06d8b94f668f8" \
	"\",\"txIndex\":0,\"from\":"                                           \
	"\"0x2229573478a2eec4bd93511a874779bb786cfc54\",\"value\":\"123\"}"
#define DOC_IGNORED                                                            \
	"{\"type\":\"ignored\",\"tx\":"                                        \
	"\"0x0ed81c5156b915e81b5965e62d78f5946526233dbd71ff9b21551fd86a72937d" \
	"\",\"txIndex\":1,\"from\":"                                           \
	"\"0xbd88d36e5fb48ab884ab2d57552438fa481f7b40\",\"reason\":\"tx_"      \
	"failed\"}"
#define DOC_TIMEOUT_STAND                                                      \
	"{\"type\":\"timeout\",\"round\":"                                     \
	"\"0xe034d8e899483b80115675f78e94d08310720c5f3264996c2fc01a9679484d2c" \
	"\",\"action\":\"Stand\",\"handIndex\":0}"
#define DOC_TIMEOUT_PEEK                                                       \
	"{\"type\":\"timeout\",\"round\":"                                     \
	"\"0x23379c196d5c570d36113f444864a72a082fe2b5fc64676c2257c0c93fe4b299" \
	"\",\"action\":\"Peek\"}"
#define DOC_SETTLE_INSURED                                                     \
	"{\"type\":\"settle\",\"round\":"                                      \
	"\"0x0f6b6d28cff7817ee87309b75aa073e0f8c2d72e3c67b94fcff6163f268e336b" \
	"\",\"player\":\"0x5d5af84c79a7e6cdbfa7e6254f2ed933d97ac7e8\","        \
	"\"dealerHand\":{\"cards\":[\"AH\",\"KD\"],\"total\":21},"             \
	"\"playerHands\":[{\"handIndex\":0,\"cards\":[\"10S\",\"9C\"],"        \
	"\"total\":19,\"betAmount\":\"1000\",\"status\":\"Lose\",\"payout\":"  \
	"\"0\"}],\"insurance\":{\"betAmount\":\"500\",\"payout\":\"1500\"},"   \
	"\"betAmount\":\"1500\",\"payout\":\"1500\"}"
#define DOC_SETTLE_SPLIT                                                       \
	"{\"type\":\"settle\",\"round\":"                                      \
	"\"0xe66ec702a1660ea3016dc666225d7367ff9b8c08fb436950359754fb1073ae74" \
	"\",\"player\":\"0x55dc773bab423d7883496618050e585e4ccd9a64\","        \
	"\"dealerHand\":{\"cards\":[\"10H\",\"AC\"],\"total\":21},"            \
	"\"playerHands\":[{\"handIndex\":0,\"cards\":[\"9S\",\"2C\"],"         \
	"\"total\":11,\"betAmount\":\"40000\",\"status\":\"DealerBlackjack\"," \
	"\"payout\":\"0\"},{\"handIndex\":1,\"cards\":[\"9D\",\"KS\"],"        \
	"\"total\":19,\"betAmount\":\"40000\",\"status\":\"DealerBlackjack\"," \
	"\"payout\":\"40000\"}],\"betAmount\":\"80000\",\"payout\":\"40000\"}"
#define DOC_PEEK_CLEAR                                                         \
	"{\"type\":\"peek\",\"round\":"                                        \
	"\"0x0f6b6d28cff7817ee87309b75aa073e0f8c2d72e3c67b94fcff6163f268e336b" \
	"\",\"card\":\"9D\",\"dealerBlackjack\":false}"
#define DOC_PEEK_BJ                                                            \
	"{\"type\":\"peek\",\"round\":"                                        \
	"\"0x0f6b6d28cff7817ee87309b75aa073e0f8c2d72e3c67b94fcff6163f268e336b" \
	"\",\"card\":\"KD\",\"dealerBlackjack\":true}"
#define DOC_SKIP                                                               \
	"{\"type\":\"skip\",\"round\":"                                        \
	"\"0x0f6b6d28cff7817ee87309b75aa073e0f8c2d72e3c67b94fcff6163f268e336b" \
	"\",\"card\":\"QC\"}"
#define DOC_BET_SIDES                                                          \
	"{\"type\":\"action\",\"action\":\"Bet\",\"round\":"                   \
	"\"0x49fa7a95e44374c316a495802714d23197b6893b693c0844018b3893e53e56ca" \
	"\",\"player\":\"0xc425efb5524ad63f1341d1631a24dfb05e18c196\",\"tx\":" \
	"\"0x49fa7a95e44374c316a495802714d23197b6893b693c0844018b3893e53e56ca" \
	"\",\"txIndex\":0,\"stake\":\"1001\",\"perfectPairs\":\"100\","        \
	"\"poker\":\"100\"}"
#define DOC_SIDEBETS                                                           \
	"{\"type\":\"sidebets\",\"round\":"                                    \
	"\"0x49fa7a95e44374c316a495802714d23197b6893b693c0844018b3893e53e56ca" \
	"\",\"player\":\"0xc425efb5524ad63f1341d1631a24dfb05e18c196\","        \
	"\"perfectPairs\":{\"betAmount\":\"100\",\"status\":\"perfectPair\","  \
	"\"payout\":\"2600\"},\"poker\":{\"betAmount\":\"100\",\"status\":"    \
	"\"sidebetLost\",\"payout\":\"0\"},\"betAmount\":\"200\",\"payout\":"  \
	"\"2600\"}"
#define DOC_CARD_AS                                                            \
	"\"card\":{\"rank\":\"A\",\"suit\":\"Spades\",\"value\":1,\"code\":"   \
	"\"AS\",\"pos\":61,\"rankDigit\":\"1\",\"colorDigit\":\"b\"}"

/* Ids of those examples. */
#define R_BET                                                                  \
	"0x49fa7a95e44374c316a495802714d23197b6893b693c0844018b3893e53e56ca"
#define P_BET "0xc425efb5524ad63f1341d1631a24dfb05e18c196"
#define R_HIT                                                                  \
	"0x44ea916eeaff17aa3c6919f60eef1aa6e974e1d5f1d305367fab10976a8f4f5e"
#define P_HIT "0x729e5dd9543406ef34d5d0e04e75c8b7abacc470"
#define T_HIT_H                                                                \
	"e281f365d7f6202dc06457606314f6f32c8c9c2c561e1e2239f05084a84ef56f"
#define T_HIT "0x" T_HIT_H
#define R_STAND                                                                \
	"0xfac92b878df0ac51b821c7f7a13d2a9c1dd3d005c55c980c382ff5e9c4137b27"
#define P_STAND "0x9765c9ccf4eddb13218b495193a2d93a43befe7d"
#define T_STAND                                                                \
	"0xdd7b90bcf35a700f3ec806a7d47f6cb02442da3f3ed370d4e149a8c25b7c102d"
#define R_DOUBLE                                                               \
	"0xb9faad841fa83286a9d1dccecfcf35934ddff91c5fde58cb6768bd670437f35a"
#define P_DOUBLE "0x72bc1cc485f385d22f19744ad31f983e53a77043"
#define T_DOUBLE                                                               \
	"0x2d82cacd0a06ef55e0120fede520b4f5dde315cfbfd071720554e73c75cddffc"
#define R_SPLIT                                                                \
	"0xe66ec702a1660ea3016dc666225d7367ff9b8c08fb436950359754fb1073ae74"
#define P_SPLIT "0x55dc773bab423d7883496618050e585e4ccd9a64"
#define T_SPLIT                                                                \
	"0x6121adaaa0370659323ad58d7d8835ff4b90dc346b994fd9046b26f4832fcbd5"
#define R_SURR                                                                 \
	"0x0828d3963e8cb099cb1f85b0e7ec1fb741cbe5bce85073dc9575472fb1b123ba"
#define P_SURR "0xef10e41dd87b9d06dca223552fbdff865daa912c"
#define T_SURR                                                                 \
	"0xe926f27b0d8da88b6f41c68e50329624e884b14c33ef49c5b13a30299ff18ff1"
#define R_PEEK_H                                                               \
	"0f6b6d28cff7817ee87309b75aa073e0f8c2d72e3c67b94fcff6163f268e336b"
#define R_PEEK "0x" R_PEEK_H
#define P_PEEK "0x5d5af84c79a7e6cdbfa7e6254f2ed933d97ac7e8"
#define T_PEEK                                                                 \
	"0x25997f8b6dcbe332895ab9f04ee1f634415b85b30f68c8e35839e5c56332e8e7"
#define T_REJ1                                                                 \
	"0x4de50b0883a4161836805f42a0315a1ac1237702374ff131db387459ef376d2c"
#define T_REJ2                                                                 \
	"0x9093eb1982c2734a052a1fe010e07af71395a851e38dab5ca9095761ad521c6f"
#define F_REJ2 "0xcbf0d16f1a9f0694b2cb582727d27321692aee78"
#define T_REJ3                                                                 \
	"0x482d29a83cc63e29a25285c0876ee453a7d8340f4c1e9ecf84c5cc341261343e"
#define F_REJ3 "0xadbed635d1e91cbff60f22b437fbc3fad70caf70"
#define T_DEP_H                                                                \
	"159b8d6f44e8b82aada74fc6692999f10e6da8a4e15215e82cd06d8b94f668f8"
#define T_DEP "0x" T_DEP_H
#define F_DEP "0x2229573478a2eec4bd93511a874779bb786cfc54"
#define T_IGN                                                                  \
	"0x0ed81c5156b915e81b5965e62d78f5946526233dbd71ff9b21551fd86a72937d"
#define F_IGN "0xbd88d36e5fb48ab884ab2d57552438fa481f7b40"
#define R_TO_STAND                                                             \
	"0xe034d8e899483b80115675f78e94d08310720c5f3264996c2fc01a9679484d2c"
#define R_TO_PEEK                                                              \
	"0x23379c196d5c570d36113f444864a72a082fe2b5fc64676c2257c0c93fe4b299"

/* The vectors of docs/PROTOCOL.md sections 2.2 and 2.3: Ace of Spades at 61
 * (LOG.md's card example), 6 of Hearts at 62, and void. */
#define VEC2_H                                                                 \
	"0b6bc29980dbb1e93857d094f4a68184d33f3c956609c997693dea129192b10e"
#define VEC2 "0x" VEC2_H
#define GENESIS                                                                \
	"000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f"
#define Z10     "0000000000"
#define Z60     Z10 Z10 Z10 Z10 Z10 Z10
#define E10     "eeeeeeeeee"
#define E60     E10 E10 E10 E10 E10 E10
#define VOID_EF "0x" Z60 "00ef"

/* A card object as docs/LOG.md lays it out. */
#define CARDJ(rank, suit, value, code, pos, rd, cd)                            \
	"\"card\":{\"rank\":\"" rank "\",\"suit\":\"" suit                     \
	"\",\"value\":" value ",\"code\":\"" code "\",\"pos\":" pos            \
	",\"rankDigit\":\"" rd "\",\"colorDigit\":\"" cd "\"}"
/* The start of an EVM line, up to the card or "void". */
#define HEAD(height, hash, parent)                                             \
	"{\"v\":2,\"chain\":\"evm\",\"height\":" height ",\"hash\":\"" hash    \
	"\",\"parent\":\"" parent "\","

/* The line the single-event tests write their event into. */
#define STD_HEIGHT 19000006
#define STD_PREFIX                                                             \
	HEAD("19000006", VEC2, "0x" GENESIS) DOC_CARD_AS ",\"events\":["
#define SUFFIX "]}\n"

/* Key orders of docs/LOG.md: a line with a card, a void one. */
extern const char *const K_LINE_CARD[];
extern const char *const K_LINE_VOID[];

/* s: lower-case hex, with or without "0x", exactly 2n digits (a reader of
 * the tests' own, so that fixtures never depend on chain/hex). */
void unhex(const char *s, uint8_t *out, size_t n);

/* Ends cl's line, checks what every line is (one "\n", at the end;
 * printable ASCII without a space before it) and returns a NUL-terminated
 * copy for the caller to free. */
char *finish(hj_cardlog *cl);

/* ---- read back by the log's reader ---- */

/* line (its "\n" included or not) read by hj_cardlog_read as family fam:
 * it must read; the caller frees *out (hj_cardlog_line_free). */
void read_back(const char *line, hj_family fam, hj_cardlog_line *out);

/* line refused by hj_cardlog_read: its code, and *e. */
int read_refused(const char *line, hj_family fam, hj_cardlog_err *e);

/* The read line's header is what hj_cardlog_begin was given. */
void assert_header(const hj_cardlog_line *l, hj_family fam, uint64_t height,
                   const uint8_t hash[32], const uint8_t parent[32],
                   const hj_card *card);

/* The event read back says exactly what the writer wrote it from. */
void assert_event(const hj_cardlog_ev *e, const hj_event *ev, hj_family fam);

/* The events as the engine reported them to a line: copies of what each
 * event points to, taken in the sink, where it is valid. */
#define REC_MAX 64
typedef struct rec_event {
	hj_event ev; /* its pointers point below */
	hj_round round;
	hj_action tx;
	hj_settlement settle;
	hj_side_settlement side;
} rec_event;
typedef struct rec {
	hj_cardlog *cl; /* the line they go to first */
	size_t n;
	rec_event e[REC_MAX];
} rec;

/* hj_cardlog_sink to r->cl, then a copy into r (at most REC_MAX). */
void rec_sink(void *ctx, const hj_event *ev);

/* The line read back holds exactly r's events, in order. */
void assert_events(const hj_cardlog_line *l, const rec *r, hj_family fam);

/* ---- byte by byte: what only the tests check ---- */

/* In compact JSON text (the log's): the length of the value at v; the
 * value of obj's member key (obj at its "{"), NULL when absent; the i-th
 * element of the array at arr, NULL past its end; its element count. */
size_t value_len(const char *v);
const char *member(const char *obj, const char *key);
const char *element(const char *arr, size_t i);
size_t elements(const char *arr);

/* The keys of the object at obj, in order, are exactly keys
 * (NULL-terminated). */
void assert_keys(const char *obj, const char *const *keys);

#endif
