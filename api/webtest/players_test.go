package webtest

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/webauthn"
	"github.com/chromedp/chromedp"

	"klondike/api"
	"klondike/api/servertest"
	"klondike/api/web"
	"klondike/match"
)

// Players who last (issue 35): the browser keeps the player's credential
// in localStorage, so that tabs, restarts and, through a passkey, other
// browsers are one player.

// startPlayersServer runs the server as startServer does, at
// http://localhost:PORT, its public URL: passkeys are bound to a host
// name (the relying party's id), which an IP address cannot be.
func startPlayersServer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := fmt.Sprintf("http://localhost:%d", ln.Addr().(*net.TCPAddr).Port)
	srv := servertest.New(servertest.Config{
		PublicURL: base,
		Logger:    slog.New(slog.NewTextHandler(io.Discard, nil)),
		Hint:      api.SolverHints(),
		Match:     match.Config{LeaderboardEvery: 40 * time.Millisecond, Intermission: 300 * time.Millisecond, QuickWait: 500 * time.Millisecond},
	})
	mux := http.NewServeMux()
	mux.Handle("/", web.Handler())
	for _, p := range []string{"/ws", "/healthz", "/readyz", "/metrics", "/api/"} {
		mux.Handle(p, srv)
	}
	hs := httptest.NewUnstartedServer(mux)
	hs.Listener.Close()
	hs.Listener = ln
	hs.Start()
	t.Cleanup(func() {
		srv.Close()
		hs.Close()
	})
	return base
}

// newTab opens another tab in the page's browser context: the same
// storage, as a second tab of one browser.
func (p *page) newTab(name string) *page {
	p.t.Helper()
	ctx, cancel := chromedp.NewContext(p.ctx)
	return watchPage(ctx, cancel, p.t, name, p.base)
}

// me is the player id the page's welcome gave.
func (p *page) me() string {
	p.t.Helper()
	return eval[string](p, "the player id", `window.klondike.state.me`)
}

// waitWelcomed waits until the page's connection is welcomed.
func (p *page) waitWelcomed() {
	p.t.Helper()
	p.waitAcrossLoad("welcomed", `!!window.klondike && window.klondike.state.welcomed && window.klondike.state.connected`)
}

// waitAcrossLoad waits until a JavaScript expression is truthy, in the
// page the tab shows by then: the wait goes on across a reload or a
// navigation that the page started itself (a sign-in, a deletion).
func (p *page) waitAcrossLoad(what, expr string) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, stepTimeout)
	defer cancel()
	for {
		v, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => { try { return !!(`+expr+`); } catch { return false; } })()`))
		if err == nil && v {
			return
		}
		if ctx.Err() != nil {
			p.fail(what, fmt.Errorf("not so within %v (last error: %v)", stepTimeout, err))
		}
		time.Sleep(25 * time.Millisecond)
	}
}

// playSoloDeal1 plays deal #1 (draw 3) solo from its link.
func (p *page) playSoloDeal1(name string) {
	p.t.Helper()
	p.enterName("/deal/1?draw=3", name)
	p.waitShown("the offer", "#offer-title")
	p.click("play it solo", "#deal-solo")
	p.waitFor("the board", card("T6", "AH"))
}

// drawTo draws a card and waits until the view has made moves moves.
func (p *page) drawTo(moves int) {
	p.t.Helper()
	p.key("D", "d")
	p.waitJS(fmt.Sprintf("move %d accepted", moves), fmt.Sprintf(`(() => { const r = window.klondike.state.round; return !!r && !!r.view && r.view.moves === %d && !r.inflight; })()`, moves))
}

// TestTwoTabsAreOnePlayer: a second tab of the browser says hello with
// the credential the first stored: the same player, who sees the same
// records, and whose name needs no asking again.
func TestTwoTabsAreOnePlayer(t *testing.T) {
	t.Parallel()
	base := startPlayersServer(t)
	b := newBrowser(t)
	tab1 := b.newPage("tess", base)
	tab1.playSoloDeal1("Tess")
	tab1.resignIfPlaying()
	tab1.waitText("the results", "#results-title", "Round 1 results")
	me := tab1.me()

	tab2 := tab1.newTab("tess-2")
	tab2.navigate("/")
	tab2.waitWelcomed()
	if got := tab2.me(); got != me || me == "" {
		t.Fatalf("the second tab is player %q, the first %q", got, me)
	}
	if tab2.shown("#name-input") {
		t.Errorf("the second tab asks for a name")
	}
	if tok := eval[string](tab2, "the stored credential", `localStorage.getItem('klondike.token') || ''`); len(tok) != 48 {
		t.Errorf("localStorage holds the credential %q", tok)
	}

	// Both open the profile from the top bar and read the same records.
	var records [2]string
	for i, p := range []*page{tab1, tab2} {
		p.waitShown("the name in the top bar", "#who")
		p.click("the top bar's name", "#who")
		p.waitShown("the profile's records", "#profile-records .record")
		p.waitText("the profile's heading", "#profile-title", "Tess")
		records[i] = p.textOf("#profile-records")
	}
	if records[0] != records[1] || !strings.Contains(strings.ToLower(records[0]), "played\n1") {
		t.Errorf("the tabs' records differ or miss the game:\n%q\n%q", records[0], records[1])
	}
	tab1.screenshotTo("profile-own")

	// The recent game replays from the profile.
	tab2.waitShown("the recent game", "#profile-recent tbody tr button")
	tab2.click("its replay", "#profile-recent tbody tr button")
	tab2.waitFor("the replay checked", `#profile-replay #replay-verdict[data-state="ok"]`)
	eval[bool](tab2, "scroll", `(() => { document.getElementById('profile-recent-title').scrollIntoView(); return true; })()`)
	tab2.screenshotTo("profile-recent")
}

// TestRenameAndSignOutEverywhere: a new name shows in the browser's other
// tab; signing out everywhere takes the player from every browser: this
// one's tabs go back to the name screen, and another device that held the
// credential is told it was signed out rather than made a new player.
func TestRenameAndSignOutEverywhere(t *testing.T) {
	t.Parallel()
	base := startPlayersServer(t)
	b := newBrowser(t)
	tab1 := b.newPage("rita", base)
	tab1.enterName("/", "Rita")
	me := tab1.me()
	token := eval[string](tab1, "the credential", `localStorage.getItem('klondike.token')`)
	tab2 := tab1.newTab("rita-2")
	tab2.navigate("/")
	tab2.waitWelcomed()
	// Another device holding the credential.
	other := b.newPage("rita-phone", base)
	other.navigate("/privacy")
	eval[bool](other, "store the credential", fmt.Sprintf(`(() => { localStorage.setItem('klondike.token', %s); localStorage.setItem('klondike.name', 'Rita'); return true; })()`, jsString(token)))
	other.navigate("/")
	other.waitWelcomed()
	if got := other.me(); got != me {
		t.Fatalf("the other device is %q, want %q", got, me)
	}

	tab1.click("the profile", "#who")
	tab1.waitShown("the name field", "#profile-name")
	tab1.setValue("#profile-name", "Rita  Mae")
	tab1.click("change the name", "#profile-rename")
	tab1.waitText("the new name in the heading", "#profile-title", "Rita Mae")
	tab2.waitText("the new name in the other tab's top bar", "#who", "Rita Mae")
	if got := tab1.textOf("#who"); !strings.HasPrefix(got, "Rita Mae #") {
		t.Errorf("the top bar reads %q", got)
	}

	tab1.waitShown("sign out everywhere", "#signout-all")
	tab1.click("sign out everywhere", "#signout-all")
	tab1.click("confirm", "#confirm-yes")
	tab1.waitAcrossLoad("the name screen", fmt.Sprintf(`location.pathname === '/' && %s('#name-input')`, shownJS))
	// The other tab was closed by the server (4001) or saw the credential
	// go: it says so, or asks for a name.
	tab2.waitAcrossLoad("the other tab signed out", fmt.Sprintf(`%[1]s('#signedout-title') || %[1]s('#name-input')`, shownJS))
	other.waitShown("the signed-out notice", "#signedout-title")
	if left := eval[string](other, "what is left", `(localStorage.getItem('klondike.token') || '') + (localStorage.getItem('klondike.name') || '')`); left != "" {
		t.Errorf("the other device still holds %q", left)
	}
	if code := status(t, base+"/api/v1/me", token); code != http.StatusUnauthorized {
		t.Errorf("GET /api/v1/me with the signed-out credential: %d, want 401", code)
	}
}

// TestTwoTabsInOneMatch: the newest tab plays; the other shows, over the
// game, that it is played elsewhere, with "Play here", which takes the
// game back and sends the notice to the other tab.
func TestTwoTabsInOneMatch(t *testing.T) {
	t.Parallel()
	base := startPlayersServer(t)
	b := newBrowser(t)
	tab1 := b.newPage("tess", base)
	tab1.playSoloDeal1("Tess")
	tab1.drawTo(1)

	tab2 := tab1.newTab("tess-2")
	tab2.navigate("/")
	tab2.waitFor("the board in the second tab", card("T6", "AH"))
	tab1.waitShown("the notice in the first tab", "#play-here")
	if got := tab1.textOf("#elsewhere"); !strings.Contains(got, "This game is being played in another tab.") {
		t.Errorf("the notice reads %q", got)
	}
	if !tab1.onTop("#play-here") || tab1.onTop(".board") {
		t.Errorf("the notice does not cover the first tab's board")
	}
	tab1.screenshotTo("play-here")
	tab2.wantShown("the second tab", map[string]bool{"#elsewhere": false, ".board": true})
	tab2.drawTo(2)

	tab1.click("play here", "#play-here")
	tab1.waitJS("the notice gone", `!document.getElementById('elsewhere')`)
	tab1.waitJS("the second tab's move seen", `window.klondike.state.round.view.moves === 2`)
	tab2.waitShown("the notice in the second tab", "#play-here")
	tab1.drawTo(3)
	if !tab1.onTop(".board") {
		t.Errorf("the first tab's board is covered after Play here")
	}

	// A third tab takes the game; closed, it hands the game back to the
	// newest tab left (the second), with no button pressed.
	tab3 := tab1.newTab("tess-3")
	tab3.navigate("/")
	tab3.waitFor("the board in the third tab", card("T6", "AH"))
	tab1.waitShown("the notice in the first tab", "#play-here")
	ctx, cancel := context.WithTimeout(tab3.ctx, stepTimeout)
	defer cancel()
	if err := chromedp.Cancel(ctx); err != nil {
		t.Fatalf("closing the third tab: %v", err)
	}
	tab2.waitJS("the notice gone from the second tab", `!document.getElementById('elsewhere')`)
	// The game comes back as on a resume: the round, with the first tab's
	// move, follows the match.
	tab2.waitJS("the first tab's move seen in the second", `window.klondike.state.round.view.moves === 3`)
	tab2.drawTo(4)
	tab1.wantShown("the first tab", map[string]bool{"#elsewhere": true})
}

// TestBrowserRestartKeepsThePlayer: a browser closed and started again on
// the same profile directory is the same player, and its solo game in
// progress is still there. The browser is a Chromium of its own, closed
// gracefully (as a person quits it), not a tab: closing tabs leaves the
// browser's storage in memory, which is no restart.
func TestBrowserRestartKeepsThePlayer(t *testing.T) {
	t.Parallel()
	base := startPlayersServer(t)
	newBrowser(t) // skips without Chromium
	dir := t.TempDir()

	open := func(name string) (*page, func()) {
		actx, cancelA := chromedp.NewExecAllocator(context.Background(), chromiumOptions(chromiumPath(), dir)...)
		bctx, cancelB := chromedp.NewContext(actx)
		// The first tab of the browser: its default context, the one kept
		// on disk.
		p := watchPage(bctx, cancelB, t, name, base)
		quit := func() {
			p.checkConsole()
			ctx, cancel := context.WithTimeout(bctx, 20*time.Second)
			defer cancel()
			if err := chromedp.Cancel(ctx); err != nil {
				t.Errorf("closing the browser: %v", err)
			}
			cancelA()
		}
		t.Cleanup(cancelA)
		return p, quit
	}

	p, quit := open("tess")
	p.playSoloDeal1("Tess")
	p.drawTo(1)
	p.drawTo(2)
	me := p.me()
	waste := eval[string](p, "the waste", `JSON.stringify(window.klondike.state.round.view.waste)`)
	quit()

	p2, quit2 := open("tess-again")
	defer quit2()
	p2.navigate("/")
	p2.waitWelcomed()
	if got := p2.me(); got != me {
		t.Fatalf("after the restart the browser is player %q, before %q", got, me)
	}
	p2.waitShown("the game in progress", card("T6", "AH"))
	p2.waitJS("its two moves", `window.klondike.state.round.view.moves === 2`)
	if got := eval[string](p2, "the waste", `JSON.stringify(window.klondike.state.round.view.waste)`); got != waste {
		t.Errorf("the waste is %s after the restart, %s before", got, waste)
	}
	p2.drawTo(3)
}

// TestPrivacyListsEveryKey: after a visit that writes what the client
// writes (a name, the credential, the four-colour switch, a match's
// settings, the commitments of the daily deals), /privacy shows every key
// in localStorage, visibly.
func TestPrivacyListsEveryKey(t *testing.T) {
	t.Parallel()
	base := startPlayersServer(t)
	b := newBrowser(t)
	p := b.newPage("pia", base)
	p.enterName("/", "Pia")
	p.click("four colours", "#four-colour")
	p.setValue("#set-max_players", "2")
	p.click("create", "#create-submit")
	p.waitText("the waiting room", "#room-title", "Match ")
	p.click("leave", "#leave")
	p.waitShown("the lobby", "#lobby-daily")
	p.click("the daily deals", "#lobby-daily")
	p.waitJS("a commitment remembered", `!!localStorage.getItem('klondike.commitments')`)

	keys := eval[[]string](p, "the keys", `Object.keys(localStorage).sort()`)
	for _, want := range []string{"klondike.commitments", "klondike.fourColour", "klondike.name", "klondike.settings", "klondike.token"} {
		if !contains(keys, want) {
			t.Errorf("localStorage lacks %s after the visit: %v", want, keys)
		}
	}
	p.click("the lobby", "#daily-lobby")
	p.waitShown("the lobby's privacy link", "#lobby-privacy a")
	eval[bool](p, "scroll", `(() => { document.getElementById('lobby-privacy').scrollIntoView(); return true; })()`)
	p.screenshotTo("lobby-foot")
	p.click("the privacy page", "#lobby-privacy a")
	p.waitShown("the privacy page", "#privacy-title")
	if path := eval[string](p, "the path", `location.pathname`); path != "/privacy" {
		t.Errorf("the privacy page is at %q", path)
	}
	for _, k := range keys {
		shown := eval[bool](p, "is "+k+" shown", fmt.Sprintf(`(() => {
			const e = [...document.querySelectorAll('#privacy-keys .storage-key')].find((x) => x.textContent === %s);
			if (!e) return false;
			e.scrollIntoView({ block: 'center' });
			return %s(e);
		})()`, jsString(k), shownJS))
		if !shown {
			t.Errorf("/privacy does not show the key %s", k)
		}
	}
	p.screenshotTo("privacy")

	// A reload of /privacy shows it again, before the connection.
	p.navigate("/privacy")
	p.waitShown("the privacy page after a reload", "#privacy-keys")
}

// TestExportAndDelete: "Download my data" saves the player's data as a
// file; "Delete my player", confirmed, deletes it: the browser forgets it,
// the server knows neither the player nor its credential, and that
// credential, put back, resumes no one: the page is a new player.
func TestExportAndDelete(t *testing.T) {
	t.Parallel()
	base := startPlayersServer(t)
	b := newBrowser(t)
	p := b.newPage("dora", base)
	p.playSoloDeal1("Dora")
	p.resignIfPlaying()
	p.waitText("the results", "#results-title", "Round 1 results")
	me := p.me()
	token := eval[string](p, "the credential", `localStorage.getItem('klondike.token')`)

	dir := t.TempDir()
	bc := chromedp.FromContext(p.ctx).BrowserContextID
	if _, err := chromedp.CallBrowser(p.ctx, cdpbrowser.SetDownloadBehavior, cdpbrowser.SetDownloadBehaviorParams{
		Behavior: cdpbrowser.SetDownloadBehaviorBehaviorAllow, BrowserContextID: bc, DownloadPath: dir,
	}); err != nil {
		t.Fatalf("allowing downloads: %v", err)
	}
	p.click("the profile", "#who")
	p.waitShown("the export button", "#export")
	p.click("download my data", "#export")
	file := filepath.Join(dir, "klondike-player-"+me+".json")
	var data []byte
	for deadline := time.Now().Add(stepTimeout); ; {
		b, err := os.ReadFile(file)
		if err == nil && json.Valid(b) {
			data = b
			break
		}
		if time.Now().After(deadline) {
			names, _ := filepath.Glob(filepath.Join(dir, "*"))
			t.Fatalf("no %s downloaded (the directory holds %v)", filepath.Base(file), names)
		}
		time.Sleep(50 * time.Millisecond)
	}
	var export struct {
		Player struct {
			ID, Name string
		}
		Records []json.RawMessage
	}
	if err := json.Unmarshal(data, &export); err != nil {
		t.Fatal(err)
	}
	if export.Player.ID != me || export.Player.Name != "Dora" || len(export.Records) == 0 {
		t.Errorf("the export is of %+v with %d records: %s", export.Player, len(export.Records), data)
	}

	p.click("delete my player", "#delete-player")
	p.waitShown("the confirmation", "#confirm-yes")
	p.click("confirm", "#confirm-yes")
	p.waitAcrossLoad("the name screen", fmt.Sprintf(`location.pathname === '/' && %s('#name-input')`, shownJS))
	if left := eval[string](p, "what is left", `(localStorage.getItem('klondike.token') || '') + (localStorage.getItem('klondike.name') || '')`); left != "" {
		t.Errorf("the browser still holds %q", left)
	}
	if code := status(t, base+"/api/v1/players/"+me, ""); code != http.StatusNotFound {
		t.Errorf("GET the deleted player's profile: %d, want 404", code)
	}
	if code := status(t, base+"/api/v1/me", token); code != http.StatusUnauthorized {
		t.Errorf("GET /api/v1/me with the deleted player's credential: %d, want 401", code)
	}

	// The old credential, put back as a browser that kept it would, resumes no one.
	eval[bool](p, "put the credential back", fmt.Sprintf(`(() => { localStorage.setItem('klondike.token', %s); localStorage.setItem('klondike.name', 'Dora'); return true; })()`, jsString(token)))
	p.navigate("/")
	p.waitWelcomed()
	if got := p.me(); got == me || got == "" {
		t.Errorf("the deleted player's credential resumed player %q (was %q)", got, me)
	}
	if tok := eval[string](p, "the new credential", `localStorage.getItem('klondike.token')`); tok == token {
		t.Errorf("the browser kept the deleted player's credential")
	}
}

// status is the status of GET url, with token as the bearer token when
// not empty.
func status(t *testing.T, url, token string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode
}

// virtualAuthenticator gives the page's tab a platform authenticator that
// holds passkeys and verifies its user at once, as Touch ID would.
func (p *page) virtualAuthenticator() webauthn.AuthenticatorID {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, stepTimeout)
	defer cancel()
	if _, err := chromedp.Call(ctx, webauthn.Enable, webauthn.EnableParams{}); err != nil {
		p.t.Fatalf("%s: WebAuthn.enable: %v", p.name, err)
	}
	res, err := chromedp.Call(ctx, webauthn.AddVirtualAuthenticator, webauthn.AddVirtualAuthenticatorParams{Options: &webauthn.VirtualAuthenticatorOptions{
		Protocol: webauthn.AuthenticatorProtocolCtap2, Ctap2version: webauthn.Ctap2versionCtap21, Transport: webauthn.AuthenticatorTransportInternal,
		HasResidentKey: true, HasUserVerification: true, IsUserVerified: true, AutomaticPresenceSimulation: true,
	}})
	if err != nil {
		p.t.Fatalf("%s: WebAuthn.addVirtualAuthenticator: %v", p.name, err)
	}
	return res.AuthenticatorID
}

// TestPasskeyOnAnotherBrowser: a passkey added in one browser profile
// signs in from a second profile that holds the same authenticator's
// passkey (copied over, as a synced passkey would be): the second browser
// becomes the player, with the first one's records.
func TestPasskeyOnAnotherBrowser(t *testing.T) {
	t.Parallel()
	base := startPlayersServer(t)
	b := newBrowser(t)
	home := b.newPage("tess-home", base)
	auth1 := home.virtualAuthenticator()
	home.playSoloDeal1("Tess")
	home.resignIfPlaying()
	home.waitText("the results", "#results-title", "Round 1 results")
	me := home.me()
	home.click("the profile", "#who")
	home.waitShown("add a passkey", "#passkey-add")
	home.click("add a passkey", "#passkey-add")
	home.waitText("the passkey listed", "#profile-passkeys", "1 passkey")

	ctx, cancel := context.WithTimeout(home.ctx, stepTimeout)
	defer cancel()
	creds, err := chromedp.Call(ctx, webauthn.GetCredentials, webauthn.GetCredentialsParams{AuthenticatorID: auth1})
	if err != nil || len(creds.Credentials) != 1 {
		t.Fatalf("the first authenticator's passkeys: %v, %v", creds.Credentials, err)
	}
	if !creds.Credentials[0].IsResidentCredential {
		t.Errorf("the passkey is not discoverable")
	}

	away := b.newPage("tess-away", base)
	auth2 := away.virtualAuthenticator()
	actx, acancel := context.WithTimeout(away.ctx, stepTimeout)
	defer acancel()
	// The passkey's own fields only: its id, key, site and user. The
	// generated Credential always names generateCmtgKeyOnNextOperation,
	// which an authenticator without that extension refuses, so the
	// parameters are written out here.
	c := creds.Credentials[0]
	b64 := base64.StdEncoding.EncodeToString
	addCredential := cdp.Command[map[string]any, cdp.Empty]{Method: webauthn.CommandAddCredential}
	if _, err := chromedp.Call(actx, addCredential, map[string]any{"authenticatorId": auth2, "credential": map[string]any{
		"credentialId": b64(c.CredentialID), "isResidentCredential": true, "rpId": c.RpID, "privateKey": b64(c.PrivateKey),
		"userHandle": b64(c.UserHandle), "signCount": c.SignCount, "userName": c.UserName, "userDisplayName": c.UserDisplayName,
	}}); err != nil {
		t.Fatalf("copying the passkey: %v", err)
	}
	away.navigate("/")
	away.waitShown("the name screen's passkey button", "#name-passkey")
	away.screenshotTo("name-passkey")
	away.click("sign in with a passkey", "#name-passkey")
	away.waitWelcomed()
	if got := away.me(); got != me {
		t.Fatalf("signed in with the passkey as %q, want %q", got, me)
	}
	away.click("the profile", "#who")
	away.waitShown("the records", "#profile-records .record")
	if got := away.textOf("#profile-records"); !strings.Contains(strings.ToLower(got), "played\n1") {
		t.Errorf("the second browser's records: %q", got)
	}
	// A credential of its own: the first browser's is not copied.
	t1 := eval[string](home, "the first credential", `localStorage.getItem('klondike.token')`)
	t2 := eval[string](away, "the second credential", `localStorage.getItem('klondike.token')`)
	if t1 == t2 || len(t2) != 48 {
		t.Errorf("the second browser's credential %q (the first's %q)", t2, t1)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// screenshotTo saves a screenshot as <name>.png when KLONDIKE_SCREENSHOTS
// names a directory: these pages are not among docs/screenshots, which
// KLONDIKE_SCREENSHOTS=1 remakes.
func (p *page) screenshotTo(name string) {
	p.t.Helper()
	if os.Getenv("KLONDIKE_SCREENSHOTS") == "1" {
		return
	}
	p.screenshot(name + ".png")
}
