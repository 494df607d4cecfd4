package webtest

import (
	"fmt"
	"strings"

	"github.com/chromedp/chromedp"
)

// What a person sees: these helpers read the computed style and the layout
// (getComputedStyle, getBoundingClientRect, elementFromPoint), never the
// attributes that ask for it, since a CSS rule can show what an attribute
// hides.

// shownJS is a function of an element or a selector: true when the element
// is rendered with an area, every ancestor displayed and nothing making it
// invisible.
const shownJS = `((x) => {
	const e = typeof x === 'string' ? document.querySelector(x) : x;
	if (!e) return false;
	for (let a = e; a; a = a.parentElement) {
		const cs = getComputedStyle(a);
		if (cs.display === 'none' || cs.contentVisibility === 'hidden' || +cs.opacity === 0) return false;
	}
	if (getComputedStyle(e).visibility !== 'visible') return false;
	const r = e.getBoundingClientRect();
	return r.width > 0 && r.height > 0;
})`

// shown tells whether the element matched by css can be seen.
func (p *page) shown(css string) bool {
	p.t.Helper()
	return eval[bool](p, "is "+css+" shown", fmt.Sprintf(`%s(%s)`, shownJS, jsString(css)))
}

// waitShown waits until the element matched by css can be seen.
func (p *page) waitShown(what, css string) {
	p.t.Helper()
	p.waitJS(what, fmt.Sprintf(`%s(%s)`, shownJS, jsString(css)))
}

// wantShown fails the test unless each element is seen (true) or unseen
// (false) as want says.
func (p *page) wantShown(where string, want map[string]bool) {
	p.t.Helper()
	// One look at the page for all of them: the same moment for each.
	sels := make([]string, 0, len(want))
	for css := range want {
		sels = append(sels, css)
	}
	got := eval[[]bool](p, "what "+where+" shows", fmt.Sprintf(`%s.map(%s)`, jsJSON(sels), shownJS))
	if len(got) != len(sels) {
		p.t.Fatalf("%s: %s: %d answers for %d elements", p.name, where, len(got), len(sels))
	}
	for i, css := range sels {
		if w := want[css]; got[i] != w {
			p.t.Errorf("%s: %s: %s shown = %v, want %v", p.name, where, css, got[i], w)
		}
	}
}

// A box is an element's border box in CSS pixels, relative to the viewport.
type box struct {
	X, Y, W, H float64
}

func (b box) bottom() float64 { return b.Y + b.H }
func (b box) right() float64  { return b.X + b.W }

// overlaps tells whether two boxes share any area.
func (b box) overlaps(c box) bool {
	return b.X < c.right() && c.X < b.right() && b.Y < c.bottom() && c.Y < b.bottom()
}

// boxOf returns the box of the element matched by css.
func (p *page) boxOf(css string) box {
	p.t.Helper()
	return eval[box](p, "the box of "+css, fmt.Sprintf(`(() => {
		const e = document.querySelector(%s);
		if (!e) throw new Error('no element ' + %[1]s);
		const r = e.getBoundingClientRect();
		return { X: r.x, Y: r.y, W: r.width, H: r.height };
	})()`, jsString(css)))
}

// onTop tells whether the element matched by css is what a click at its
// centre would reach (itself or something inside it): nothing covers it.
func (p *page) onTop(css string) bool {
	p.t.Helper()
	return eval[bool](p, "is "+css+" on top", fmt.Sprintf(`(() => {
		const e = document.querySelector(%s);
		if (!e) return false;
		const r = e.getBoundingClientRect();
		const hit = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
		return !!hit && (hit === e || e.contains(hit));
	})()`, jsString(css)))
}

// textOf returns the rendered text of the element matched by css.
func (p *page) textOf(css string) string {
	p.t.Helper()
	return eval[string](p, "the text of "+css, fmt.Sprintf(`(() => { const e = document.querySelector(%s); return e ? e.innerText : ''; })()`, jsString(css)))
}

// rowsOf counts the rows the seen children of the elements matched by css
// are laid out in: a child starts a new row when it begins below the
// bottom of the row so far.
func (p *page) rowsOf(css string) int {
	p.t.Helper()
	return eval[int](p, "the rows of "+css, fmt.Sprintf(`(() => {
		const shown = %s;
		const items = [...document.querySelectorAll(%s)].flatMap((e) => [...e.children])
			.filter((c) => shown(c))
			.map((c) => c.getBoundingClientRect()).sort((a, b) => a.top - b.top);
		let rows = 0, bottom = -Infinity;
		for (const r of items) {
			if (r.top >= bottom - 1) { rows++; bottom = r.bottom; } else bottom = Math.max(bottom, r.bottom);
		}
		return rows;
	})()`, shownJS, jsString(css)))
}

// outside lists the seen elements matched by inner that reach beyond the
// left or right edge of the element matched by outer (or of the viewport
// when outer is ""), as "selector: left-right".
func (p *page) outside(outer, inner string) []string {
	p.t.Helper()
	return eval[[]string](p, "what sticks out of "+outer, fmt.Sprintf(`(() => {
		const shown = %s;
		const o = %s ? document.querySelector(%[2]s).getBoundingClientRect() : { left: 0, right: document.documentElement.clientWidth };
		return [...document.querySelectorAll(%s)].filter((e) => shown(e)).flatMap((e) => {
			const r = e.getBoundingClientRect();
			const name = e.id ? '#' + e.id : e.tagName.toLowerCase() + '.' + e.className;
			return r.left < o.left - 0.5 || r.right > o.right + 0.5 ? [name + ': ' + r.left.toFixed(0) + '-' + r.right.toFixed(0) + ' outside ' + o.left.toFixed(0) + '-' + o.right.toFixed(0)] : [];
		});
	})()`, shownJS, jsString(outer), jsString(inner)))
}

// alignOf returns the computed text-align of every element matched by css.
func (p *page) alignOf(css string) []string {
	p.t.Helper()
	return eval[[]string](p, "the alignment of "+css, fmt.Sprintf(`[...document.querySelectorAll(%s)].map((e) => getComputedStyle(e).textAlign)`, jsString(css)))
}

// headers returns the rendered texts of a table's column headers.
func (p *page) headers(table string) []string {
	p.t.Helper()
	return eval[[]string](p, "the headers of "+table, fmt.Sprintf(`[...document.querySelectorAll(%s)].map((e) => e.innerText.trim())`, jsString(table+" thead th")))
}

// fanLegible checks that the rank and suit in the corner of every waste
// card under the top one are not covered by the card above it: the topmost
// element at the right edge of its corner is that card.
func (p *page) fanLegible() []string {
	p.t.Helper()
	return eval[[]string](p, "the waste fan", `(() => {
		const bad = [];
		const cards = [...document.querySelectorAll('.board [data-slot="W"] .card.fan')];
		cards.slice(0, -1).forEach((c) => {
			for (const part of c.querySelectorAll('.corner.tl .r, .corner.tl .s')) {
				const r = part.getBoundingClientRect();
				const hit = document.elementFromPoint(r.right - 1, r.top + r.height / 2);
				if (!hit || hit.closest('.card') !== c) bad.push(c.dataset.card + ' ' + part.className + ' ' + r.width.toFixed(1) + 'px wide');
			}
		});
		return bad;
	})()`)
}

// hasAll tells whether every want is among got.
func hasAll(got []string, want ...string) bool {
	for _, w := range want {
		found := false
		for _, g := range got {
			if strings.EqualFold(g, w) {
				found = true
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// The two screen sizes the client is checked at.
const (
	desktopW, desktopH = 1280, 800
	phoneW, phoneH     = 390, 844
)

// viewport makes the page's viewport w×h CSS pixels at scale device pixels
// each, and waits for the layout to follow.
func (p *page) viewport(w, h int64, scale float64) {
	p.t.Helper()
	p.do(fmt.Sprintf("a %dx%d viewport", w, h), chromedp.EmulateViewport(w, h, chromedp.EmulateScale(scale)))
	got := eval[[]int](p, "the new size", `new Promise((r) => requestAnimationFrame(() => r([window.innerWidth, window.innerHeight])))`)
	if len(got) != 2 || got[0] != int(w) || got[1] != int(h) {
		p.t.Fatalf("%s: the viewport is %v, want %dx%d", p.name, got, w, h)
	}
}
