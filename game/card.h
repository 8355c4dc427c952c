/*
 * The card of a block hash (docs/PROTOCOL.md section 2).
 *
 * The hash is taken as the node prints it: 64 hex digits, optionally behind
 * "0x", letters in either case.  Scanning from the right, the rank digit is
 * the rightmost digit in 1..9a..d that has a digit to its left; the color
 * digit is that left neighbour, and its value mod 4 is the suit.  A hash with
 * no rank digit is void: it yields no card.
 */
#ifndef HJ_CARD_H
#define HJ_CARD_H

#include <stddef.h>
#include <stdint.h>

#define HJ_HASH_DIGITS 64

enum hj_suit { HJ_CLUBS = 0, HJ_DIAMONDS = 1, HJ_HEARTS = 2, HJ_SPADES = 3 };

enum hj_rank {
	HJ_ACE = 1,
	HJ_TEN = 10,
	HJ_JACK = 11,
	HJ_QUEEN = 12,
	HJ_KING = 13,
};

/* The card a block yields, with the digits that explain it. */
typedef struct hj_card {
	uint8_t rank;     /* 1 (Ace) .. 13 (King); 0 for a void block */
	uint8_t suit;     /* enum hj_suit; 0 for a void block */
	uint8_t pos;      /* 0-based index of the rank digit in the 64 digits */
	char rank_digit;  /* lower-case hex digit, '\0' when void */
	char color_digit; /* lower-case hex digit, '\0' when void */
} hj_card;

/*
 * Derives the card of hash[0..len).  Returns 0 (out->rank == 0 for a void
 * block) or -EINVAL for a hash that is not 64 hex digits after an optional
 * "0x"; then err (if not NULL) says what is wrong: the length, or the first
 * non-hex character and its position.
 */
int hj_card_from_hash(const char *hash, size_t len, hj_card *out, char *err,
                      size_t errlen);

/*
 * A card in one byte, as hands store it: rank << 2 | suit.  Valid codes are
 * 4..55; 0 never is a card.
 */
static inline uint8_t hj_code(unsigned rank, unsigned suit)
{
	return (uint8_t)(rank << 2 | suit);
}
static inline unsigned hj_code_rank(uint8_t code)
{
	return code >> 2;
}
static inline unsigned hj_code_suit(uint8_t code)
{
	return code & 3u;
}
static inline int hj_code_valid(uint8_t code)
{
	return (code >> 2) >= 1 && (code >> 2) <= 13;
}

/* Blackjack value of a rank: Ace 1 (an ace's 11 is decided by the hand), 2..9
 * face, 10/J/Q/K 10. */
static inline unsigned hj_rank_value(unsigned rank)
{
	return rank >= 10 ? 10 : rank;
}

/* "A", "2".."10", "J", "Q", "K"; "?" for anything else. */
const char *hj_rank_name(unsigned rank);
/* "Clubs", "Diamonds", "Hearts", "Spades". */
const char *hj_suit_name(unsigned suit);
/* Short form of a card code: rank name then suit letter, "10H", "AS". buf
 * holds at least 4 bytes; returns buf. */
char *hj_code_str(uint8_t code, char buf[4]);

#endif
