/* hashjack's page: the table, its blocks as cards, every open round and
 * settlement, live from `hashjack serve` (docs/API.md), and on EVM a Bet
 * and each allowed action sent through the browser's wallet (EIP-1193).
 *
 * Plain JavaScript, no build step, nothing fetched from elsewhere.  Every
 * value from the server (or a wallet) is untrusted: it reaches the page
 * only through textContent, attribute values set one by one and links
 * built as "#/..." here; never through innerHTML.  Amounts are base units
 * as decimal strings, handled with BigInt, never as floating point. */
'use strict';

(function () {
  // ------------------------------------------------------------------
  // State

  const MAX_BLOCKS = 24;        // cards in the strip
  const MAX_SETTLEMENTS = 40;   // settlements and side bets on the home view
  const MAX_SENT = 30;          // transactions listed under "Sent"
  const MAX_ENDED = 200;        // settled RoundStates kept from RoundUpdates

  const S = {
    table: null,
    family: null,               // "evm" or "bitcoin"
    unit: '',
    tip: null,                  // the highest card log height seen
    blocks: [],                 // log lines, newest first
    rounds: new Map(),          // open rounds: id -> RoundState
    ended: new Map(),           // id -> settled RoundState
    settlements: [],            // {height, ev} (settle and sidebets events), newest first
    account: null,              // the wallet's account, lower case
    walletChain: null,          // the wallet's chain id (BigInt) or null
    sent: [],                   // {hash, what, status}, newest first
    pendingRound: new Map(),    // round id -> {hash, tip}: an action sent, its effect not seen yet
    pendingBet: null,           // {hash, tip}
    page: null,                 // the round or player page's data
  };

  // ------------------------------------------------------------------
  // Small helpers

  const $ = (id) => document.getElementById(id);

  /* el('div', {class: 'x', title: t}, child, 'text', ...): children are
   * nodes or strings (text nodes); null and false are left out. */
  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    if (attrs) {
      for (const [k, v] of Object.entries(attrs)) {
        if (v === null || v === undefined || v === false) continue;
        if (k === 'class') e.className = v;
        else if (k === 'text') e.textContent = v;
        else e.setAttribute(k, v);
      }
    }
    for (const c of children.flat(Infinity)) {
      if (c === null || c === undefined || c === false) continue;
      e.appendChild(typeof c === 'string' || typeof c === 'number' ? document.createTextNode(String(c)) : c);
    }
    return e;
  }

  function replace(node, ...children) {
    node.replaceChildren(...children.flat(Infinity).filter((c) => c !== null && c !== undefined && c !== false));
  }

  const isObj = (x) => x !== null && typeof x === 'object' && !Array.isArray(x);
  const str = (x) => (typeof x === 'string' ? x : typeof x === 'number' ? String(x) : '');
  const int = (x) => (Number.isSafeInteger(x) ? x : null);
  const arr = (x) => (Array.isArray(x) ? x : []);
  const DEC = /^(0|[1-9][0-9]*)$/;
  const U64_MAX = 0xffffffffffffffffn;

  function big(s) {
    return typeof s === 'string' && DEC.test(s) ? BigInt(s) : null;
  }

  function amount(s) {
    const v = str(s);
    return v === '' ? '?' : v + ' ' + S.unit;
  }

  /* An amount's value in whole coins, for a title: wei / 10^18 on EVM. */
  function coins(s) {
    const v = big(s);
    if (v === null || S.family !== 'evm') return null;
    const whole = v / 10n ** 18n;
    let frac = (v % 10n ** 18n).toString().padStart(18, '0').replace(/0+$/, '');
    return whole.toString() + (frac ? '.' + frac : '') + ' ETH';
  }

  function amountEl(s, cls) {
    return el('span', { class: cls || 'amount', title: coins(s) }, amount(s));
  }

  function short(id) {
    const s = str(id);
    return s.length > 20 ? s.slice(0, 10) + '…' + s.slice(-6) : s;
  }

  const ID_RE = /^(0x)?[0-9a-fA-F]{1,128}$/;

  function roundLink(id, text) {
    const s = str(id);
    if (!ID_RE.test(s)) return el('span', { class: 'mono' }, s);
    return el('a', { href: '#/round/' + encodeURIComponent(s.toLowerCase()), class: 'mono round-link', title: s },
      text || short(s));
  }

  function playerLink(id, text) {
    const s = str(id);
    if (!ID_RE.test(s)) return el('span', { class: 'mono' }, s);
    return el('a', { href: '#/player/' + encodeURIComponent(s.toLowerCase()), class: 'mono player-link', title: s },
      text || short(s));
  }

  function showError(msg) {
    const e = $('error');
    if (msg) {
      e.textContent = msg;
      e.hidden = false;
    } else {
      e.hidden = true;
    }
  }

  // ------------------------------------------------------------------
  // Cards

  const SUITS = {
    C: { sym: '\u2663', name: 'Clubs', red: false },
    D: { sym: '\u2666', name: 'Diamonds', red: true },
    H: { sym: '\u2665', name: 'Hearts', red: true },
    S: { sym: '\u2660', name: 'Spades', red: false },
  };
  const RANK_NAMES = {
    A: 'Ace', 2: 'Two', 3: 'Three', 4: 'Four', 5: 'Five', 6: 'Six', 7: 'Seven',
    8: 'Eight', 9: 'Nine', 10: 'Ten', J: 'Jack', Q: 'Queen', K: 'King',
  };
  const CODE_RE = /^(A|[2-9]|10|J|Q|K)([CDHS])$/;

  /* A card drawn from its code ("10H", "AS"); an unknown code is shown as
   * the back of a card with the code written under it. */
  function cardEl(code, title) {
    const m = CODE_RE.exec(str(code));
    if (!m) return backEl(str(code) || '?');
    const suit = SUITS[m[2]];
    const name = RANK_NAMES[m[1]] + ' of ' + suit.name;
    return el('span', {
      class: 'card ' + (suit.red ? 'red' : 'black'),
      role: 'img',
      'aria-label': name,
      title: title ? title + ': ' + name : name,
    },
    el('span', { class: 'corner' }, el('span', { class: 'rank' }, m[1]), el('span', { class: 'suit' }, suit.sym)),
    el('span', { class: 'pip', 'aria-hidden': 'true' }, suit.sym));
  }

  /* The back of a card: a void block (no card). */
  function backEl(label, title) {
    return el('span', { class: 'card back', role: 'img', 'aria-label': label, title: title || label },
      el('span', { class: 'void' }, label));
  }

  function cardsEl(codes) {
    const cs = arr(codes);
    return el('span', { class: 'cards' }, cs.length ? cs.map((c) => cardEl(c)) : el('span', { class: 'none' }, 'no card yet'));
  }

  // ------------------------------------------------------------------
  // The API

  async function api(path) {
    const r = await fetch(path, { headers: { Accept: 'application/json' }, cache: 'no-store' });
    let body = null;
    try {
      body = await r.json();
    } catch (e) {
      throw new Error(path + ': HTTP ' + r.status + ', not JSON');
    }
    if (!r.ok) {
      throw new Error(isObj(body) && typeof body.error === 'string' ? body.error : path + ': HTTP ' + r.status);
    }
    return body;
  }

  /* A list answer: the array itself, or the array under one of keys. */
  function listOf(body, ...keys) {
    if (Array.isArray(body)) return body;
    for (const k of keys) if (isObj(body) && Array.isArray(body[k])) return body[k];
    return [];
  }

  // ------------------------------------------------------------------
  // Taking in what the server says

  function setTip(h) {
    if (int(h) !== null && (S.tip === null || h > S.tip)) S.tip = h;
  }

  /* One card log line (docs/LOG.md), from /v1/blocks or a BlockUpdate. */
  function takeLine(line, live) {
    if (!isObj(line) || int(line.height) === null) return;
    const h = line.height;
    if (S.blocks.some((b) => b.height === h)) return;
    S.blocks.push(line);
    S.blocks.sort((a, b) => b.height - a.height);
    S.blocks.length = Math.min(S.blocks.length, MAX_BLOCKS);
    setTip(h);
    if (S.table && (!isObj(S.table.lastBlock) || (int(S.table.lastBlock.height) ?? -1) < h)) {
      S.table.lastBlock = { height: h, hash: str(line.hash) };
    }
    for (const ev of arr(line.events)) {
      if (!isObj(ev)) continue;
      if (ev.type === 'settle' || ev.type === 'sidebets') {
        if (!S.settlements.some((x) => x.height === h && x.ev.type === ev.type && x.ev.round === ev.round)) {
          S.settlements.push({ height: h, ev });
        }
      }
      if (typeof ev.tx === 'string') seeTx(ev, h);
      if (ev.type === 'settle' && live) S.pendingRound.delete(str(ev.round).toLowerCase());
    }
    S.settlements.sort((a, b) => b.height - a.height);
    S.settlements.length = Math.min(S.settlements.length, MAX_SETTLEMENTS);
    if (S.pendingBet && S.tip - S.pendingBet.tip > 50) S.pendingBet = null; // never mined: let the player try again
  }

  /* A transaction this page sent, seen in the log. */
  function seeTx(ev, h) {
    const t = S.sent.find((x) => x.hash === ev.tx.toLowerCase());
    if (!t) return;
    if (ev.type === 'action') {
      t.status = 'accepted at block ' + h;
    } else if (ev.type === 'reject') {
      t.status = 'rejected at block ' + h + ': ' + str(ev.reason) + ', refund ' + amount(ev.refund);
      if (ev.round) S.pendingRound.delete(str(ev.round).toLowerCase());
    } else if (ev.type === 'deposit') {
      t.status = 'a deposit at block ' + h;
    } else if (ev.type === 'ignored') {
      t.status = 'ignored at block ' + h + ' (' + str(ev.reason) + ')';
    }
    if (S.pendingBet && S.pendingBet.hash === t.hash) S.pendingBet = null;
    for (const [r, p] of S.pendingRound) if (p.hash === t.hash && ev.type !== 'action') S.pendingRound.delete(r);
  }

  function takeRound(rs, height) {
    if (!isObj(rs) || typeof rs.round !== 'string') return;
    const id = rs.round.toLowerCase();
    const prev = S.rounds.get(id) || S.ended.get(id);
    if (prev && int(prev.height) !== null && int(rs.height) !== null && rs.height < prev.height) return;
    if (rs.roundEnded === true) {
      S.rounds.delete(id);
      S.ended.set(id, rs);
      if (S.ended.size > MAX_ENDED) S.ended.delete(S.ended.keys().next().value);
    } else {
      S.rounds.set(id, rs);
    }
    // A round changes in the window only by the player's action or its
    // timeout: either way the buttons are live again.
    const pend = S.pendingRound.get(id);
    if (pend && (int(height) === null || height > pend.tip)) S.pendingRound.delete(id);
    const p = S.page;
    if (p && p.kind === 'round' && p.id === id) p.rs = rs;
    if (p && p.kind === 'player' && p.id === str(rs.player).toLowerCase()) refreshPageSoon();
  }

  function onMessage(msg) {
    if (!isObj(msg)) return;
    if (msg.eventType === 'BlockUpdate') {
      takeLine(msg.data, true);
      // Payouts move (owed, submitted, confirmed) without a message of their own.
      if (S.page && S.page.payouts !== null) refreshPageSoon();
    } else if (msg.eventType === 'RoundUpdate') {
      takeRound(msg.data, msg.height);
    } else if (msg.eventType === 'Error') {
      showError('stream: ' + str(msg.error));
      return;
    } else {
      return;
    }
    render();
  }

  // ------------------------------------------------------------------
  // The stream, reconnected with ?from= after a drop

  let ws = null;
  let attempts = 0;
  let retryTimer = null;

  function setConn(state, text) {
    const c = $('conn');
    c.className = 'conn ' + state;
    c.textContent = text;
  }

  function connect() {
    retryTimer = null;
    const u = new URL('v1/stream', location.href);
    u.protocol = location.protocol === 'https:' ? 'wss:' : 'ws:';
    u.hash = '';
    if (S.tip !== null) u.searchParams.set('from', String(S.tip));
    let sock;
    try {
      sock = new WebSocket(u.href);
    } catch (e) {
      retry();
      return;
    }
    ws = sock;
    sock.onopen = () => {
      attempts = 0;
      setConn('live', 'live');
    };
    sock.onmessage = (m) => {
      if (typeof m.data !== 'string' || m.data.length > 16 << 20) return;
      let msg;
      try {
        msg = JSON.parse(m.data);
      } catch (e) {
        return;
      }
      onMessage(msg);
    };
    sock.onclose = () => {
      if (ws === sock) {
        ws = null;
        retry();
      }
    };
  }

  /* Exponential backoff with jitter: 1, 2, 4 ... 30 s. */
  function retry() {
    if (retryTimer) return;
    const base = Math.min(30000, 1000 * 2 ** Math.min(attempts, 5));
    const delay = Math.round(base * (0.5 + Math.random() / 2));
    attempts++;
    setConn('down', 'reconnecting in ' + Math.ceil(delay / 1000) + ' s');
    retryTimer = setTimeout(connect, delay);
  }

  // ------------------------------------------------------------------
  // Start: the table, the last blocks and the open rounds, then the stream

  let loadAttempts = 0;

  async function load() {
    try {
      const table = await api('v1/table');
      if (!isObj(table)) throw new Error('v1/table: not an object');
      S.table = table;
      S.family = table.family === 'bitcoin' ? 'bitcoin' : 'evm';
      S.unit = S.family === 'evm' ? 'wei' : /^bitcoin:litecoin:/.test(str(table.chain)) ? 'litoshi' : 'sat';
      setTip(int(table.logHeight) ?? (isObj(table.lastBlock) ? int(table.lastBlock.height) : null));
      const blocks = await api('v1/blocks?last=' + MAX_BLOCKS);
      for (const line of listOf(blocks, 'blocks')) takeLine(line, false);
      const rounds = await api('v1/rounds');
      for (const rs of listOf(rounds, 'open', 'rounds')) takeRound(rs, int(rounds.height));
      showError(null);
    } catch (e) {
      showError('Cannot reach the dealer\'s API: ' + e.message);
      setConn('down', 'offline');
      const delay = Math.min(30000, 1000 * 2 ** Math.min(loadAttempts++, 5));
      setTimeout(load, delay);
      return;
    }
    setupPlay();
    render();
    route();
    connect();
  }

  // ------------------------------------------------------------------
  // Rendering

  let renderQueued = false;

  function render() {
    if (renderQueued) return;
    renderQueued = true;
    requestAnimationFrame(() => {
      renderQueued = false;
      renderTop();
      renderTable();
      renderBlocks();
      renderPlay();
      renderView();
    });
  }

  function renderTop() {
    $('tip').textContent = S.tip === null ? 'block …' : 'block ' + S.tip;
    // A Bitcoin-family chain id ends with the genesis hash: too long for the bar.
    $('chain').textContent = S.table ? str(S.table.chain).replace(/:[0-9a-f]{64}$/, '') : '';
  }

  function renderTable() {
    const t = S.table;
    if (!t) return;
    const rows = [];
    const add = (k, ...v) => rows.push(el('dt', null, k), el('dd', null, ...v));
    add('Chain', str(t.chain) + ' (' + S.family + ')');
    add('Dealer', el('span', { class: 'mono', id: 'dealer' }, str(t.dealer)));
    add('Rules', isObj(t.rules) ? str(t.rules.preset) : '');
    add('House edge', str(t.houseEdgePercent) + ' %');
    if (t.perfectPairsEdgePercent !== undefined) add('Perfect Pairs edge', str(t.perfectPairsEdgePercent) + ' %');
    if (t.pokerEdgePercent !== undefined) add('21+3 edge', str(t.pokerEdgePercent) + ' %');
    add('Bets', amountEl(t.minBet), ' to ', amountEl(t.maxBet));
    add('Bankroll limit', t.maxExposure === '0' || t.maxExposure === undefined ? 'none' : amountEl(t.maxExposure));
    if (t.exposure !== undefined) add('At stake', amountEl(t.exposure), ' (worst case of the open rounds)');
    add('Timeout', str(t.timeoutBlocks) + ' blocks');
    add('Confirmations', str(t.confirmations));
    const lb = isObj(t.lastBlock) ? t.lastBlock : {};
    add('Last block', el('span', { id: 'last-block' }, str(lb.height)), ' ',
      el('span', { class: 'mono muted', title: str(lb.hash) }, short(lb.hash)));
    add('Card log', S.tip === null ? '' : 'block ' + S.tip);
    replace($('table'), rows);

    const rules = [];
    if (isObj(t.rules)) {
      for (const [k, v] of Object.entries(t.rules)) rules.push(el('dt', null, k), el('dd', null, str(v)));
    }
    replace($('rules'), rules);
  }

  const TAG_ORDER = ['action', 'draw', 'peek', 'skip', 'sidebets', 'reject', 'timeout', 'settle', 'deposit', 'ignored'];

  function blockTags(line) {
    const n = {};
    const acts = [];
    for (const ev of arr(line.events)) {
      if (!isObj(ev)) continue;
      if (ev.type === 'action') acts.push(str(ev.action));
      else n[ev.type] = (n[ev.type] || 0) + 1;
    }
    const out = acts.slice();
    for (const t of TAG_ORDER) if (n[t]) out.push(n[t] > 1 ? n[t] + ' ' + t + 's' : t);
    return out.join(' · ');
  }

  function renderBlocks() {
    const items = S.blocks.map((line) => {
      const face = line.void === true || !isObj(line.card)
        ? backEl('void', 'block ' + line.height + ': void, no card')
        : cardEl(line.card.code, 'block ' + line.height);
      return el('li', { class: 'block', title: str(line.hash) },
        face,
        el('span', { class: 'height' }, '#' + line.height),
        el('span', { class: 'tags' }, blockTags(line)));
    });
    replace($('blocks'), items);
  }

  /* One round: an open or settled RoundState, or a settle event. */
  function roundEl(rs, opts) {
    opts = opts || {};
    const id = str(rs.round);
    const ended = rs.roundEnded === true;
    const active = !ended && arr(rs.nextActions).length > 0;

    const head = el('header', null,
      el('strong', null, 'Round '), opts.fullId ? el('span', { class: 'mono round-id' }, id) : roundLink(id),
      el('span', null, 'player ', opts.fullId ? playerLink(rs.player, str(rs.player)) : playerLink(rs.player)),
      el('span', { class: 'state' },
        ended ? 'settled' + (int(rs.settledAt) !== null ? ' at block ' + rs.settledAt : '')
          : 'open' + (int(rs.betHeight) !== null ? ', Bet at block ' + rs.betHeight : '')));

    const dh = isObj(rs.dealerHand) ? rs.dealerHand : {};
    const dealer = el('div', { class: 'hand dealer' },
      el('h4', null, 'Dealer'),
      cardsEl(dh.cards),
      arr(dh.cards).length ? el('div', { class: 'line' }, 'total ', el('span', { class: 'total' }, str(dh.total))) : null,
      rs.peekNoBlackjack === true ? el('div', { class: 'line' }, 'peeked: no blackjack') : null);

    const hands = arr(rs.playerHands).filter(isObj).map((h) => {
      const acting = active && int(rs.handIndex) !== null && rs.handIndex === h.handIndex;
      return el('div', { class: 'hand player' + (acting ? ' acting' : '') },
        el('h4', null, 'Hand ' + str(h.handIndex), h.isSplit === true ? ' (split)' : '', acting ? ' ◀ to act' : ''),
        cardsEl(h.cards),
        arr(h.cards).length ? el('div', { class: 'line' }, 'total ', el('span', { class: 'total' }, str(h.total))) : null,
        el('div', { class: 'line' }, el('span', { class: 'status ' + str(h.status) }, str(h.status))),
        el('div', { class: 'line' }, 'bet ', amountEl(h.betAmount, 'bet')),
        ended ? el('div', { class: 'line' }, 'payout ', amountEl(h.payout, 'payout')) : null);
    });

    const facts = [];
    const fact = (k, ...v) => facts.push(el('dt', null, k), el('dd', null, ...v));
    for (const [key, name] of [['perfectPairs', 'Perfect Pairs'], ['poker', '21+3']]) {
      const sb = rs[key];
      if (!isObj(sb)) continue;
      fact(name, el('span', { class: 'sidebet ' + key },
        'bet ', amountEl(sb.betAmount), ', ', el('span', { class: 'status' }, str(sb.status)),
        sb.status && sb.status !== 'pending' ? [', payout ', amountEl(sb.payout)] : null));
    }
    if (isObj(rs.insurance)) {
      fact('Insurance', 'bet ', amountEl(rs.insurance.betAmount),
        rs.insurance.payout !== undefined ? [', payout ', amountEl(rs.insurance.payout)] : null);
    }
    if (!ended) {
      const na = arr(rs.nextActions).map(str);
      fact('Next actions', el('span', { class: 'actions-list' }, na.length ? na.join(', ') : 'none now'));
      if (arr(rs.actionValues).length) {
        fact('Values', arr(rs.actionValues).filter(isObj).map((a, i) =>
          [i ? '; ' : '', actionName(a), ' ', amountEl(a.value)]));
      }
      if (int(rs.timeoutAt) !== null) fact('To act', windowEl(rs));
      const due = arr(rs.drawsDue).filter(isObj);
      if (due.length) {
        fact('Draws due', due.map((d, i) => (i ? ', ' : '') + drawName(d)).join(''),
          int(rs.drawsFrom) !== null ? ' (from block ' + rs.drawsFrom + ')' : '');
      }
      if (int(rs.seq) !== null) fact('Seq', String(rs.seq));
    } else {
      const bet = big(rs.betAmount);
      const pay = big(rs.payout);
      fact('Staked', amountEl(rs.betAmount, 'round-bet'));
      fact('Returned', amountEl(rs.payout, 'round-payout'));
      if (bet !== null && pay !== null) {
        const net = pay - bet;
        fact('Net', el('span', { class: 'net ' + (net > 0n ? 'plus' : net < 0n ? 'minus' : '') },
          (net > 0n ? '+' : '') + net.toString() + ' ' + S.unit));
      }
    }

    const parts = [head, el('div', { class: 'hands' }, dealer, hands), el('dl', { class: 'facts' }, facts)];
    if (!ended && S.family === 'bitcoin' && arr(rs.actionValues).length) parts.push(btcCommands(rs));
    return el('article', { class: 'round' + (ended ? ' ended' : ' open') }, parts);
  }

  function actionName(a) {
    if (a.action === 'Peek') return a.insurance === true ? 'Peek with insurance' : 'Peek without insurance';
    return str(a.action);
  }

  function drawName(d) {
    if (d.handOwner === 'Dealer') return d.peek === true ? 'peek card' : 'dealer';
    return 'hand ' + str(d.handIndex);
  }

  /* The action window against the last block the log has. */
  function windowEl(rs) {
    const w = int(rs.windowOpen);
    const t = rs.timeoutAt;
    const tip = S.tip;
    if (tip === null) return el('span', null, 'until block ' + t);
    const left = t - tip;
    const open = w === null || w <= tip + 1;
    return el('span', { class: 'window' },
      el('span', { class: 'blocks-left' }, String(Math.max(0, left))), ' blocks left (window ',
      open ? 'open' : 'opens at block ' + w, ', default action after block ' + t + ')');
  }

  function settlementEl(x) {
    const ev = x.ev;
    if (ev.type === 'settle') {
      return el('li', { class: 'settlement' }, roundEl(Object.assign({}, ev, { roundEnded: true, settledAt: x.height })));
    }
    const parts = [];
    for (const [key, name] of [['perfectPairs', 'Perfect Pairs'], ['poker', '21+3']]) {
      const sb = ev[key];
      if (!isObj(sb)) continue;
      parts.push(el('li', null, name + ': bet ', amountEl(sb.betAmount), ', ', el('span', { class: 'status' }, str(sb.status)),
        ', payout ', amountEl(sb.payout)));
    }
    return el('li', { class: 'settlement sidebets' },
      el('article', { class: 'round ended' },
        el('header', null, el('strong', null, 'Side bets of round '), roundLink(ev.round),
          el('span', null, 'player ', playerLink(ev.player)), el('span', { class: 'state' }, 'settled at block ' + x.height)),
        el('ul', null, parts)));
  }

  // ------------------------------------------------------------------
  // Views: #/, #/round/ID, #/player/ID

  function route() {
    const h = location.hash.replace(/^#\/?/, '');
    const m = /^(round|player)\/(.+)$/.exec(h);
    if (!m) {
      S.page = null;
      render();
      return;
    }
    let id;
    try {
      id = decodeURIComponent(m[2]).toLowerCase();
    } catch (e) {
      id = '';
    }
    S.page = { kind: m[1], id, rs: null, data: null, payouts: null, error: null };
    if (!ID_RE.test(id)) {
      S.page.error = 'not a ' + m[1] + ' id: ' + id;
      render();
      return;
    }
    if (m[1] === 'round') loadRoundPage(S.page);
    else loadPlayerPage(S.page);
    render();
    $('view').scrollIntoView();
  }

  async function loadRoundPage(p) {
    try {
      const rs = await api('v1/rounds/' + encodeURIComponent(p.id));
      if (S.page !== p) return;
      if (!p.rs || (int(rs.height) ?? 0) >= (int(p.rs.height) ?? 0)) p.rs = rs;
      p.error = null;
    } catch (e) {
      if (S.page === p && !p.rs) p.error = e.message;
    }
    try {
      const pay = await api('v1/payouts?round=' + encodeURIComponent(p.id));
      if (S.page === p) p.payouts = listOf(pay, 'payouts');
    } catch (e) {
      if (S.page === p) p.payouts = e.message;
    }
    render();
  }

  async function loadPlayerPage(p) {
    try {
      const d = await api('v1/players/' + encodeURIComponent(p.id));
      if (S.page === p) {
        p.data = d;
        p.error = null;
      }
    } catch (e) {
      if (S.page === p) p.error = e.message;
    }
    try {
      const pay = await api('v1/payouts?recipient=' + encodeURIComponent(p.id));
      if (S.page === p) p.payouts = listOf(pay, 'payouts');
    } catch (e) {
      if (S.page === p) p.payouts = e.message;
    }
    render();
  }

  let pageTimer = null;

  /* The round or player page asks the API again, at most once a second. */
  function refreshPageSoon() {
    if (pageTimer) return;
    pageTimer = setTimeout(() => {
      pageTimer = null;
      const p = S.page;
      if (p && p.kind === 'player') loadPlayerPage(p);
      else if (p && p.kind === 'round') loadRoundPage(p);
    }, 1000);
  }

  function payoutsEl(rows) {
    if (rows === null) return el('p', { class: 'muted' }, 'loading payouts…');
    if (typeof rows === 'string') return el('p', { class: 'muted' }, 'payouts: ' + rows);
    if (!rows.length) return el('p', { class: 'muted' }, 'no payouts');
    const cols = ['kind', 'state', 'amount', 'round', 'handIndex', 'recipient', 'submittedTxid', 'confirmedHeight'];
    return el('table', { class: 'rows payouts' },
      el('thead', null, el('tr', null, cols.map((c) => el('th', null, c)))),
      el('tbody', null, rows.filter(isObj).map((r) => el('tr', null, cols.map((c) => {
        if (c === 'round' && r.round) return el('td', null, roundLink(r.round));
        if (c === 'amount') return el('td', null, amountEl(r.amount));
        return el('td', { class: c === 'submittedTxid' || c === 'recipient' ? 'mono' : null }, r[c] === null ? '' : str(r[c]));
      })))));
  }

  function renderView() {
    const v = $('view');
    const p = S.page;
    if (!p) {
      const open = [...S.rounds.values()];
      replace(v,
        el('h2', null, 'Open rounds (' + open.length + ')'),
        open.length ? el('div', { class: 'rounds', id: 'open-rounds' }, open.map((rs) => roundEl(rs)))
          : el('p', { class: 'muted' }, 'No open round.'),
        el('h2', null, 'Settlements'),
        S.settlements.length ? el('ol', { class: 'settlements', id: 'settlements' }, S.settlements.map(settlementEl))
          : el('p', { class: 'muted' }, 'None in the blocks shown.'));
      return;
    }
    const back = el('p', null, el('a', { href: '#/' }, '← all rounds'));
    if (p.kind === 'round') {
      replace(v, back, el('h2', null, 'Round'),
        p.rs ? roundEl(p.rs, { fullId: true }) : el('p', { class: p.error ? 'error' : 'muted' }, p.error || 'loading…'),
        el('h3', null, 'Payouts'), payoutsEl(p.payouts));
      return;
    }
    const d = isObj(p.data) ? p.data : null;
    const recent = d ? arr(d.recent).filter(isObj) : [];
    replace(v, back,
      el('h2', null, 'Player ', el('span', { class: 'mono player-id' }, p.id)),
      p.error ? el('p', { class: 'error' }, p.error) : null,
      el('h3', null, 'Open round'),
      d && isObj(d.open) ? roundEl(S.rounds.get(str(d.open.round).toLowerCase()) || d.open)
        : el('p', { class: 'muted' }, d ? 'none' : 'loading…'),
      el('h3', null, 'Recent rounds'),
      recent.length ? el('div', { class: 'rounds', id: 'recent-rounds' }, recent.map((rs) => roundEl(rs)))
        : el('p', { class: 'muted' }, 'none'),
      el('h3', null, 'Payouts'), payoutsEl(p.payouts));
  }

  // ------------------------------------------------------------------
  // Playing: EVM through window.ethereum; the Bitcoin family's commands

  /* The EVM payloads (docs/PROTOCOL.md section 11.2): magic "HJ", version
   * 01, the action byte; a Bet's side stakes as big-endian u64, written
   * only as far as needed (4, 12 or 20 bytes); a Peek's insurance flag. */
  const ACTION_BYTE = { Bet: '01', Hit: '02', Stand: '03', Double: '04', Split: '05', Surrender: '06', Peek: '07' };

  function u64hex(n) {
    if (typeof n !== 'bigint' || n < 0n || n > U64_MAX) throw new RangeError('not a u64: ' + n);
    return n.toString(16).padStart(16, '0');
  }

  function betPayload(pp, t3) {
    const head = '0x484a01' + ACTION_BYTE.Bet;
    if (t3 > 0n) return head + u64hex(pp) + u64hex(t3);
    if (pp > 0n) return head + u64hex(pp);
    return head;
  }

  function actionPayload(action, insurance) {
    const b = ACTION_BYTE[action];
    if (!b || action === 'Bet') throw new Error('not an action: ' + action);
    return '0x484a01' + b + (action === 'Peek' ? (insurance ? '01' : '00') : '');
  }

  function hexValue(v) {
    return '0x' + v.toString(16);
  }

  function sideBets() {
    const r = S.table && isObj(S.table.rules) ? S.table.rules : {};
    const on = (k) => typeof r[k] === 'string' && r[k] !== 'off' && r[k] !== '';
    return { pp: on('perfect_pairs'), t3: on('twenty_one_plus_three') };
  }

  let playReady = false;

  function setupPlay() {
    if (playReady) return;
    playReady = true;
    $('play').hidden = false;
    const sb = sideBets();
    if (S.family === 'bitcoin') {
      $('play-bitcoin').hidden = false;
      $('btc-bet').textContent = 'hashjack player bet --key player.key' +
        (sb.pp ? ' [--perfect-pairs N]' : '') + (sb.t3 ? ' [--21plus3 N]' : '');
      return;
    }
    $('play-evm').hidden = false;
    for (const u of document.querySelectorAll('#bet-form .unit')) u.textContent = S.unit;
    $('pp-label').hidden = !sb.pp;
    $('t3-label').hidden = !sb.t3;
    $('bet-stake').value = str(S.table.minBet);
    $('connect').addEventListener('click', connectWallet);
    $('bet-form').addEventListener('input', renderBetForm);
    $('bet-form').addEventListener('submit', (e) => {
      e.preventDefault();
      sendBet();
    });
    const eth = window.ethereum;
    if (!eth || typeof eth.request !== 'function') {
      $('connect').disabled = true;
    } else {
      // A wallet that already allows this page gives its account without asking.
      eth.request({ method: 'eth_accounts' }).then((a) => {
        if (Array.isArray(a) && typeof a[0] === 'string' && /^0x[0-9a-fA-F]{40}$/.test(a[0]) && !S.account) connectWallet();
      }, () => {});
    }
    if (eth && typeof eth.on === 'function') {
      eth.on('accountsChanged', (a) => {
        S.account = Array.isArray(a) && typeof a[0] === 'string' && /^0x[0-9a-fA-F]{40}$/.test(a[0]) ? a[0].toLowerCase() : null;
        render();
      });
      eth.on('chainChanged', (c) => {
        S.walletChain = typeof c === 'string' && /^0x[0-9a-f]+$/i.test(c) ? BigInt(c) : null;
        render();
      });
    }
  }

  async function connectWallet() {
    const eth = window.ethereum;
    $('bet-problem').textContent = '';
    try {
      const accts = await eth.request({ method: 'eth_requestAccounts' });
      const a = Array.isArray(accts) ? accts[0] : null;
      if (typeof a !== 'string' || !/^0x[0-9a-fA-F]{40}$/.test(a)) throw new Error('the wallet gave no account');
      S.account = a.toLowerCase();
      const c = await eth.request({ method: 'eth_chainId' });
      S.walletChain = typeof c === 'string' && /^0x[0-9a-f]+$/i.test(c) ? BigInt(c) : null;
    } catch (e) {
      $('bet-problem').textContent = 'Wallet: ' + (e && e.message ? e.message : String(e));
    }
    render();
  }

  /* The table's chain id ("evm:31337"), or null when it does not say. */
  function tableChainId() {
    const m = /^evm:([0-9]+)$/.exec(str(S.table && S.table.chain));
    return m ? BigInt(m[1]) : null;
  }

  function chainProblem() {
    const want = tableChainId();
    if (want === null || S.walletChain === null || want === S.walletChain) return null;
    return 'The wallet is on chain ' + S.walletChain + ', the table on chain ' + want + ': switch the wallet\'s network.';
  }

  function myRound() {
    if (!S.account) return null;
    for (const rs of S.rounds.values()) if (str(rs.player).toLowerCase() === S.account) return rs;
    return null;
  }

  /* The Bet the form describes: {value, data, pp, t3, stake} or {problem}. */
  function betFromForm() {
    const sb = sideBets();
    const read = (id, name) => {
      const s = $(id).value.trim();
      if (!DEC.test(s)) return { problem: name + ': whole ' + S.unit + ', digits only (no sign, no leading zero)' };
      return { v: BigInt(s) };
    };
    const st = read('bet-stake', 'Stake');
    if (st.problem) return st;
    const pp = sb.pp ? read('bet-pp', 'Perfect Pairs') : { v: 0n };
    if (pp.problem) return pp;
    const t3 = sb.t3 ? read('bet-t3', '21+3') : { v: 0n };
    if (t3.problem) return t3;
    const min = big(S.table.minBet);
    const max = big(S.table.maxBet);
    const stake = st.v;
    let problem = null;
    if (min !== null && stake < min) problem = 'The stake is below the table\'s minimum, ' + amount(S.table.minBet) + '.';
    else if (max !== null && stake > max) problem = 'The stake is above the table\'s maximum, ' + amount(S.table.maxBet) + '.';
    else if (pp.v > U64_MAX || t3.v > U64_MAX) problem = 'A side stake is above 2^64 - 1.';
    else if (pp.v > stake || t3.v > stake) problem = 'A side stake may not exceed the stake.';
    const value = stake + pp.v + t3.v;
    const data = pp.v > U64_MAX || t3.v > U64_MAX ? null : betPayload(pp.v, t3.v);
    return { stake, pp: pp.v, t3: t3.v, value, data, problem };
  }

  function renderBetForm() {
    if (S.family !== 'evm' || !S.table) return;
    const b = betFromForm();
    const preview = $('bet-preview');
    if (b.data) {
      replace(preview, 'to ', el('span', { class: 'mono' }, str(S.table.dealer)),
        ', value ', el('span', { class: 'mono', id: 'bet-value' }, b.value.toString()), ' ' + S.unit,
        ' (', el('span', { class: 'mono' }, hexValue(b.value)), '), data ',
        el('span', { class: 'mono', id: 'bet-data' }, b.data));
    } else {
      replace(preview);
    }
    let problem = b.problem || chainProblem();
    if (!problem && S.account && myRound()) problem = 'Your round is still open: a second Bet would be refunded (second_round).';
    if (!problem && S.pendingBet) problem = 'Waiting for your Bet ' + short(S.pendingBet.hash) + ' to show in a block.';
    $('bet-problem').textContent = problem || '';
    $('bet-send').disabled = !S.account || !!problem || !b.data;
    return b;
  }

  let myKey = null;

  function renderPlay() {
    if (S.family !== 'evm' || !S.table) return;
    const eth = window.ethereum;
    $('wallet').textContent = S.account ? 'Connected: ' + S.account
      : eth && typeof eth.request === 'function' ? '' : 'No browser wallet (window.ethereum) found.';
    $('sent').hidden = S.sent.length === 0;
    $('connect').textContent = S.account ? 'Reconnect wallet' : 'Connect wallet';
    renderBetForm();

    // The sent transactions
    replace($('txs'), S.sent.map((t) => el('li', { class: 'tx' },
      el('span', { class: 'what' }, t.what), ': ',
      el('span', { class: 'mono tx-hash' }, t.hash), ' — ',
      el('span', { class: 'tx-status' }, t.status))));

    // The connected player's open round, with one button per allowed action.
    // Rebuilt only when it changes, so that a click is never lost to a redraw.
    const rs = myRound();
    const id = rs ? str(rs.round).toLowerCase() : null;
    const pend = id ? S.pendingRound.get(id) : null;
    const pending = pend ? pend.hash : null;
    const key = JSON.stringify([S.account, rs, pending, S.tip, chainProblem()]);
    if (key === myKey) return;
    myKey = key;
    const box = $('my-round');
    if (!S.account) {
      replace(box);
      return;
    }
    if (!rs) {
      replace(box, el('p', { class: 'muted' }, 'You have no open round.'));
      return;
    }
    const buttons = arr(rs.actionValues).filter(isObj).map((a) => {
      const v = big(a.value);
      const b = el('button', { type: 'button', class: 'action', 'data-action': str(a.action) },
        actionName(a), v !== null && v > 0n ? ' (' + amount(a.value) + ')' : '');
      b.disabled = v === null || !!pending || !!chainProblem();
      b.addEventListener('click', () => sendAction(rs, a));
      return b;
    });
    replace(box,
      el('h3', null, 'Your round'),
      roundEl(rs),
      buttons.length ? el('div', { class: 'action-buttons' }, buttons)
        : el('p', { class: 'muted' }, 'Nothing to do now: waiting for cards or the dealer.'),
      pending ? el('p', { class: 'muted' }, 'Sent ' + short(pending) + '; waiting for it in a block.') : null);
  }

  async function sendTx(what, value, data) {
    const tx = { from: S.account, to: str(S.table.dealer), value: hexValue(value), data };
    const hash = await window.ethereum.request({ method: 'eth_sendTransaction', params: [tx] });
    if (typeof hash !== 'string' || !/^0x[0-9a-fA-F]{64}$/.test(hash)) throw new Error('the wallet returned no transaction hash');
    const h = hash.toLowerCase();
    S.sent.unshift({ hash: h, what, status: 'sent, value ' + value.toString() + ' ' + S.unit + ', data ' + data });
    S.sent.length = Math.min(S.sent.length, MAX_SENT);
    return h;
  }

  async function sendBet() {
    const b = betFromForm();
    if (!S.account || !b.data || b.problem || chainProblem()) return;
    $('bet-send').disabled = true;
    try {
      const what = 'Bet ' + b.stake + (b.pp > 0n ? ' + Perfect Pairs ' + b.pp : '') + (b.t3 > 0n ? ' + 21+3 ' + b.t3 : '');
      const h = await sendTx(what, b.value, b.data);
      S.pendingBet = { hash: h, tip: S.tip ?? 0 };
    } catch (e) {
      $('bet-problem').textContent = 'Not sent: ' + (e && e.message ? e.message : String(e));
      return;
    } finally {
      render();
    }
  }

  async function sendAction(rs, a) {
    const id = str(rs.round).toLowerCase();
    const v = big(a.value);
    if (v === null || S.pendingRound.has(id)) return;
    const pend = { hash: 'sending', tip: S.tip ?? 0 };
    S.pendingRound.set(id, pend);
    render();
    try {
      pend.hash = await sendTx(actionName(a), v, actionPayload(str(a.action), a.insurance === true));
    } catch (e) {
      S.pendingRound.delete(id);
      $('bet-problem').textContent = 'Not sent: ' + (e && e.message ? e.message : String(e));
    }
    render();
  }

  /* The Bitcoin family: the `hashjack player` command of each action. */
  function btcCommands(rs) {
    // The chain is "bitcoin:COIN:NETWORK:GENESIS" (the dealer's database).
    const m = /^bitcoin:[a-z0-9]+:[a-z0-9]+:([0-9a-f]{64})$/.exec(str(S.table.chain));
    const g = m ? m[1] : 'GENESIS';
    const seq = int(rs.seq) !== null ? String(rs.seq) : 'SEQ';
    const items = arr(rs.actionValues).filter(isObj).map((a) => {
      const name = str(a.action).toLowerCase();
      if (!/^(hit|stand|double|split|surrender|peek)$/.test(name)) return null;
      const cmd = 'hashjack player ' + name +
        (name === 'peek' ? ' --insurance ' + (a.insurance === true ? 'yes' : 'no') : '') +
        ' --key player.key --genesis ' + g + ' --round ' + str(rs.round) + ' --seq ' + seq;
      return el('li', null, el('code', { class: 'cmd' }, cmd),
        el('span', { class: 'pay' }, actionName(a) + ': pay ', amountEl(a.value), ' to the dealer with the payload'));
    });
    return el('div', { class: 'btc' }, el('strong', null, 'Commands'), el('ul', { class: 'cmds' }, items));
  }

  window.addEventListener('hashchange', route);
  load();
}());
