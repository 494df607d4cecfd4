package api

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/go-webauthn/webauthn/protocol"
	"github.com/go-webauthn/webauthn/webauthn"

	wire "klondike/api/protocol"
	"klondike/lobby"
	"klondike/match"
)

// Passkeys, no passwords: a player adds a passkey (WebAuthn) on one device
// and signs in with it on another to become the same player there. The
// server is the relying party; go-webauthn checks the ceremonies. A
// ceremony's state is kept in the players' store for ceremonyTTL and
// taken once (lobby.Players.TakeCeremony), so any node can finish what
// another began, and no challenge can be answered twice.

// ceremonyTTL is how long a passkey ceremony may take.
const ceremonyTTL = 5 * time.Minute

// The kinds of ceremony.
const (
	ceremonyRegister = "register"
	ceremonyLogin    = "login"
)

// ceremony is what the store keeps of a ceremony under way.
type ceremony struct {
	Kind     string               `json:"kind"`
	PlayerID string               `json:"player_id,omitempty"` // register: the player adding the passkey
	Session  webauthn.SessionData `json:"session"`
}

// relyingParty makes the WebAuthn relying party of the server's public URL
// (Config.PublicURL): its id is the URL's host name, and its one origin
// the URL's scheme, host and port.
func relyingParty(publicURL string) (*webauthn.WebAuthn, error) {
	u, err := url.Parse(publicURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
		return nil, fmt.Errorf("api: the public URL %q is not an http(s) URL with a host", publicURL)
	}
	return webauthn.New(&webauthn.Config{
		RPID:          u.Hostname(),
		RPDisplayName: "Klondike",
		RPOrigins:     []string{u.Scheme + "://" + u.Host},
		Timeouts: webauthn.TimeoutsConfig{
			Login:        webauthn.TimeoutConfig{Enforce: true, Timeout: ceremonyTTL},
			Registration: webauthn.TimeoutConfig{Enforce: true, Timeout: ceremonyTTL},
		},
	})
}

// waUser is a player as go-webauthn sees it: the user handle is the
// player's id.
type waUser struct {
	p     lobby.Player
	creds []webauthn.Credential
}

func (u *waUser) WebAuthnID() []byte                         { return []byte(u.p.ID) }
func (u *waUser) WebAuthnName() string                       { return u.p.Name + " " + u.p.Tag() }
func (u *waUser) WebAuthnDisplayName() string                { return u.p.Name }
func (u *waUser) WebAuthnCredentials() []webauthn.Credential { return u.creds }

// userOf loads the player's passkeys as go-webauthn credentials.
func (s *Server) userOf(ctx context.Context, p lobby.Player) (*waUser, error) {
	pks, err := s.Lobby.Passkeys().Passkeys(ctx, p.ID)
	if err != nil {
		return nil, err
	}
	u := &waUser{p: p}
	for _, pk := range pks {
		var c webauthn.Credential
		if err := json.Unmarshal(pk.Data, &c); err != nil {
			return nil, fmt.Errorf("a stored passkey of player %s does not read: %w", p.ID, err)
		}
		u.creds = append(u.creds, c)
	}
	return u, nil
}

// ceremonyReply is the answer of the options routes: the ceremony's id,
// to send back with the credential, and the options for
// navigator.credentials.
type ceremonyReply struct {
	Ceremony string `json:"ceremony"`
	Options  any    `json:"options"`
}

// credentialBody is the body of the routes that finish a ceremony.
type credentialBody struct {
	Ceremony   string          `json:"ceremony"`
	Credential json.RawMessage `json:"credential"`
}

// putCeremony keeps c and writes its id and the options.
func (s *Server) putCeremony(ctx context.Context, w http.ResponseWriter, c ceremony, options any) {
	b, err := json.Marshal(c)
	if err != nil {
		s.routeError(w, err)
		return
	}
	id := randomID()
	if err := s.Lobby.Passkeys().PutCeremony(ctx, id, b, ceremonyTTL); err != nil {
		s.routeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, ceremonyReply{Ceremony: id, Options: options})
}

// takeCeremony reads a finishing body and takes its ceremony, which must
// be of kind; on failure it answers and returns ok false.
func (s *Server) takeCeremony(ctx context.Context, w http.ResponseWriter, r *http.Request, kind string) (c ceremony, cred []byte, ok bool) {
	var body credentialBody
	if !readBody(w, r, &body) {
		return c, nil, false
	}
	if body.Ceremony == "" || len(body.Credential) == 0 {
		writeJSON(w, http.StatusBadRequest, errorBody(wire.CodeBadRequest, `the body needs {"ceremony": ..., "credential": ...}`))
		return c, nil, false
	}
	b, err := s.Lobby.Passkeys().TakeCeremony(ctx, body.Ceremony)
	if errors.Is(err, match.ErrNotFound) {
		writeJSON(w, http.StatusBadRequest, errorBody(wire.CodeBadRequest, "this passkey request expired or was used already; try again"))
		return c, nil, false
	}
	if err != nil {
		s.routeError(w, err)
		return c, nil, false
	}
	if err := json.Unmarshal(b, &c); err != nil || c.Kind != kind {
		writeJSON(w, http.StatusBadRequest, errorBody(wire.CodeBadRequest, "this passkey request is not one of "+kind))
		return c, nil, false
	}
	return c, body.Credential, true
}

// passkeyFailed answers a ceremony that go-webauthn refused.
func passkeyFailed(w http.ResponseWriter, err error) {
	msg := err.Error()
	var pe *protocol.Error
	if errors.As(err, &pe) && pe.Details != "" {
		msg = pe.Details
	}
	writeJSON(w, http.StatusBadRequest, errorBody(wire.CodeBadRequest, "the passkey was not accepted: "+msg))
}

// addPasskeyOptions answers POST /api/v1/me/passkeys/options: the options
// to make a passkey for the player, whose passkeys are excluded so that an
// authenticator does not make a second one.
func (s *Server) addPasskeyOptions(ctx context.Context, w http.ResponseWriter, r *http.Request, p lobby.Player, _ string) {
	u, err := s.userOf(ctx, p)
	if err != nil {
		s.routeError(w, err)
		return
	}
	if len(u.creds) >= lobby.MaxPasskeys {
		s.routeError(w, lobby.ErrTooManyPasskeys)
		return
	}
	exclude := make([]protocol.CredentialDescriptor, len(u.creds))
	for i, c := range u.creds {
		exclude[i] = c.Descriptor()
	}
	options, session, err := s.rp.BeginRegistration(u,
		webauthn.WithResidentKeyRequirement(protocol.ResidentKeyRequirementRequired),
		webauthn.WithExclusions(exclude))
	if err != nil {
		s.routeError(w, err)
		return
	}
	s.putCeremony(ctx, w, ceremony{Kind: ceremonyRegister, PlayerID: p.ID, Session: *session}, options)
}

// addPasskey answers POST /api/v1/me/passkeys: the authenticator's new
// credential is checked against the ceremony and kept as the player's.
func (s *Server) addPasskey(ctx context.Context, w http.ResponseWriter, r *http.Request, p lobby.Player, _ string) {
	c, raw, ok := s.takeCeremony(ctx, w, r, ceremonyRegister)
	if !ok {
		return
	}
	if c.PlayerID != p.ID {
		writeJSON(w, http.StatusBadRequest, errorBody(wire.CodeBadRequest, "this passkey request was made for another player"))
		return
	}
	parsed, err := protocol.ParseCredentialCreationResponseBytes(raw)
	if err != nil {
		passkeyFailed(w, err)
		return
	}
	u, err := s.userOf(ctx, p)
	if err != nil {
		s.routeError(w, err)
		return
	}
	cred, err := s.rp.CreateCredential(u, c.Session, parsed)
	if err != nil {
		passkeyFailed(w, err)
		return
	}
	data, err := json.Marshal(cred)
	if err != nil {
		s.routeError(w, err)
		return
	}
	pk := lobby.Passkey{ID: cred.ID, Created: time.Now().UTC().Truncate(time.Second), Data: data}
	if err := s.Lobby.Passkeys().AddPasskey(ctx, p.ID, pk, s.Lobby.PlayerIdle()); err != nil {
		s.routeError(w, err)
		return
	}
	me, err := s.meOf(ctx, p)
	if err != nil {
		s.routeError(w, err)
		return
	}
	writeJSON(w, http.StatusCreated, me)
}

// loginOptions answers POST /api/v1/passkeys/login/options: the options
// of a sign-in with any passkey of this site (a discoverable credential:
// the authenticator says whose). Each takes from the address's allowance
// of new players, since it makes the server keep a ceremony.
func (s *Server) loginOptions(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), commandTimeout)
	defer cancel()
	if err := s.Lobby.AllowNew(ctx, s.limits.ClientIP(r)); err != nil {
		s.routeError(w, err)
		return
	}
	options, session, err := s.rp.BeginDiscoverableLogin(webauthn.WithUserVerification(protocol.VerificationPreferred))
	if err != nil {
		s.routeError(w, err)
		return
	}
	s.putCeremony(ctx, w, ceremony{Kind: ceremonyLogin, Session: *session}, options)
}

// loginReply is the answer of POST /api/v1/passkeys/login.
type loginReply struct {
	Token  string     `json:"token"`
	Player playerInfo `json:"player"`
}

// login answers POST /api/v1/passkeys/login: a passkey's assertion is
// checked, and the device gets a new credential of the passkey's player.
func (s *Server) login(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), commandTimeout)
	defer cancel()
	c, raw, ok := s.takeCeremony(ctx, w, r, ceremonyLogin)
	if !ok {
		return
	}
	parsed, err := protocol.ParseCredentialRequestResponseBytes(raw)
	if err != nil {
		passkeyFailed(w, err)
		return
	}
	var storeErr error
	user, cred, err := s.rp.ValidatePasskeyLogin(func(rawID, userHandle []byte) (webauthn.User, error) {
		owner, _, err := s.Lobby.Passkeys().PasskeyOwner(ctx, rawID)
		if err != nil {
			storeErr = err
			return nil, err
		}
		if owner != string(userHandle) {
			return nil, errors.New("the passkey's user is not its owner")
		}
		p, err := s.Lobby.PlayerByID(ctx, owner)
		if err != nil {
			storeErr = err
			return nil, err
		}
		return s.userOf(ctx, p)
	}, c.Session, parsed)
	if err != nil {
		switch {
		case errors.Is(storeErr, match.ErrNotFound), errors.Is(storeErr, lobby.ErrNoSuchPlayer):
			writeJSON(w, http.StatusBadRequest, errorBody(wire.CodeBadRequest, "this passkey belongs to no player here (it may have been deleted)"))
		case storeErr != nil:
			s.routeError(w, storeErr)
		default:
			passkeyFailed(w, err)
		}
		return
	}
	p := user.(*waUser).p
	data, err := json.Marshal(cred)
	if err != nil {
		s.routeError(w, err)
		return
	}
	if err := s.Lobby.Passkeys().UpdatePasskey(ctx, p.ID, lobby.Passkey{ID: cred.ID, Data: data}, s.Lobby.PlayerIdle()); err != nil {
		s.routeError(w, err)
		return
	}
	token, err := s.Lobby.NewCredential(ctx, p.ID)
	if err != nil {
		s.routeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, loginReply{Token: token, Player: infoOf(p)})
}

// b64url is WebAuthn's encoding of binary ids: base64url without padding.
func b64url(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

// randomID returns a ceremony's id: 16 random bytes in hex.
func randomID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
