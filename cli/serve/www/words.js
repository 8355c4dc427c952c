/* hashjack's page, its words: amounts in the chain's unit, hand totals,
 * a block hash's card worked out as `hashjack card` explains it
 * (docs/PROTOCOL.md section 2), the rules in sentences, the card log's
 * events in words.  Pure functions of what the server sent, no DOM and no
 * state: app.js draws what these say.
 *
 * Amounts are exact: base-unit decimal strings turned into the chain's
 * unit with BigInt and string arithmetic, never floating point. */
'use strict';

const HJW = (function () {
  const DEC = /^(0|[1-9][0-9]*)$/;
  const str = (x) => (typeof x === 'string' ? x : typeof x === 'number' ? String(x) : '');

  // ------------------------------------------------------------------
  // Units

  /* The chain's unit from /v1/table's family and chain: ETH on EVM (18
   * decimals), on the Bitcoin family ("bitcoin:COIN:NETWORK:GENESIS")
   * LTC or BTC (8 decimals). */
  function unitOf(family, chain) {
    if (family !== 'bitcoin') return { coin: 'ETH', base: 'wei', decimals: 18 };
    if (/^bitcoin:litecoin:/.test(str(chain))) return { coin: 'LTC', base: 'litoshi', decimals: 8 };
    return { coin: 'BTC', base: 'sat', decimals: 8 };
  }

  /* A base-unit decimal string (or BigInt) in whole coins: "17000000000000000"
   * -> "0.017"; null when it is not a canonical amount.  A minus sign is kept
   * (a round's net). */
  function coins(v, decimals) {
    let b;
    if (typeof v === 'bigint') b = v;
    else if (typeof v === 'string' && /^-?(0|[1-9][0-9]*)$/.test(v)) b = BigInt(v);
    else return null;
    const neg = b < 0n;
    if (neg) b = -b;
    const s = b.toString().padStart(decimals + 1, '0');
    const whole = s.slice(0, s.length - decimals);
    const frac = s.slice(s.length - decimals).replace(/0+$/, '');
    return (neg ? '-' : '') + whole + (frac ? '.' + frac : '');
  }

  /* Text typed as an amount: whole coins with at most `decimals` digits
   * after the point ("0.01", "1", ".5"), or with decimals 0 base units.
   * {value: BigInt} or {problem: words}. */
  function parseAmount(text, decimals, unitName) {
    const t = str(text).trim();
    if (decimals === 0) {
      if (!DEC.test(t)) return { problem: 'whole ' + unitName + ', digits only (no sign, no leading zero)' };
      return { value: BigInt(t) };
    }
    const m = /^([0-9]*)(?:\.([0-9]*))?$/.exec(t);
    if (!m || (m[1] === '' && !m[2])) return { problem: 'an amount in ' + unitName + ', such as 0.01' };
    const frac = m[2] || '';
    if (frac.length > decimals) return { problem: 'at most ' + decimals + ' digits after the point in ' + unitName };
    return { value: BigInt((m[1] || '0') + frac.padEnd(decimals, '0')) };
  }

  // ------------------------------------------------------------------
  // Cards and totals

  const RANK_OF_CODE = { A: 1, J: 10, Q: 10, K: 10 };
  const CODE_RE = /^(A|[2-9]|10|J|Q|K)([CDHS])$/;

  /* The total of cards given as codes: {best, soft}, best as the log counts
   * it (an Ace 11 where that does not bust), soft when an Ace counts 11;
   * null when a code is unknown or there is no card. */
  function handTotal(codes) {
    if (!Array.isArray(codes) || !codes.length) return null;
    let hard = 0;
    let ace = false;
    for (const c of codes) {
      const m = CODE_RE.exec(str(c));
      if (!m) return null;
      const v = RANK_OF_CODE[m[1]] || Number(m[1]);
      if (m[1] === 'A') ace = true;
      hard += v;
    }
    if (ace && hard + 10 <= 21) return { best: hard + 10, soft: true };
    return { best: hard, soft: false };
  }

  const RANK_WORD = {
    1: 'Ace', 2: 'Two', 3: 'Three', 4: 'Four', 5: 'Five', 6: 'Six', 7: 'Seven', 8: 'Eight', 9: 'Nine', 10: 'Ten',
    11: 'Jack', 12: 'Queen', 13: 'King',
  };
  const RANK_CODE = { 1: 'A', 10: '10', 11: 'J', 12: 'Q', 13: 'K' };
  const SUIT = ['Clubs', 'Diamonds', 'Hearts', 'Spades'];
  const qualifies = (d) => /^[1-9a-d]$/.test(d);

  /* A block hash's card, worked out step by step (docs/PROTOCOL.md section
   * 2.1): {digits, void} or {digits, pos, rankDigit, skipped: [[digit,
   * position]...] (from the right), colorDigit, colorValue, suit, rank,
   * code, lines}; `lines` are `hashjack card HASH`'s words.  null when it
   * is not a hash (64 hex digits, with or without 0x). */
  function cardOfHash(hash) {
    const m = /^(?:0x)?([0-9a-fA-F]{64})$/.exec(str(hash));
    if (!m) return null;
    const d = m[1].toLowerCase();
    let pos = -1;
    for (let i = 63; i > 0; i--) {
      if (qualifies(d[i])) {
        pos = i;
        break;
      }
    }
    if (pos < 0) {
      const lines = ['void:  no rank digit: every digit after the first is 0, e or f'];
      if (qualifies(d[0])) lines.push("note:  the first digit '" + d[0] + "' would qualify, but it has no digit to its left");
      lines.push('so:    the block yields no card; the draw it was due for comes from the next block');
      return { digits: d, void: true, lines };
    }
    const rankDigit = d[pos];
    const rank = parseInt(rankDigit, 16);
    const colorDigit = d[pos - 1];
    const colorValue = parseInt(colorDigit, 16);
    const suit = colorValue % 4;
    const skipped = [];
    for (let i = 63; i > pos; i--) skipped.push([d[i], i]);
    const code = (RANK_CODE[rank] || String(rank)) + 'CDHS'[suit];
    const value = rank === 1 ? '1 or 11' : rank >= 10 ? '10' : String(rank);
    const lines = [
      'card:  ' + RANK_WORD[rank] + ' of ' + SUIT[suit] + ' (' + code + '), value ' + value,
      "rank:  digit '" + rankDigit + "' at position " + pos + ' -> ' + RANK_WORD[rank] +
        (skipped.length ? ' (skipped to its right: ' + skipped.map(([x, i]) => "'" + x + "' at " + i).join(', ') + ')'
          : ' (it is the last digit)'),
      "suit:  color digit '" + colorDigit + "' at position " + (pos - 1) + ' = ' + colorValue + ', ' + colorValue +
        ' mod 4 = ' + suit + ' -> ' + SUIT[suit],
    ];
    return { digits: d, void: false, pos, rankDigit, skipped, colorDigit, colorValue, suit: SUIT[suit], rank, code, lines };
  }

  // ------------------------------------------------------------------
  // The rules in words (docs/CONFIG.md, [rules]; docs/PROTOCOL.md 7)

  const PP_NAMES = ['perfectPair: the two cards of the same rank and suit',
    'colouredPair: same rank, same colour, other suit', 'mixedPair: same rank, other colour'];
  const T3_NAMES = ['suitedTrips: the two cards and the up card of the same rank and suit',
    'straightFlush: consecutive ranks, same suit', 'threeOfAKind: same rank', 'straight: consecutive ranks',
    'flush: same suit'];

  /* A pay table "25,12,5": [[name, pays]...], or null when off or not one. */
  function payTable(v, names) {
    const parts = str(v).split(',');
    if (parts.length !== names.length || !parts.every((p) => DEC.test(p))) return null;
    return names.map((n, i) => [n, parts[i]]);
  }

  /* What one rule key says, as a sentence; null for a key this page does
   * not know (shown as it is). */
  function ruleSentence(key, v) {
    switch (key) {
      case 'preset':
        return 'The table starts from the ' + v + ' preset; the keys below say what it is.';
      case 'blackjack_pays': {
        const m = /^([0-9]+):([0-9]+)$/.exec(v);
        return m ? 'A blackjack (an Ace and a 10-valued card as the first two cards of an unsplit hand) pays ' + v +
          ': the stake back plus ' + m[1] + '/' + m[2] + ' of it, rounded down.' : null;
      }
      case 'dealer_soft17':
        return v === 'hit' ? 'The dealer hits soft 17 (a 17 counting an Ace as 11, such as A+6) and stands on hard 17 and above.'
          : v === 'stand' ? 'The dealer stands on every 17, soft 17 (such as A+6) included.' : null;
      case 'peek':
        return v === 'ace' ? 'With an Ace up, your first move must be a Peek, with or without insurance (half the Bet, pays 2:1); ' +
          'a dealer blackjack behind a 10-valued up card is found only when the dealer plays, and then takes the original Bet only.'
          : v === 'ace_ten' ? 'The dealer checks for blackjack behind an Ace (your Peek, with or without insurance) and behind ' +
            'a 10-valued up card (by itself, at the fourth block after the Bet): a dealer blackjack is never found late.'
            : v === 'none' ? 'There is no Peek and no insurance; a dealer blackjack found when the dealer plays takes every ' +
              'stake, doubles and splits included.' : null;
      case 'double_on':
        return v === '9-11' ? 'You may double on your first two cards when they make a hard 9, 10 or 11.'
          : v === '10-11' ? 'You may double on your first two cards when they make a hard 10 or 11.'
            : v === 'any' ? 'You may double on any first two cards, soft ones too.' : null;
      case 'double_after_split':
        return v === 'yes' ? 'You may double on the first two cards of a split hand.'
          : v === 'no' ? 'You may not double after a split.' : null;
      case 'max_hands':
        return v === '1' ? 'You may not split.' : v === '2' ? 'You may split once: two hands at most.'
          : /^[3-9]$/.test(v) ? 'You may split again up to ' + v + ' hands.' : null;
      case 'split_by_value':
        return v === 'yes' ? 'Any two 10-valued cards are a pair you may split (10-J, Q-K, ...).'
          : v === 'no' ? 'Only two cards of the same rank are a pair (a 10 and a Jack are not).' : null;
      case 'split_aces':
        return v === 'yes' ? 'A pair of Aces may split.' : v === 'no' ? 'Aces never split.' : null;
      case 'hit_split_aces':
        return v === 'yes' ? 'Hands from split Aces play on like any other.'
          : v === 'no' ? 'A hand from split Aces takes one card and stands.' : null;
      case 'surrender':
        return v === 'late' ? 'Late surrender: as your first decision on your first two cards you may give up half the ' +
          'stake (rounded down); where a dealer blackjack is not yet ruled out, the dealer\'s second card is drawn first ' +
          'and a blackjack takes the whole stake.'
          : v === 'early' ? 'Early surrender: as your first decision on your first two cards you may give up half the ' +
            'stake (rounded down), settled at once, against any up card.'
            : v === 'none' ? 'There is no surrender.' : null;
      case 'split_21_is_blackjack':
        return v === 'yes' ? 'A two-card 21 on a split hand is paid as a blackjack (but not against a dealer blackjack).'
          : v === 'no' ? 'A two-card 21 on a split hand is an ordinary 21, paid 1:1, not a blackjack.' : null;
      case 'perfect_pairs':
        return v === 'off' ? 'There is no Perfect Pairs side bet.'
          : payTable(v, PP_NAMES) ? 'The Perfect Pairs side bet is offered, decided by your first two cards; it pays as ' +
            'the table below says (so many to 1, the stake back too).' : null;
      case 'twenty_one_plus_three':
        return v === 'off' ? 'There is no 21+3 side bet.'
          : payTable(v, T3_NAMES) ? 'The 21+3 side bet is offered, decided by your first two cards and the dealer\'s up ' +
            'card; it pays as the table below says (so many to 1, the stake back too).' : null;
      case 'cards':
        return v === 'hash' ? 'Each card is read from its block\'s hash (docs/PROTOCOL.md section 2).'
          : v === 'committed' ? 'Each card is read from HMAC-SHA256 of its block\'s hash keyed with a seed the dealer ' +
            'committed on chain before the block existed (docs/PROTOCOL.md section 15): neither the block\'s producer nor ' +
            'the dealer alone can choose it. A block with no seed chain in force is void.' : null;
      default:
        return null;
    }
  }

  // ------------------------------------------------------------------
  // The card log's words (docs/LOG.md)

  const REASONS = {
    truncated: 'the payload ends before its version or action byte',
    bad_version: 'the version byte is not 01',
    unknown_action: 'the action byte is not one the table knows (01 to 07; 08, Commit, under committed cards)',
    bad_length: 'a length the action does not allow',
    too_long: 'longer than the action\'s longest form',
    bad_field: 'a field holds a value it may not',
    side_bets_not_offered: 'a side stake on a side bet the dealer does not offer',
    no_round: 'the sender has no open round this action could belong to',
    second_round: 'a Bet while the sender\'s round is still open',
    bet_out_of_limits: 'the stake is outside the table\'s limits',
    over_exposure: 'the dealer\'s bankroll limit cannot take this Bet now',
    premature: 'sent before the round\'s action window opened',
    not_allowed: 'not a legal move in the round\'s state',
    wrong_value: 'the value differs from what the action needs',
    bad_signature: 'the signature is missing or wrong',
    malformed: 'a Commit that is not 48 bytes or whose length is 0',
    not_dealer: 'a Commit the dealer did not send',
    commit_too_late: 'a Commit whose chain starts at or before its own block',
  };

  return Object.freeze({ unitOf, coins, parseAmount, handTotal, cardOfHash, ruleSentence, payTable, PP_NAMES, T3_NAMES, REASONS });
}());
