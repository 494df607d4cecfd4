#!/usr/bin/env python3
"""Deals of PySolFC's Klondike games, written after PySolFC's own code, to
check engine.NumberedDeal and engine.NumberedDouble independently of them.

    python3 pysol_deals.py klondike|double_klondike SEED...

prints one canonical layout JSON a line. It follows PySolFC's steps: the
cards made deck by deck in PySol's suit order (clubs, spades, hearts,
diamonds), reordered by rank for a 52-card deck under the LCG
(ms_rearrange), shuffled by MFXRandom.shuffle, put in the talon (its top is
the list's end), then dealt by the game's startGame: Klondike.startGame
(reverse=1, which Thumb and Pouch and Whitehead share) or
DoubleKlondike.startGame (left to right), the first card then dealt to the
waste, which is the first card drawn here.
"""

import json
import random
import sys

RANKS = "A23456789TJQK"
SUITS = "CSHD"  # PySol's order


class LCRandom31:
    """pysolrandom.LCRandom31 for seeds below 2**31."""

    def __init__(self, seed):
        self.seedx = seed

    def randint(self, a, b):
        self.seedx = (self.seedx * 214013 + 2531011) & ((1 << 34) - 1)
        return a + ((self.seedx >> 16) & 0x7FFF) % (b + 1 - a)


class MTRandom:
    """pysolrandom.MTRandom: Python's Mersenne Twister, randint by float."""

    def __init__(self, seed):
        self.r = random.Random(seed)

    def randint(self, a, b):
        return a + int(self.r.random() * (b + 1 - a))


def shuffle(rng, seq):
    """MFXRandom.shuffle."""
    n = len(seq) - 1
    while n > 0:
        j = rng.randint(0, n)
        seq[n], seq[j] = seq[j], seq[n]
        n -= 1


def ms_rearrange(cards):
    if len(cards) != 52:
        return cards
    c = []
    for i in range(13):
        for j in (0, 39, 26, 13):
            c.append(cards[i + j])
    return c


def talon_for(seed, decks):
    cards = [RANKS[r] + SUITS[s] for _ in range(decks) for s in range(4) for r in range(13)]
    if seed < 32000:
        rng = LCRandom31(seed)
        cards = ms_rearrange(cards)
    else:
        rng = MTRandom(seed)
    shuffle(rng, cards)
    return cards  # the talon: its top card is the last


def deal_row(talon, rows, reverse=False):
    if reverse:
        rows = list(reversed(rows))
    for r in rows:
        r.append(talon.pop())


def klondike(seed):
    talon = talon_for(seed, 1)
    rows = [[] for _ in range(7)]
    for i in range(1, 7):
        deal_row(talon, rows[i:], reverse=True)
    deal_row(talon, rows, reverse=True)
    return rows, talon


def double_klondike(seed):
    talon = talon_for(seed, 2)
    rows = [[] for _ in range(9)]
    for i in range(9):
        deal_row(talon, rows[i + 1:])
    deal_row(talon, rows)
    return rows, talon


def main():
    game = sys.argv[1]
    for arg in sys.argv[2:]:
        rows, talon = {"klondike": klondike, "double_klondike": double_klondike}[game](int(arg))
        stock = list(reversed(talon))  # dealCards turns the top first
        print(json.dumps({"tableau": rows, "stock": stock}, separators=(",", ":")))


if __name__ == "__main__":
    main()
