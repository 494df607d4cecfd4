// A port of the server's engine (klondike/engine): cards, the move notation,
// the four games' rules (Klondike, Thumb and Pouch, Whitehead, Double
// Klondike), a game that applies, scores, undoes and redoes moves exactly
// as the server does, the player's view, and the legal moves a view allows.
//
// The live board never uses Game to decide anything: it shows only the views
// the server sent. Game replays a finished round from its revealed layout,
// and the run helpers and legalFromView help pick the count of a run when a
// card is dropped.

export const SUITS = ['C', 'D', 'H', 'S'];
export const RANKS = ['A', '2', '3', '4', '5', '6', '7', '8', '9', 'T', 'J', 'Q', 'K'];
const RANK_NAMES = ['ace', '2', '3', '4', '5', '6', '7', '8', '9', '10', 'jack', 'queen', 'king'];
const SUIT_NAMES = { C: 'clubs', D: 'diamonds', H: 'hearts', S: 'spades' };
export const SUIT_SYMBOLS = { C: '\u2663', D: '\u2666', H: '\u2665', S: '\u2660' };
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
  foundationBase: 'a foundation takes the card of its suit of the base rank, then the next rank of that suit, a king followed by an ace',
  build: 'a card goes on a face-up card one rank higher of the opposite colour',
  buildSuit: 'a card goes on a face-up card one rank higher of another suit',
  buildColour: 'a card goes on a face-up card one rank higher of the same colour',
  kingOnly: 'an empty pile takes only a king',
  noRunFits: 'no face-up run of that pile fits there',
  runCount: 'the count does not match the run that fits',
  noFoundationMoves: 'these rules do not allow cards back from a foundation',
  foundationEmpty: 'that foundation is empty',
  undoOff: 'undo is off in this game',
  undoReveal: 'undo cannot take back a move that turned a card face up',
  nothingToUndo: 'there is no move to undo',
  nothingToRedo: 'there is no move to redo',
};

// ---- the games ----

/** GAMES are the games' names as the rules' "game" writes them. */
export const GAMES = ['klondike', 'thumb_and_pouch', 'whitehead', 'double_klondike'];

/** gameOf returns the game of rules (or of its name): Klondike when absent. */
export function gameOf(rules) {
  const g = typeof rules === 'string' ? rules : rules && rules.game;
  return GAMES.includes(g) ? g : 'klondike';
}

// A spec is what a game's rules need on the move path: its size, how a card
// builds on another, which cards stay in one movable run, and what an empty
// pile takes.
function makeSpec(game) {
  const oneLower = (c, t) => rankOf(c) + 1 === rankOf(t);
  const s = {
    game,
    piles: 7,
    decks: 1,
    faceUp: false,
    anyToEmpty: false,
    goes: (c, t) => oneLower(c, t) && isRed(c) !== isRed(t),
    buildRule: Err.build,
  };
  switch (game) {
    case 'thumb_and_pouch':
      s.goes = (c, t) => oneLower(c, t) && suitOf(c) !== suitOf(t);
      s.anyToEmpty = true;
      s.buildRule = Err.buildSuit;
      break;
    case 'whitehead':
      s.goes = (c, t) => oneLower(c, t) && isRed(c) === isRed(t);
      s.stays = (c, t) => oneLower(c, t) && suitOf(c) === suitOf(t);
      s.anyToEmpty = true;
      s.faceUp = true;
      s.buildRule = Err.buildColour;
      break;
    case 'double_klondike':
      s.piles = 9;
      s.decks = 2;
      break;
  }
  s.stays = s.stays || s.goes;
  s.cards = s.decks * NUM_CARDS;
  s.empty = (c) => s.anyToEmpty || rankOf(c) === NUM_RANKS;
  return s;
}

const SPECS = Object.fromEntries(GAMES.map((g) => [g, makeSpec(g)]));

/** specOf returns the rule tables of a game (a name or rules). */
export function specOf(game) { return SPECS[gameOf(game)]; }

/** pilesOf returns the number of tableau piles of a game: 9 in Double Klondike, else 7. */
export function pilesOf(game) { return specOf(game).piles; }

/** goesOn reports whether card c may be built on card t in the tableau. */
export function goesOn(c, t, game) { return specOf(game).goes(c, t); }

/**
 * foundationRank returns the rank of the n-th card (1..13) of a foundation
 * that starts at rank base, building up and turning from king to ace; 0
 * past the 13th.
 */
export function foundationRank(base, n) {
  if (n < 1 || n > NUM_RANKS) return 0;
  return ((base - 1 + n - 1) % NUM_RANKS) + 1;
}

/** foundationCard returns the top card of a foundation of suit s holding n cards, or null. */
export function foundationCard(s, n, base = 1) {
  return n ? makeCard(foundationRank(base, n), s) : null;
}

/** An IllegalMove is a refused move; its message is the server's reason. */
export class IllegalMove extends Error {
  constructor(rule, detail) {
    super(detail ? `${detail}: ${rule}` : rule);
    this.name = 'IllegalMove';
    this.rule = rule;
  }
}

const MOVE_RES = {};
function moveRE(piles) {
  if (!MOVE_RES[piles]) {
    const p = `[1-${piles}]`;
    MOVE_RES[piles] = new RegExp(`^(?:(D)|(R)|(U)|(Y)|W-T(${p})|(W-F)|T(${p})-F|T(${p})(?::(\\d{1,3}))?-T(${p})|F([CDHS])-T(${p}))$`, 'i');
  }
  return MOVE_RES[piles];
}

/**
 * parseMove reads a move of the notation (either case, spaces around it
 * ignored) with piles 1..piles (7, or 9 in Double Klondike) and returns
 * {kind, from, to, count}, or null when the text is not a move. kind is
 * one of D R U Y WT WF TF TT FT.
 */
export function parseMove(text, piles = 7) {
  const m = moveRE(piles).exec(String(text).trim());
  if (!m) return null;
  if (m[1]) return { kind: 'D' };
  if (m[2]) return { kind: 'R' };
  if (m[3]) return { kind: 'U' };
  if (m[4]) return { kind: 'Y' };
  if (m[5]) return { kind: 'WT', to: +m[5] };
  if (m[6]) return { kind: 'WF' };
  if (m[7]) return { kind: 'TF', from: +m[7] };
  if (m[8]) {
    const count = m[9] ? +m[9] : 0;
    if (m[9] && (count < 1 || count > 13)) return null;
    return { kind: 'TT', from: +m[8], to: +m[10], count };
  }
  return { kind: 'FT', suit: m[11].toUpperCase(), to: +m[12] };
}

/** moveText writes a parsed move in canonical notation. */
export function moveText(m) {
  switch (m.kind) {
    case 'D': case 'R': case 'U': case 'Y': return m.kind;
    case 'WT': return `W-T${m.to}`;
    case 'WF': return 'W-F';
    case 'TF': return `T${m.from}-F`;
    case 'TT': return m.count ? `T${m.from}:${m.count}-T${m.to}` : `T${m.from}-T${m.to}`;
    case 'FT': return `F${m.suit}-T${m.to}`;
  }
  return '?';
}

/**
 * runLength returns the length of the movable run at the top of up (face-up
 * cards, bottom first) in the game: the cards at the top each of which
 * stays in a run on the one below it.
 */
export function runLength(up, game) {
  if (up.length === 0) return 0;
  const sp = specOf(game);
  let k = 1;
  for (let i = up.length - 1; i > 0 && sp.stays(up[i], up[i - 1]); i--) k++;
  return k;
}

/**
 * fitLength returns how many cards of the movable run (the top `run` cards
 * of up) Tn-Tm moves onto a pile whose top card is t (null for an empty
 * pile), or 0 when none fits. An empty pile takes the whole run when its
 * bottom card may go there.
 */
export function fitLength(up, run, t, game) {
  const sp = specOf(game);
  const n = up.length;
  if (!t) return sp.empty(up[n - run]) ? run : 0;
  const k = rankOf(t) - rankOf(up[n - 1]);
  if (k < 1 || k > run || !sp.goes(up[n - k], t)) return 0;
  return k;
}

/** below returns the cards that go on t in the tableau of the game's spec. */
function below(t, sp) {
  const r = rankOf(t) - 1;
  if (r < 1) return [];
  return SUITS.map((s) => makeCard(r, s)).filter((c) => sp.goes(c, t));
}

const EVENT_ORDER = ['drew', 'recycled', 'revealed', 'to_foundation', 'from_foundation', 'to_tableau', 'undo', 'won', 'stuck', 'redo'];

function normRules(r) {
  return {
    draw: r.draw === 1 ? 1 : 3,
    passes: r.passes || 0,
    foundation_to_tableau: r.foundation_to_tableau !== false,
    undo: r.undo || 'on',
    scoring: r.scoring || 'standard',
    game: gameOf(r),
  };
}

/**
 * A Game is one player's game on a layout ({tableau:[[…]×7 or ×9], stock:[…]}),
 * under rules as the protocol writes them
 * ({draw, passes, foundation_to_tableau, undo, scoring, game}). In
 * Whitehead the layout's first stock card starts the foundations and every
 * tableau card is face up.
 */
export class Game {
  constructor(layout, rules) {
    this.rules = normRules(rules);
    this.sp = specOf(this.rules.game);
    const sp = this.sp;
    this.tab = layout.tableau.slice(0, sp.piles).map((cards) => ({ cards: cards.slice(), down: sp.faceUp ? 0 : cards.length - 1 }));
    // found holds the cards on each foundation: [C, D, H, S], then in
    // Double Klondike the second foundation of each suit, never fuller
    // than the first.
    this.found = [0, 0, 0, 0, 0, 0, 0, 0];
    this.base = 1;
    let stock = layout.stock.slice();
    if (sp.faceUp) {
      const c = stock.shift();
      this.base = rankOf(c);
      this.found[SUITS.indexOf(suitOf(c))] = 1;
    }
    this.talon = stock; // waste (bottom first) then stock (next drawn first)
    this.wasteN = 0;
    this.recycles = 0;
    this.score = this.rules.scoring === 'vegas' ? -sp.cards : 0;
    this.moves = 0;
    this.status = 'playing';
    this.hist = [];
    // redoable holds the records U took back, the last taken back last:
    // Y plays its last again; any other move clears it.
    this.redoable = [];
    this.updateStatus();
  }

  stockSize() { return this.talon.length - this.wasteN; }
  wasteTop() { return this.wasteN ? this.talon[this.wasteN - 1] : null; }
  foundationTotal() { return this.found.reduce((a, b) => a + b, 0); }
  foundationCount() { return this.sp.decks * 4; }
  foundationTop(f) { return foundationCard(SUITS[f & 3], this.found[f], this.base); }
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

  /** redoError returns why Y would be refused now, or null. */
  redoError() {
    if (this.status !== 'playing') return Err.gameOver;
    if (this.rules.undo === 'off') return Err.undoOff;
    if (this.redoable.length === 0) return Err.nothingToRedo;
    return null;
  }

  /**
   * apply plays a move (text or parsed) and returns the names of its events,
   * or throws an IllegalMove with the server's reason and changes nothing.
   */
  apply(move) {
    const m = typeof move === 'string' ? parseMove(move, this.sp.piles) : move;
    if (!m) throw new Error(`not a move: ${move}`);
    if (this.status !== 'playing') throw new IllegalMove(Err.gameOver);
    if (m.kind === 'U') {
      const e = this.undoError();
      if (e) throw new IllegalMove(e);
      this.redoable.push(this.undo());
      this.moves++;
      return ['undo'];
    }
    if (m.kind === 'Y') {
      const e = this.redoError();
      if (e) throw new IllegalMove(e);
      // The position is the one the move was first played in, so it is
      // legal again and scores the same.
      const rest = this.redoable.slice(0, -1);
      const events = this.play(this.redoable[this.redoable.length - 1].move);
      this.redoable = rest;
      return [...events, 'redo'];
    }
    return this.play(m);
  }

  /** play applies a move of play (not U or Y); it clears what could be redone. */
  play(m) {
    const ev = new Set();
    const rec = { move: m, n: 0, fnd: 0, revealed: false, turned: false, delta: 0 };
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
        this.fits(m, c, dst);
        this.takeWaste();
        dst.cards.push(c);
        rec.delta = this.addScore(this.points('WT', false));
        ev.add('to_tableau');
        break;
      }
      case 'WF': {
        const c = this.wasteTop();
        if (!c) throw new IllegalMove(Err.wasteEmpty);
        const f = this.fitsFoundation(c);
        this.takeWaste();
        this.found[f]++;
        rec.fnd = f;
        rec.delta = this.addScore(this.points('WF', false));
        ev.add('to_foundation');
        break;
      }
      case 'TF': {
        const src = this.tab[m.from - 1];
        const c = src.cards.length ? src.cards[src.cards.length - 1] : null;
        if (!c) throw new IllegalMove(Err.pileEmpty, `pile ${m.from}`);
        const f = this.fitsFoundation(c);
        src.cards.pop();
        this.found[f]++;
        rec.fnd = f;
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
        const s = SUITS.indexOf(m.suit);
        if (this.found[s] === 0) throw new IllegalMove(Err.foundationEmpty, `foundation ${m.suit}`);
        const dst = this.tab[m.to - 1];
        // Of two foundations of a suit the target decides, as it decides a
        // run's length: only one top fits unless both are the same card,
        // which then comes from the second, so that it never holds more.
        let f = s;
        if (this.found[4 + s] > 0 && (this.found[4 + s] === this.found[s] || this.cardFits(this.foundationTop(4 + s), dst))) f = 4 + s;
        const c = this.foundationTop(f);
        this.fits(m, c, dst);
        this.found[f]--;
        dst.cards.push(c);
        rec.fnd = f;
        rec.delta = this.addScore(this.points('FT', false));
        ev.add('from_foundation');
        ev.add('to_tableau');
        break;
      }
      default:
        throw new Error(`not a move: ${moveText(m)}`);
    }
    if (rec.revealed) {
      rec.turned = true;
      ev.add('revealed');
    }
    this.hist.push(rec);
    this.redoable = [];
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

  /** fits checks that card c may go on pile dst. */
  fits(m, c, dst) {
    const t = dst.cards.length ? dst.cards[dst.cards.length - 1] : null;
    if (!t) {
      if (!this.sp.empty(c)) throw new IllegalMove(Err.kingOnly, `${c} to empty pile ${m.to}`);
      return;
    }
    if (!this.sp.goes(c, t)) throw new IllegalMove(this.sp.buildRule, `${c} on ${t}`);
  }

  cardFits(c, dst) {
    const t = dst.cards.length ? dst.cards[dst.cards.length - 1] : null;
    return t ? this.sp.goes(c, t) : this.sp.empty(c);
  }

  /**
   * foundationFor returns the foundation that takes card c next, or -1: its
   * suit's, or in Double Klondike the second of its suit when the first
   * does not take it.
   */
  foundationFor(c) {
    const s = SUITS.indexOf(suitOf(c));
    const r = rankOf(c);
    if (foundationRank(this.base, this.found[s] + 1) === r) return s;
    if (this.sp.decks === 2 && foundationRank(this.base, this.found[4 + s] + 1) === r) return 4 + s;
    return -1;
  }

  /** fitsFoundation checks that card c may go up and returns its foundation. */
  fitsFoundation(c) {
    const f0 = this.foundationFor(c);
    if (f0 >= 0) return f0;
    const rule = this.rules.game === 'whitehead' ? Err.foundationBase : Err.foundationOrder;
    let f = SUITS.indexOf(suitOf(c));
    if (this.found[f] === NUM_RANKS && this.sp.decks === 2) f += 4;
    if (this.found[f] === 0) throw new IllegalMove(rule, `${c} to the empty ${suitOf(c)} foundation`);
    throw new IllegalMove(rule, `${c} on ${this.foundationTop(f)}`);
  }

  runFor(m) {
    if (m.from === m.to) throw new IllegalMove(Err.samePile, `pile ${m.from}`);
    const src = this.tab[m.from - 1];
    const dst = this.tab[m.to - 1];
    const up = src.cards.slice(src.down);
    const run = runLength(up, this.rules.game);
    if (run === 0) throw new IllegalMove(Err.pileEmpty, `pile ${m.from}`);
    if (m.count && dst.cards.length === 0 && this.sp.anyToEmpty) {
      // An empty pile that takes any card takes any upper part of the run.
      if (m.count > run) throw new IllegalMove(Err.runCount, `asked to move ${m.count}, but the run has ${run}`);
      return m.count;
    }
    const t = dst.cards.length ? dst.cards[dst.cards.length - 1] : null;
    const k = fitLength(up, run, t, this.rules.game);
    if (k === 0) {
      const base = up[up.length - run];
      const top = up[up.length - 1];
      if (run === 1) {
        if (!t) throw new IllegalMove(Err.kingOnly, `${top} to empty pile ${m.to}`);
        throw new IllegalMove(this.sp.buildRule, `${top} on ${t}`);
      }
      if (!t) throw new IllegalMove(Err.kingOnly, `run ${base}..${top} to empty pile ${m.to}`);
      throw new IllegalMove(Err.noRunFits, `run ${base}..${top} on ${t}`);
    }
    if (m.count && m.count !== k) throw new IllegalMove(Err.runCount, `asked to move ${m.count}, but ${k} fit`);
    return k;
  }

  /** undo takes the last move back exactly and returns its record. */
  undo() {
    const rec = this.hist.pop();
    this.score -= rec.delta;
    const m = rec.move;
    switch (m.kind) {
      case 'D': this.wasteN -= rec.n; break;
      case 'R': this.wasteN = this.talon.length; this.recycles--; break;
      case 'WT': this.putWaste(this.tab[m.to - 1].cards.pop()); break;
      case 'WF': {
        const c = this.foundationTop(rec.fnd);
        this.found[rec.fnd]--;
        this.putWaste(c);
        break;
      }
      case 'TF': {
        const src = this.tab[m.from - 1];
        if (rec.revealed) src.down++;
        src.cards.push(this.foundationTop(rec.fnd));
        this.found[rec.fnd]--;
        break;
      }
      case 'TT': {
        const src = this.tab[m.from - 1];
        const dst = this.tab[m.to - 1];
        if (rec.revealed) src.down++;
        src.cards.push(...dst.cards.splice(dst.cards.length - rec.n, rec.n));
        break;
      }
      case 'FT': this.tab[m.to - 1].cards.pop(); this.found[rec.fnd]++; break;
    }
    return rec;
  }

  updateStatus() {
    if (this.status !== 'playing') return;
    if (this.foundationTotal() === this.sp.cards) this.status = 'won';
    else if (this.isStuck()) this.status = 'stuck';
  }

  /** isStuck is the engine's stuck test (docs/rules.md, "Stuck"). */
  isStuck() {
    const sp = this.sp;
    if (this.foundationTotal() === sp.cards) return false;
    // up: the cards a foundation takes next; onto: those a pile's top
    // takes; anyEmpty: some pile is empty, and takes what sp.empty says.
    const up = new Set();
    const onto = new Set();
    let anyEmpty = false;
    for (let f = 0; f < this.foundationCount(); f++) {
      const r = foundationRank(this.base, this.found[f] + 1);
      if (r) up.add(makeCard(r, SUITS[f & 3]));
    }
    for (const p of this.tab) {
      if (p.cards.length) for (const c of below(p.cards[p.cards.length - 1], sp)) onto.add(c);
      else anyEmpty = true;
    }
    const toEmpty = (c) => anyEmpty && sp.empty(c);
    for (const p of this.tab) {
      if (!p.cards.length) continue;
      if (up.has(p.cards[p.cards.length - 1])) return false;
      const upc = p.cards.slice(p.down);
      const run = runLength(upc, sp.game);
      for (let k = 1; k <= run; k++) {
        const c = upc[upc.length - k];
        if (onto.has(c)) return false;
        if (toEmpty(c) && k !== p.cards.length) return false;
      }
    }
    if (this.rules.foundation_to_tableau) {
      for (let f = 0; f < this.foundationCount(); f++) {
        const c = this.foundationTop(f);
        if (c && (onto.has(c) || toEmpty(c))) return false;
      }
    }
    const want = (c) => up.has(c) || onto.has(c) || toEmpty(c);
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
    const counts = (o) => ({ C: this.found[o], D: this.found[o + 1], H: this.found[o + 2], S: this.found[o + 3] });
    const v = {
      tableau: this.tab.map((p) => ({ down: p.down, up: p.cards.slice(p.down) })),
      stock: this.stockSize(),
      waste: this.talon.slice(this.wasteN - vis, this.wasteN),
      waste_size: this.wasteN,
      foundations: counts(0),
    };
    if (this.sp.decks === 2) v.foundations2 = counts(4);
    if (this.sp.faceUp) v.foundation_base = this.base;
    return Object.assign(v, {
      score: this.score,
      moves: this.moves,
      passes_used: this.recycles,
      passes_left: this.passesLeft(),
      status: this.status,
      elapsed_ms: elapsedMs,
    });
  }
}

function reveal(p) {
  if (p.cards.length > 0 && p.down === p.cards.length) {
    p.down--;
    return true;
  }
  return false;
}

/** foundationsHome counts the cards a view shows on the foundations (both sets in Double Klondike). */
export function foundationsHome(v) {
  let n = 0;
  for (const f of [v.foundations, v.foundations2]) if (f) n += f.C + f.D + f.H + f.S;
  return n;
}

/**
 * legalFromView lists the moves a view allows under the rules, in the
 * engine's order (D, R, W-F, W-Tn, Tn-F, Tn-Tm, Fs-Tn), never U or Y.
 * Where an empty pile takes any card, Tn-Tm onto it is followed by
 * Tn:k-Tm for each shorter part of the run.
 */
export function legalFromView(v, rules) {
  const out = [];
  if (!v || v.status !== 'playing') return out;
  rules = normRules(rules || {});
  const sp = specOf(rules.game);
  const piles = Math.min(sp.piles, v.tableau.length);
  const base = v.foundation_base >= 1 && v.foundation_base <= NUM_RANKS ? v.foundation_base : 1;
  const f2 = sp.decks === 2 && v.foundations2 ? v.foundations2 : { C: 0, D: 0, H: 0, S: 0 };
  const found = [...SUITS.map((s) => v.foundations[s]), ...SUITS.map((s) => f2[s])];
  const top = (up) => (up.length ? up[up.length - 1] : null);
  const goesUp = (c) => {
    if (!c) return false;
    const s = SUITS.indexOf(suitOf(c));
    const r = rankOf(c);
    return foundationRank(base, found[s] + 1) === r || (sp.decks === 2 && foundationRank(base, found[4 + s] + 1) === r);
  };
  const goesTo = (c, i) => {
    const t = top(v.tableau[i].up);
    if (!t) return v.tableau[i].down === 0 && sp.empty(c);
    return sp.goes(c, t);
  };
  const canRecycle = v.passes_left === null || v.passes_left === undefined || v.passes_left > 0;
  if (v.stock > 0) out.push('D');
  if (v.stock === 0 && v.waste_size > 0 && canRecycle) out.push('R');
  const w = v.waste.length ? v.waste[v.waste.length - 1] : null;
  if (w) {
    if (goesUp(w)) out.push('W-F');
    for (let i = 0; i < piles; i++) if (goesTo(w, i)) out.push(`W-T${i + 1}`);
  }
  for (let i = 0; i < piles; i++) if (goesUp(top(v.tableau[i].up))) out.push(`T${i + 1}-F`);
  for (let i = 0; i < piles; i++) {
    const up = v.tableau[i].up;
    const run = runLength(up, sp.game);
    if (!run) continue;
    for (let j = 0; j < piles; j++) {
      const t = top(v.tableau[j].up);
      if (j === i || (!t && v.tableau[j].down > 0)) continue;
      if (fitLength(up, run, t, sp.game) > 0) {
        out.push(`T${i + 1}-T${j + 1}`);
        if (!t && sp.anyToEmpty) for (let k = 1; k < run; k++) out.push(`T${i + 1}:${k}-T${j + 1}`);
      }
    }
  }
  if (rules.foundation_to_tableau) {
    SUITS.forEach((s, si) => {
      // Either foundation's top may come down; the target decides which.
      const c1 = foundationCard(s, found[si], base);
      const c2 = sp.decks === 2 && found[4 + si] !== found[si] ? foundationCard(s, found[4 + si], base) : null;
      if (!c1) return;
      for (let i = 0; i < piles; i++) if (goesTo(c1, i) || (c2 && goesTo(c2, i))) out.push(`F${s}-T${i + 1}`);
    });
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
