// A port of the server's Klondike engine (klondike/engine): cards, the move
// notation, a game that applies, scores and undoes moves exactly as the
// server does, the player's view, and the legal moves a view allows.
//
// The live board never uses Game to decide anything: it shows only the views
// the server sent. Game replays a finished round from its revealed layout,
// and legalFromView helps pick the count of a run when a card is dropped.

export const SUITS = ['C', 'D', 'H', 'S'];
export const RANKS = ['A', '2', '3', '4', '5', '6', '7', '8', '9', 'T', 'J', 'Q', 'K'];
const RANK_NAMES = ['ace', '2', '3', '4', '5', '6', '7', '8', '9', '10', 'jack', 'queen', 'king'];
const SUIT_NAMES = { C: 'clubs', D: 'diamonds', H: 'hearts', S: 'spades' };
export const SUIT_SYMBOLS = { C: '\u2663', D: '\u2666', H: '\u2665', S: '\u2660' };
const NUM_PILES = 7;
const NUM_RANKS = 13;
const NUM_CARDS = 52;

export function rankOf(c) { return RANKS.indexOf(c[0]) + 1; }
export function suitOf(c) { return c[1]; }
export function isRed(c) { return c[1] === 'D' || c[1] === 'H'; }
export function makeCard(rank, suit) { return RANKS[rank - 1] + suit; }
export function cardIndex(c) { return SUITS.indexOf(c[1]) * NUM_RANKS + rankOf(c) - 1; }
export function rankName(c) { return RANK_NAMES[rankOf(c) - 1]; }
export function suitName(s) { return SUIT_NAMES[s]; }
/** cardName returns words for a card, such as "queen of hearts". */
export function cardName(c) { return `${rankName(c)} of ${SUIT_NAMES[c[1]]}`; }
export function rankLabel(c) { return c[0] === 'T' ? '10' : c[0]; }

/** goesOn reports whether card c may be built on card t in the tableau. */
export function goesOn(c, t) { return rankOf(c) + 1 === rankOf(t) && isRed(c) !== isRed(t); }

// The refusal reasons, word for word as the server says them.
export const Err = {
  gameOver: 'the game is over',
  stockEmpty: 'the stock is empty',
  stockNotEmpty: 'the waste goes back to the stock only when the stock is empty',
  wasteEmpty: 'the waste is empty',
  noPassesLeft: 'no passes through the stock are left',
  pileEmpty: 'the pile is empty',
  samePile: 'a pile cannot move onto itself',
  foundationOrder: 'a foundation takes the ace of its suit, then the next rank of that suit',
  build: 'a card goes on a face-up card one rank higher of the opposite colour',
  kingOnly: 'an empty pile takes only a king',
  noRunFits: 'no face-up run of that pile fits there',
  runCount: 'the count does not match the run that fits',
  noFoundationMoves: 'these rules do not allow cards back from a foundation',
  foundationEmpty: 'that foundation is empty',
  undoOff: 'undo is off in this game',
  undoReveal: 'undo cannot take back a move that turned a card face up',
  nothingToUndo: 'there is no move to undo',
};

/** An IllegalMove is a refused move; its message is the server's reason. */
export class IllegalMove extends Error {
  constructor(rule, detail) {
    super(detail ? `${detail}: ${rule}` : rule);
    this.name = 'IllegalMove';
    this.rule = rule;
  }
}

const MOVE_RE = /^(?:(D)|(R)|(U)|W-T([1-7])|(W-F)|T([1-7])-F|T([1-7])(?::(\d{1,2}))?-T([1-7])|F([CDHS])-T([1-7]))$/i;

/**
 * parseMove reads a move of the notation (either case, spaces around it
 * ignored) and returns {kind, from, to, count}, or null when the text is
 * not a move. kind is one of D R U WT WF TF TT FT.
 */
export function parseMove(text) {
  const m = MOVE_RE.exec(String(text).trim());
  if (!m) return null;
  if (m[1]) return { kind: 'D' };
  if (m[2]) return { kind: 'R' };
  if (m[3]) return { kind: 'U' };
  if (m[4]) return { kind: 'WT', to: +m[4] };
  if (m[5]) return { kind: 'WF' };
  if (m[6]) return { kind: 'TF', from: +m[6] };
  if (m[7]) {
    const count = m[8] ? +m[8] : 0;
    if (m[8] && (count < 1 || count > 13)) return null;
    return { kind: 'TT', from: +m[7], to: +m[9], count };
  }
  return { kind: 'FT', suit: m[10].toUpperCase(), to: +m[11] };
}

/** moveText writes a parsed move in canonical notation. */
export function moveText(m) {
  switch (m.kind) {
    case 'D': case 'R': case 'U': return m.kind;
    case 'WT': return `W-T${m.to}`;
    case 'WF': return 'W-F';
    case 'TF': return `T${m.from}-F`;
    case 'TT': return m.count ? `T${m.from}:${m.count}-T${m.to}` : `T${m.from}-T${m.to}`;
    case 'FT': return `F${m.suit}-T${m.to}`;
  }
  return '?';
}

/** runLength returns the length of the movable run at the top of up. */
export function runLength(up) {
  if (up.length === 0) return 0;
  let k = 1;
  for (let i = up.length - 1; i > 0 && goesOn(up[i], up[i - 1]); i--) k++;
  return k;
}

/**
 * fitLength returns how many cards of the movable run (the top `run` cards
 * of up) go onto a pile whose top card is t (null for an empty pile), or 0.
 */
export function fitLength(up, run, t) {
  const n = up.length;
  if (!t) return rankOf(up[n - run]) === NUM_RANKS ? run : 0;
  const k = rankOf(t) - rankOf(up[n - 1]);
  if (k < 1 || k > run || isRed(up[n - k]) === isRed(t)) return 0;
  return k;
}

const EVENT_ORDER = ['drew', 'recycled', 'revealed', 'to_foundation', 'from_foundation', 'to_tableau', 'undo', 'won', 'stuck'];

function normRules(r) {
  return {
    draw: r.draw === 1 ? 1 : 3,
    passes: r.passes || 0,
    foundation_to_tableau: r.foundation_to_tableau !== false,
    undo: r.undo || 'on',
    scoring: r.scoring || 'standard',
  };
}

/**
 * A Game is one player's game on a layout ({tableau:[[…]×7], stock:[…]}),
 * under rules as the protocol writes them
 * ({draw, passes, foundation_to_tableau, undo, scoring}).
 */
export class Game {
  constructor(layout, rules) {
    this.rules = normRules(rules);
    this.tab = layout.tableau.map((cards) => ({ cards: cards.slice(), down: cards.length - 1 }));
    this.talon = layout.stock.slice(); // waste (bottom first) then stock (next drawn first)
    this.wasteN = 0;
    this.found = { C: 0, D: 0, H: 0, S: 0 };
    this.recycles = 0;
    this.score = this.rules.scoring === 'vegas' ? -NUM_CARDS : 0;
    this.moves = 0;
    this.status = 'playing';
    this.hist = [];
    this.updateStatus();
  }

  stockSize() { return this.talon.length - this.wasteN; }
  wasteTop() { return this.wasteN ? this.talon[this.wasteN - 1] : null; }
  foundationTotal() { return this.found.C + this.found.D + this.found.H + this.found.S; }
  recyclesAllowed() { return this.rules.passes === 0 ? -1 : this.rules.passes - 1; }
  canRecycle() { const r = this.recyclesAllowed(); return r < 0 || this.recycles < r; }
  passesLeft() { const r = this.recyclesAllowed(); return r < 0 ? null : Math.max(0, r - this.recycles); }

  addScore(raw) {
    if (this.rules.scoring === 'standard' && this.score + raw < 0) raw = -this.score;
    this.score += raw;
    return raw;
  }

  points(kind, revealed) {
    let p = 0;
    if (this.rules.scoring === 'standard') {
      switch (kind) {
        case 'WT': p = 5; break;
        case 'WF': case 'TF': p = 10; break;
        case 'FT': p = -15; break;
        case 'R':
          if (this.rules.draw === 1) p = -100;
          else if (this.recycles >= 3) p = -20;
          break;
      }
      if (revealed) p += 5;
    } else if (this.rules.scoring === 'vegas') {
      if (kind === 'WF' || kind === 'TF') p = 5;
      else if (kind === 'FT') p = -5;
    }
    return p;
  }

  /** undoError returns why U would be refused now, or null. */
  undoError() {
    if (this.status !== 'playing') return Err.gameOver;
    if (this.rules.undo === 'off') return Err.undoOff;
    if (this.hist.length === 0) return Err.nothingToUndo;
    if (this.rules.undo === 'no_reveal' && this.hist[this.hist.length - 1].turned) return Err.undoReveal;
    return null;
  }

  /**
   * apply plays a move (text or parsed) and returns the names of its events,
   * or throws an IllegalMove with the server's reason and changes nothing.
   */
  apply(move) {
    const m = typeof move === 'string' ? parseMove(move) : move;
    if (!m) throw new Error(`not a move: ${move}`);
    if (this.status !== 'playing') throw new IllegalMove(Err.gameOver);
    const ev = new Set();
    if (m.kind === 'U') {
      const e = this.undoError();
      if (e) throw new IllegalMove(e);
      this.undo();
      this.moves++;
      return ['undo'];
    }
    const rec = { move: m, card: null, n: 0, revealed: false, turned: false, delta: 0 };
    switch (m.kind) {
      case 'D': {
        const left = this.stockSize();
        if (left === 0) throw new IllegalMove(Err.stockEmpty);
        rec.n = Math.min(left, this.rules.draw);
        this.wasteN += rec.n;
        rec.turned = true;
        ev.add('drew');
        break;
      }
      case 'R':
        if (this.wasteN < this.talon.length) throw new IllegalMove(Err.stockNotEmpty);
        if (this.wasteN === 0) throw new IllegalMove(Err.wasteEmpty);
        if (!this.canRecycle()) throw new IllegalMove(Err.noPassesLeft);
        rec.delta = this.addScore(this.points('R', false));
        this.wasteN = 0;
        this.recycles++;
        ev.add('recycled');
        break;
      case 'WT': {
        const c = this.wasteTop();
        if (!c) throw new IllegalMove(Err.wasteEmpty);
        const dst = this.tab[m.to - 1];
        fits(m, c, dst);
        this.takeWaste();
        dst.cards.push(c);
        rec.card = c;
        rec.delta = this.addScore(this.points('WT', false));
        ev.add('to_tableau');
        break;
      }
      case 'WF': {
        const c = this.wasteTop();
        if (!c) throw new IllegalMove(Err.wasteEmpty);
        this.fitsFoundation(c);
        this.takeWaste();
        this.found[suitOf(c)]++;
        rec.card = c;
        rec.delta = this.addScore(this.points('WF', false));
        ev.add('to_foundation');
        break;
      }
      case 'TF': {
        const src = this.tab[m.from - 1];
        const c = src.cards.length ? src.cards[src.cards.length - 1] : null;
        if (!c) throw new IllegalMove(Err.pileEmpty, `pile ${m.from}`);
        this.fitsFoundation(c);
        src.cards.pop();
        this.found[suitOf(c)]++;
        rec.card = c;
        rec.revealed = reveal(src);
        rec.delta = this.addScore(this.points('TF', rec.revealed));
        ev.add('to_foundation');
        break;
      }
      case 'TT': {
        const k = this.runFor(m);
        const src = this.tab[m.from - 1];
        const dst = this.tab[m.to - 1];
        dst.cards.push(...src.cards.splice(src.cards.length - k, k));
        rec.n = k;
        rec.revealed = reveal(src);
        rec.delta = this.addScore(this.points('TT', rec.revealed));
        ev.add('to_tableau');
        break;
      }
      case 'FT': {
        if (!this.rules.foundation_to_tableau) throw new IllegalMove(Err.noFoundationMoves);
        const s = m.suit;
        if (this.found[s] === 0) throw new IllegalMove(Err.foundationEmpty, `foundation ${s}`);
        const c = makeCard(this.found[s], s);
        const dst = this.tab[m.to - 1];
        fits(m, c, dst);
        this.found[s]--;
        dst.cards.push(c);
        rec.delta = this.addScore(this.points('FT', false));
        ev.add('from_foundation');
        ev.add('to_tableau');
        break;
      }
      default:
        throw new Error(`not a move: ${move}`);
    }
    if (rec.revealed) {
      rec.turned = true;
      ev.add('revealed');
    }
    this.hist.push(rec);
    this.moves++;
    this.updateStatus();
    if (this.status === 'won') ev.add('won');
    if (this.status === 'stuck') ev.add('stuck');
    return EVENT_ORDER.filter((e) => ev.has(e));
  }

  takeWaste() {
    this.talon.splice(this.wasteN - 1, 1);
    this.wasteN--;
  }

  putWaste(c) {
    this.talon.splice(this.wasteN, 0, c);
    this.wasteN++;
  }

  fitsFoundation(c) {
    const have = this.found[suitOf(c)];
    if (have + 1 === rankOf(c)) return;
    if (have === 0) throw new IllegalMove(Err.foundationOrder, `${c} to the empty ${suitOf(c)} foundation`);
    throw new IllegalMove(Err.foundationOrder, `${c} on ${makeCard(have, suitOf(c))}`);
  }

  runFor(m) {
    if (m.from === m.to) throw new IllegalMove(Err.samePile, `pile ${m.from}`);
    const src = this.tab[m.from - 1];
    const dst = this.tab[m.to - 1];
    const up = src.cards.slice(src.down);
    const run = runLength(up);
    if (run === 0) throw new IllegalMove(Err.pileEmpty, `pile ${m.from}`);
    const t = dst.cards.length ? dst.cards[dst.cards.length - 1] : null;
    const k = fitLength(up, run, t);
    if (k === 0) {
      const base = up[up.length - run];
      const top = up[up.length - 1];
      if (run === 1) {
        if (!t) throw new IllegalMove(Err.kingOnly, `${top} to empty pile ${m.to}`);
        throw new IllegalMove(Err.build, `${top} on ${t}`);
      }
      if (!t) throw new IllegalMove(Err.kingOnly, `run ${base}..${top} to empty pile ${m.to}`);
      throw new IllegalMove(Err.noRunFits, `run ${base}..${top} on ${t}`);
    }
    if (m.count && m.count !== k) throw new IllegalMove(Err.runCount, `asked to move ${m.count}, but ${k} fit`);
    return k;
  }

  undo() {
    const rec = this.hist.pop();
    this.score -= rec.delta;
    const m = rec.move;
    switch (m.kind) {
      case 'D': this.wasteN -= rec.n; break;
      case 'R': this.wasteN = this.talon.length; this.recycles--; break;
      case 'WT': this.tab[m.to - 1].cards.pop(); this.putWaste(rec.card); break;
      case 'WF': this.found[suitOf(rec.card)]--; this.putWaste(rec.card); break;
      case 'TF': {
        const src = this.tab[m.from - 1];
        if (rec.revealed) src.down++;
        src.cards.push(rec.card);
        this.found[suitOf(rec.card)]--;
        break;
      }
      case 'TT': {
        const src = this.tab[m.from - 1];
        const dst = this.tab[m.to - 1];
        if (rec.revealed) src.down++;
        src.cards.push(...dst.cards.splice(dst.cards.length - rec.n, rec.n));
        break;
      }
      case 'FT': this.tab[m.to - 1].cards.pop(); this.found[m.suit]++; break;
    }
  }

  updateStatus() {
    if (this.status !== 'playing') return;
    if (this.foundationTotal() === NUM_CARDS) this.status = 'won';
    else if (this.isStuck()) this.status = 'stuck';
  }

  /** isStuck is the engine's stuck test (docs/rules.md, "Stuck"). */
  isStuck() {
    if (this.foundationTotal() === NUM_CARDS) return false;
    const up = new Set();
    const onto = new Set();
    for (const s of SUITS) if (this.found[s] < NUM_RANKS) up.add(makeCard(this.found[s] + 1, s));
    for (const p of this.tab) {
      if (p.cards.length) for (const c of below(p.cards[p.cards.length - 1])) onto.add(c);
      else for (const s of SUITS) onto.add('K' + s);
    }
    for (const p of this.tab) {
      if (!p.cards.length) continue;
      if (up.has(p.cards[p.cards.length - 1])) return false;
      const upc = p.cards.slice(p.down);
      const run = runLength(upc);
      for (let k = 1; k <= run; k++) {
        const c = upc[upc.length - k];
        if (onto.has(c) && rankOf(c) !== NUM_RANKS) return false;
        if (onto.has(c) && rankOf(c) === NUM_RANKS && k !== p.cards.length) return false;
      }
    }
    if (this.rules.foundation_to_tableau) {
      for (const s of SUITS) if (this.found[s] > 0 && onto.has(makeCard(this.found[s], s))) return false;
    }
    const want = (c) => up.has(c) || onto.has(c);
    const w = this.wasteTop();
    if (w && want(w)) return false;
    const n = this.talon.length;
    const d = this.rules.draw;
    for (let x = this.wasteN; x < n;) {
      x = Math.min(x + d, n);
      if (want(this.talon[x - 1])) return false;
    }
    if (n > 0 && this.canRecycle()) {
      for (let x = 0; x < n;) {
        x = Math.min(x + d, n);
        if (want(this.talon[x - 1])) return false;
      }
    }
    return true;
  }

  /** view returns the player's view, as the server's JSON writes it. */
  view(elapsedMs = 0) {
    const vis = Math.min(this.wasteN, this.rules.draw);
    return {
      tableau: this.tab.map((p) => ({ down: p.down, up: p.cards.slice(p.down) })),
      stock: this.stockSize(),
      waste: this.talon.slice(this.wasteN - vis, this.wasteN),
      waste_size: this.wasteN,
      foundations: { C: this.found.C, D: this.found.D, H: this.found.H, S: this.found.S },
      score: this.score,
      moves: this.moves,
      passes_used: this.recycles,
      passes_left: this.passesLeft(),
      status: this.status,
      elapsed_ms: elapsedMs,
    };
  }
}

function reveal(p) {
  if (p.cards.length > 0 && p.down === p.cards.length) {
    p.down--;
    return true;
  }
  return false;
}

function fits(m, c, dst) {
  const t = dst.cards.length ? dst.cards[dst.cards.length - 1] : null;
  if (!t) {
    if (rankOf(c) !== NUM_RANKS) throw new IllegalMove(Err.kingOnly, `${c} to empty pile ${m.to}`);
    return;
  }
  if (!goesOn(c, t)) throw new IllegalMove(Err.build, `${c} on ${t}`);
}

/** below returns the two cards that go on t in the tableau. */
function below(t) {
  const r = rankOf(t) - 1;
  if (r < 1) return [];
  return isRed(t) ? [makeCard(r, 'C'), makeCard(r, 'S')] : [makeCard(r, 'D'), makeCard(r, 'H')];
}

/**
 * legalFromView lists the moves a view allows under the rules, in the
 * engine's order (D, R, W-F, W-Tn, Tn-F, Tn-Tm, Fs-Tn), never U.
 */
export function legalFromView(v, rules) {
  const out = [];
  if (!v || v.status !== 'playing') return out;
  rules = normRules(rules || {});
  const top = (up) => (up.length ? up[up.length - 1] : null);
  const goesUp = (c) => c && v.foundations[suitOf(c)] + 1 === rankOf(c);
  const goesTo = (c, i) => {
    const t = top(v.tableau[i].up);
    if (!t) return v.tableau[i].down === 0 && rankOf(c) === NUM_RANKS;
    return goesOn(c, t);
  };
  const canRecycle = v.passes_left === null || v.passes_left === undefined || v.passes_left > 0;
  if (v.stock > 0) out.push('D');
  if (v.stock === 0 && v.waste_size > 0 && canRecycle) out.push('R');
  const w = v.waste.length ? v.waste[v.waste.length - 1] : null;
  if (w) {
    if (goesUp(w)) out.push('W-F');
    for (let i = 0; i < NUM_PILES; i++) if (goesTo(w, i)) out.push(`W-T${i + 1}`);
  }
  for (let i = 0; i < NUM_PILES; i++) if (goesUp(top(v.tableau[i].up))) out.push(`T${i + 1}-F`);
  for (let i = 0; i < NUM_PILES; i++) {
    const up = v.tableau[i].up;
    const run = runLength(up);
    if (!run) continue;
    for (let j = 0; j < NUM_PILES; j++) {
      if (j !== i && fitLength(up, run, top(v.tableau[j].up)) > 0) out.push(`T${i + 1}-T${j + 1}`);
    }
  }
  if (rules.foundation_to_tableau) {
    for (const s of SUITS) {
      if (!v.foundations[s]) continue;
      const c = makeCard(v.foundations[s], s);
      for (let i = 0; i < NUM_PILES; i++) if (goesTo(c, i)) out.push(`F${s}-T${i + 1}`);
    }
  }
  return out;
}

/**
 * timedScore is the round score of standard scoring at elapsedMs: the move
 * points less 2 every full 10 s, floored at 0, plus 700000 / s once won in
 * at least 30 s. Other scorings have no time adjustment.
 */
export function timedScore(scoring, points, elapsedMs, won) {
  if (scoring !== 'standard') return points;
  const secs = Math.floor(Math.max(0, elapsedMs) / 1000);
  let score = Math.max(0, points - 2 * Math.floor(secs / 10));
  if (won && secs >= 30) score += Math.floor(700000 / secs);
  return score;
}
