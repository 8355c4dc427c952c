/* hashjack's page: the table, its blocks as cards, every open round and
 * settlement, live from `hashjack serve` (docs/API.md), and on EVM a Bet
 * and each allowed action sent through the browser's wallet (EIP-1193).
 * Views: #/ (home), #/round/ID, #/player/ID, #/block/HEIGHT, #/rules (the
 * rules in words and the strategy chart), #/how (how to play).
 *
 * Plain JavaScript, no build step, nothing fetched from elsewhere; words.js
 * (HJW) holds the words and the arithmetic.  Every value from the server
 * (or a wallet) is untrusted: it reaches the page only through
 * textContent, attribute values set one by one and links built as "#/..."
 * here; never through innerHTML.  Amounts are base units as decimal
 * strings, handled with BigInt, never as floating point. */
'use strict';

(function () {
  // ------------------------------------------------------------------
  // State

  const MAX_BLOCKS = 24;        // cards in the strip
  const MAX_SETTLEMENTS = 40;   // settlements and side bets on the home view
  const MAX_SENT = 30;          // transactions listed under "Sent"
  const MAX_ENDED = 200;        // settled RoundStates kept
  const HEALTH_EVERY_MS = 5000; // /healthz asked again, and after each block

  const S = {
    table: null,
    family: null,               // "evm" or "bitcoin"
    u: HJW.unitOf('evm', ''),   // {coin, base, decimals}
    baseUnits: false,           // amounts shown in base units (the toggle)
    tip: null,                  // the highest card log height seen
    blocks: [],                 // log lines, newest first
    rounds: new Map(),          // open rounds: id -> RoundState
    ended: new Map(),           // id -> settled RoundState
    settlements: [],            // {height, ev} (settle and sidebets events), newest first
    account: null,              // the wallet's account, lower case
    walletChain: null,          // the wallet's chain id (BigInt) or null
    sent: [],                   // {hash, what, status}, newest first; what and status are
                                // lists of words and {amount} (drawn in the unit shown)
    pendingRound: new Map(),    // round id -> {hash, tip}: an action sent, its effect not seen yet
    pendingBet: null,           // {hash, tip}
    page: null,                 // the view's data; null on the home view
    ws: 'connecting',           // the stream: connecting, open, retry, offline
    wsText: 'connecting…',
    health: null,               // /healthz: {ok, height, age, maxAge, error, at}
  };

  try {
    S.baseUnits = window.localStorage.getItem('hj-base-units') === '1';
  } catch (e) {
    S.baseUnits = false;        // storage refused: the chain's unit
  }

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
  const HEIGHT_RE = /^(0|[1-9][0-9]{0,15})$/;
  const U64_MAX = 0xffffffffffffffffn;

  function big(s) {
    return typeof s === 'string' && DEC.test(s) ? BigInt(s) : null;
  }

  /* An amount (base units, a decimal string or a BigInt) in the unit the
   * toggle shows; `other` the other form, for the title. */
  function amountText(v, other) {
    const b = typeof v === 'bigint' ? v : /^-?(0|[1-9][0-9]*)$/.test(str(v)) ? BigInt(v) : null;
    if (b === null) return '?';
    const inBase = other ? !S.baseUnits : S.baseUnits;
    return inBase ? b.toString() + ' ' + S.u.base : HJW.coins(b, S.u.decimals) + ' ' + S.u.coin;
  }

  const amount = (v) => amountText(v, false);

  function amountEl(v, cls) {
    const t = amountText(v, false);
    return el('span', { class: 'amount' + (cls ? ' ' + cls : ''), title: t === '?' ? null : '= ' + amountText(v, true) }, t);
  }

  /* An amount typed in the form, in the unit shown. */
  function parseTyped(text) {
    return S.baseUnits ? HJW.parseAmount(text, 0, S.u.base) : HJW.parseAmount(text, S.u.decimals, S.u.coin);
  }

  /* A base-unit amount as the form takes it, in the unit shown. */
  function typedText(v) {
    return S.baseUnits ? v.toString() : HJW.coins(v, S.u.decimals);
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

  function blockLink(h, text) {
    if (int(h) === null || h < 0) return el('span', null, str(h));
    return el('a', { href: '#/block/' + h, class: 'block-link' }, text || 'block ' + h);
  }

  function txEl(tx) {
    return el('span', { class: 'mono tx', title: str(tx) }, short(tx));
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

  /* A card's code in text: "10♥". */
  function cardText(code) {
    const m = CODE_RE.exec(str(code));
    return m ? m[1] + SUITS[m[2]].sym : str(code);
  }

  function cardWord(code) {
    const m = CODE_RE.exec(str(code));
    return el('span', { class: 'card-word' + (m && SUITS[m[2]].red ? ' red' : '') }, cardText(code));
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

  /* "soft 17" or "hard 17" from the cards; the total as sent when the
   * cards do not say (an unknown code). */
  function totalText(cards, total) {
    const t = HJW.handTotal(arr(cards));
    if (!t || (int(total) !== null && t.best !== total)) return 'total ' + str(total);
    return (t.soft ? 'soft ' : 'hard ') + t.best;
  }

  // ------------------------------------------------------------------
  // The API

  async function api(path) {
    const r = await fetch(path, { headers: { Accept: 'application/json' }, cache: 'no-store' });
    let body = null;
    try {
      body = await r.json();
    } catch (e) {
      const err = new Error(path + ': HTTP ' + r.status + ', not JSON');
      err.status = r.status;
      throw err;
    }
    if (!r.ok) {
      const err = new Error(isObj(body) && typeof body.error === 'string' ? body.error : path + ': HTTP ' + r.status);
      err.status = r.status;
      throw err;
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
      t.status = ['accepted at block ' + h];
    } else if (ev.type === 'reject') {
      t.status = ['rejected at block ' + h + ': ' + str(ev.reason) + ', refund ', { amount: str(ev.refund) }];
      if (ev.round) S.pendingRound.delete(str(ev.round).toLowerCase());
    } else if (ev.type === 'deposit') {
      t.status = ['a deposit at block ' + h];
    } else if (ev.type === 'ignored') {
      t.status = ['ignored at block ' + h + ' (' + str(ev.reason) + ')'];
    }
    if (S.pendingBet && S.pendingBet.hash === t.hash) S.pendingBet = null;
    for (const [r, p] of S.pendingRound) if (p.hash === t.hash && ev.type !== 'action') S.pendingRound.delete(r);
  }

  function keepEnded(id, rs) {
    S.ended.delete(id);
    S.ended.set(id, rs);
    if (S.ended.size > MAX_ENDED) S.ended.delete(S.ended.keys().next().value);
  }

  function takeRound(rs, height) {
    if (!isObj(rs) || typeof rs.round !== 'string') return;
    const id = rs.round.toLowerCase();
    const prev = S.rounds.get(id) || S.ended.get(id);
    if (prev && int(prev.height) !== null && int(rs.height) !== null && rs.height < prev.height) return;
    if (rs.roundEnded === true) {
      S.rounds.delete(id);
      keepEnded(id, rs);
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

  /* The settled states of the settlements the first lines showed: a
   * settle event says no more than its results, the state also which
   * hands doubled.  One request at a time, each id once. */
  const asked = new Set();
  let fetchingEnded = false;

  async function fetchEnded() {
    if (fetchingEnded) return;
    fetchingEnded = true;
    try {
      for (;;) {
        const x = S.settlements.find((s) => s.ev.type === 'settle' && !S.ended.has(str(s.ev.round).toLowerCase()) &&
          !asked.has(str(s.ev.round).toLowerCase()));
        if (!x) break;
        const id = str(x.ev.round).toLowerCase();
        asked.add(id);
        try {
          const rs = await api('v1/rounds/' + encodeURIComponent(id));
          if (isObj(rs) && rs.roundEnded === true && !S.ended.has(id)) keepEnded(id, rs);
        } catch (e) {
          // The event alone is shown: no mark of a Double, nothing wrong.
        }
        render();
      }
    } finally {
      fetchingEnded = false;
    }
  }

  function onMessage(msg) {
    if (!isObj(msg)) return;
    if (msg.eventType === 'BlockUpdate') {
      takeLine(msg.data, true);
      healthSoon();
      // Payouts move (owed, submitted, confirmed) without a message of their own.
      if (S.page && S.page.payouts !== undefined && S.page.payouts !== null) refreshPageSoon();
      // A block page waiting for this block, a round page for its round.
      if (S.page && S.page.kind === 'block' && S.page.future && int(msg.height) !== null && msg.height >= S.page.height) {
        loadBlockPage(S.page);
      }
      if (S.page && S.page.kind === 'round' && S.page.missing) refreshPageSoon();
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

  function setWs(state, text) {
    S.ws = state;
    S.wsText = text;
    renderConn();
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
      setWs('open', 'connected');
      pollHealth();
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
    setWs('retry', 'reconnecting in ' + Math.ceil(delay / 1000) + ' s');
    retryTimer = setTimeout(connect, delay);
  }

  // ------------------------------------------------------------------
  // The dealer's progress: "live" only while its last block is recent
  // (/healthz: the card log's age against max_age), else "stalled since
  // block N".  The age is counted on between two answers.

  let healthTimer = null;
  let healthBusy = false;

  async function pollHealth() {
    if (healthBusy) return;
    healthBusy = true;
    try {
      const r = await fetch('healthz', { headers: { Accept: 'application/json' }, cache: 'no-store' });
      const b = await r.json();
      if (isObj(b)) {
        S.health = {
          ok: b.ok === true,
          height: int(b.height),
          age: typeof b.ageSeconds === 'number' && b.ageSeconds >= 0 ? b.ageSeconds : null,
          maxAge: int(b.maxAgeSeconds),
          error: str(b.error),
          at: performance.now(),
        };
      }
    } catch (e) {
      S.health = null;          // the stream's state says what is wrong
    } finally {
      healthBusy = false;
    }
    renderConn();
  }

  function healthSoon() {
    if (healthTimer) return;
    healthTimer = setTimeout(() => {
      healthTimer = null;
      pollHealth();
    }, 200);
  }

  /* {cls, text, title} of the dealer's progress as last heard. */
  function progress() {
    if (S.ws !== 'open') return { cls: 'down', text: S.wsText, title: 'the stream of hashjack serve is not connected' };
    const h = S.health;
    if (!h) return { cls: 'wait', text: 'connected', title: 'asking /healthz' };
    if (h.height === null) return { cls: 'down', text: 'dealer not loaded', title: h.error };
    const age = h.age === null ? null : h.age + (performance.now() - h.at) / 1000;
    const max = h.maxAge;
    const written = age === null ? '' : ', written ' + Math.floor(age) + ' s ago';
    if ((max !== null && age !== null && age > max) || (!h.ok && h.age !== null && max !== null && h.age > max)) {
      return {
        cls: 'stalled',
        text: 'stalled since block ' + h.height,
        title: 'the dealer\'s last block, ' + h.height + written + ', more than max_age (' + max + ' s): ' +
          'the dealer is not dealing (stopped, or its node is behind)',
      };
    }
    if (!h.ok) return { cls: 'down', text: 'not following', title: h.error };
    return {
      cls: 'live',
      text: 'live',
      title: 'the dealer\'s last block, ' + h.height + written + (max !== null ? '; stalled after ' + max + ' s without one' : ''),
    };
  }

  function renderConn() {
    const p = progress();
    const c = $('conn');
    c.className = 'conn ' + p.cls;
    c.textContent = p.text;
    c.title = p.title || '';
    const d = $('progress');
    if (d) {
      const h = S.health;
      const age = h && h.age !== null ? Math.floor(h.age + (performance.now() - h.at) / 1000) : null;
      replace(d, el('span', { class: 'conn-word ' + p.cls }, p.text),
        h && h.height !== null ? [': last block ', blockLink(h.height, String(h.height)),
          age !== null ? ', written ' + age + ' s ago' : '',
          h.maxAge !== null ? ' (stalled after ' + h.maxAge + ' s without a block)' : ''] : '');
    }
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
      S.u = HJW.unitOf(S.family, str(table.chain));
      setTip(isObj(table.lastBlock) ? int(table.lastBlock.height) : null);
      const blocks = await api('v1/blocks?last=' + MAX_BLOCKS);
      for (const line of listOf(blocks, 'blocks')) takeLine(line, false);
      const rounds = await api('v1/rounds');
      for (const rs of listOf(rounds, 'open', 'rounds')) takeRound(rs, int(rounds.height));
      showError(null);
    } catch (e) {
      showError('Cannot reach the dealer\'s API: ' + e.message);
      setWs('offline', 'offline');
      const delay = Math.min(30000, 1000 * 2 ** Math.min(loadAttempts++, 5));
      setTimeout(load, delay);
      return;
    }
    setupUnits();
    setupPlay();
    render();
    route();
    connect();
    fetchEnded();
    setInterval(pollHealth, HEALTH_EVERY_MS);
    setInterval(renderConn, 1000);
  }

  // ------------------------------------------------------------------
  // The unit toggle: the chain's unit or base units, for every amount

  function setupUnits() {
    $('unit-coin').textContent = S.u.coin;
    $('unit-base').textContent = S.u.base;
    $('units').hidden = false;
    const set = (base) => {
      if (base === S.baseUnits) return;
      // The form's amounts stay the same amounts, written in the new unit.
      const typed = ['bet-stake', 'bet-pp', 'bet-t3'].map((id) => [id, parseTyped($(id).value)]);
      S.baseUnits = base;
      for (const [id, t] of typed) if (t.value !== undefined) $(id).value = typedText(t.value);
      try {
        window.localStorage.setItem('hj-base-units', base ? '1' : '0');
      } catch (e) {
        // not kept across loads: nothing else changes
      }
      render();
    };
    $('unit-coin').addEventListener('click', () => set(false));
    $('unit-base').addEventListener('click', () => set(true));
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
      renderConn();
    });
  }

  function renderTop() {
    $('tip').textContent = S.tip === null ? 'block …' : 'block ' + S.tip;
    // A Bitcoin-family chain id ends with the genesis hash: too long for the bar.
    $('chain').textContent = S.table ? str(S.table.chain).replace(/:[0-9a-f]{64}$/, '') : '';
    $('unit-coin').setAttribute('aria-pressed', String(!S.baseUnits));
    $('unit-base').setAttribute('aria-pressed', String(S.baseUnits));
    const v = S.page ? S.page.kind : 'home';
    for (const a of document.querySelectorAll('#nav a')) {
      if (a.dataset.view === v) a.setAttribute('aria-current', 'page');
      else a.removeAttribute('aria-current');
    }
  }

  function renderTable() {
    const t = S.table;
    if (!t) return;
    const rows = [];
    const add = (k, ...v) => rows.push(el('dt', null, k), el('dd', null, ...v));
    add('Chain', str(t.chain) + ' (' + S.family + ', amounts in ' + S.u.coin + ', base unit ' + S.u.base + ')');
    add('Dealer', el('span', { class: 'mono', id: 'dealer' }, str(t.dealer)));
    add('Dealer\'s progress', el('span', { id: 'progress' }));
    add('Rules', isObj(t.rules) ? str(t.rules.preset) : '', ' (', el('a', { href: '#/rules' }, 'the rules in words, the strategy chart'),
      '; ', el('a', { href: '#/how' }, 'how to play'), ')');
    add('House edge', str(t.houseEdgePercent) + ' %');
    if (t.perfectPairsEdgePercent !== undefined) add('Perfect Pairs edge', str(t.perfectPairsEdgePercent) + ' %');
    if (t.pokerEdgePercent !== undefined) add('21+3 edge', str(t.pokerEdgePercent) + ' %');
    add('Bets', amountEl(t.minBet, 'min-bet'), ' to ', amountEl(t.maxBet, 'max-bet'));
    add('Bankroll limit', t.maxExposure === '0' || t.maxExposure === undefined ? 'none' : amountEl(t.maxExposure));
    if (t.exposure !== undefined) add('At stake', amountEl(t.exposure), ' (worst case of the open rounds)');
    add('Timeout', str(t.timeoutBlocks) + ' blocks');
    if (t.confirmations !== undefined) add('Confirmations', str(t.confirmations));
    if (isObj(t.rules) && t.rules.cards === 'committed') add('Cards', chainsSummary(t));
    const lb = isObj(t.lastBlock) ? t.lastBlock : {};
    add('Last block', el('span', { id: 'last-block' }, int(lb.height) !== null ? blockLink(lb.height, String(lb.height)) : ''), ' ',
      el('span', { class: 'mono muted', title: str(lb.hash) }, short(lb.hash)));
    replace($('table'), rows);
  }

  const TAG_ORDER = ['action', 'draw', 'peek', 'skip', 'sidebets', 'reject', 'commit', 'timeout', 'settle', 'deposit', 'ignored'];

  /* Committed cards: the chain in force and the scheduled ones, short. */
  function chainsSummary(t) {
    const cs = arr(t.chains).filter(isObj);
    const now = cs.find((c) => c.inForce === true);
    const later = cs.filter((c) => c.inForce !== true);
    return el('span', { id: 'cards-summary' }, 'committed: ',
      now ? ['the seed chain of blocks ' + str(now.start) + ' to ' + (int(now.start) + int(now.length) - 1) + ', ' +
        str(now.seedsLeft) + ' seeds left'] : 'no seed chain in force (every block is void)',
      later.length ? '; scheduled from block ' + later.map((c) => str(c.start)).join(', ') : '',
      ' (', el('a', { href: '#/rules' }, 'the chains'), ')');
  }

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
    const at = S.page && S.page.kind === 'block' ? S.page.height : null;
    const items = S.blocks.map((line) => {
      const face = line.void === true || !isObj(line.card)
        ? backEl('void', 'block ' + line.height + ': void, no card')
        : cardEl(line.card.code, 'block ' + line.height);
      const tags = blockTags(line);
      return el('li', { class: 'block' + (at === line.height ? ' current' : '') },
        el('a', {
          href: '#/block/' + line.height,
          class: 'block-open',
          title: 'block ' + line.height + ' ' + str(line.hash) + ': open its card and events',
          'aria-current': at === line.height ? 'page' : null,
        },
        face,
        el('span', { class: 'height' }, '#' + line.height),
        el('span', { class: 'tags' }, tags)));
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
        ended ? ['settled', int(rs.settledAt) !== null ? [' at ', blockLink(rs.settledAt)] : null]
          : ['open', int(rs.betHeight) !== null ? [', Bet at ', blockLink(rs.betHeight)] : null]));

    const dh = isObj(rs.dealerHand) ? rs.dealerHand : {};
    const dealer = el('div', { class: 'hand dealer' },
      el('h4', null, 'Dealer'),
      cardsEl(dh.cards),
      arr(dh.cards).length ? el('div', { class: 'line' }, el('span', { class: 'total' }, totalText(dh.cards, dh.total))) : null,
      rs.peekNoBlackjack === true ? el('div', { class: 'line' }, 'peeked: no blackjack') : null);

    const hands = arr(rs.playerHands).filter(isObj).map((h) => {
      const acting = active && int(rs.handIndex) !== null && rs.handIndex === h.handIndex;
      const doubled = h.doubled === true || h.status === 'Double';
      return el('div', { class: 'hand player' + (acting ? ' acting' : '') + (doubled ? ' doubled' : '') },
        el('h4', null, 'Hand ' + str(h.handIndex), h.isSplit === true ? ' (split)' : '',
          doubled ? [' ', el('span', { class: 'mark' }, 'doubled')] : '', acting ? ' ◀ to act' : ''),
        cardsEl(h.cards),
        arr(h.cards).length ? el('div', { class: 'line' }, el('span', { class: 'total' }, totalText(h.cards, h.total))) : null,
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
          int(rs.drawsFrom) !== null ? [' (from ', blockLink(rs.drawsFrom), ')'] : '');
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
          (net > 0n ? '+' : '') + amount(net)));
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

  /* The default action of a round awaiting one (docs/PROTOCOL.md section
   * 6): a Peek without insurance where a Peek is due (it is then the only
   * action offered), else a Stand of the hand to act. */
  function defaultAction(rs) {
    if (arr(rs.nextActions).includes('Peek')) return 'Peek without insurance';
    return 'Stand' + (int(rs.handIndex) !== null ? ' on hand ' + rs.handIndex : '');
  }

  /* The action window against the last block the log has. */
  function windowEl(rs) {
    const w = int(rs.windowOpen);
    const t = int(rs.timeoutAt);
    const tip = S.tip;
    const dflt = el('span', { class: 'default-action' }, defaultAction(rs));
    if (tip === null || t === null) return el('span', null, 'until block ' + str(rs.timeoutAt), '; then ', dflt, ' by default');
    const left = t - tip;
    const open = w === null || w <= tip + 1;
    return el('span', { class: 'window' },
      el('span', { class: 'blocks-left' }, String(Math.max(0, left))), ' blocks left (window ',
      open ? 'open' : ['opens at ', blockLink(w)], ' until ', blockLink(t),
      '; then by default ', dflt, ', at the end of block ' + t + ')');
  }

  function settlementEl(x) {
    const ev = x.ev;
    if (ev.type === 'settle') {
      const rs = S.ended.get(str(ev.round).toLowerCase());
      return el('li', { class: 'settlement' },
        roundEl(rs || Object.assign({}, ev, { roundEnded: true, settledAt: x.height })));
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
          el('span', null, 'player ', playerLink(ev.player)),
          el('span', { class: 'state' }, 'settled at ', blockLink(x.height))),
        el('ul', null, parts)));
  }

  // ------------------------------------------------------------------
  // Views: #/, #/round/ID, #/player/ID, #/block/H, #/rules, #/how

  function route() {
    const h = location.hash.replace(/^#\/?/, '');
    if (h === 'rules' || h === 'how') {
      S.page = { kind: h };
      render();
      $('view').scrollIntoView();
      return;
    }
    const m = /^(round|player|block)\/(.*)$/.exec(h);
    if (!m) {
      S.page = null;
      render();
      return;
    }
    let id;
    try {
      id = decodeURIComponent(m[2]).toLowerCase();
    } catch (e) {
      id = m[2];
    }
    // payouts: undefined (none to ask), null (asked), an array or an error
    S.page = { kind: m[1], id, rs: null, data: null, payouts: undefined, error: null, missing: false };
    const p = S.page;
    if (m[1] === 'block') {
      p.height = HEIGHT_RE.test(id) ? Number(id) : null;
      if (p.height === null) p.error = 'Not a block height: "' + id + '". A block is named by its height, a decimal number.';
      else loadBlockPage(p);
    } else if (!ID_RE.test(id)) {
      p.error = m[1] === 'round'
        ? 'Not a round id: "' + id + '". A round is named by its Bet\'s transaction id' +
          (S.family === 'evm' ? ' (0x and 64 hex digits).' : ' (64 hex digits).')
        : 'Not a player id: "' + id + '". A player is named by ' +
          (S.family === 'evm' ? 'an address (0x and 40 hex digits).' : 'its key P (64 hex digits) or its payout address.');
    } else if (m[1] === 'round') {
      p.payouts = null;
      loadRoundPage(p);
    } else {
      p.payouts = null;
      loadPlayerPage(p);
    }
    render();
    $('view').scrollIntoView();
  }

  /* A server's message as a sentence. */
  function sentence(msg) {
    const s = str(msg);
    return s.charAt(0).toUpperCase() + s.slice(1) + (/[.!?]$/.test(s) ? '' : '.');
  }

  /* A round or player page whose id the API refused (400): nothing more
   * to ask. */
  function notAnId(p) {
    p.payouts = undefined;
    render();
  }

  /* The payouts of the page's round or player (by: the API's filter,
   * "round" or "recipient"), then the page drawn again. */
  async function loadPayouts(p, by) {
    try {
      const pay = await api('v1/payouts?' + by + '=' + encodeURIComponent(p.id));
      if (S.page === p) p.payouts = listOf(pay, 'payouts');
    } catch (e) {
      if (S.page === p) p.payouts = e.message;
    }
    render();
  }

  async function loadRoundPage(p) {
    try {
      const rs = await api('v1/rounds/' + encodeURIComponent(p.id));
      if (S.page !== p) return;
      if (!p.rs || (int(rs.height) ?? 0) >= (int(p.rs.height) ?? 0)) p.rs = rs;
      p.error = null;
      p.missing = false;
    } catch (e) {
      if (S.page !== p) return;
      if (!p.rs) {
        p.error = sentence(e.message);
        // An unknown round may yet come (a Bet not dealt yet): ask again with each block.
        p.missing = e.status === 404;
      }
      if (e.status === 400) return notAnId(p);
    }
    return loadPayouts(p, 'round');
  }

  async function loadPlayerPage(p) {
    try {
      const d = await api('v1/players/' + encodeURIComponent(p.id));
      if (S.page === p) {
        p.data = d;
        p.error = null;
        p.missing = false;
      }
    } catch (e) {
      if (S.page !== p) return;
      p.error = sentence(e.message);
      p.missing = e.status === 404;
      if (e.status === 400) return notAnId(p);
    }
    return loadPayouts(p, 'recipient');
  }

  async function loadBlockPage(p) {
    p.future = false;
    try {
      const line = await api('v1/blocks/' + p.height);
      if (S.page !== p) return;
      p.line = line;
      p.error = null;
    } catch (e) {
      if (S.page !== p) return;
      if (e.status === 404 && S.tip !== null && p.height > S.tip) {
        p.future = true;
        p.error = 'Block ' + p.height + ' is not dealt yet: the dealer\'s last block is ' + S.tip +
          '. This page shows it once the dealer has dealt it.';
      } else {
        p.error = sentence(e.message);
      }
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
      if (p && p.kind === 'player' && p.payouts !== undefined) loadPlayerPage(p);
      else if (p && p.kind === 'round' && p.payouts !== undefined) loadRoundPage(p);
    }, 1000);
  }

  function payoutsEl(rows) {
    if (rows === undefined) return null;
    if (rows === null) return el('p', { class: 'muted' }, 'loading payouts…');
    if (typeof rows === 'string') return el('p', { class: 'error' }, 'payouts: ' + rows);
    if (!rows.length) return el('p', { class: 'muted' }, 'no payouts');
    const cols = [
      ['kind', 'Kind'], ['state', 'State'], ['amount', 'Amount'], ['round', 'Round'], ['handIndex', 'Hand'],
      ['recipient', 'Recipient'], ['submittedTxid', 'Transaction'], ['confirmedHeight', 'Confirmed at'],
    ];
    const cell = (r, c) => {
      const v = r[c];
      const cls = 'col-' + c;
      if (v === null || v === undefined || v === '') return el('td', { class: cls }, '');
      if (c === 'round') return el('td', { class: cls }, roundLink(v));
      if (c === 'amount') return el('td', { class: cls }, amountEl(v));
      if (c === 'recipient') return el('td', { class: cls }, str(v) === 'unattributed' ? 'unattributed' : playerLink(v));
      if (c === 'submittedTxid') return el('td', { class: cls }, txEl(v));
      if (c === 'confirmedHeight') return el('td', { class: cls }, blockLink(v));
      // Paid or in flight for a block that left the chain (a rewind after a
      // deep reorganisation): the dealer's loss unless the new chain owes
      // the same again.
      if (c === 'state' && r.orphaned !== null && r.orphaned !== undefined) {
        return el('td', { class: cls }, str(v), ' ', el('span', { class: 'orphaned' },
          '(orphaned: its block left the chain; rewound to ', blockLink(r.orphaned), ')'));
      }
      return el('td', { class: cls }, str(v));
    };
    return el('div', { class: 'scroll' }, el('table', { class: 'rows payouts' },
      el('thead', null, el('tr', null, cols.map(([, name]) => el('th', null, name)))),
      el('tbody', null, rows.filter(isObj).map((r) => el('tr', null, cols.map(([c]) => cell(r, c)))))));
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
    if (p.kind === 'rules') {
      replace(v, back, rulesView());
      return;
    }
    if (p.kind === 'how') {
      replace(v, back, howView());
      return;
    }
    if (p.kind === 'block') {
      replace(v, back, blockView(p));
      return;
    }
    if (p.kind === 'round') {
      replace(v, back, el('h2', null, 'Round'),
        p.rs ? roundEl(p.rs, { fullId: true })
          : p.error ? el('p', { class: 'error', id: 'view-error' }, p.error, p.missing
            ? ' A round appears once the block of its Bet is dealt: this page looks again at every block.' : '')
            : el('p', { class: 'muted' }, 'loading…'),
        p.payouts !== undefined ? [el('h3', null, 'Payouts'), payoutsEl(p.payouts)] : null);
      return;
    }
    const d = isObj(p.data) ? p.data : null;
    const recent = d ? arr(d.recent).filter(isObj) : [];
    const none = d || p.error ? 'none' : 'loading…';
    replace(v, back,
      el('h2', null, 'Player ', el('span', { class: 'mono player-id' }, p.id)),
      p.error ? el('p', { class: 'error', id: 'view-error' }, p.error, p.missing
        ? ' This player has not bet at this table (or not within the card log this server reads).' : '') : null,
      p.payouts !== undefined ? [
        el('h3', null, 'Open round'),
        d && isObj(d.open) ? roundEl(S.rounds.get(str(d.open.round).toLowerCase()) || d.open)
          : el('p', { class: 'muted' }, none),
        el('h3', null, 'Recent rounds'),
        recent.length ? el('div', { class: 'rounds', id: 'recent-rounds' }, recent.map((rs) => roundEl(rs)))
          : el('p', { class: 'muted' }, none),
        el('h3', null, 'Payouts'), payoutsEl(p.payouts)] : null);
  }

  // ------------------------------------------------------------------
  // The block view: its hash, its card worked out, each event in words

  function blockView(p) {
    const title = el('h2', null, 'Block ' + (p.height !== null ? p.height : ''));
    if (p.error) return [title, el('p', { class: p.future ? 'muted' : 'error', id: 'view-error' }, p.error)];
    if (!p.line) return [title, el('p', { class: 'muted' }, 'loading…')];
    const line = p.line;
    const h = int(line.height);
    const nav = el('p', { class: 'block-nav' },
      h > 0 ? el('a', { href: '#/block/' + (h - 1), class: 'prev' }, '← block ' + (h - 1)) : null,
      h > 0 && S.tip !== null && h < S.tip ? ' · ' : null,
      S.tip !== null && h < S.tip ? el('a', { href: '#/block/' + (h + 1), class: 'next' }, 'block ' + (h + 1) + ' →') : null);
    const committed = isObj(S.table) && isObj(S.table.rules) && S.table.rules.cards === 'committed';
    const c = HJW.cardOfHash(line.hash);
    const facts = [];
    const fact = (k, ...v) => facts.push(el('dt', null, k), el('dd', null, ...v));
    // Under committed cards the hash's own digits make no card: no marks.
    fact('Hash', c && !committed ? hashEl(line.hash, c) : el('span', { class: 'mono' }, str(line.hash)));
    fact('Parent', h > 0 ? el('a', { href: '#/block/' + (h - 1), class: 'mono parent' }, str(line.parent))
      : el('span', { class: 'mono' }, str(line.parent)));
    const logCard = line.void === true || !isObj(line.card) ? null : line.card;
    fact('Card', logCard ? [cardEl(logCard.code), ' ', el('span', { class: 'card-name' }, cardName(logCard.code))]
      : [backEl('void'), ' ', el('span', { class: 'card-name' }, 'void: no card')]);
    if (committed || line.seed !== undefined) {
      fact('Seed', typeof line.seed === 'string' ? el('span', { class: 'mono', id: 'seed' }, line.seed)
        : el('span', { class: 'muted', id: 'seed' }, 'none: no seed chain was in force at this block, so it is void'));
    }
    if (committed) return [title, nav, el('dl', { class: 'facts block-facts' }, facts), committedCard(p, logCard), eventsOf(line)];

    // The log's card against the hash's, as anyone can work it out.
    let mismatch = null;
    if (!c) mismatch = 'The hash is not 64 hex digits: its card cannot be worked out here.';
    else if (c.void !== (logCard === null) || (logCard && (logCard.code !== c.code || logCard.pos !== c.pos ||
      logCard.rankDigit !== c.rankDigit || logCard.colorDigit !== c.colorDigit))) {
      mismatch = 'The card log\'s card differs from the one this hash makes.';
    }
    return [title, nav,
      el('dl', { class: 'facts block-facts' }, facts),
      el('h3', null, 'How its hash makes its card'),
      el('p', { class: 'muted' }, 'docs/PROTOCOL.md section 2: from the right, skip every 0, e and f; the first other ' +
        'digit (never the first digit) is the rank digit, its left neighbour the color digit, whose value mod 4 is ' +
        'the suit (0 Clubs, 1 Diamonds, 2 Hearts, 3 Spades). As ', el('code', null, 'hashjack card HASH'), ' says it:'),
      c ? el('pre', { class: 'derivation', id: 'derivation' }, c.lines.join('\n')) : null,
      c && !c.void ? el('p', { class: 'muted hash-key' }, 'In the hash above: ', el('span', { class: 'mono hash' },
        el('span', { class: 'skipped' }, 'skipped')), ' digits, the ', el('span', { class: 'mono hash' },
        el('span', { class: 'rank-digit' }, 'rank digit')), ', the ', el('span', { class: 'mono hash' },
        el('span', { class: 'color-digit' }, 'color digit')), '.') : null,
      mismatch ? el('p', { class: 'error' }, mismatch) : null,
      eventsOf(line)];
  }

  /* A block's events in words and the rounds it touched. */
  function eventsOf(line) {
    const evs = arr(line.events).filter(isObj);
    const touched = [];
    for (const ev of evs) if (typeof ev.round === 'string' && !touched.includes(ev.round)) touched.push(ev.round);
    return [el('h3', null, 'What it did (' + evs.length + (evs.length === 1 ? ' event' : ' events') + ')'),
      evs.length ? el('ol', { class: 'events', id: 'events' }, evs.map((ev) => eventEl(ev, line)))
        : el('p', { class: 'muted', id: 'no-events' }, 'Nothing: no round drew from this block and no transaction to the dealer was in it.'),
      touched.length ? [el('h3', null, 'Rounds it touched'),
        el('ul', { class: 'touched', id: 'touched' }, touched.map((r) => el('li', null, roundLink(r, r))))] : null];
  }

  // ------------------------------------------------------------------
  // Committed cards (docs/PROTOCOL.md section 15): how a block's card is
  // made, and the card checked here with Web Crypto, no library

  const HEX64 = /^(?:0x)?([0-9a-fA-F]{64})$/;
  const hexBytes = (h) => Uint8Array.from(h.match(/../g), (x) => parseInt(x, 16));
  const bytesHex = (b) => Array.from(new Uint8Array(b), (x) => x.toString(16).padStart(2, '0')).join('');

  /* Why the check cannot run in this browser, or null: Web Crypto's
   * subtle is there only on secure pages. */
  function noCrypto() {
    if (window.isSecureContext && window.crypto && window.crypto.subtle) return null;
    return 'This browser gives Web Crypto only to secure pages (https://, or http://127.0.0.1 and http://localhost), ' +
      'and this page is ' + location.origin + ': check it with the commands below instead.';
  }

  /* The chain of /v1/table that deals block h, the latest listed first. */
  function chainOf(h) {
    const cs = isObj(S.table) ? arr(S.table.chains).filter(isObj) : [];
    for (let i = cs.length - 1; i >= 0; i--) {
      const c = cs[i];
      if (int(c.start) !== null && int(c.length) !== null && h >= c.start && h < c.start + c.length) return c;
    }
    return null;
  }

  function committedCard(p, logCard) {
    const line = p.line;
    const h = int(line.height);
    const seeded = typeof line.seed === 'string';
    const why = noCrypto();
    const hash = HEX64.exec(str(line.hash));
    const seedText = p.seedText !== undefined ? p.seedText : str(line.seed);
    const k = p.check;
    const out = [el('h3', null, 'How its card is made'),
      el('p', { class: 'muted', id: 'card-how' }, 'This table deals committed cards (docs/PROTOCOL.md section 15): the card ' +
        'is not read from the block hash\'s digits but from HMAC-SHA256 of the hash\'s 32 bytes keyed with the block\'s ' +
        'seed, which the dealer committed on chain before the block existed and reveals in its card log once the block ' +
        'is final. The 64 hex digits of that HMAC are read as docs/PROTOCOL.md section 2 reads a hash: from the right, ' +
        'skip every 0, e and f; the first other digit (never the first digit) is the rank digit, its left neighbour the color digit, ' +
        'whose value mod 4 is the suit (0 Clubs, 1 Diamonds, 2 Hearts, 3 Spades). SHA-256 of a block\'s seed is the ' +
        'seed of the block before it under the same chain, or the chain\'s commitment for its first block.')];
    if (!seeded) {
      out.push(el('p', { class: 'muted', id: 'check-none' }, 'This block has no seed: no chain was in force at it (or it ' +
        'is past its chain\'s last seed), so it yields no card.'));
      return out;
    }
    const input = el('input', { id: 'check-seed', class: 'mono', size: '66', spellcheck: 'false', value: seedText });
    input.addEventListener('input', () => { p.seedText = input.value; });
    const button = el('button', { id: 'check-card', type: 'button', disabled: why ? '' : null,
      title: why || 'Work the card out in this browser' }, 'Check this card');
    button.addEventListener('click', () => checkCard(p));
    out.push(el('h3', null, 'Check this card'),
      el('p', { class: 'check-form' }, el('label', { for: 'check-seed' }, 'Seed '), input, ' ', button),
      why ? el('p', { class: 'muted', id: 'check-why' }, why) : null,
      why && hash ? el('pre', { class: 'derivation', id: 'check-commands' },
        "python3 -c 'import hashlib,hmac; print(hmac.new(bytes.fromhex(\"" + seedText + "\"), bytes.fromhex(\"" +
        hash[1].toLowerCase() + "\"), hashlib.sha256).hexdigest())'\nhashjack card HMAC") : null);
    if (k && k.height === h) {
      if (k.problem) {
        out.push(el('p', { class: 'error', id: 'check-card-result' }, k.problem));
      } else {
        out.push(el('dl', { class: 'facts' },
          el('dt', null, 'HMAC'), el('dd', null, k.card ? hashEl(k.hmac, k.card) : el('span', { class: 'mono' }, k.hmac))),
        el('pre', { class: 'derivation', id: 'check-derivation' }, k.card ? k.card.lines.join('\n') : ''),
        el('p', { class: k.agrees ? 'ok' : 'error', id: 'check-card-result' }, k.agrees
          ? 'Agrees: this seed and this hash make ' + (logCard ? cardName(logCard.code) : 'no card') + ', the card log\'s card.'
          : 'Does not agree: this seed and this hash make ' + (k.card && !k.card.void ? cardName(k.card.code) : 'no card') +
            ', the card log says ' + (logCard ? cardName(logCard.code) : 'no card') + '.'),
        el('p', { class: k.chainOk === true ? 'ok' : k.chainOk === false ? 'error' : 'muted', id: 'check-chain-result' },
          k.chainText));
      }
    }
    return out;
  }

  async function checkCard(p) {
    const line = p.line;
    const h = int(line.height);
    const seed = str(p.seedText !== undefined ? p.seedText : line.seed).trim().toLowerCase();
    const hash = HEX64.exec(str(line.hash));
    const k = { height: h };
    const logCard = line.void === true || !isObj(line.card) ? null : line.card;
    if (!/^[0-9a-f]{64}$/.test(seed)) k.problem = 'A seed is 64 hex digits (32 bytes), without 0x.';
    else if (!hash) k.problem = 'The block hash is not 64 hex digits.';
    if (k.problem) {
      p.check = k;
      render();
      return;
    }
    try {
      const key = await crypto.subtle.importKey('raw', hexBytes(seed), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
      k.hmac = bytesHex(await crypto.subtle.sign('HMAC', key, hexBytes(hash[1].toLowerCase())));
      k.card = HJW.cardOfHash(k.hmac);
      k.agrees = k.card !== null && (k.card.void ? logCard === null : logCard !== null && logCard.code === k.card.code &&
        logCard.pos === k.card.pos && logCard.rankDigit === k.card.rankDigit && logCard.colorDigit === k.card.colorDigit);
      const down = bytesHex(await crypto.subtle.digest('SHA-256', hexBytes(seed)));
      const chain = chainOf(h);
      if (chain && h === chain.start) {
        k.chainOk = down === str(chain.commitment);
        k.chainText = 'SHA-256 of the seed ' + (k.chainOk ? 'is' : 'is not') + ' the commitment of the chain that starts at ' +
          'this block (' + str(chain.commitment) + ', its Commit in block ' + str(chain.height) + ').';
      } else {
        let prev = null;
        try {
          prev = h > 0 ? await api('v1/blocks/' + (h - 1)) : null;
        } catch (e) {
          prev = null;
        }
        if (isObj(prev) && typeof prev.seed === 'string') {
          k.chainOk = down === prev.seed;
          k.chainText = k.chainOk ? 'SHA-256 of the seed is the seed of block ' + (h - 1) + ': the same chain.'
            : 'SHA-256 of the seed (' + down + ') is not the seed of block ' + (h - 1) + ': unless a new chain starts at ' +
              'this block, this is not the committed seed.';
        } else {
          k.chainOk = null;
          k.chainText = 'SHA-256 of the seed is ' + down + '; block ' + (h - 1) + '\'s seed is not at hand here' +
            (isObj(prev) ? ' (it has none: compare with the commitment of the chain that starts at this block)' : '') + '.';
        }
      }
    } catch (e) {
      k.problem = 'Web Crypto failed: ' + str(e && e.message);
    }
    if (S.page === p) {
      p.check = k;
      render();
    }
  }

  function cardName(code) {
    const m = CODE_RE.exec(str(code));
    return m ? RANK_NAMES[m[1]] + ' of ' + SUITS[m[2]].name + ' (' + code + ')' : str(code);
  }

  /* The hash with its skipped digits, rank digit and color digit marked. */
  function hashEl(hash, c) {
    const s = str(hash);
    const pre = s.length === 66 ? s.slice(0, 2) : '';
    const parts = [pre];
    for (let i = 0; i < 64; i++) {
      const cls = c.void ? null : i === c.pos ? 'rank-digit' : i === c.pos - 1 ? 'color-digit' : i > c.pos ? 'skipped' : null;
      parts.push(cls ? el('span', { class: cls, title: cls.replace('-', ' ') + ' at position ' + i }, c.digits[i]) : c.digits[i]);
    }
    return el('span', { class: 'mono hash' }, parts);
  }

  const STATUS_WORDS = {
    Blackjack: 'blackjack', Win: 'win', Push: 'push', Lose: 'lose', Bust: 'bust', Surrender: 'surrender',
    DealerBlackjack: 'dealer blackjack, the original bet lost',
  };

  /* One event of the card log (docs/LOG.md) in words, its rounds and
   * players linked. */
  function eventEl(ev, line) {
    const t = str(ev.type);
    const rl = () => roundLink(ev.round);
    const hand = (i) => (int(i) !== null ? 'hand ' + i : 'the hand');
    let words;
    switch (t) {
      case 'draw':
        words = [cardWord(ev.card), ev.handOwner === 'Dealer' ? ' to the dealer' : [' to ', hand(ev.handIndex)], ' of round ', rl()];
        break;
      case 'peek':
        words = [cardWord(ev.card), ' is the peek card of round ', rl(), ev.dealerBlackjack === true
          ? ': a dealer blackjack; it is the dealer\'s second card' : ': no dealer blackjack; it is set aside'];
        break;
      case 'skip':
        words = [cardWord(ev.card), ' passed over for the dealer\'s second card of round ', rl(),
          ' (it would make a blackjack, which the peek ruled out)'];
        break;
      case 'sidebets': {
        const sb = [];
        for (const [k, name] of [['perfectPairs', 'Perfect Pairs'], ['poker', '21+3']]) {
          if (isObj(ev[k])) sb.push([sb.length ? '; ' : '', name + ' ', amountEl(ev[k].betAmount), ': ' + str(ev[k].status) + ', payout ', amountEl(ev[k].payout)]);
        }
        words = ['side bets of round ', rl(), ' settled: ', sb];
        break;
      }
      case 'action': {
        const a = str(ev.action);
        const stake = big(ev.stake);
        if (a === 'Bet') {
          words = ['Bet of ', amountEl(ev.stake), ev.perfectPairs ? [' + Perfect Pairs ', amountEl(ev.perfectPairs)] : '',
            ev.poker ? [' + 21+3 ', amountEl(ev.poker)] : '', ' by ', playerLink(ev.player), ' accepted: round ', rl(), ' opens'];
        } else if (a === 'Peek') {
          words = [ev.insurance === true ? ['Peek with insurance (', amountEl(ev.stake), ')'] : 'Peek without insurance',
            ' accepted for round ', rl()];
        } else {
          words = [a, ' accepted on ', hand(ev.handIndex), ' of round ', rl(), stake !== null && stake > 0n ? [', adding ', amountEl(ev.stake)] : ''];
        }
        words.push(' (transaction ', txEl(ev.tx), ')');
        break;
      }
      case 'reject':
        words = [ev.action ? str(ev.action) : 'A transaction', ev.from ? [' from ', playerLink(ev.from)] : '', ' rejected',
          ev.round ? [' (round ', rl(), ')'] : '', ': ', el('code', null, str(ev.reason)),
          HJW.REASONS[ev.reason] ? ', ' + HJW.REASONS[ev.reason] : '', '; refunded ', amountEl(ev.refund),
          ' (transaction ', txEl(ev.tx), ')'];
        break;
      case 'deposit':
        words = ['A deposit of ', amountEl(ev.value), ev.from ? [' from ', playerLink(ev.from)] : '',
          ': no HJ payload, kept by the dealer, not refunded (transaction ', txEl(ev.tx), ')'];
        break;
      case 'ignored':
        words = ['Transaction ', txEl(ev.tx), ev.from ? [' from ', playerLink(ev.from)] : '',
          ' ignored: its receipt failed, it moved nothing'];
        break;
      case 'commit':
        words = ['The dealer\'s Commit: a chain of ' + str(ev.length) + ' seeds dealing blocks ' + str(ev.start) + ' to ' +
          (int(ev.start) !== null && int(ev.length) !== null ? ev.start + ev.length - 1 : '?') + ', commitment ',
        el('span', { class: 'mono' }, str(ev.commitment)), ' (transaction ', txEl(ev.tx), ')'];
        break;
      case 'timeout':
        words = ['No action of round ', rl(), ' within its window: by default ',
          ev.action === 'Peek' ? 'Peek without insurance' : ['Stand on ', hand(ev.handIndex)], ', at the end of this block'];
        break;
      case 'settle': {
        const hs = arr(ev.playerHands).filter(isObj).map((x, i) => [i ? '; ' : '', hand(x.handIndex), ' ',
          STATUS_WORDS[x.status] || str(x.status), ', payout ', amountEl(x.payout)]);
        words = ['Round ', rl(), ' settled, the dealer at ', totalText(isObj(ev.dealerHand) ? ev.dealerHand.cards : [],
          isObj(ev.dealerHand) ? ev.dealerHand.total : null), ': ', hs,
          isObj(ev.insurance) ? ['; insurance payout ', amountEl(ev.insurance.payout)] : '',
          '; staked ', amountEl(ev.betAmount), ', returned ', amountEl(ev.payout)];
        break;
      }
      default:
        words = [JSON.stringify(ev)];
    }
    return el('li', { class: 'event ' + t }, el('span', { class: 'event-type' }, t), ' ', words);
  }

  // ------------------------------------------------------------------
  // The rules in words, the side bets' pays, the strategy chart

  function rulesView() {
    const t = S.table;
    const r = isObj(t.rules) ? t.rules : {};
    const rows = Object.entries(r).map(([k, v]) => {
      const s = HJW.ruleSentence(k, str(v));
      return el('tr', { 'data-key': k }, el('td', { class: 'sentence' }, s || 'The rule ' + k + ' is ' + str(v) + '.'),
        el('td', null, el('code', { class: 'rule-key' }, k + ' = ' + str(v))));
    });
    const conf = t.confirmations;
    const limits = [
      ['Bets', ['Your main stake may be from ', amountEl(t.minBet), ' to ', amountEl(t.maxBet), '; each side stake at most the main stake.']],
      ['Timeout', ['Once your round awaits an action you have ' + str(t.timeoutBlocks) + ' blocks after its window opens; ' +
        'then the default action is taken for you: Stand, or a Peek without insurance where a Peek is due.']],
      ['Bankroll limit', t.maxExposure === '0' || t.maxExposure === undefined ? ['The dealer sets no bankroll limit.']
        : ['The dealer takes a Bet only while the worst cases of every open round, the new one included, add up to at most ',
          amountEl(t.maxExposure), '.']],
      ['Confirmations', conf === undefined ? null : typeof conf === 'number'
        ? ['The dealer deals a block once ' + conf + (conf === 1 ? ' block stands' : ' blocks stand') + ' on the chain from it on (' + conf + ' confirmations).']
        : ['The dealer deals a block once its node calls it ' + str(conf) + '.']],
    ].filter((x) => x[1]);
    const pp = HJW.payTable(r.perfect_pairs, HJW.PP_NAMES);
    const t3 = HJW.payTable(r.twenty_one_plus_three, HJW.T3_NAMES);
    const payRows = (tab) => tab.map(([n, pays]) => {
      const i = n.indexOf(': ');
      return el('tr', null, el('td', null, el('code', null, n.slice(0, i))), el('td', null, n.slice(i + 2)),
        el('td', { class: 'num' }, pays + ' to 1'));
    });
    return [
      el('h2', null, 'The rules of this table'),
      el('p', null, 'House edge ', el('strong', null, str(t.houseEdgePercent) + ' %'),
        ' of the main stake under the best strategy (the chart below), insurance never taken; every card independent ' +
        '(docs/PROTOCOL.md sections 7 and 7.1 explain each rule).'),
      el('table', { class: 'rows rules-words', id: 'rules-words' },
        el('thead', null, el('tr', null, el('th', null, 'Rule'), el('th', null, 'Key'))), el('tbody', null, rows)),
      el('h3', null, 'Limits'),
      el('dl', { class: 'facts', id: 'limits' }, limits.map(([k, v]) => [el('dt', null, k), el('dd', null, v)])),
      r.cards === 'committed' ? chainsView(t) : null,
      pp || t3 ? el('h3', null, 'Side bets') : null,
      pp ? [el('h4', null, 'Perfect Pairs (your first two cards)', t.perfectPairsEdgePercent !== undefined
        ? ', house edge ' + str(t.perfectPairsEdgePercent) + ' %' : ''),
      el('table', { class: 'rows pays', id: 'pays-pp' }, el('tbody', null, payRows(pp)))] : null,
      t3 ? [el('h4', null, '21+3 (your first two cards and the dealer\'s up card; the first line that matches)',
        t.pokerEdgePercent !== undefined ? ', house edge ' + str(t.pokerEdgePercent) + ' %' : ''),
      el('table', { class: 'rows pays', id: 'pays-t3' }, el('tbody', null, payRows(t3)))] : null,
      pp || t3 ? el('p', { class: 'muted' }, 'A winning side bet returns its stake times one plus its pay; a losing one returns nothing. ' +
        'Both settle with your second card, whatever happens to the round.') : null,
      chartView(t.chart),
    ];
  }

  /* Committed cards: the chains of /v1/table, each with its Commit. */
  function chainsView(t) {
    const cs = arr(t.chains).filter(isObj);
    return [el('h3', null, 'Seed chains'),
      cs.length ? el('table', { class: 'rows', id: 'chains' },
        el('thead', null, el('tr', null, ['Blocks', 'Commitment', 'Commit', 'State'].map((x) => el('th', null, x)))),
        el('tbody', null, cs.map((c) => el('tr', null,
          el('td', null, str(c.start) + ' to ' + (int(c.start) + int(c.length) - 1) + ' (' + str(c.length) + ' seeds)'),
          el('td', { class: 'mono' }, str(c.commitment)),
          el('td', null, blockLink(c.height), ', ', txEl(c.tx)),
          el('td', null, c.inForce === true ? 'in force, ' + str(c.seedsLeft) + ' seeds left' : 'scheduled')))))
        : el('p', { class: 'muted', id: 'chains' }, 'No seed chain is in force or scheduled: every block is void.')];
  }

  const CHART_WORDS = { H: 'hit', S: 'stand', D: 'double', P: 'split', R: 'surrender', '-': 'no such hand' };
  const UPS = ['2', '3', '4', '5', '6', '7', '8', '9', '10', 'A'];

  function chartView(chart) {
    if (!isObj(chart)) return el('p', { class: 'muted' }, 'The table gives no strategy chart.');
    const part = (key, title, label) => {
      const rows = isObj(chart[key]) ? chart[key] : {};
      return el('table', { class: 'chart', id: 'chart-' + key },
        el('caption', null, title),
        el('thead', null, el('tr', null, el('th', { scope: 'col' }, 'you \\ up'), UPS.map((u) => el('th', { scope: 'col' }, u)))),
        el('tbody', null, Object.entries(rows).map(([k, byUp]) => el('tr', null,
          el('th', { scope: 'row' }, label(k)),
          UPS.map((u) => {
            const a = isObj(byUp) ? str(byUp[u]) : '';
            return el('td', { class: 'a-' + (CHART_WORDS[a] ? a.replace('-', 'none') : 'x'), title: label(k) + ' against ' + u + ': ' + (CHART_WORDS[a] || a) }, a);
          })))));
    };
    return [
      el('h3', null, 'The strategy chart'),
      el('p', null, 'The best first decision on two cards, by your hand (rows) and the dealer\'s up card (columns), ' +
        'as hashjack edge computes it for these rules: ',
      Object.entries(CHART_WORDS).filter(([k]) => k !== '-').map(([k, w], i) => [i ? ', ' : '', el('span', { class: 'chart-key a-' + k }, k), ' ' + w]),
      '. It is for the first decision only: after a Hit there is no Double and no Surrender any more ' +
        '(docs/PROTOCOL.md section 7).'),
      el('div', { class: 'charts' },
        part('hard', 'Hard totals', (k) => 'hard ' + k),
        part('soft', 'Soft totals (an Ace counted 11)', (k) => 'soft ' + k + ' (A+' + (Number(k) - 11) + ')'),
        part('pairs', 'Pairs', (k) => k + '-' + k)),
    ];
  }

  // ------------------------------------------------------------------
  // How to play: which transaction, which value, which window, what fees

  function howView() {
    const t = S.table;
    const r = isObj(t.rules) ? t.rules : {};
    const evm = S.family === 'evm';
    const dealer = el('span', { class: 'mono', id: 'how-dealer' }, str(t.dealer));
    const n = str(t.timeoutBlocks);
    const peek = r.peek !== 'none';
    const surrender = r.surrender !== 'none';
    const noHere = (ok) => (ok ? null : el('em', null, ' (not at this table)'));
    const payload = (hex) => el('code', { class: 'payload' }, evm ? '0x' + hex : hex + ' …');
    const acts = [
      ['Bet', '484a0101', ['your stake, from ', amountEl(t.minBet), ' to ', amountEl(t.maxBet),
        (r.perfect_pairs !== 'off' || r.twenty_one_plus_three !== 'off') ? ' (plus the side stakes, each written into the payload ' +
          'as 8 bytes: docs/PROTOCOL.md section 7.2)' : ''],
      'opens your round: your first card comes from the next block, the dealer\'s up card from the one after, your second card from the third', true],
      ['Hit', '484a0102', '0', 'one more card, from the next block', true],
      ['Stand', '484a0103', '0', 'the hand takes no more cards', true],
      ['Double', '484a0104', 'the hand\'s stake again', 'doubles the stake; one more card, then the hand stands', true],
      ['Split', '484a0105', 'the hand\'s stake again', 'two hands of one card each, each dealt its second card', r.max_hands !== '1'],
      ['Surrender', '484a0106', '0', 'half the stake back (rounded down), the round ends', surrender],
      ['Peek without insurance', '484a010700', '0', 'with an Ace up: does the dealer have blackjack?', peek],
      ['Peek with insurance', '484a010701', 'half the Bet\'s stake, rounded down', 'the same, and insurance pays 2:1 if it does', peek],
    ];
    const exampleStake = (() => {
      const want = 10n ** BigInt(S.u.decimals - 2);   // 0.01 of a coin
      const min = big(t.minBet);
      const max = big(t.maxBet);
      if (min !== null && want < min) return min;
      if (max !== null && want > max) return max;
      return want;
    })();
    const fee = 2n * 21000n * 1000000000n;           // two transactions of 21,000 gas at 1 gwei
    const pct = (fee * 10000n) / exampleStake;        // hundredths of a percent, rounded down
    const pctText = (pct / 100n).toString() + '.' + (pct % 100n).toString().padStart(2, '0') + ' %';
    return [
      el('h2', null, 'How to play'),
      el('p', null, 'Every move is a transaction of your own to the dealer\'s address ', dealer,
        '. Its ', evm ? 'input data' : [el('code', null, 'OP_RETURN'), ' output'], ' says which action it is, its value is what ' +
        'the action stakes, and the block it lands in decides which cards it sees. Nothing else counts: no sign-up, no ' +
        'account, no message to the dealer (docs/PROTOCOL.md sections 3, 4 and 11).'),
      el('ol', { class: 'howto', id: 'howto' },
        el('li', null, el('strong', null, 'Bet. '), evm
          ? ['Send a transaction to the dealer\'s address with input data ', payload('484a0101'), ' and as its value your stake, from ',
            amountEl(t.minBet), ' to ', amountEl(t.maxBet), '. The Play section above builds it and sends it with a browser wallet. ' +
            'The transaction\'s hash is your round\'s id; returns are paid to the address you sent it from.']
          : ['Make the payload with ', el('code', null, 'hashjack player bet --key player.key'), ' (your key P goes into it) and send a ' +
            'transaction that pays your stake to the dealer\'s address and carries the payload in an OP_RETURN output (docs/PROTOCOL.md section 11.3). ' +
            'Returns are paid to the taproot address of your key.']),
        el('li', null, el('strong', null, 'The deal. '), 'The three blocks after your Bet\'s block deal your first card, the dealer\'s up card ' +
          'and your second card. Every block is a card, made from its hash: click a block in the strip to see how.'),
        el('li', null, el('strong', null, 'Act, inside the window. '), 'Your round shows the actions allowed, the value each must carry ' +
          'and its window: from the block after the last card you waited for, for ' + n + ' blocks. An action in a block before the ' +
          'window opens is premature and refunded; one with a wrong value is refunded too. If none comes, at the end of the window\'s ' +
          'last block the default action is taken for you: Stand, or a Peek without insurance where a Peek is due. One action per ' +
          'window: each card it asks for comes from the next blocks, and the next window opens after them.'),
        el('li', null, el('strong', null, 'Settlement. '), 'Once your hands are done the dealer draws, one card a block, and ' +
          'the round settles; the dealer sends what it returns (the stake included) to you.')),
      el('h3', null, 'Which transaction, which value'),
      el('table', { class: 'rows how-actions', id: 'how-actions' },
        el('thead', null, el('tr', null, el('th', null, 'Action'), el('th', null, evm ? 'Input data' : 'Payload begins'),
          el('th', null, 'Value to send'), el('th', null, 'What it does'))),
        el('tbody', null, acts.map(([a, hex, value, what, ok]) => el('tr', { class: ok ? null : 'muted' },
          el('td', null, a, noHere(ok)), el('td', null, payload(hex)), el('td', null, value), el('td', null, what))))),
      el('p', { class: 'muted' }, evm ? 'docs/PROTOCOL.md section 11.2 lists every payload, and the ones refused.'
        : 'Each action after the Bet carries the round\'s short id and your signature: hashjack player ACTION makes it ' +
          '(docs/PROTOCOL.md section 11.3); each open round below lists the commands.'),
      el('h3', null, 'What each action costs in fees'),
      el('p', { id: 'how-fees' }, 'Each action is a transaction of its own, and each pays its own network fee',
        evm ? ' (gas: a little over 21,000 gas for each, times the gas price)' : ' (its size in vbytes times the fee rate)',
        ', to the network, not the dealer: a refund returns the value, never the fee. A round takes two transactions at least ' +
        '(a Bet and a Stand), more with every Hit, Double, Split or Peek. The house edge of ' + str(t.houseEdgePercent) +
        ' % counts stakes only: fees come on top, and weigh more the smaller the stake.',
        evm ? [' For example, at a gas price of 1 gwei a Bet and a Stand cost at least ', amountEl(fee.toString()), ': ',
          el('strong', null, pctText), ' of a stake of ', amountEl(exampleStake.toString()), '.'] : '',
        ' Waiting costs no fee: when a window ends, its default action (Stand, or Peek without insurance) is taken for free, ' +
        'only later.'),
    ];
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
    $('pp-label').hidden = !sb.pp;
    $('t3-label').hidden = !sb.t3;
    const min = big(S.table.minBet);
    $('bet-stake').value = min !== null ? typedText(min) : '';
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
      const r = parseTyped($(id).value);
      return r.problem ? { problem: name + ': ' + r.problem } : { v: r.value };
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
    else if (pp.v > U64_MAX || t3.v > U64_MAX) problem = 'A side stake is above 2^64 - 1 ' + S.u.base + '.';
    else if (pp.v > stake || t3.v > stake) problem = 'A side stake may not exceed the stake.';
    const value = stake + pp.v + t3.v;
    const data = pp.v > U64_MAX || t3.v > U64_MAX ? null : betPayload(pp.v, t3.v);
    return { stake, pp: pp.v, t3: t3.v, value, data, problem };
  }

  function renderBetForm() {
    if (S.family !== 'evm' || !S.table) return;
    for (const u of document.querySelectorAll('#bet-form .unit')) u.textContent = S.baseUnits ? S.u.base : S.u.coin;
    const b = betFromForm();
    const preview = $('bet-preview');
    if (b.data) {
      replace(preview, 'to ', el('span', { class: 'mono' }, str(S.table.dealer)),
        ', value ', S.baseUnits ? null : [el('span', { class: 'amount', id: 'bet-amount' }, amount(b.value)), ' = '],
        el('span', { class: 'mono', id: 'bet-value' }, b.value.toString()), ' ' + S.u.base,
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
    const words = (parts) => parts.map((x) => (isObj(x) ? amount(x.amount) : x)).join('');
    replace($('txs'), S.sent.map((t) => el('li', { class: 'tx' },
      el('span', { class: 'what' }, words(t.what)), ': ',
      el('span', { class: 'mono tx-hash' }, t.hash), ' — ',
      el('span', { class: 'tx-status' }, words(t.status)))));

    // The connected player's open round, with one button per allowed action.
    // Rebuilt only when it changes, so that a click is never lost to a redraw.
    const rs = myRound();
    const id = rs ? str(rs.round).toLowerCase() : null;
    const pend = id ? S.pendingRound.get(id) : null;
    const pending = pend ? pend.hash : null;
    const key = JSON.stringify([S.account, rs, pending, S.tip, chainProblem(), S.baseUnits]);
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
    S.sent.unshift({ hash: h, what, status: ['sent, value ', { amount: value.toString() }, ', data ' + data] });
    S.sent.length = Math.min(S.sent.length, MAX_SENT);
    return h;
  }

  async function sendBet() {
    const b = betFromForm();
    if (!S.account || !b.data || b.problem || chainProblem()) return;
    $('bet-send').disabled = true;
    try {
      const what = ['Bet ', { amount: b.stake.toString() }];
      if (b.pp > 0n) what.push(' + Perfect Pairs ', { amount: b.pp.toString() });
      if (b.t3 > 0n) what.push(' + 21+3 ', { amount: b.t3.toString() });
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
      pend.hash = await sendTx([actionName(a)], v, actionPayload(str(a.action), a.insurance === true));
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
