package webtest

import (
	"fmt"
	"regexp"
	"strings"

	"klondike/api/web"
)

// The client in Arabic (issue 38): what an Arabic reader sees of a screen.
// checkArabic looks at the page as it is drawn, at the viewport's size:
//
//  1. the page is Arabic and right to left (<html lang="ar…" dir="rtl">);
//  2. nothing is wider than the screen: the document no wider than the
//     viewport, no text or control beyond its left or right edge, and no
//     text wider than its own box unless that box scrolls;
//  3. no text a person can see is left in English: every word of Latin
//     letters must be one of the few kinds allowed (arabicAllowed), or one
//     the test put on the page itself (the player names, the invite code).
//
// The text seen is every text node with an area on the page, under no
// aria-hidden and no visually-hidden clip, inside no closed <details> or
// hidden element (computed style), plus what a form control shows: the
// chosen option of a <select>, an empty field's placeholder, a button
// input's value.

// arabicLookJS is a function that gathers what checkArabic judges, as an
// arabicLook: the page's language and direction, its width, the texts seen
// and where they are, the boxes beyond the screen or narrower than their
// text, and (noted, not judged) the aria-labels, titles and alts.
const arabicLookJS = `(() => {
	const root = document.documentElement;
	const vw = root.clientWidth;
	const out = { Dir: root.dir, Lang: root.lang, ScrollWidth: root.scrollWidth, InnerWidth: window.innerWidth, Title: document.title, Texts: [], Attrs: [], Outside: [], Overflow: [] };
	const label = (e) => {
		let s = e.tagName.toLowerCase();
		if (e.id) return s + '#' + e.id;
		const cls = [...e.classList].slice(0, 2).join('.');
		if (cls) s += '.' + cls;
		for (const k of ['player', 'slot', 'variant', 'code']) if (e.dataset && e.dataset[k]) s += '[data-' + k + '="' + e.dataset[k] + '"]';
		return s;
	};
	const where = (e) => {
		const parts = [];
		for (let a = e; a && a !== document.body && parts.length < 4; a = a.parentElement) {
			parts.unshift(label(a));
			if (a.id) break;
		}
		return parts.join(' > ');
	};
	// clipped: the element or an ancestor is visually hidden (clip, or a
	// clip-path), as .visually-hidden is: there for screen readers alone.
	const clipCache = new Map();
	const clipped = (e) => {
		if (!e || e === document.body) return false;
		if (clipCache.has(e)) return clipCache.get(e);
		const cs = getComputedStyle(e);
		const r = (cs.clip !== 'auto' && cs.clip !== '' && (cs.position === 'absolute' || cs.position === 'fixed')) || (cs.clipPath !== 'none' && cs.clipPath !== '') || clipped(e.parentElement);
		clipCache.set(e, r);
		return r;
	};
	const seen = (e) => !!e && !e.closest('[aria-hidden="true"], script, style, noscript, template, .skip-link') &&
		e.checkVisibility({ opacityProperty: true, visibilityProperty: true, contentVisibilityAuto: true }) && !clipped(e);
	// folded: the node is inside a closed <details>, not in its summary.
	const folded = (n) => {
		for (let d = n.parentElement.closest('details:not([open])'); d; d = d.parentElement && d.parentElement.closest('details:not([open])')) {
			const s = d.querySelector(':scope > summary');
			if (!s || !s.contains(n)) return true;
		}
		return false;
	};
	// box is the nearest ancestor that makes a box (not inline, not contents).
	const box = (e) => {
		for (let a = e; a; a = a.parentElement) {
			const d = getComputedStyle(a).display;
			if (d !== 'inline' && d !== 'contents') return a;
		}
		return root;
	};
	// scroller is the nearest ancestor whose overflow clips or scrolls.
	const scroller = (e) => {
		for (let a = e.parentElement; a && a !== document.body && a !== root; a = a.parentElement) {
			if (getComputedStyle(a).overflowX !== 'visible') return a;
		}
		return null;
	};
	const boxes = new Set();
	const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
	for (let n = walk.nextNode(); n; n = walk.nextNode()) {
		const text = n.nodeValue.replace(/\s+/g, ' ').trim();
		if (!text) continue;
		const e = n.parentElement;
		if (!seen(e) || folded(n)) continue;
		const range = document.createRange();
		range.selectNodeContents(n);
		const r = range.getBoundingClientRect();
		if (r.width < 1 || r.height < 1) continue;
		out.Texts.push({ Text: text, Where: where(e), Switch: !!e.closest('#lang-switch') });
		boxes.add(box(e));
	}
	for (const e of document.querySelectorAll('select, input, textarea, button')) {
		if (!seen(e)) continue;
		const r = e.getBoundingClientRect();
		if (r.width < 1 || r.height < 1) continue;
		boxes.add(e);
		let text = '', what = '';
		if (e.tagName === 'SELECT') [text, what] = [e.selectedOptions.length ? e.selectedOptions[0].textContent : '', 'chosen option'];
		else if (e.tagName === 'INPUT' && ['button', 'submit', 'reset'].includes(e.type)) [text, what] = [e.value, 'value'];
		else if ((e.tagName === 'INPUT' || e.tagName === 'TEXTAREA') && !e.value) [text, what] = [e.placeholder || '', 'placeholder'];
		text = text.replace(/\s+/g, ' ').trim();
		if (text) out.Texts.push({ Text: text, Where: where(e) + ' (' + what + ')', Switch: e.id === 'lang-switch' });
	}
	// What screen readers and tooltips say: noted, not judged.
	for (const e of document.body.querySelectorAll('[aria-label], [title], [alt], [aria-description]')) {
		if (e.closest('[aria-hidden="true"]') || !e.checkVisibility()) continue;
		for (const a of ['aria-label', 'title', 'alt', 'aria-description']) {
			const v = (e.getAttribute(a) || '').trim();
			if (v) out.Attrs.push({ Text: v, Where: where(e) + ' [' + a + ']', Switch: e.id === 'lang-switch' });
		}
	}
	for (const e of boxes) {
		if (e === root || e === document.body) continue;
		const r = e.getBoundingClientRect();
		const text = (e.innerText || e.value || '').replace(/\s+/g, ' ').trim().slice(0, 80);
		// Beyond the screen's edges, unless an ancestor clips or scrolls it
		// (that ancestor is then judged instead).
		if (r.left < -0.5 || r.right > vw + 0.5) {
			const s = scroller(e);
			if (s) boxes.add(s);
			else out.Outside.push(where(e) + ' at ' + r.left.toFixed(0) + '…' + r.right.toFixed(0) + ' of 0…' + vw + ': "' + text + '"');
		}
		// Wider than its own box, where the box does not scroll.
		if (['SELECT', 'INPUT', 'TEXTAREA'].includes(e.tagName)) continue;
		const cs = getComputedStyle(e);
		if (cs.overflowX === 'auto' || cs.overflowX === 'scroll') continue;
		if (e.clientWidth > 0 && e.scrollWidth > e.clientWidth + 1) {
			out.Overflow.push(where(e) + ': text ' + e.scrollWidth + ' px wide in a box of ' + e.clientWidth + ' px (overflow ' + cs.overflowX + (cs.textOverflow === 'ellipsis' ? ', cut with …' : '') + '): "' + text + '"');
		}
	}
	return out;
})`

// An arabicLook is what arabicLookJS saw.
type arabicLook struct {
	Dir, Lang, Title        string
	ScrollWidth, InnerWidth int
	Texts, Attrs            []struct {
		Text, Where string
		Switch      bool // inside the language switch
	}
	Outside, Overflow []string
}

// arabicAllowed are the kinds of Latin words an Arabic page may show, each
// a whole word (a run between spaces, its outer punctuation taken off).
var arabicAllowed = []struct {
	what     string
	re, also *regexp.Regexp // the word matches re, and also when not nil
}{
	// A card as printed: its rank (A, J, Q, K; 2-10 are digits), with or
	// without its suit.
	{"a card", regexp.MustCompile(`^(A|J|Q|K)([♠♥♦♣]\x{FE0E}?)?$`), nil},
	// The move notation (docs/notation.md) and its letters: D, R, U, Y,
	// W, F, S, T1…T9, W-T3, T7-F, T6:3-T4, FH-T5.
	{"the move notation", regexp.MustCompile(`^(D|R|U|Y|W|F|S|T[1-9]|F[CDHS]|W-T[1-9]|W-F|T[1-9]-F|T[1-9](:[0-9]{1,2})?-T[1-9]|F[CDHS]-T[1-9])$`), nil},
	// A seed, a commitment or a SHA-256 digest in hex, whole or shortened
	// ("3fa9c2d1…b0e4c7").
	{"a hex digest", regexp.MustCompile(`^([0-9a-f]{8,}|[0-9a-f]{4,}…[0-9a-f]*)$`), nil},
	// A player's tag beside a name: "#3F2A".
	{"a player's tag", regexp.MustCompile(`^#[0-9A-F]{4}$`), nil},
	// An invite code, as the lobby's example shows one ("K7QX2M"): six of
	// the codes' letters and digits, a digit among them (a real code
	// without one is known to the test that made it).
	{"an invite code", regexp.MustCompile(`^[A-HJ-NP-Z2-9]{6}$`), regexp.MustCompile(`[2-9]`)},
	// A link.
	{"a URL", regexp.MustCompile(`^https?://\S+$`), nil},
	// The shell command that checks a revealed deal by hand (printf
	// '%s:%s' <salt> <seed> | sha256sum): a command to copy, not words.
	{"the check's shell command", regexp.MustCompile(`^(printf|%s:%s|sha256sum)$`), nil},
	// Names that have no Arabic form, kept in Latin letters on purpose by
	// the catalogue: the hash, the data format, the time zone, the program
	// whose deal numbers the server uses, and the keys as printed on a
	// keyboard.
	{"a name kept in Latin letters", regexp.MustCompile(`^(SHA-256|JSON|UTC|PySolFC|Enter|Esc)$`), nil},
}

// latinRE matches a word with a Latin letter.
var latinRE = regexp.MustCompile(`[A-Za-z\x{00C0}-\x{024F}]`)

// outerPunct is the punctuation around a word: Latin and Arabic marks,
// quotes, brackets, and the bidi isolates the client puts around cards.
const outerPunct = ".,;:!?()[]{}\"'«»“”‘’،؛؟…–—·\u2066\u2067\u2068\u2069\u200e\u200f"

// latinWords lists the words of text in Latin letters that are neither
// allowed nor known (exact words the test put on the page); inSwitch
// allows the language switch's own "English".
func latinWords(text string, known map[string]bool, inSwitch bool) []string {
	if inSwitch && text == "English" {
		return nil
	}
	var bad []string
	for _, w := range strings.Fields(text) {
		if known[w] {
			continue
		}
		w = strings.Trim(w, outerPunct)
		if !latinRE.MatchString(w) || known[w] {
			continue
		}
		ok := false
		for _, a := range arabicAllowed {
			// "#3F2A" keeps its "#"; other words lose it ("#K7QX2M").
			if (a.re.MatchString(w) || a.re.MatchString(strings.TrimPrefix(w, "#"))) && (a.also == nil || a.also.MatchString(w)) {
				ok = true
				break
			}
		}
		if !ok && !known[strings.TrimPrefix(w, "#")] {
			bad = append(bad, w)
		}
	}
	return bad
}

// checkArabic runs the three checks on the page as it is now (see the top
// of this file) and fails the test for each problem, naming the screen and
// the viewport's width. known are words the test put on the page (player
// names, codes), allowed as they are.
func (p *page) checkArabic(screen string, known ...string) {
	p.t.Helper()
	problems, texts := p.arabicProblems(screen, known...)
	at := fmt.Sprintf("%s: %s at %dpx", p.name, screen, eval[int](p, "the width", `window.innerWidth`))
	for _, pr := range problems {
		p.t.Errorf("%s: %s", at, pr)
	}
	if len(problems) == 0 {
		p.t.Logf("%s: Arabic, right to left, within the screen, no English (%d texts)", at, texts)
	}
}

// arabicProblems lists what checkArabic finds wrong with the page as it
// is now, one a line, and how many texts it read.
func (p *page) arabicProblems(screen string, known ...string) ([]string, int) {
	p.t.Helper()
	look := eval[arabicLook](p, "look at "+screen, arabicLookJS+"()")
	ok := map[string]bool{}
	for _, k := range known {
		for _, w := range strings.Fields(k) {
			ok[w] = true
		}
	}
	var problems []string
	if look.Dir != "rtl" || !strings.HasPrefix(look.Lang, "ar") {
		problems = append(problems, fmt.Sprintf("<html> has dir=%q lang=%q, want rtl and ar", look.Dir, look.Lang))
	}
	if look.ScrollWidth > look.InnerWidth {
		problems = append(problems, fmt.Sprintf("the page is %d px wide on a %d px screen", look.ScrollWidth, look.InnerWidth))
	}
	for _, o := range look.Outside {
		problems = append(problems, "beyond the screen: "+o)
	}
	for _, o := range look.Overflow {
		problems = append(problems, "overflows its box: "+o)
	}
	if bad := latinWords(look.Title, ok, false); len(bad) > 0 {
		problems = append(problems, fmt.Sprintf("untranslated %q in the document's title %q", bad, look.Title))
	}
	for _, tx := range look.Texts {
		if bad := latinWords(tx.Text, ok, tx.Switch); len(bad) > 0 {
			problems = append(problems, fmt.Sprintf("untranslated %q in %s: %q", bad, tx.Where, clip(tx.Text, 120)))
		}
	}
	for _, tx := range look.Attrs {
		if bad := latinWords(tx.Text, ok, tx.Switch); len(bad) > 0 {
			p.t.Logf("%s: %s: note (not checked): Latin %q in %s: %q", p.name, screen, bad, tx.Where, clip(tx.Text, 120))
		}
	}
	return problems, len(look.Texts)
}

// clip shortens s to n runes.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// checkArabicSizes checks the screen (checkArabic) at 1280×800 and at
// 390×844, scrolled to the top, and saves a screenshot of each as
// ar-<shot>.png and ar-<shot>-phone.png (when KLONDIKE_SCREENSHOTS names a
// directory). prepare, when not nil, runs after each change of size,
// before the look (to open or scroll to what is checked). The page is left
// at 1280×800.
func (p *page) checkArabicSizes(screen, shot string, prepare func(), known ...string) {
	p.t.Helper()
	for _, size := range sizes {
		p.viewport(size.w, size.h, size.scale)
		eval[bool](p, "scroll to the top", `(() => { window.scrollTo(0, 0); return true; })()`)
		if prepare != nil {
			prepare()
		}
		p.checkArabic(screen, known...)
		p.screenshotTo("ar-" + shot + size.suffix)
	}
	p.viewport(desktopW, desktopH, 1)
}

// useArabic makes Arabic the page's stored language before the client is
// first loaded, as a player's earlier choice would: the page's origin is
// opened at /healthz (no client) to write localStorage.
func (p *page) useArabic() {
	p.t.Helper()
	p.navigate("/healthz")
	eval[bool](p, "choose Arabic", `(() => { localStorage.setItem('klondike.lang', 'ar'); return true; })()`)
}

// newArabicPage opens a page whose stored language is Arabic.
func (b *browser) newArabicPage(name, base string) *page {
	b.t.Helper()
	p := b.newPage(name, base)
	p.useArabic()
	return p
}

// arCategory is the Arabic plural category of a whole number n, as CLDR
// (and so Intl.PluralRules('ar')) defines it.
func arCategory(n int) string {
	switch m := n % 100; {
	case n == 0:
		return "zero"
	case n == 1:
		return "one"
	case n == 2:
		return "two"
	case m >= 3 && m <= 10:
		return "few"
	case m >= 11 && m <= 99:
		return "many"
	}
	return "other"
}

// arForm is the Arabic catalogue's form of the plural key for the count n
// (the form of n's category, {n} and params filled in), read from the
// catalogue the page serves: what the page should show for that count.
func (p *page) arForm(key string, n int, params map[string]string) string {
	p.t.Helper()
	return eval[string](p, "the Arabic form of "+key, fmt.Sprintf(`(async () => {
		const ar = (await import('/static/%s/js/lang/ar.js')).default;
		const v = ar[%s];
		if (!v || typeof v !== 'object') throw new Error('no plural ' + %[2]s + ' in ar.js');
		const params = { n: %d, ...%s };
		return (v[%s] ?? v.other).replace(/\{(\w+)\}/g, (all, k) => k in params ? String(params[k]) : all);
	})()`, web.Version(), jsString(key), n, jsJSON(params), jsString(arCategory(n))))
}
