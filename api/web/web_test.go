package web

import (
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
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
