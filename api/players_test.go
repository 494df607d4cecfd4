package api_test

import (
	"errors"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"klondike/api"
	"klondike/api/apitest"
	"klondike/api/protocol"
	"klondike/lobby"
	"klondike/lobby/challenge"
	"klondike/match"
)

// The players' routes: profiles, and the player's own data under
// /api/v1/me. Every answer is checked against api/openapi.json too.

// raceWon has alice win deal 1 against bob, who resigns once she has; it
// returns the round's id and its results.
func raceWon(t *testing.T, base string) (a, b *apitest.Client, roundID string, results []protocol.Entry) {
	t.Helper()
	a, b, sa, _ := startRace(t, base, protocol.PartialSettings{Seed: new("1"), Undo: new("on"), CountdownS: new(0), MaxPlayers: new(2)})
	roundID = sa.RoundID
	for i, mv := range winningGame(t) {
		moveOK(t, a, roundID, i+1, mv)
	}
	apitest.Request[protocol.Resigned](b, protocol.Resign{Type: protocol.TypeResign, RoundID: roundID})
	over := apitest.Expect[protocol.RoundOver](a)
	apitest.Expect[protocol.RoundOver](b)
	return a, b, roundID, over.Results
}

// resignAttempt starts p's attempt at an asynchronous round and resigns
// it after a move; it returns the attempt's round id.
func resignAttempt(t *testing.T, p *apitest.Client, roundID string) string {
	t.Helper()
	st := apitest.Request[protocol.RoundStarted](p, protocol.RoundRef{Type: protocol.TypeStartAttempt, RoundID: roundID})
	moveOK(t, p, st.RoundID, 1, "D")
	resign(p, st.RoundID)
	apitest.Expect[protocol.AttemptOver](p)
	return st.RoundID
}

// makeChallenge has p make a challenge of an hour and returns its id.
func makeChallenge(t *testing.T, p *apitest.Client) string {
	t.Helper()
	return apitest.Request[protocol.AsyncRound](p, protocol.CreateChallenge{Type: protocol.TypeCreateChallenge, WindowS: 3600}).Round.RoundID
}

// tagOf is the tag of a player's id.
func tagOf(id string) string { return "#" + strings.ToUpper(id[:4]) }

// recentOf returns the recent game of the round in a profile.
func recentOf(pr api.Profile, roundID string) (api.RecentGame, bool) {
	i := slices.IndexFunc(pr.Recent, func(g api.RecentGame) bool { return g.RoundID == roundID })
	if i < 0 {
		return api.RecentGame{}, false
	}
	return pr.Recent[i], true
}

// recordOf returns the profile's record of the variant.
func recordOf(rs []challenge.VariantRecord, variant string) (challenge.VariantRecord, bool) {
	i := slices.IndexFunc(rs, func(r challenge.VariantRecord) bool { return r.Variant == variant })
	if i < 0 {
		return challenge.VariantRecord{}, false
	}
	return rs[i], true
}

// TestPlayerProfile: a player's profile after a race won, a daily round
// played and a challenge made.
func TestPlayerProfile(t *testing.T) {
	_, base, c := passkeyServer(t, nil)
	a, b, raceID, _ := raceWon(t, base)
	chID := makeChallenge(t, a)
	daily := apitest.Request[protocol.Daily](a, protocol.GetDaily{Type: protocol.TypeGetDaily})
	dailyAttempt := resignAttempt(t, a, daily.Rounds[0].RoundID)
	dailyVariant := daily.Rounds[0].Variant

	pr := waitRecords(t, c, base, a.PlayerID, func(pr api.Profile) bool { return len(pr.Recent) == 2 })
	if pr.Player.ID != a.PlayerID || pr.Player.Name != "alice" || pr.Player.Tag != tagOf(a.PlayerID) ||
		time.Since(pr.Player.Created) > time.Minute || time.Until(pr.Player.Created) > time.Second {
		t.Errorf("alice's profile names %+v", pr.Player)
	}
	// The race and the daily round, both draw 3: two games, one won.
	rec, ok := recordOf(pr.Records, "draw3")
	if dailyVariant != "draw3" || !ok || rec.Played != 2 || rec.Won != 1 || rec.FastestMs == nil || rec.DailyStreak != 1 {
		t.Errorf("alice's draw 3 record: %+v (the daily round is %s)", pr.Records, dailyVariant)
	}
	if pr.DailyStreak != 1 {
		t.Errorf("alice's daily streak: %d, want 1", pr.DailyStreak)
	}

	// Her recent games, newest first: the daily round's attempt, then the
	// race, whose replay answers with her winning moves.
	if len(pr.Recent) != 2 || pr.Recent[0].RoundID != dailyAttempt || pr.Recent[1].RoundID != raceID ||
		pr.Recent[0].Finished.Before(pr.Recent[1].Finished) {
		t.Fatalf("alice's recent games: %+v, want %s then %s", pr.Recent, dailyAttempt, raceID)
	}
	race := pr.Recent[1]
	if !race.Won || race.Variant != "draw3" || race.ElapsedMs <= 0 || race.Replay != "/api/v1/rounds/"+raceID+"/replay" {
		t.Errorf("alice's race in her recent games: %+v", race)
	}
	rep := sendAs[protocol.Replay](c, http.MethodGet, base+race.Replay, "", nil, http.StatusOK)
	if i := slices.IndexFunc(rep.Players, func(p protocol.PlayerReplay) bool { return p.PlayerID == a.PlayerID }); i < 0 ||
		len(rep.Players[i].Moves) != len(winningGame(t)) || rep.Players[i].Name != "alice" {
		t.Errorf("the replay of alice's race: %+v", rep.Players)
	}
	if d := pr.Recent[0]; d.Won || d.Variant != dailyVariant || d.Replay != "/api/v1/rounds/"+dailyAttempt+"/replay" {
		t.Errorf("alice's daily round in her recent games: %+v", d)
	}
	// The daily round's games are published when its day ends.
	wantError(c, http.MethodGet, base+pr.Recent[0].Replay, "", nil, http.StatusNotFound, protocol.CodeNotFound)

	// The challenge she made.
	if len(pr.Challenges) != 1 {
		t.Fatalf("alice's challenges: %+v, want %s", pr.Challenges, chID)
	}
	if ch := pr.Challenges[0]; ch.ID != chID || ch.URL != "/c/"+chID || ch.Variant != "draw3" || ch.ClosedEarly ||
		ch.ClosesAt.Sub(ch.OpensAt) != time.Hour {
		t.Errorf("alice's challenge: %+v", ch)
	}

	// Bob's: the race lost, no challenge, no streak.
	bp := waitRecords(t, c, base, b.PlayerID, func(pr api.Profile) bool { return len(pr.Recent) == 1 })
	if g, ok := recentOf(bp, raceID); !ok || g.Won || len(bp.Challenges) != 0 || bp.DailyStreak != 0 || bp.Player.Name != "bob" {
		t.Errorf("bob's profile: %+v", bp)
	}
	// No such player.
	wantError(c, http.MethodGet, base+"/api/v1/players/0123456789abcdef", "", nil, http.StatusNotFound, protocol.CodeNotFound)
}

// TestMeNeedsBearer: the player's own routes answer only the header
// Authorization: Bearer <token>: no credential, an unknown one, one of
// another scheme, or one in the query string or a cookie answer 401.
func TestMeNeedsBearer(t *testing.T) {
	_, base, c := passkeyServer(t, nil)
	p := apitest.Dial(t, base)
	p.Hello("alice")
	me := base + "/api/v1/me"
	routes := []struct{ method, url string }{
		{http.MethodGet, me},
		{http.MethodPatch, me},
		{http.MethodDelete, me},
		{http.MethodGet, me + "/export"},
		{http.MethodPost, me + "/signout"},
		{http.MethodPost, me + "/signout-everywhere"},
		{http.MethodPost, me + "/passkeys/options"},
		{http.MethodPost, me + "/passkeys"},
	}
	unauthorized := func(what string, resp *http.Response, body []byte, challenge string) {
		t.Helper()
		if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(string(body), `"code":"unauthorized"`) {
			t.Errorf("%s: %d %s, want 401 unauthorized", what, resp.StatusCode, body)
		}
		if got := resp.Header.Get("WWW-Authenticate"); got != challenge {
			t.Errorf("%s: WWW-Authenticate %q, want %q", what, got, challenge)
		}
	}
	const none, invalid = `Bearer realm="klondike"`, `Bearer realm="klondike", error="invalid_token"`
	for _, rt := range routes {
		what := rt.method + " " + strings.TrimPrefix(rt.url, base)
		resp, body := c.send(rt.method, rt.url, "", `{"name":"mallory"}`)
		unauthorized(what+" without a credential", resp, body, none)
		resp, body = c.send(rt.method, rt.url, strings.Repeat("ab", 24), `{"name":"mallory"}`)
		unauthorized(what+" with an unknown credential", resp, body, invalid)
		for _, q := range []string{"token", "access_token", "bearer"} {
			resp, body = c.send(rt.method, rt.url+"?"+q+"="+p.Token, "", `{"name":"mallory"}`)
			unauthorized(what+" with the credential in ?"+q, resp, body, none)
		}
		for _, h := range []http.Header{
			{"Cookie": {"token=" + p.Token, "klondike.token=" + p.Token}},
			{"Authorization": {"Basic " + p.Token}},
			{"Authorization": {p.Token}},
			{"Authorization": {"Bearer"}},
			{"X-Token": {p.Token}},
		} {
			resp, body = c.doBody(rt.method, rt.url, h, []byte(`{"name":"mallory"}`))
			unauthorized(what+" with "+strings.Join(slices.Collect(maps.Keys(h)), ","), resp, body, none)
		}
	}
	// None of it changed anything; the scheme is case-insensitive (RFC
	// 9110, 11.1).
	for _, scheme := range []string{"Bearer ", "bearer ", "BEARER  "} {
		resp, body := c.doBody(http.MethodGet, me, http.Header{"Authorization": {scheme + p.Token}}, nil)
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"name":"alice"`) {
			t.Errorf("GET /api/v1/me with %q: %d %s", scheme+"<token>", resp.StatusCode, body)
		}
	}
}

// TestRename: PATCH /api/v1/me renames the player; a bad name is refused;
// a hello with the player's token keeps the server's name, whatever name
// it says.
func TestRename(t *testing.T) {
	_, base, c := passkeyServer(t, nil)
	p := apitest.Dial(t, base)
	p.Hello("alice")
	me := base + "/api/v1/me"
	got := sendAs[api.MeReply](c, http.MethodPatch, me, p.Token, map[string]string{"name": "  Alice   Liddell "}, http.StatusOK)
	if got.Player.Name != "Alice Liddell" || got.Player.ID != p.PlayerID || got.Player.Tag != tagOf(p.PlayerID) {
		t.Fatalf("renamed: %+v", got)
	}
	for _, body := range []string{
		`{"name":""}`, `{"name":"   "}`, `{"name":"1234"}`, `{"name":"` + strings.Repeat("a", 25) + `"}`,
		`{"name":"ali\u202ece"}`, `{"name":"ali\u2066ce"}`, `{"name":"ali\u200fce"}`, `{"name":"ali\u0007ce"}`, `{"name":"ali\u0000ce"}`,
		`{"name":"ali\u007fce"}`, `{"name":"ali<b>ce"}`,
		`{"name":null}`, `{}`, `{"name":7}`, `{"name":"bob"`, ``, `name=bob`,
		`{"name":"` + strings.Repeat("a", 70000) + `"}`,
	} {
		short := body
		if len(short) > 40 {
			short = short[:40] + "…"
		}
		if resp, b := c.send(http.MethodPatch, me, p.Token, body); resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(b), `"code":"bad_request"`) {
			t.Errorf("PATCH %s: %d %s, want 400 bad_request", short, resp.StatusCode, b)
		}
	}
	// Runs of spaces, no-break ones included, are one space; control
	// characters (tabs and line breaks among them) are refused.
	if got := sendAs[api.MeReply](c, http.MethodPatch, me, p.Token, map[string]string{"name": " Alice \u00a0 Liddell "}, http.StatusOK); got.Player.Name != "Alice Liddell" {
		t.Errorf("renamed with white space: %q", got.Player.Name)
	}
	sendAs[api.HTTPError](c, http.MethodPatch, me, p.Token, map[string]string{"name": "\tAlice\r\nLiddell"}, http.StatusBadRequest)
	// 24 letters of any script are a name.
	long := strings.Repeat("é", 12) + strings.Repeat("Ж", 12)
	if got := sendAs[api.MeReply](c, http.MethodPatch, me, p.Token, map[string]string{"name": long}, http.StatusOK); got.Player.Name != long {
		t.Errorf("renamed to %q: %+v", long, got.Player)
	}
	sendAs[api.MeReply](c, http.MethodPatch, me, p.Token, map[string]string{"name": "Alice Liddell"}, http.StatusOK)

	// A later hello with the token is the renamed player.
	q := apitest.Dial(t, base)
	if w := q.Resume(p.Token); w.PlayerID != p.PlayerID || w.Name != "Alice Liddell" || w.Tag != tagOf(p.PlayerID) {
		t.Errorf("a hello after the rename: %+v", w)
	}
	// A hello with the token and another name does not rename.
	r := apitest.Dial(t, base)
	w := apitest.Request[protocol.Welcome](r, protocol.Hello{Type: protocol.TypeHello, Token: p.Token, Name: "Mallory"})
	if w.PlayerID != p.PlayerID || w.Name != "Alice Liddell" {
		t.Errorf("a hello with the token and the name Mallory: %+v", w)
	}
	if got := sendAs[api.MeReply](c, http.MethodGet, me, p.Token, nil, http.StatusOK); got.Player.Name != "Alice Liddell" {
		t.Errorf("after a hello with another name: %+v", got.Player)
	}
	if pr := sendAs[api.Profile](c, http.MethodGet, base+"/api/v1/players/"+p.PlayerID, "", nil, http.StatusOK); pr.Player.Name != "Alice Liddell" {
		t.Errorf("the profile after the rename: %+v", pr.Player)
	}
}

// helloRefused sends a hello with the token on a new connection and fails
// the test unless it is refused as unauthorized.
func helloRefused(t *testing.T, base, token string) {
	t.Helper()
	q := apitest.Dial(t, base)
	f := q.Reply(protocol.Hello{Type: protocol.TypeHello, Token: token, Name: "alice"})
	if e := apitest.Decode[protocol.Error](t, f); f.Type != protocol.TypeError || e.Code != protocol.CodeUnauthorized {
		t.Errorf("a hello with a revoked credential: %s, want an error unauthorized", f)
	}
}

// closedSignedOut fails the test unless the server closes p's connection
// with close code 4001.
func closedSignedOut(t *testing.T, what string, p *apitest.Client) {
	t.Helper()
	var ce *websocket.CloseError
	readErr, err := p.Client.WaitClosed()
	if err != nil {
		t.Errorf("%s: %v", what, err)
		return
	}
	if !errors.As(readErr, &ce) || ce.Code != protocol.CloseSignedOut || ce.Text != protocol.ReasonSignedOut {
		t.Errorf("%s: the connection ended with %v, want close %d %q", what, readErr, protocol.CloseSignedOut, protocol.ReasonSignedOut)
	}
}

// TestSignOut: signing out revokes that device's credential only.
func TestSignOut(t *testing.T) {
	_, base, c := passkeyServer(t, nil)
	p := apitest.Dial(t, base)
	p.Hello("alice")
	// A second device, signed in with a passkey.
	auth := newAuthenticator(t)
	pk, _ := addPasskey(c, base, p.Token, auth)
	other := passkeyLogin(c, base, auth, pk).Token
	me := base + "/api/v1/me"
	if got := sendAs[api.MeReply](c, http.MethodGet, me, p.Token, nil, http.StatusOK); got.Devices != 2 {
		t.Fatalf("two devices: %+v", got)
	}

	sendAs[struct{}](c, http.MethodPost, me+"/signout", other, nil, http.StatusNoContent)
	wantError(c, http.MethodGet, me, other, nil, http.StatusUnauthorized, protocol.CodeUnauthorized)
	wantError(c, http.MethodPost, me+"/signout", other, nil, http.StatusUnauthorized, protocol.CodeUnauthorized)
	helloRefused(t, base, other)
	// The first device goes on, its connection open.
	if got := sendAs[api.MeReply](c, http.MethodGet, me, p.Token, nil, http.StatusOK); got.Devices != 1 || got.Player.ID != p.PlayerID {
		t.Fatalf("after the second device signed out: %+v", got)
	}
	apitest.Request[protocol.Records](p, protocol.GetRecords{Type: protocol.TypeGetRecords})

	// Signing the first out: its open connection stays until it closes,
	// but the credential resumes no more.
	sendAs[struct{}](c, http.MethodPost, me+"/signout", p.Token, nil, http.StatusNoContent)
	wantError(c, http.MethodGet, me, p.Token, nil, http.StatusUnauthorized, protocol.CodeUnauthorized)
	helloRefused(t, base, p.Token)
	apitest.Request[protocol.Records](p, protocol.GetRecords{Type: protocol.TypeGetRecords})
	// The player is still there: its passkey signs it in again.
	if again := passkeyLogin(c, base, auth, pk); again.Player.ID != p.PlayerID {
		t.Errorf("a passkey sign-in after signing out: %+v", again)
	}
}

// TestSignOutEverywhere: every credential of the player is revoked and its
// open connections are closed with 4001; other players' stay.
func TestSignOutEverywhere(t *testing.T) {
	_, base, c := passkeyServer(t, nil)
	tab1 := apitest.Dial(t, base)
	tab1.Hello("alice")
	tab2 := apitest.Dial(t, base)
	tab2.Resume(tab1.Token)
	auth := newAuthenticator(t)
	pk, _ := addPasskey(c, base, tab1.Token, auth)
	phone := apitest.Dial(t, base)
	phone.Resume(passkeyLogin(c, base, auth, pk).Token)
	bob := apitest.Dial(t, base)
	bob.Hello("bob")

	me := base + "/api/v1/me"
	sendAs[struct{}](c, http.MethodPost, me+"/signout-everywhere", tab2.Token, nil, http.StatusNoContent)
	for what, conn := range map[string]*apitest.Client{"the first tab": tab1, "the second tab": tab2, "the phone": phone} {
		closedSignedOut(t, what, conn)
	}
	for _, tok := range []string{tab1.Token, phone.Token} {
		wantError(c, http.MethodGet, me, tok, nil, http.StatusUnauthorized, protocol.CodeUnauthorized)
		helloRefused(t, base, tok)
	}
	// Bob plays on.
	apitest.Request[protocol.Records](bob, protocol.GetRecords{Type: protocol.TypeGetRecords})
	// Alice is still a player, with her passkey.
	sendAs[api.Profile](c, http.MethodGet, base+"/api/v1/players/"+tab1.PlayerID, "", nil, http.StatusOK)
	again := passkeyLogin(c, base, auth, pk)
	if got := sendAs[api.MeReply](c, http.MethodGet, me, again.Token, nil, http.StatusOK); got.Player.ID != tab1.PlayerID || got.Devices != 1 || len(got.Passkeys) != 1 {
		t.Errorf("alice signed in again: %+v", got)
	}
}

// TestDeleteMe: the player's export holds its data; once deleted, its
// credential resumes no more, it has no profile or records, its
// connections are closed, and the replays and boards it played in show
// it as "Deleted player", still verifiable, the others' names unchanged.
func TestDeleteMe(t *testing.T) {
	_, base, c := passkeyServer(t, nil)
	a, b, raceID, results := raceWon(t, base)
	chID := makeChallenge(t, a)
	resignAttempt(t, a, chID)
	resignAttempt(t, b, chID)
	pr := waitRecords(t, c, base, a.PlayerID, func(pr api.Profile) bool { return len(pr.Recent) == 2 })
	me := base + "/api/v1/me"

	// The export: a file of everything kept of alice.
	resp, body := c.send(http.MethodGet, me+"/export", a.Token, nil)
	if want := `attachment; filename="klondike-player-` + a.PlayerID + `.json"`; resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Disposition") != want {
		t.Fatalf("the export: %d, Content-Disposition %q, want %q", resp.StatusCode, resp.Header.Get("Content-Disposition"), want)
	}
	ex := sendAs[api.Export](c, http.MethodGet, me+"/export", a.Token, nil, http.StatusOK)
	rec, ok := recordOf(ex.Records, "draw3")
	if ex.Player != pr.Player || !ok || rec.Played != 2 || rec.Won != 1 || ex.Devices != 1 || len(ex.Passkeys) != 0 ||
		time.Since(ex.Exported) > time.Minute || len(ex.Challenges) != 1 || ex.Challenges[0].ID != chID {
		t.Fatalf("the export: %+v", ex)
	}
	if g, ok := recentOf(api.Profile{Recent: ex.Recent}, raceID); !ok || !g.Won {
		t.Fatalf("the export's recent games: %+v, want the race %s", ex.Recent, raceID)
	}
	if strings.Contains(string(body), a.Token) {
		t.Errorf("the export holds the credential")
	}

	sendAs[struct{}](c, http.MethodDelete, me, a.Token, nil, http.StatusNoContent)
	closedSignedOut(t, "alice's connection", a)
	wantError(c, http.MethodGet, me, a.Token, nil, http.StatusUnauthorized, protocol.CodeUnauthorized)
	wantError(c, http.MethodDelete, me, a.Token, nil, http.StatusUnauthorized, protocol.CodeUnauthorized)
	helloRefused(t, base, a.Token)
	wantError(c, http.MethodGet, base+"/api/v1/players/"+a.PlayerID, "", nil, http.StatusNotFound, protocol.CodeNotFound)
	if rs := sendAs[api.RecordsReply](c, http.MethodGet, base+"/api/v1/players/"+a.PlayerID+"/records", "", nil, http.StatusOK); len(rs.Records) != 0 {
		t.Errorf("a deleted player's records: %+v", rs)
	}

	// The race's replay and leaderboard: alice anonymous, bob named, every
	// score replayable.
	rep := sendAs[protocol.Replay](c, http.MethodGet, base+"/api/v1/rounds/"+raceID+"/replay", "", nil, http.StatusOK)
	names := map[string]string{}
	for _, p := range rep.Players {
		names[p.PlayerID] = p.Name
	}
	if names[a.PlayerID] != lobby.DeletedName || names[b.PlayerID] != "bob" {
		t.Errorf("the race's replay names %v, want alice %q and bob %q", names, lobby.DeletedName, "bob")
	}
	checkReplay(t, rep, results)
	lb := sendAs[api.LeaderboardReply](c, http.MethodGet, base+"/api/v1/rounds/"+raceID+"/leaderboard", "", nil, http.StatusOK)
	if !entriesNamed(lb.Entries, a.PlayerID, b.PlayerID) {
		t.Errorf("the race's leaderboard: %+v", lb.Entries)
	}
	// Her challenge: its board and its maker anonymous; bob can still see
	// it, and close nothing of hers.
	board := sendAs[api.ChallengeLeaderboardReply](c, http.MethodGet, base+"/api/v1/rounds/"+chID+"/leaderboard", "", nil, http.StatusOK)
	if len(board.Entries) != 2 || !boardNamed(board.Entries, a.PlayerID, b.PlayerID) {
		t.Errorf("her challenge's board: %+v", board.Entries)
	}
	info := apitest.Request[protocol.AsyncRound](b, protocol.RoundRef{Type: protocol.TypeGetAsyncRound, RoundID: chID})
	if info.Round.CreatorID != a.PlayerID || info.Round.CreatorName != lobby.DeletedName {
		t.Errorf("her challenge's maker: %q %q", info.Round.CreatorID, info.Round.CreatorName)
	}
	// Bob keeps his.
	bp := sendAs[api.Profile](c, http.MethodGet, base+"/api/v1/players/"+b.PlayerID, "", nil, http.StatusOK)
	if _, ok := recentOf(bp, raceID); !ok || bp.Player.Name != "bob" {
		t.Errorf("bob's profile after alice left: %+v", bp)
	}
}

// entriesNamed reports whether a leaderboard shows gone as DeletedName and
// kept as bob.
func entriesNamed(es []match.Entry, gone, kept string) bool {
	names := map[string]string{}
	for _, e := range es {
		names[e.PlayerID] = e.Name
	}
	return len(names) == 2 && names[gone] == lobby.DeletedName && names[kept] == "bob"
}

// boardNamed is entriesNamed for a board.
func boardNamed(es []match.BoardEntry, gone, kept string) bool {
	names := map[string]string{}
	for _, e := range es {
		names[e.PlayerID] = e.Name
	}
	return len(names) == 2 && names[gone] == lobby.DeletedName && names[kept] == "bob"
}

// TestDeleteMidRoundLeavesNoRecords: a player deleted while its round is
// played has no records after: DELETE /api/v1/me leaves the match, which
// ends a one-player round, and the round's results are counted in the
// background (OnRoundResults, CountRound), which must find the player
// deleted and not bring its records back.
func TestDeleteMidRoundLeavesNoRecords(t *testing.T) {
	_, base, c := passkeyServer(t, nil)
	p := apitest.Dial(t, base)
	p.Hello("alice")
	info := apitest.Request[protocol.Match](p, protocol.CreateMatch{Type: protocol.TypeCreateMatch,
		Settings: protocol.PartialSettings{Seed: new("1"), CountdownS: new(0), MaxPlayers: new(1)}}).Match
	p.Send(protocol.MatchRef{Type: protocol.TypeStartMatch, MatchID: info.ID})
	roundID := apitest.Expect[protocol.RoundStarted](p).RoundID
	moveOK(t, p, roundID, 1, "D")
	sendAs[struct{}](c, http.MethodDelete, base+"/api/v1/me", p.Token, nil, http.StatusNoContent)
	// The round ended: its replay is published, under the deleted name.
	deadline := time.Now().Add(5 * time.Second)
	for {
		resp, body := c.get(base + "/api/v1/rounds/" + roundID + "/replay")
		if resp.StatusCode == http.StatusOK {
			if !strings.Contains(string(body), `"name":"`+lobby.DeletedName+`"`) {
				t.Fatalf("the replay of the round the deletion ended: %s", body)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the round the deletion left was not over after 5 s: %d %s", resp.StatusCode, body)
		}
		time.Sleep(10 * time.Millisecond)
	}
	for range 20 {
		if rs := sendAs[api.RecordsReply](c, http.MethodGet, base+"/api/v1/players/"+p.PlayerID+"/records", "", nil, http.StatusOK); len(rs.Records) != 0 {
			t.Fatalf("a deleted player's records: %+v", rs.Records)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestSignOutEverywhereAcrossNodes: signing out everywhere, or deleting
// the player, through one node closes the player's connections on every
// node, with 4001: the lobby tells the others over the nodes' bus.
func TestSignOutEverywhereAcrossNodes(t *testing.T) {
	cl := newCluster(t, 2)
	c := newChecker(t, loadDoc(t))
	for _, route := range []struct{ method, path string }{
		{http.MethodPost, "/api/v1/me/signout-everywhere"},
		{http.MethodDelete, "/api/v1/me"},
	} {
		here := apitest.Dial(t, cl.nodes[0])
		here.Hello("alice")
		there := resume(t, cl.nodes[1], here)
		there.Timeout = 2 * time.Second
		sendAs[struct{}](c, route.method, cl.nodes[0]+route.path, here.Token, nil, http.StatusNoContent)
		closedSignedOut(t, route.path+": the connection on the node asked", here)
		closedSignedOut(t, route.path+": the connection on the other node", there)
	}
}
