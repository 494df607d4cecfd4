package api

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"

	"klondike/api/protocol"
	"klondike/lobby"
	"klondike/lobby/challenge"
)

// The players' routes: a public profile (GET /api/v1/players/{id}), and
// the player's own data under /api/v1/me, which answer only the bearer of
// a device credential (Authorization: Bearer <token>). The credential is
// never taken from a URL or a cookie, so no link and no cross-site request
// can act as a player, and it is never logged.

// maxBodyBytes bounds the body of a request to the players' routes.
const maxBodyBytes = 64 << 10

// playerInfo is a player as the API shows it.
type playerInfo struct {
	ID      string    `json:"id"`
	Name    string    `json:"name"`
	Tag     string    `json:"tag"`
	Created time.Time `json:"created"`
}

func infoOf(p lobby.Player) playerInfo {
	return playerInfo{ID: p.ID, Name: p.Name, Tag: p.Tag(), Created: p.Created}
}

// recentGame is one of a player's last finished games, with the way to
// its replay.
type recentGame struct {
	RoundID   string    `json:"round_id"`
	Variant   string    `json:"variant"`
	Won       bool      `json:"won"`
	Score     int       `json:"score"`
	ElapsedMs int64     `json:"elapsed_ms"`
	Finished  time.Time `json:"finished"`
	Replay    string    `json:"replay"`
}

// madeChallenge is a challenge the player made.
type madeChallenge struct {
	ID          string    `json:"id"`
	Variant     string    `json:"variant"`
	OpensAt     time.Time `json:"opens_at"`
	ClosesAt    time.Time `json:"closes_at"`
	ClosedEarly bool      `json:"closed_early,omitempty"`
	URL         string    `json:"url"`
}

// profile is the answer of GET /api/v1/players/{id}.
type profile struct {
	Player      playerInfo                `json:"player"`
	Records     []challenge.VariantRecord `json:"records"`
	DailyStreak int                       `json:"daily_streak"`
	Recent      []recentGame              `json:"recent"`
	Challenges  []madeChallenge           `json:"challenges"`
	Ratings     []playerRating            `json:"ratings"`
}

// passkeyInfo is what the player is shown of one of its passkeys.
type passkeyInfo struct {
	ID      string    `json:"id"` // base64url without padding, as WebAuthn names credentials
	Created time.Time `json:"created"`
}

// meReply is the answer of GET and PATCH /api/v1/me.
type meReply struct {
	Player   playerInfo    `json:"player"`
	Passkeys []passkeyInfo `json:"passkeys"`
	Devices  int           `json:"devices"`
}

// export is the answer of GET /api/v1/me/export: everything the server
// keeps of the player, credentials aside (only their count and the
// passkeys' ids).
type export struct {
	profile
	Passkeys []passkeyInfo `json:"passkeys"`
	Devices  int           `json:"devices"`
	Exported time.Time     `json:"exported"`
}

// bearer returns the player of the request's device credential, and the
// credential; it answers 401 and returns ok false when there is none or
// it is not known.
func (s *Server) bearer(ctx context.Context, w http.ResponseWriter, r *http.Request) (p lobby.Player, token string, ok bool) {
	// The scheme is case-insensitive (RFC 9110, 11.1).
	scheme, token, _ := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
	token = strings.TrimSpace(token)
	if !strings.EqualFold(scheme, "Bearer") || token == "" {
		w.Header().Set("WWW-Authenticate", `Bearer realm="klondike"`)
		writeJSON(w, http.StatusUnauthorized, errorBody(protocol.CodeUnauthorized,
			"this route needs the player's credential: Authorization: Bearer <token>"))
		return lobby.Player{}, "", false
	}
	p, err := s.Lobby.Authenticate(ctx, token)
	if errors.Is(err, lobby.ErrUnknownToken) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="klondike", error="invalid_token"`)
		writeJSON(w, http.StatusUnauthorized, errorBody(protocol.CodeUnauthorized,
			"unknown, revoked or expired credential"))
		return lobby.Player{}, "", false
	}
	if err != nil {
		s.routeError(w, err)
		return lobby.Player{}, "", false
	}
	return p, token, true
}

// asPlayer serves a route of the player's own: within commandTimeout, for
// the bearer of a device credential (see bearer), which h is handed with
// its player.
func (s *Server) asPlayer(h func(ctx context.Context, w http.ResponseWriter, r *http.Request, p lobby.Player, token string)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), commandTimeout)
		defer cancel()
		if p, token, ok := s.bearer(ctx, w, r); ok {
			h(ctx, w, r, p, token)
		}
	})
}

// profileOf gathers a player's public profile.
func (s *Server) profileOf(ctx context.Context, p lobby.Player) (profile, error) {
	pr := profile{Player: infoOf(p), Recent: []recentGame{}, Challenges: []madeChallenge{}, Ratings: []playerRating{}}
	rs, err := s.Challenges.Records(ctx, p.ID)
	if err != nil {
		return pr, err
	}
	pr.Records = nonNil(rs)
	for _, r := range rs {
		pr.DailyStreak = max(pr.DailyStreak, r.DailyStreak)
	}
	games, err := s.Challenges.Recent(ctx, p.ID)
	if err != nil {
		return pr, err
	}
	for _, g := range games {
		pr.Recent = append(pr.Recent, recentGame{
			RoundID: g.GameID, Variant: g.Variant, Won: g.Won, Score: g.Score, ElapsedMs: g.ElapsedMs,
			Finished: g.Finished, Replay: apiPrefix + "/rounds/" + g.GameID + "/replay",
		})
	}
	made, err := s.Challenges.Made(ctx, p.ID)
	if err != nil {
		return pr, err
	}
	for _, c := range made {
		pr.Challenges = append(pr.Challenges, madeChallenge{
			ID: c.ID, Variant: c.Variant, OpensAt: c.OpensAt, ClosesAt: c.ClosesAt, ClosedEarly: c.ClosedEarly, URL: ChallengeURL(&c),
		})
	}
	pr.Ratings, err = s.ratingsOf(ctx, p.ID)
	return pr, err
}

// player answers GET /api/v1/players/{id}: the player's public profile.
func (s *Server) player(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), commandTimeout)
	defer cancel()
	p, err := s.Lobby.PlayerByID(ctx, r.PathValue("id"))
	if err != nil {
		s.routeError(w, err)
		return
	}
	pr, err := s.profileOf(ctx, p)
	if err != nil {
		s.routeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, pr)
}

// me answers GET /api/v1/me.
func (s *Server) me(ctx context.Context, w http.ResponseWriter, r *http.Request, p lobby.Player, _ string) {
	s.writeMe(ctx, w, p)
}

// writeMe writes the player's own view of itself.
func (s *Server) writeMe(ctx context.Context, w http.ResponseWriter, p lobby.Player) {
	reply, err := s.meOf(ctx, p)
	if err != nil {
		s.routeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, reply)
}

func (s *Server) meOf(ctx context.Context, p lobby.Player) (meReply, error) {
	reply := meReply{Player: infoOf(p), Passkeys: []passkeyInfo{}}
	pks, err := s.Lobby.Passkeys().Passkeys(ctx, p.ID)
	if err != nil {
		return reply, err
	}
	for _, pk := range pks {
		reply.Passkeys = append(reply.Passkeys, passkeyInfo{ID: b64url(pk.ID), Created: pk.Created})
	}
	reply.Devices, err = s.Lobby.Devices(ctx, p.ID)
	return reply, err
}

// rename answers PATCH /api/v1/me {"name": "..."}.
func (s *Server) rename(ctx context.Context, w http.ResponseWriter, r *http.Request, p lobby.Player, _ string) {
	var body struct {
		Name *string `json:"name"`
	}
	if !readBody(w, r, &body) {
		return
	}
	if body.Name == nil {
		writeJSON(w, http.StatusBadRequest, errorBody(protocol.CodeBadRequest, `the body names nothing to change: {"name": "..."}`))
		return
	}
	p, err := s.Lobby.Rename(ctx, p.ID, *body.Name)
	if err != nil {
		s.routeError(w, err)
		return
	}
	s.writeMe(ctx, w, p)
}

// exportMe answers GET /api/v1/me/export: the player's data as a file.
func (s *Server) exportMe(ctx context.Context, w http.ResponseWriter, r *http.Request, p lobby.Player, _ string) {
	pr, err := s.profileOf(ctx, p)
	if err != nil {
		s.routeError(w, err)
		return
	}
	me, err := s.meOf(ctx, p)
	if err != nil {
		s.routeError(w, err)
		return
	}
	w.Header().Set("Content-Disposition", `attachment; filename="klondike-player-`+p.ID+`.json"`)
	writeJSON(w, http.StatusOK, export{profile: pr, Passkeys: me.Passkeys, Devices: me.Devices, Exported: time.Now().UTC()})
}

// deleteMe answers DELETE /api/v1/me: the player, its credentials,
// passkeys and records are forgotten, and its connections closed.
func (s *Server) deleteMe(ctx context.Context, w http.ResponseWriter, r *http.Request, p lobby.Player, _ string) {
	// The player is deleted first: a game its leaving ends is then not
	// counted (challenge.Service.CountRound), and the records go after.
	if err := s.Lobby.DeletePlayer(ctx, p.ID); err != nil {
		s.routeError(w, err)
		return
	}
	if err := s.Challenges.ForgetPlayer(ctx, p.ID); err != nil {
		s.routeError(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// signOut answers POST /api/v1/me/signout: this device's credential is
// revoked.
func (s *Server) signOut(ctx context.Context, w http.ResponseWriter, r *http.Request, _ lobby.Player, token string) {
	if err := s.Lobby.SignOut(ctx, token); err != nil {
		s.routeError(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// signOutEverywhere answers POST /api/v1/me/signout-everywhere: every
// credential of the player is revoked and its connections closed.
func (s *Server) signOutEverywhere(ctx context.Context, w http.ResponseWriter, r *http.Request, p lobby.Player, _ string) {
	if err := s.Lobby.SignOutEverywhere(ctx, p.ID); err != nil {
		s.routeError(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// readBody decodes a JSON body of at most maxBodyBytes into v; on a bad
// one it answers 400 and returns false.
func readBody(w http.ResponseWriter, r *http.Request, v any) bool {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxBodyBytes))
	if err := dec.Decode(v); err != nil {
		writeJSON(w, http.StatusBadRequest, errorBody(protocol.CodeBadRequest, "the body is not the JSON this route takes: "+err.Error()))
		return false
	}
	return true
}
