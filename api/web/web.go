// Package web is the browser client of klondiked: plain HTML, CSS and
// JavaScript modules, embedded in the binary, with no build step and no
// third-party assets.
//
// Handler serves the client's pages and assets:
//
//	GET /                 the client (index.html)
//	GET /m/<code>         the client; its router joins the match with that invite code
//	GET /deal/<seed>      the client; its router offers to play that numbered deal
//	GET /daily            the client; its router shows today's daily deals
//	GET /c/<id>           the client; its router shows that challenge
//	GET /p/<id>           the client; its router shows that player's profile
//	GET /privacy          the client; its router shows the privacy page
//	GET /ladder/<g>/<d>   the client; its router shows the ladder of game g, draw d (/ladder: Klondike, draw 3)
//	GET /static/<v>/…     the assets; <v> is a hash of their content, so they are immutable
//
// Everything else is 404, so that the handler can sit behind "GET /" on a mux
// whose other routes (/ws, /api/…, /healthz, …) are more specific.
//
// The page names the languages the client speaks, one catalogue each in
// static/js/lang (<html data-languages="ar en">): a language is added by
// adding its file.
package web

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"
)

//go:embed static
var staticFS embed.FS

// assetPrefix is where the assets are served; the version follows it.
const assetPrefix = "/static/"

// versionPlaceholder is replaced in index.html by the assets' version.
const versionPlaceholder = "__V__"

// languagesPlaceholder is replaced in index.html by the codes of the
// catalogues in static/js/lang ("ar en"): the client offers the languages
// it finds there, so that a new language is one new file.
const languagesPlaceholder = "__LANGS__"

// langDir holds the catalogues, one file a language named by its code.
const langDir = "js/lang/"

type asset struct {
	body        []byte
	contentType string
	etag        string
}

type site struct {
	version   string
	languages []string // the catalogues' codes, sorted
	index     asset
	assets    map[string]asset // by path below static/, such as "js/app.js"
}

var (
	loadOnce sync.Once
	loaded   *site
)

// contentTypes are the types of the files the client is made of; the
// system's MIME table is not trusted to know them all.
var contentTypes = map[string]string{
	".html":        "text/html; charset=utf-8",
	".css":         "text/css; charset=utf-8",
	".js":          "text/javascript; charset=utf-8",
	".svg":         "image/svg+xml",
	".png":         "image/png",
	".json":        "application/json",
	".txt":         "text/plain; charset=utf-8",
	".webmanifest": "application/manifest+json",
}

func typeOf(name string) string {
	ext := path.Ext(name)
	if t, ok := contentTypes[ext]; ok {
		return t
	}
	if t := mime.TypeByExtension(ext); t != "" {
		return t
	}
	return "application/octet-stream"
}

func etagOf(b []byte) string {
	sum := sha256.Sum256(b)
	return `"` + hex.EncodeToString(sum[:12]) + `"`
}

// load reads the embedded files once: the version is a hash of every asset,
// so a new build gets new asset URLs and a browser never mixes old and new
// modules.
func load() *site {
	loadOnce.Do(func() {
		s := &site{assets: map[string]asset{}}
		var names []string
		err := fs.WalkDir(staticFS, "static", func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			names = append(names, p)
			return nil
		})
		if err != nil {
			panic("web: reading the embedded client: " + err.Error())
		}
		sort.Strings(names)
		h := sha256.New()
		var index []byte
		for _, p := range names {
			b, err := staticFS.ReadFile(p)
			if err != nil {
				panic("web: reading the embedded client: " + err.Error())
			}
			rel := strings.TrimPrefix(p, "static/")
			if code, ok := strings.CutPrefix(rel, langDir); ok && strings.HasSuffix(code, ".js") && !strings.Contains(code, "/") {
				s.languages = append(s.languages, strings.TrimSuffix(code, ".js"))
			}
			if rel == "index.html" {
				index = b
			} else {
				s.assets[rel] = asset{body: b, contentType: typeOf(rel), etag: etagOf(b)}
			}
			h.Write([]byte(rel))
			h.Write([]byte{0})
			h.Write(b)
		}
		s.version = hex.EncodeToString(h.Sum(nil))[:12]
		page := bytes.ReplaceAll(index, []byte(versionPlaceholder), []byte(s.version))
		page = bytes.ReplaceAll(page, []byte(languagesPlaceholder), []byte(strings.Join(s.languages, " ")))
		s.index = asset{body: page, contentType: typeOf("index.html"), etag: etagOf(page)}
		loaded = s
	})
	return loaded
}

// Version returns the assets' version: the part of their URLs that changes
// whenever any of them does.
func Version() string { return load().version }

// Languages returns the codes of the languages the client speaks ("ar",
// "en"): one catalogue each, static/js/lang/<code>.js.
func Languages() []string { return append([]string(nil), load().languages...) }

// Page routes: the client's router reads the path.
var (
	matchPath = regexp.MustCompile(`^/m/[A-Za-z0-9]{1,16}/?$`)
	dealPath  = regexp.MustCompile(`^/deal/[0-9]{1,20}/?$`)
	dailyPath = regexp.MustCompile(`^/daily/?$`)
	// A challenge's id is the server's asynchronous round id.
	challengePath = regexp.MustCompile(`^/c/[A-Za-z0-9_-]{1,64}/?$`)
	// A player's id is 16 hex digits; the router reads up to 32 letters
	// and digits, and the profile says when there is no such player.
	profilePath = regexp.MustCompile(`^/p/[A-Za-z0-9]{1,32}/?$`)
	privacyPath = regexp.MustCompile(`^/privacy/?$`)
	// A ladder's game is a name of lower-case letters and underscores; the
	// page says when the server has no such ladder.
	ladderPath = regexp.MustCompile(`^/ladder(/[a-z_]{1,32}/[0-9]{1,2})?/?$`)
)

// isPage reports whether p is a path of the client's pages.
func isPage(p string) bool {
	if p == "/" || p == "/index.html" {
		return true
	}
	for _, re := range []*regexp.Regexp{matchPath, dealPath, dailyPath, challengePath, profilePath, privacyPath, ladderPath} {
		if re.MatchString(p) {
			return true
		}
	}
	return false
}

// Handler returns the handler of the web client.
func Handler() http.Handler {
	s := load()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		p := r.URL.Path
		switch {
		case isPage(p):
			s.servePage(w, r)
		case strings.HasPrefix(p, assetPrefix):
			s.serveAsset(w, r, strings.TrimPrefix(p, assetPrefix))
		case p == "/favicon.ico":
			// Browsers ask for it whatever the page says; the page links
			// the SVG icon.
			w.Header().Set("Cache-Control", "public, max-age=86400")
			http.Redirect(w, r, assetPrefix+s.version+"/favicon.svg", http.StatusFound)
		default:
			http.NotFound(w, r)
		}
	})
}

// securityHeaders are sent with every page and asset: the client loads only
// its own files and talks only to its own server.
func securityHeaders(h http.Header) {
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin")
	h.Set("Content-Security-Policy", "default-src 'self'; script-src 'self'; style-src 'self'; "+
		"img-src 'self' data:; connect-src 'self'; font-src 'self'; object-src 'none'; "+
		"base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
}

func (s *site) servePage(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	securityHeaders(h)
	h.Set("Content-Type", s.index.contentType)
	// Always revalidate: the page names the current assets' version.
	h.Set("Cache-Control", "no-cache")
	h.Set("ETag", s.index.etag)
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(s.index.body))
}

func (s *site) serveAsset(w http.ResponseWriter, r *http.Request, rest string) {
	version, name, ok := strings.Cut(rest, "/")
	a, found := s.assets[name]
	if !ok || !found || name == "" || strings.Contains(name, "..") {
		http.NotFound(w, r)
		return
	}
	h := w.Header()
	securityHeaders(h)
	h.Set("Content-Type", a.contentType)
	h.Set("ETag", a.etag)
	if version == s.version {
		h.Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		// A page of another build: serve what there is, but never let it
		// be cached under that version.
		h.Set("Cache-Control", "no-cache")
	}
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(a.body))
}
