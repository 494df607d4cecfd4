package web

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
)

func get(t *testing.T, h http.Handler, method, path string, hdr map[string]string) *http.Response {
	t.Helper()
	req := httptest.NewRequest(method, path, nil)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Result()
}

func body(t *testing.T, r *http.Response) string {
	t.Helper()
	b, err := io.ReadAll(r.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestPagesServeTheClient(t *testing.T) {
	h := Handler()
	for _, p := range []string{"/", "/index.html", "/m/K7QX2M", "/m/k7qx2m/", "/deal/1", "/deal/18446744073709551615?draw=1",
		"/daily", "/daily/", "/c/c0123456789ab", "/c/daily-2026-12-04-draw3/", "/p/51ce19722766c6cd", "/p/51CE19722766C6CD/",
		"/privacy", "/privacy/", "/ladder", "/ladder/", "/ladder/klondike/3", "/ladder/double_klondike/1/"} {
		r := get(t, h, "GET", p, nil)
		if r.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d", p, r.StatusCode)
		}
		if ct := r.Header.Get("Content-Type"); ct != "text/html; charset=utf-8" {
			t.Errorf("GET %s: Content-Type %q", p, ct)
		}
		if cc := r.Header.Get("Cache-Control"); cc != "no-cache" {
			t.Errorf("GET %s: Cache-Control %q", p, cc)
		}
		if r.Header.Get("ETag") == "" || r.Header.Get("Content-Security-Policy") == "" || r.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("GET %s: missing headers %v", p, r.Header)
		}
		b := body(t, r)
		if !strings.Contains(b, "/static/"+Version()+"/js/app.js") || strings.Contains(b, versionPlaceholder) {
			t.Errorf("GET %s: the page does not name the assets' version", p)
		}
	}
}

func TestPageRevalidates(t *testing.T) {
	h := Handler()
	etag := get(t, h, "GET", "/", nil).Header.Get("ETag")
	r := get(t, h, "GET", "/m/ABCDEF", map[string]string{"If-None-Match": etag})
	if r.StatusCode != http.StatusNotModified {
		t.Fatalf("conditional GET: %d, want 304", r.StatusCode)
	}
}

func TestAssets(t *testing.T) {
	h := Handler()
	v := Version()
	for name, want := range map[string]string{
		"app.css":      "text/css; charset=utf-8",
		"js/app.js":    "text/javascript; charset=utf-8",
		"js/engine.js": "text/javascript; charset=utf-8",
		"js/board.js":  "text/javascript; charset=utf-8",
		"js/net.js":    "text/javascript; charset=utf-8",
		"js/replay.js": "text/javascript; charset=utf-8",
		"js/fair.js":   "text/javascript; charset=utf-8",
		"js/util.js":   "text/javascript; charset=utf-8",
		"favicon.svg":  "image/svg+xml",
	} {
		r := get(t, h, "GET", "/static/"+v+"/"+name, nil)
		if r.StatusCode != http.StatusOK {
			t.Fatalf("%s: %d", name, r.StatusCode)
		}
		if ct := r.Header.Get("Content-Type"); ct != want {
			t.Errorf("%s: Content-Type %q, want %q", name, ct, want)
		}
		if cc := r.Header.Get("Cache-Control"); cc != "public, max-age=31536000, immutable" {
			t.Errorf("%s: Cache-Control %q", name, cc)
		}
		if len(body(t, r)) == 0 {
			t.Errorf("%s: empty", name)
		}
	}
	// Another build's version is served but not cached.
	r := get(t, h, "GET", "/static/0123456789ab/js/app.js", nil)
	if r.StatusCode != http.StatusOK || r.Header.Get("Cache-Control") != "no-cache" {
		t.Errorf("old version: %d %q", r.StatusCode, r.Header.Get("Cache-Control"))
	}
	// HEAD works and sends no body.
	r = get(t, h, "HEAD", "/static/"+v+"/app.css", nil)
	if r.StatusCode != http.StatusOK || body(t, r) != "" {
		t.Errorf("HEAD: %d", r.StatusCode)
	}
}

func TestNotFound(t *testing.T) {
	h := Handler()
	v := Version()
	for _, p := range []string{"/nope", "/m/", "/m/a/b", "/deal/x", "/deal/", "/daily/x", "/dailyx", "/c/", "/c/a/b", "/c/a.b",
		"/c/" + strings.Repeat("a", 65), "/p/", "/p/a/b", "/p/a-b", "/p/" + strings.Repeat("a", 33), "/privacyx", "/privacy/x",
		"/ladderx", "/ladder/klondike", "/ladder/klondike/x", "/ladder/Klondike/3", "/ladder/klondike/3/x", "/ladder/klondike/123",
		"/static/", "/static/" + v + "/", "/static/" + v + "/index.html",
		"/static/" + v + "/nope.js", "/static/" + v + "/../web.go", "/static/" + v, "/api/v1/whatever"} {
		if r := get(t, h, "GET", p, nil); r.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", p, r.StatusCode)
		}
	}
	if r := get(t, h, "POST", "/", nil); r.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST /: %d", r.StatusCode)
	}
	if r := get(t, h, "GET", "/favicon.ico", nil); r.StatusCode != http.StatusFound {
		t.Errorf("favicon: %d", r.StatusCode)
	}
}

func TestVersionIsStable(t *testing.T) {
	if Version() != Version() || len(Version()) != 12 {
		t.Fatalf("version %q", Version())
	}
}

// TestHiddenWins guards the rule that makes the hidden attribute win over
// every display rule (.btn is inline-flex), for builds without Chromium;
// api/webtest checks what the browser shows.
func TestHiddenWins(t *testing.T) {
	css, err := staticFS.ReadFile("static/app.css")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(css), "[hidden] { display: none !important; }") {
		t.Errorf("app.css lacks the rule [hidden] { display: none !important; }")
	}
}

// importPattern finds a module's static imports of its siblings, such as
// `import { h } from './util.js';` (over one line or several).
var importPattern = regexp.MustCompile(`(?m)^import\s[^;]*?\sfrom\s+'\./([A-Za-z0-9_-]+\.js)';`)

// TestModuleGraph checks the client's modules without a browser: every
// import names an embedded module, the imports form no cycle (the modules
// are layered, and app.js wires the upper ones together), and every module
// is reached from app.js, the one index.html loads.
func TestModuleGraph(t *testing.T) {
	entries, err := staticFS.ReadDir("static/js")
	if err != nil {
		t.Fatal(err)
	}
	imports := map[string][]string{}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".js") {
			continue
		}
		b, err := staticFS.ReadFile("static/js/" + e.Name())
		if err != nil {
			t.Fatal(err)
		}
		imports[e.Name()] = nil
		for _, m := range importPattern.FindAllStringSubmatch(string(b), -1) {
			imports[e.Name()] = append(imports[e.Name()], m[1])
		}
	}
	for from, tos := range imports {
		for _, to := range tos {
			if _, ok := imports[to]; !ok {
				t.Errorf("%s imports ./%s, which is not embedded", from, to)
			}
		}
	}
	if t.Failed() {
		return
	}

	// A depth-first walk from app.js: a module met again while it is on
	// the path is a cycle.
	const (
		unseen = iota
		onPath
		done
	)
	state := map[string]int{}
	var path []string
	var walk func(string)
	walk = func(m string) {
		state[m] = onPath
		path = append(path, m)
		for _, to := range imports[m] {
			switch state[to] {
			case onPath:
				t.Errorf("import cycle: %s -> %s", strings.Join(path, " -> "), to)
			case unseen:
				walk(to)
			}
		}
		path = path[:len(path)-1]
		state[m] = done
	}
	walk("app.js")
	for m := range imports {
		if state[m] != done {
			t.Errorf("%s is not imported by app.js or any module it imports", m)
		}
	}
}

// An entry is one key of a catalogue: a sentence, or a plural's forms.
type entry struct {
	text  string
	forms map[string]string // nil unless a plural
}

// readCatalogue reads static/js/lang/<code>.js, a flat object of keys
// whose values are single-quoted strings or objects of them (the plural
// forms): the format api/web/README.md ("Languages") describes.
func readCatalogue(t *testing.T, code string) map[string]entry {
	t.Helper()
	b, err := staticFS.ReadFile("static/js/lang/" + code + ".js")
	if err != nil {
		t.Fatal(err)
	}
	src := string(b)
	i := strings.Index(src, "export default {")
	if i < 0 {
		t.Fatalf("%s.js: no export default {", code)
	}
	p := &jsReader{src: src, at: i + len("export default {")}
	out := map[string]entry{}
	for {
		p.space()
		if p.peek() == '}' {
			return out
		}
		key := p.str()
		p.expect(':')
		p.space()
		var e entry
		if p.peek() == '{' {
			p.at++
			e.forms = map[string]string{}
			for {
				p.space()
				if p.peek() == '}' {
					p.at++
					break
				}
				form := p.ident()
				p.expect(':')
				p.space()
				e.forms[form] = p.str()
				p.space()
				if p.peek() == ',' {
					p.at++
				}
			}
		} else {
			e.text = p.str()
		}
		if p.err != "" {
			t.Fatalf("%s.js: %s", code, p.err)
		}
		if _, dup := out[key]; dup {
			t.Errorf("%s.js: %s twice", code, key)
		}
		out[key] = e
		p.space()
		if p.peek() == ',' {
			p.at++
		}
		if p.err != "" {
			t.Fatalf("%s.js: %s", code, p.err)
		}
	}
}

// jsReader reads the little JavaScript a catalogue is made of; err says
// where it met something else.
type jsReader struct {
	src string
	at  int
	err string
}

func (p *jsReader) fail(what string) {
	if p.err == "" {
		p.err = fmt.Sprintf("%s at line %d", what, strings.Count(p.src[:min(p.at, len(p.src))], "\n")+1)
	}
	p.at = len(p.src)
}

func (p *jsReader) peek() byte {
	if p.at >= len(p.src) {
		p.fail("unexpected end")
		return '}'
	}
	return p.src[p.at]
}

// space skips white space and // comments.
func (p *jsReader) space() {
	for p.at < len(p.src) {
		switch {
		case strings.HasPrefix(p.src[p.at:], "//"):
			n := strings.IndexByte(p.src[p.at:], '\n')
			if n < 0 {
				p.at = len(p.src)
				return
			}
			p.at += n
		case strings.ContainsRune(" \t\r\n", rune(p.src[p.at])):
			p.at++
		default:
			return
		}
	}
}

func (p *jsReader) expect(c byte) {
	p.space()
	if p.peek() != c {
		p.fail(fmt.Sprintf("want %q", c))
		return
	}
	p.at++
}

func (p *jsReader) ident() string {
	start := p.at
	for p.at < len(p.src) && (p.src[p.at] >= 'a' && p.src[p.at] <= 'z') {
		p.at++
	}
	if p.at == start {
		p.fail("want a plural form")
	}
	return p.src[start:p.at]
}

// str reads a single-quoted string, with its escapes left as written.
func (p *jsReader) str() string {
	if p.peek() != '\'' {
		p.fail("want a quoted string")
		return ""
	}
	var sb strings.Builder
	for p.at++; p.at < len(p.src); p.at++ {
		switch c := p.src[p.at]; c {
		case '\\':
			sb.WriteByte(c)
			p.at++
			if p.at < len(p.src) {
				sb.WriteByte(p.src[p.at])
			}
		case '\'':
			p.at++
			return sb.String()
		case '\n':
			p.fail("a string runs past its line")
			return ""
		default:
			sb.WriteByte(c)
		}
	}
	p.fail("an unended string")
	return ""
}

// placeholders lists the {name}s of a sentence, sorted.
var placeholderPattern = regexp.MustCompile(`\{(\w+)\}`)

func placeholders(s string, drop string) []string {
	var out []string
	for _, m := range placeholderPattern.FindAllStringSubmatch(s, -1) {
		if m[1] != drop && !slices.Contains(out, m[1]) {
			out = append(out, m[1])
		}
	}
	sort.Strings(out)
	return out
}

// TestCataloguesComplete checks every catalogue against English's: the
// same keys, the same {params} in every sentence (a plural's form may
// leave out a param, its count too: "one card", "two cards", but names
// none English lacks), a plural wherever English has one, with every form
// its language's plural rules name (its lang.plurals: the forms
// Intl.PluralRules gives the language, which a catalogue states since Go
// cannot ask).
func TestCataloguesComplete(t *testing.T) {
	langs := Languages()
	if !slices.Contains(langs, "en") || !slices.Contains(langs, "ar") {
		t.Fatalf("languages %v, want en and ar among them", langs)
	}
	en := readCatalogue(t, "en")
	if len(en) < 500 {
		t.Errorf("en.js has %d keys: the reader stopped early?", len(en))
	}
	for _, code := range langs {
		cat := readCatalogue(t, code)
		for key, want := range en {
			got, ok := cat[key]
			if !ok {
				t.Errorf("%s.js lacks %s", code, key)
				continue
			}
			if (want.forms == nil) != (got.forms == nil) {
				t.Errorf("%s.js: %s is a plural in one catalogue and not in the other", code, key)
				continue
			}
			if want.forms == nil {
				if w, g := placeholders(want.text, ""), placeholders(got.text, ""); !slices.Equal(w, g) {
					t.Errorf("%s.js: %s has {params} %v, English %v", code, key, g, w)
				}
				continue
			}
			if key == "ordinal" {
				continue // its forms are the ordinal rules', which English names other than its plurals
			}
			forms := strings.Fields(cat["lang.plurals"].text)
			if !slices.Contains(forms, "other") {
				t.Errorf("%s.js: lang.plurals %q lacks other: name the forms Intl.PluralRules('%s') gives", code, cat["lang.plurals"].text, code)
				continue
			}
			w := placeholders(want.forms["other"], "n")
			for _, f := range forms {
				s, ok := got.forms[f]
				if !ok {
					t.Errorf("%s.js: %s lacks the plural form %s", code, key, f)
					continue
				}
				// A form may leave a param out ("the waste: empty" has
				// no top card), but never name one that is not given.
				for _, g := range placeholders(s, "n") {
					if !slices.Contains(w, g) {
						t.Errorf("%s.js: %s.%s has {%s}, which English's other lacks", code, key, f, g)
					}
				}
			}
		}
		for key := range cat {
			if _, ok := en[key]; !ok {
				t.Errorf("%s.js has %s, which English lacks", code, key)
			}
		}
	}
}

// keyUse finds the catalogue keys the modules ask for by name:
// t('lobby.title'…) and plural('room.watching'…).
var keyUse = regexp.MustCompile(`\b(?:t|plural)\(\s*'([a-z0-9_.]+)'`)

// TestKeysUsedExist checks that every key a module asks for by name is in
// English's catalogue (which every other falls back to).
func TestKeysUsedExist(t *testing.T) {
	en := readCatalogue(t, "en")
	entries, err := staticFS.ReadDir("static/js")
	if err != nil {
		t.Fatal(err)
	}
	used := 0
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".js") {
			continue
		}
		b, err := staticFS.ReadFile("static/js/" + e.Name())
		if err != nil {
			t.Fatal(err)
		}
		// Comments show keys as examples; only code asks for them.
		var code []string
		for _, line := range strings.Split(string(b), "\n") {
			if l := strings.TrimSpace(line); !strings.HasPrefix(l, "//") && !strings.HasPrefix(l, "*") && !strings.HasPrefix(l, "/*") {
				code = append(code, line)
			}
		}
		for _, m := range keyUse.FindAllStringSubmatch(strings.Join(code, "\n"), -1) {
			used++
			if _, ok := en[m[1]]; !ok {
				t.Errorf("%s asks for %s, which en.js lacks", e.Name(), m[1])
			}
		}
	}
	if used < 300 {
		t.Errorf("only %d keys asked for by name: the pattern no longer matches the modules?", used)
	}
}

// TestPageNamesLanguages checks that the page lists the catalogues, the
// languages the switch offers.
func TestPageNamesLanguages(t *testing.T) {
	b := body(t, get(t, Handler(), "GET", "/", nil))
	want := `data-languages="` + strings.Join(Languages(), " ") + `"`
	if !strings.Contains(b, want) || strings.Contains(b, languagesPlaceholder) {
		t.Errorf("the page does not say %s", want)
	}
}
