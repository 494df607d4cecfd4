// Package webtest drives the web client (api/web) in a real browser,
// headless Chromium through chromedp, against the real server on loopback.
package webtest

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"klondike/api"
	"klondike/api/servertest"
	"klondike/api/web"
)

// stepTimeout bounds every step a test takes in a page.
const stepTimeout = 20 * time.Second

// chromiumPath finds Debian's chromium, or "".
func chromiumPath() string {
	if p := os.Getenv("KLONDIKE_CHROMIUM"); p != "" {
		return p
	}
	for _, p := range []string{"/usr/bin/chromium", "/usr/bin/chromium-browser"} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// startServer runs the real server on a loopback port with the web client
// mounted as klondiked mounts it: the API routes to the api server,
// everything else to web.Handler().
func startServer(t *testing.T) string {
	t.Helper()
	return startServerWith(t, api.Limits{})
}

// startServerWith is startServer with the given WebSocket limits.
func startServerWith(t *testing.T, limits api.Limits) string {
	t.Helper()
	return startServerConfig(t, servertest.Config{Limits: limits})
}

// startServerConfig is startServer with cfg, whose logger and hints the
// browser tests set, and its match timings when cfg leaves them unset.
func startServerConfig(t *testing.T, cfg servertest.Config) string {
	t.Helper()
	cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	cfg.Hint = api.SolverHints()
	m := &cfg.Match
	if m.LeaderboardEvery == 0 {
		m.LeaderboardEvery = 40 * time.Millisecond
	}
	if m.Intermission == 0 {
		m.Intermission = 300 * time.Millisecond
	}
	if m.QuickWait == 0 {
		m.QuickWait = 500 * time.Millisecond
	}
	srv := servertest.New(cfg)
	mux := http.NewServeMux()
	mux.Handle("/", web.Handler())
	for _, p := range []string{"/ws", "/healthz", "/readyz", "/metrics", "/api/"} {
		mux.Handle(p, srv)
	}
	hs := httptest.NewServer(mux)
	t.Cleanup(func() {
		start := time.Now()
		srv.Close()
		hs.Close()
		if trace {
			t.Logf("server closed in %v", time.Since(start).Round(time.Millisecond))
		}
	})
	return hs.URL
}

// A browser is a test's handle on the headless Chromium the package's
// tests share: each page it opens is a tab in a browser context of its own
// (its own storage and cache), so tests do not see each other's state.
type browser struct {
	t   *testing.T
	ctx context.Context
}

// shared is the one Chromium of the package, started by the first test
// that needs it and stopped by TestMain: a Chromium for each test would
// spend on starting and stopping the CPU that the pages need.
var shared struct {
	once sync.Once
	ctx  context.Context
	err  error
	stop func()
}

// TestMain runs one test more at once than -parallel's default of one a
// core, unless -parallel is given: part of the time the tests wait on the
// server's timers (countdowns, the rate limit's refill), which leaves a
// core idle. At the end it stops the shared browser.
func TestMain(m *testing.M) {
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		if err := flag.Set("test.parallel", strconv.Itoa(runtime.GOMAXPROCS(0)+1)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
	}
	skipAllWithoutBrowser()
	code := m.Run()
	if shared.stop != nil {
		shared.stop()
	}
	os.Exit(code)
}

// skipAllWithoutBrowser makes a machine without Chromium visible in the
// plain "go test ./..." output, which shows a passing package's summary
// line only: every test here needs the browser, so none is run, the
// summary ends "[no tests to run]", and the reason goes to the output that
// -v shows. It exits before m.Run, whose log of what the tests read lets
// go test cache a result: installing Chromium then counts at once. With
// KLONDIKE_REQUIRE_BROWSER=1 each test fails instead (see newBrowser), and
// an explicit -run is left alone.
func skipAllWithoutBrowser() {
	ran := false
	flag.Visit(func(f *flag.Flag) { ran = ran || f.Name == "test.run" })
	if ran || testing.Short() || chromiumPath() != "" || os.Getenv("KLONDIKE_REQUIRE_BROWSER") == "1" {
		return
	}
	fmt.Println("api/webtest: chromium not found, so the browser tests did not run: apt-get install -y chromium to run them")
	fmt.Println("testing: warning: no tests to run")
	fmt.Println("PASS")
	os.Exit(0)
}

// startShared starts the shared Chromium at path.
func startShared(path string) {
	dir, err := os.MkdirTemp("", "webtest-chromium-")
	if err != nil {
		shared.err = err
		return
	}
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), chromiumOptions(path, dir)...)
	bctx, cancelB := chromedp.NewContext(actx)
	shared.stop = func() {
		cancelB()
		cancelA()
		os.RemoveAll(dir)
	}
	// Start the browser now, with a context that has no deadline.
	if err := chromedp.Do(bctx); err != nil {
		shared.err = err
		return
	}
	shared.ctx = bctx
}

// chromiumOptions are the flags the tests start Chromium at path with,
// keeping its profile in dir.
func chromiumOptions(path, dir string) []chromedp.ExecAllocatorOption {
	return append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-background-timer-throttling", true),
		chromedp.Flag("disable-renderer-backgrounding", true),
		chromedp.Flag("disable-backgrounding-occluded-windows", true),
		chromedp.UserDataDir(dir),
		// Off: the omnibox popup, a hidden page of the browser's own UI for
		// every window, and the spare renderer kept ready for the next
		// site, which take CPU from the tests' pages. Translate and
		// BlinkGenPropertyTrees are chromedp's defaults.
		chromedp.Flag("disable-features", "Translate,BlinkGenPropertyTrees,WebUIOmniboxPopup,WebUIOmniboxAimPopup,WebUIOmniboxFullPopup,SpareRendererForSitePerProcess"),
		chromedp.WindowSize(1280, 900),
	)
}

func newBrowser(t *testing.T) *browser {
	t.Helper()
	// A real browser is the slowest thing the tests start: -short, the
	// quick loop of a change, leaves it out (CI never runs with -short).
	if testing.Short() {
		t.Skip("browser tests are skipped with -short")
	}
	path := chromiumPath()
	if path == "" {
		if os.Getenv("KLONDIKE_REQUIRE_BROWSER") == "1" {
			t.Fatal("chromium not found (KLONDIKE_REQUIRE_BROWSER=1): apt-get install -y chromium")
		}
		t.Skip("chromium not found: apt-get install -y chromium to run the browser tests")
	}
	start := time.Now()
	shared.once.Do(func() { startShared(path) })
	if shared.err != nil {
		t.Fatalf("starting chromium: %v", shared.err)
	}
	if trace {
		t.Logf("browser ready in %v", time.Since(start).Round(time.Millisecond))
	}
	return &browser{t: t, ctx: shared.ctx}
}

// A page is one tab in its own browser context (its own storage), with
// every console error and uncaught exception recorded.
type page struct {
	t    *testing.T
	name string
	ctx  context.Context
	base string

	mu       sync.Mutex
	problems []string
	watching bool
}

func (b *browser) newPage(name, base string) *page {
	b.t.Helper()
	start := time.Now()
	defer func() {
		if trace {
			b.t.Logf("%s: page opened in %v", name, time.Since(start).Round(time.Millisecond))
		}
	}()
	ctx, cancel := chromedp.NewContext(b.ctx, chromedp.WithNewBrowserContext())
	return watchPage(ctx, cancel, b.t, name, base)
}

// watchPage makes a page of the tab of ctx, recording its console errors,
// and closes the tab (cancel) when the test ends.
func watchPage(ctx context.Context, cancel context.CancelFunc, t *testing.T, name, base string) *page {
	t.Helper()
	p := &page{t: t, name: name, ctx: ctx, base: base, watching: true}
	msgs := chromedp.Console(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for m, err := range msgs {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.Type == chromedp.ConsoleException {
				p.mu.Lock()
				if p.watching {
					p.problems = append(p.problems, fmt.Sprintf("%s (%s:%d)", m.String(), m.URL, m.Line))
				}
				p.mu.Unlock()
			}
		}
	}()
	p.do("set the viewport", chromedp.EmulateViewport(1280, 900))
	t.Cleanup(func() {
		start := time.Now()
		p.checkConsole()
		cancel()
		<-done
		if trace {
			p.t.Logf("%s: closed in %v", p.name, time.Since(start).Round(time.Millisecond))
		}
	})
	return p
}

// checkConsole fails the test for any console error or exception so far,
// then stops watching (closing pages may log their dropped sockets).
func (p *page) checkConsole() {
	p.t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, pr := range p.problems {
		p.t.Errorf("%s: console: %s", p.name, pr)
	}
	p.problems = nil
	p.watching = false
}

func (p *page) do(what string, steps ...chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, stepTimeout)
	defer cancel()
	start := time.Now()
	if err := chromedp.Do(ctx, steps...); err != nil {
		p.fail(what, err)
	}
	if trace {
		p.t.Logf("%s: %s: %v", p.name, what, time.Since(start).Round(time.Millisecond))
	}
}

// trace logs every step's duration (WEBTEST_TRACE=1).
var trace = os.Getenv("WEBTEST_TRACE") == "1"

func (p *page) fail(what string, err error) {
	p.t.Helper()
	state := ""
	ctx, cancel := context.WithTimeout(p.ctx, 3*time.Second)
	defer cancel()
	if s, e := chromedp.Run(ctx, chromedp.Evaluate[string](`(document.querySelector('main') || document.body).innerText.slice(0, 1500)`)); e == nil {
		state = s
	}
	p.t.Fatalf("%s: %s: %v\n--- page text ---\n%s", p.name, what, err, state)
}

// eval evaluates a JavaScript expression and decodes its value into T.
func eval[T any](p *page, what, expr string) T {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, stepTimeout)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		p.fail(what, err)
	}
	return v
}

// waitJS waits until a JavaScript expression is truthy.
func (p *page) waitJS(what, expr string) {
	p.t.Helper()
	p.do(what, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := chromedp.Poll[chromedp.Void](expr,
			chromedp.WithPollingInterval(25*time.Millisecond),
			chromedp.WithPollingTimeout(stepTimeout))(ctx, t)
		return err
	}))
}

// waitFor waits until a CSS selector matches an element.
func (p *page) waitFor(what, css string) {
	p.t.Helper()
	p.waitJS(what, fmt.Sprintf(`!!document.querySelector(%s)`, jsString(css)))
}

// waitText waits until the element matched by css contains text.
func (p *page) waitText(what, css, text string) {
	p.t.Helper()
	p.waitJS(what, fmt.Sprintf(`[...document.querySelectorAll(%s)].some(e => e.textContent.includes(%s))`, jsString(css), jsString(text)))
}

// setValue sets a form field's value as typing would, with input and
// change events.
func (p *page) setValue(css, value string) {
	p.t.Helper()
	p.waitFor("the field "+css, css)
	eval[bool](p, "set "+css, fmt.Sprintf(`(() => { const e = document.querySelector(%s); e.value = %s;
		e.dispatchEvent(new Event('input', {bubbles: true})); e.dispatchEvent(new Event('change', {bubbles: true})); return true; })()`,
		jsString(css), jsString(value)))
}

func (p *page) click(what, css string) {
	p.t.Helper()
	p.do(what, chromedp.Click(chromedp.CSS(css)))
}

func (p *page) dblclick(what, css string) {
	p.t.Helper()
	p.do(what, chromedp.DoubleClick(chromedp.CSS(css)))
}

func (p *page) drag(what, from, to string) {
	p.t.Helper()
	p.do(what, chromedp.DragAndDrop(chromedp.CSS(from), chromedp.CSS(to)))
}

// key sends one key press to the page.
func (p *page) key(what, key string) {
	p.t.Helper()
	p.do(what, chromedp.KeyEvent(key))
}

func (p *page) navigate(path string) {
	p.t.Helper()
	p.do("open "+path, chromedp.Navigate(p.base+path))
}

// enterName opens path and answers the name screen.
func (p *page) enterName(path, name string) {
	p.t.Helper()
	p.navigate(path)
	p.waitFor("the name screen", "#name-input")
	p.setValue("#name-input", "")
	p.do("type the name",
		chromedp.SendKeys(chromedp.CSS("#name-input"), name),
		chromedp.Click(chromedp.CSS("#name-go")))
	p.waitJS("connected", `window.klondike && window.klondike.state.welcomed`)
}

// screenshotDir is where screenshots are written, from
// KLONDIKE_SCREENSHOTS: a directory, or "1" for the repository's
// docs/screenshots; "" when unset.
func screenshotDir() string {
	dir := os.Getenv("KLONDIKE_SCREENSHOTS")
	if dir == "1" {
		_, file, _, _ := runtime.Caller(0)
		dir = filepath.Join(filepath.Dir(file), "..", "..", "docs", "screenshots")
	}
	return dir
}

// screenshot saves what the viewport shows as <screenshotDir>/<name>.
func (p *page) screenshot(name string) {
	p.t.Helper()
	dir := screenshotDir()
	if dir == "" {
		return
	}
	// Let fonts and layout settle, and no toast or focus ring hide the page.
	eval[bool](p, "tidy up", `(() => { document.getElementById('toasts').replaceChildren();
		if (document.activeElement) document.activeElement.blur(); return true; })()`)
	eval[bool](p, "settle", `new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))`)
	ctx, cancel := context.WithTimeout(p.ctx, stepTimeout)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		p.fail("screenshot "+name, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		p.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
		p.t.Fatal(err)
	}
}

func jsString(s string) string {
	return jsJSON(s)
}

// jsJSON is v as a JavaScript literal.
func jsJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// card is the CSS selector of a face-up card on the board.
func card(slot, c string) string {
	return fmt.Sprintf(`.board [data-slot="%s"] .card[data-card="%s"]`, slot, c)
}

// wasteTop is the selector of the waste's playable top card c.
func wasteTop(c string) string {
	return fmt.Sprintf(`.board [data-slot="W"] .card[data-drag="W"][data-card="%s"]`, c)
}
