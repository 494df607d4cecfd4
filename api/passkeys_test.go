package api_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fxamacker/cbor/v2"

	"klondike/api"
	"klondike/api/apitest"
	"klondike/api/protocol"
	"klondike/api/servertest"
	"klondike/lobby"
	"klondike/lobby/memstore"
)

// The passkeys' routes, with a software authenticator in place of a
// browser and its platform authenticator.

// testPublicURL is the public URL of the passkey tests' servers: the
// relying party's id is its host name, and its origin the one accepted.
// The servers listen on loopback; the authenticator writes this origin in
// its client data as a browser at this URL would.
const (
	testPublicURL = "https://klondike.example"
	testRPID      = "klondike.example"
)

// b64 is WebAuthn's encoding of binary fields in JSON: base64url without
// padding.
var b64 = base64.RawURLEncoding

// The authenticator data's flags (WebAuthn Level 3, 6.1).
const (
	flagUP = 0x01 // user present
	flagUV = 0x04 // user verified
	flagAT = 0x40 // attested credential data included
)

// authenticator is a software authenticator and the browser around it:
// it makes discoverable ES256 (P-256) passkeys with attestation "none",
// and signs assertions with them, writing clientDataJSON with origin
// as the browser's origin.
type authenticator struct {
	t      *testing.T
	origin string
}

// softPasskey is a passkey the authenticator made: its credential id,
// its private key, its relying party's id, its user handle and its
// signature counter.
type softPasskey struct {
	id    []byte
	key   *ecdsa.PrivateKey
	rpID  string
	user  []byte
	count uint32
}

func newAuthenticator(t *testing.T) *authenticator {
	return &authenticator{t: t, origin: testPublicURL}
}

// creationOptions are the members of the W3C creation options the
// authenticator reads.
type creationOptions struct {
	PublicKey struct {
		Challenge string `json:"challenge"`
		RP        struct {
			ID   string `json:"id"`
			Name string `json:"name"`
		} `json:"rp"`
		User struct {
			ID          string `json:"id"`
			Name        string `json:"name"`
			DisplayName string `json:"displayName"`
		} `json:"user"`
		PubKeyCredParams []struct {
			Type string `json:"type"`
			Alg  int    `json:"alg"`
		} `json:"pubKeyCredParams"`
		ExcludeCredentials []struct {
			ID string `json:"id"`
		} `json:"excludeCredentials"`
		AuthenticatorSelection struct {
			ResidentKey string `json:"residentKey"`
		} `json:"authenticatorSelection"`
	} `json:"publicKey"`
}

// requestOptions are the members of the W3C request options the
// authenticator reads.
type requestOptions struct {
	PublicKey struct {
		Challenge        string            `json:"challenge"`
		RPID             string            `json:"rpId"`
		AllowCredentials []json.RawMessage `json:"allowCredentials"`
	} `json:"publicKey"`
}

// create makes a new passkey for creation options (the options of an
// options route's answer), and returns it with the credential to send
// back, as navigator.credentials.create() and toJSON() make it.
func (a *authenticator) create(options json.RawMessage) (*softPasskey, json.RawMessage) {
	a.t.Helper()
	var o creationOptions
	if err := json.Unmarshal(options, &o); err != nil {
		a.t.Fatalf("creation options: %v: %s", err, options)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		a.t.Fatal(err)
	}
	user, err := b64.DecodeString(o.PublicKey.User.ID)
	if err != nil {
		a.t.Fatalf("user.id %q: %v", o.PublicKey.User.ID, err)
	}
	id := make([]byte, 32)
	_, _ = rand.Read(id)
	pk := &softPasskey{id: id, key: key, rpID: o.PublicKey.RP.ID, user: user}
	for _, ex := range o.PublicKey.ExcludeCredentials {
		if ex.ID == b64.EncodeToString(id) {
			a.t.Fatalf("a fresh credential id is excluded")
		}
	}
	return pk, a.attest(options, pk)
}

// attest answers creation options with an existing passkey, as an
// authenticator that ignored excludeCredentials would.
func (a *authenticator) attest(options json.RawMessage, pk *softPasskey) json.RawMessage {
	a.t.Helper()
	var o creationOptions
	if err := json.Unmarshal(options, &o); err != nil {
		a.t.Fatalf("creation options: %v: %s", err, options)
	}
	es256 := false
	for _, p := range o.PublicKey.PubKeyCredParams {
		es256 = es256 || (p.Type == "public-key" && p.Alg == -7)
	}
	if !es256 {
		a.t.Fatalf("the creation options offer no ES256: %s", options)
	}
	clientData := a.clientData("webauthn.create", o.PublicKey.Challenge)
	pub, err := pk.key.PublicKey.Bytes() // 0x04 || X || Y
	if err != nil {
		a.t.Fatal(err)
	}
	// The COSE_Key of an EC2 P-256 key for ES256 (RFC 9053).
	cose := a.cbor(map[int]any{1: 2, 3: -7, -1: 1, -2: pub[1:33], -3: pub[33:65]})
	var authData bytes.Buffer
	rpIDHash := sha256.Sum256([]byte(pk.rpID))
	authData.Write(rpIDHash[:])
	authData.WriteByte(flagUP | flagUV | flagAT)
	_ = binary.Write(&authData, binary.BigEndian, pk.count)
	authData.Write(make([]byte, 16)) // AAGUID: none
	_ = binary.Write(&authData, binary.BigEndian, uint16(len(pk.id)))
	authData.Write(pk.id)
	authData.Write(cose)
	attestation := a.cbor(map[string]any{"fmt": "none", "attStmt": map[string]any{}, "authData": authData.Bytes()})
	return a.credential(pk, map[string]any{
		"clientDataJSON":    b64.EncodeToString(clientData),
		"attestationObject": b64.EncodeToString(attestation),
		"transports":        []string{"internal"},
	})
}

// get signs in with pk for request options, and returns the assertion to
// send back, as navigator.credentials.get() and toJSON() make it.
func (a *authenticator) get(options json.RawMessage, pk *softPasskey) json.RawMessage {
	a.t.Helper()
	var o requestOptions
	if err := json.Unmarshal(options, &o); err != nil {
		a.t.Fatalf("request options: %v: %s", err, options)
	}
	pk.count++
	clientData := a.clientData("webauthn.get", o.PublicKey.Challenge)
	var authData bytes.Buffer
	rpIDHash := sha256.Sum256([]byte(o.PublicKey.RPID))
	authData.Write(rpIDHash[:])
	authData.WriteByte(flagUP | flagUV)
	_ = binary.Write(&authData, binary.BigEndian, pk.count)
	clientHash := sha256.Sum256(clientData)
	signed := sha256.Sum256(append(bytes.Clone(authData.Bytes()), clientHash[:]...))
	sig, err := ecdsa.SignASN1(rand.Reader, pk.key, signed[:])
	if err != nil {
		a.t.Fatal(err)
	}
	return a.credential(pk, map[string]any{
		"clientDataJSON":    b64.EncodeToString(clientData),
		"authenticatorData": b64.EncodeToString(authData.Bytes()),
		"signature":         b64.EncodeToString(sig),
		"userHandle":        b64.EncodeToString(pk.user),
	})
}

// clientData is the browser's collected client data, as JSON.
func (a *authenticator) clientData(typ, challenge string) []byte {
	b, err := json.Marshal(map[string]any{"type": typ, "challenge": challenge, "origin": a.origin, "crossOrigin": false})
	if err != nil {
		a.t.Fatal(err)
	}
	return b
}

// credential is a PublicKeyCredential's JSON with the response.
func (a *authenticator) credential(pk *softPasskey, response map[string]any) json.RawMessage {
	b, err := json.Marshal(map[string]any{
		"id": b64.EncodeToString(pk.id), "rawId": b64.EncodeToString(pk.id), "type": "public-key",
		"response": response, "clientExtensionResults": map[string]any{}, "authenticatorAttachment": "platform",
	})
	if err != nil {
		a.t.Fatal(err)
	}
	return b
}

// cbor encodes v in CTAP2's canonical CBOR.
func (a *authenticator) cbor(v any) []byte {
	em, err := cbor.CTAP2EncOptions().EncMode()
	if err != nil {
		a.t.Fatal(err)
	}
	b, err := em.Marshal(v)
	if err != nil {
		a.t.Fatal(err)
	}
	return b
}

// ceremonyOf is an options route's answer.
type ceremonyOf struct {
	Ceremony string          `json:"ceremony"`
	Options  json.RawMessage `json:"options"`
}

// answer is the body that finishes a ceremony.
func answer(ceremony string, credential json.RawMessage) map[string]any {
	return map[string]any{"ceremony": ceremony, "credential": credential}
}

// sendAs sends a request through the checker, fails the test unless it
// answers status, and decodes the answer as T.
func sendAs[T any](c *apiChecker, method, url, token string, body any, status int) T {
	c.t.Helper()
	resp, b := c.send(method, url, token, body)
	if resp.StatusCode != status {
		c.t.Fatalf("%s %s = %d, want %d: %s", method, url, resp.StatusCode, status, b)
	}
	var v T
	if len(b) > 0 {
		if err := json.Unmarshal(b, &v); err != nil {
			c.t.Fatalf("%s %s: %v: %s", method, url, err, b)
		}
	}
	return v
}

// wantError sends a request through the checker and fails the test unless
// it answers status with the error code.
func wantError(c *apiChecker, method, url, token string, body any, status int, code string) api.HTTPError {
	c.t.Helper()
	e := sendAs[api.HTTPError](c, method, url, token, body, status)
	if e.Code != code {
		c.t.Fatalf("%s %s: code %q, want %q: %+v", method, url, e.Code, code, e)
	}
	return e
}

// addPasskey makes a new passkey of the authenticator the player's of
// token, through the two routes, and returns it with the player's passkeys
// after.
func addPasskey(c *apiChecker, base, token string, a *authenticator) (*softPasskey, api.MeReply) {
	c.t.Helper()
	cer := sendAs[ceremonyOf](c, http.MethodPost, base+"/api/v1/me/passkeys/options", token, nil, http.StatusOK)
	pk, cred := a.create(cer.Options)
	me := sendAs[api.MeReply](c, http.MethodPost, base+"/api/v1/me/passkeys", token, answer(cer.Ceremony, cred), http.StatusCreated)
	return pk, me
}

// passkeyLogin signs in with pk through the two routes and returns the
// answer.
func passkeyLogin(c *apiChecker, base string, a *authenticator, pk *softPasskey) api.LoginReply {
	c.t.Helper()
	cer := sendAs[ceremonyOf](c, http.MethodPost, base+"/api/v1/passkeys/login/options", "", nil, http.StatusOK)
	return sendAs[api.LoginReply](c, http.MethodPost, base+"/api/v1/passkeys/login", "", answer(cer.Ceremony, a.get(cer.Options, pk)), http.StatusOK)
}

// ceremonyPlayers are a store's players whose ceremonies can be made to
// expire: with ttl set, PutCeremony keeps them that long in the store;
// with stale set, it keeps them with a session that go-webauthn finds
// expired, as a store whose clock runs behind the server's would.
type ceremonyPlayers struct {
	lobby.Players
	mu    sync.Mutex
	ttl   time.Duration
	stale bool
}

func (p *ceremonyPlayers) set(ttl time.Duration, stale bool) {
	p.mu.Lock()
	p.ttl, p.stale = ttl, stale
	p.mu.Unlock()
}

func (p *ceremonyPlayers) PutCeremony(ctx context.Context, id string, data []byte, ttl time.Duration) error {
	p.mu.Lock()
	short, stale := p.ttl, p.stale
	p.mu.Unlock()
	if short > 0 {
		ttl = short
	}
	if stale {
		var c struct {
			Kind     string         `json:"kind"`
			PlayerID string         `json:"player_id,omitempty"`
			Session  map[string]any `json:"session"`
		}
		if err := json.Unmarshal(data, &c); err != nil || c.Session["expires"] == nil {
			return fmt.Errorf("a ceremony of another form: %s", data)
		}
		c.Session["expires"] = time.Now().Add(-time.Minute).UTC().Format(time.RFC3339Nano)
		data, _ = json.Marshal(c)
	}
	return p.Players.PutCeremony(ctx, id, data, ttl)
}

// passkeyServer starts a server of testPublicURL on loopback over players
// (memstore's when nil), with no limit on new players, and returns its URL
// and a checker of its answers against the OpenAPI document.
func passkeyServer(t *testing.T, players lobby.Players) (*api.Server, string, *apiChecker) {
	t.Helper()
	srv := servertest.New(servertest.Config{
		Logger:               slog.New(slog.NewTextHandler(io.Discard, nil)),
		Players:              players,
		Limits:               api.Limits{MsgRate: 10000, MsgBurst: 10000},
		NewSessionsPerMinute: -1,
		PublicURL:            testPublicURL,
	})
	hs := httptest.NewServer(srv)
	t.Cleanup(func() {
		srv.Close()
		hs.Close()
	})
	return srv, hs.URL, newChecker(t, loadDoc(t))
}

// loadDoc reads api/openapi.json.
func loadDoc(t *testing.T) oaDoc {
	t.Helper()
	b, err := os.ReadFile("openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	return parseDoc(t, b)
}

// soloGame makes c play a one-player race round of deal 1 and resign it
// after a move, and waits for its player's records to count it.
func soloGame(t *testing.T, c *apiChecker, base string, p *apitest.Client) string {
	t.Helper()
	info := apitest.Request[protocol.Match](p, protocol.CreateMatch{Type: protocol.TypeCreateMatch,
		Settings: protocol.PartialSettings{Seed: new("1"), CountdownS: new(0), MaxPlayers: new(1)}}).Match
	p.Send(protocol.MatchRef{Type: protocol.TypeStartMatch, MatchID: info.ID})
	roundID := apitest.Expect[protocol.RoundStarted](p).RoundID
	moveOK(t, p, roundID, 1, "D")
	resign(p, roundID)
	apitest.Expect[protocol.RoundOver](p)
	waitRecords(t, c, base, p.PlayerID, func(r api.Profile) bool { return len(r.Records) > 0 })
	return roundID
}

// waitRecords waits, at most 5 s, for the player's profile to satisfy ok
// (the records of a finished race round are counted in the background),
// and returns it.
func waitRecords(t *testing.T, c *apiChecker, base, playerID string, ok func(api.Profile) bool) api.Profile {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		pr := sendAs[api.Profile](c, http.MethodGet, base+"/api/v1/players/"+playerID, "", nil, http.StatusOK)
		if ok(pr) {
			return pr
		}
		if time.Now().After(deadline) {
			t.Fatalf("the profile of %s stayed %+v", playerID, pr)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestPasskeySignIn: a player adds a passkey, and a fresh client signs in
// with it to become that player, with a new credential of its own; the
// old credential goes on working.
func TestPasskeySignIn(t *testing.T) {
	_, base, c := passkeyServer(t, nil)
	alice := apitest.Dial(t, base)
	alice.Hello("alice")
	soloGame(t, c, base, alice)
	// alice makes a challenge and has her one attempt at it.
	made := apitest.Request[protocol.AsyncRound](alice, protocol.CreateChallenge{Type: protocol.TypeCreateChallenge, WindowS: 3600})
	challengeID := made.Round.RoundID
	st := apitest.Request[protocol.RoundStarted](alice, protocol.RoundRef{Type: protocol.TypeStartAttempt, RoundID: challengeID})
	apitest.Request[protocol.Resigned](alice, protocol.Resign{Type: protocol.TypeResign, RoundID: st.RoundID})
	apitest.Expect[protocol.AttemptOver](alice)
	records := sendAs[api.RecordsReply](c, http.MethodGet, base+"/api/v1/players/"+alice.PlayerID+"/records", "", nil, http.StatusOK)

	// The creation options name the public URL's host as the relying
	// party, the player's id as the user handle, and ask for a
	// discoverable passkey.
	cer := sendAs[ceremonyOf](c, http.MethodPost, base+"/api/v1/me/passkeys/options", alice.Token, nil, http.StatusOK)
	var o creationOptions
	if err := json.Unmarshal(cer.Options, &o); err != nil {
		t.Fatal(err)
	}
	if o.PublicKey.RP.ID != testRPID || o.PublicKey.User.ID != b64.EncodeToString([]byte(alice.PlayerID)) ||
		o.PublicKey.AuthenticatorSelection.ResidentKey != "required" || o.PublicKey.User.DisplayName != "alice" {
		t.Fatalf("creation options: %s", cer.Options)
	}
	a := newAuthenticator(t)
	pk, cred := a.create(cer.Options)
	me := sendAs[api.MeReply](c, http.MethodPost, base+"/api/v1/me/passkeys", alice.Token, answer(cer.Ceremony, cred), http.StatusCreated)
	if len(me.Passkeys) != 1 || me.Passkeys[0].ID != b64.EncodeToString(pk.id) || me.Player.ID != alice.PlayerID || me.Devices != 1 {
		t.Fatalf("after adding a passkey: %+v", me)
	}
	// A second passkey's options exclude the first.
	cer = sendAs[ceremonyOf](c, http.MethodPost, base+"/api/v1/me/passkeys/options", alice.Token, nil, http.StatusOK)
	if err := json.Unmarshal(cer.Options, &o); err != nil || len(o.PublicKey.ExcludeCredentials) != 1 || o.PublicKey.ExcludeCredentials[0].ID != b64.EncodeToString(pk.id) {
		t.Fatalf("the second passkey's options exclude %+v, want the first: %s", o.PublicKey.ExcludeCredentials, cer.Options)
	}

	// A fresh client: no credential, no hello. The request options name no
	// credential: the authenticator says whose passkey it is.
	cer = sendAs[ceremonyOf](c, http.MethodPost, base+"/api/v1/passkeys/login/options", "", nil, http.StatusOK)
	var ro requestOptions
	if err := json.Unmarshal(cer.Options, &ro); err != nil || ro.PublicKey.RPID != testRPID || len(ro.PublicKey.AllowCredentials) != 0 {
		t.Fatalf("request options: %s", cer.Options)
	}
	in := sendAs[api.LoginReply](c, http.MethodPost, base+"/api/v1/passkeys/login", "", answer(cer.Ceremony, a.get(cer.Options, pk)), http.StatusOK)
	if in.Player.ID != alice.PlayerID || in.Player.Name != "alice" || in.Token == "" || in.Token == alice.Token {
		t.Fatalf("signed in as %+v with token %q; alice is %s with %q", in.Player, in.Token, alice.PlayerID, alice.Token)
	}
	fresh := apitest.Dial(t, base)
	w := fresh.Resume(in.Token)
	if w.PlayerID != alice.PlayerID || w.Name != "alice" || !w.Resumed {
		t.Fatalf("the new credential's welcome: %+v", w)
	}
	got := apitest.Request[protocol.Records](fresh, protocol.GetRecords{Type: protocol.TypeGetRecords})
	if got.PlayerID != alice.PlayerID || len(got.Records) != len(records.Records) || got.Records[0].Played != records.Records[0].Played {
		t.Fatalf("the signed-in device's records: %+v, want %+v", got, records)
	}
	// On the new device alice has had her attempt, and owns her challenge.
	if f := fresh.Reply(protocol.RoundRef{Type: protocol.TypeStartAttempt, RoundID: challengeID}); f.Type != protocol.TypeError || apitest.Decode[protocol.Error](t, f).Code != protocol.CodeAlreadyPlayed {
		t.Fatalf("a second attempt from the new device: %s", f)
	}
	if closed := apitest.Request[protocol.AsyncRound](fresh, protocol.RoundRef{Type: protocol.TypeCloseChallenge, RoundID: challengeID}); !closed.Round.Closed {
		t.Fatalf("closed from the new device: %+v", closed.Round)
	}

	// The old credential still works: alice has two devices now. Another
	// sign-in (the counter goes on) makes a third.
	if me := sendAs[api.MeReply](c, http.MethodGet, base+"/api/v1/me", alice.Token, nil, http.StatusOK); me.Devices != 2 || me.Player.ID != alice.PlayerID {
		t.Fatalf("alice's old credential after a sign-in: %+v", me)
	}
	if again := passkeyLogin(c, base, a, pk); again.Player.ID != alice.PlayerID || again.Token == in.Token {
		t.Fatalf("a second sign-in: %+v", again)
	}
	if me := sendAs[api.MeReply](c, http.MethodGet, base+"/api/v1/me", in.Token, nil, http.StatusOK); me.Devices != 3 {
		t.Fatalf("after two sign-ins: %+v", me)
	}
}

// TestPasskeyCeremoniesRefused: each way a ceremony can be wrong answers
// 400 and gives no credential.
func TestPasskeyCeremoniesRefused(t *testing.T) {
	players := &ceremonyPlayers{Players: memstore.NewBackends().Players}
	_, base, c := passkeyServer(t, players)
	hello := func(name string) *apitest.Client {
		p := apitest.Dial(t, base)
		p.Hello(name)
		return p
	}
	alice, bob := hello("alice"), hello("bob")
	a := newAuthenticator(t)
	pk, _ := addPasskey(c, base, alice.Token, a)
	loginURL, addURL := base+"/api/v1/passkeys/login", base+"/api/v1/me/passkeys"
	beginLogin := func() ceremonyOf {
		return sendAs[ceremonyOf](c, http.MethodPost, loginURL+"/options", "", nil, http.StatusOK)
	}
	beginAdd := func(token string) ceremonyOf {
		return sendAs[ceremonyOf](c, http.MethodPost, addURL+"/options", token, nil, http.StatusOK)
	}
	refused := func(what, url, token string, body any, words string) {
		t.Helper()
		e := wantError(c, http.MethodPost, url, token, body, http.StatusBadRequest, protocol.CodeBadRequest)
		if !strings.Contains(strings.ToLower(e.Message), words) {
			t.Errorf("%s: %q, want it to say %q", what, e.Message, words)
		}
	}

	// A ceremony used twice: the second use is refused, whatever it
	// carries.
	cer := beginLogin()
	cred := a.get(cer.Options, pk)
	sendAs[api.LoginReply](c, http.MethodPost, loginURL, "", answer(cer.Ceremony, cred), http.StatusOK)
	refused("a sign-in ceremony used twice", loginURL, "", answer(cer.Ceremony, cred), "used already")
	add := beginAdd(alice.Token)
	_, reg := a.create(add.Options)
	sendAs[api.MeReply](c, http.MethodPost, addURL, alice.Token, answer(add.Ceremony, reg), http.StatusCreated)
	refused("a registration ceremony used twice", addURL, alice.Token, answer(add.Ceremony, reg), "used already")

	// Unknown ceremonies, and bodies of another form.
	refused("an unknown ceremony", loginURL, "", answer("0123456789abcdef0123456789abcdef", cred), "expired or was used")
	refused("an unknown registration ceremony", addURL, alice.Token, answer("nope", reg), "expired or was used")
	refused("no ceremony", loginURL, "", map[string]any{"credential": cred}, "needs")
	refused("no credential", loginURL, "", map[string]any{"ceremony": beginLogin().Ceremony}, "needs")
	refused("not JSON", loginURL, "", "{", "not the json")
	refused("a credential that is no PublicKeyCredential", loginURL, "", answer(beginLogin().Ceremony, json.RawMessage(`{"id":"x"}`)), "not accepted")

	// Ceremonies that expired: forgotten by the store, or kept by a store
	// that keeps them too long, where go-webauthn finds the session
	// expired.
	players.set(time.Millisecond, false)
	cer, add = beginLogin(), beginAdd(alice.Token)
	time.Sleep(20 * time.Millisecond)
	refused("a sign-in ceremony the store let expire", loginURL, "", answer(cer.Ceremony, a.get(cer.Options, pk)), "expired")
	_, reg = a.create(add.Options)
	refused("a registration ceremony the store let expire", addURL, alice.Token, answer(add.Ceremony, reg), "expired")
	players.set(0, true)
	cer, add = beginLogin(), beginAdd(alice.Token)
	refused("a sign-in ceremony past its session's expiry", loginURL, "", answer(cer.Ceremony, a.get(cer.Options, pk)), "expired")
	_, reg = a.create(add.Options)
	refused("a registration ceremony past its session's expiry", addURL, alice.Token, answer(add.Ceremony, reg), "expired")
	players.set(0, false)

	// Ceremonies of the wrong kind, or of another player.
	add = beginAdd(alice.Token)
	refused("a registration ceremony finished as a sign-in", loginURL, "", answer(add.Ceremony, cred), "not one of login")
	cer = beginLogin()
	refused("a sign-in ceremony finished as a registration", addURL, alice.Token, answer(cer.Ceremony, reg), "not one of register")
	add = beginAdd(alice.Token)
	_, reg = a.create(add.Options)
	refused("alice's registration ceremony finished by bob", addURL, bob.Token, answer(add.Ceremony, reg), "another player")
	// Each of those ceremonies was taken: alice cannot finish hers now.
	refused("a registration ceremony another player tried", addURL, alice.Token, answer(add.Ceremony, reg), "used already")

	// A browser at another origin: its client data names that origin.
	evil := &authenticator{t: t, origin: "https://klondike.example.evil"}
	cer = beginLogin()
	refused("an assertion from another origin", loginURL, "", answer(cer.Ceremony, evil.get(cer.Options, pk)), "origin")
	add = beginAdd(alice.Token)
	_, reg = evil.create(add.Options)
	refused("a registration from another origin", addURL, alice.Token, answer(add.Ceremony, reg), "origin")

	// An assertion that another key signed, and one for another relying
	// party.
	forged := *pk
	forged.key, _ = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	cer = beginLogin()
	refused("an assertion signed by another key", loginURL, "", answer(cer.Ceremony, a.get(cer.Options, &forged)), "signature")
	cer = beginLogin()
	var ro map[string]map[string]any
	_ = json.Unmarshal(cer.Options, &ro)
	ro["publicKey"]["rpId"] = "evil.example"
	other, _ := json.Marshal(ro)
	refused("an assertion for another relying party", loginURL, "", answer(cer.Ceremony, a.get(other, pk)), "authenticator response")

	// A passkey registered already, by another player.
	add = beginAdd(bob.Token)
	refused("alice's passkey registered by bob", addURL, bob.Token, answer(add.Ceremony, a.attest(add.Options, pk)), "registered already")

	// A deleted player's passkey signs nobody in.
	dave := hello("dave")
	dpk, _ := addPasskey(c, base, dave.Token, a)
	sendAs[struct{}](c, http.MethodDelete, base+"/api/v1/me", dave.Token, nil, http.StatusNoContent)
	cer = beginLogin()
	refused("a deleted player's passkey", loginURL, "", answer(cer.Ceremony, a.get(cer.Options, dpk)), "no player")

	// Nothing above gave anyone a credential: alice has one device and
	// her sign-in's, bob one.
	if me := sendAs[api.MeReply](c, http.MethodGet, base+"/api/v1/me", alice.Token, nil, http.StatusOK); me.Devices != 2 || len(me.Passkeys) != 2 {
		t.Errorf("alice after the refusals: %+v", me)
	}
	if me := sendAs[api.MeReply](c, http.MethodGet, base+"/api/v1/me", bob.Token, nil, http.StatusOK); me.Devices != 1 || len(me.Passkeys) != 0 {
		t.Errorf("bob after the refusals: %+v", me)
	}
}

// TestMaxPasskeys: a player holds lobby.MaxPasskeys passkeys; past that,
// both the options and a ceremony begun before the last one are refused.
func TestMaxPasskeys(t *testing.T) {
	_, base, c := passkeyServer(t, nil)
	p := apitest.Dial(t, base)
	p.Hello("carol")
	a := newAuthenticator(t)
	for range lobby.MaxPasskeys - 1 {
		addPasskey(c, base, p.Token, a)
	}
	early := sendAs[ceremonyOf](c, http.MethodPost, base+"/api/v1/me/passkeys/options", p.Token, nil, http.StatusOK)
	_, me := addPasskey(c, base, p.Token, a)
	if len(me.Passkeys) != lobby.MaxPasskeys {
		t.Fatalf("%d passkeys, want %d", len(me.Passkeys), lobby.MaxPasskeys)
	}
	ids := map[string]bool{}
	for _, pk := range me.Passkeys {
		ids[pk.ID] = true
	}
	if len(ids) != lobby.MaxPasskeys {
		t.Fatalf("passkeys of one id: %+v", me.Passkeys)
	}
	e := wantError(c, http.MethodPost, base+"/api/v1/me/passkeys/options", p.Token, nil, http.StatusBadRequest, protocol.CodeBadRequest)
	if !strings.Contains(e.Message, "at most 10") {
		t.Errorf("the options past the most passkeys: %+v", e)
	}
	_, cred := a.create(early.Options)
	wantError(c, http.MethodPost, base+"/api/v1/me/passkeys", p.Token, answer(early.Ceremony, cred), http.StatusBadRequest, protocol.CodeBadRequest)
	if me := sendAs[api.MeReply](c, http.MethodGet, base+"/api/v1/me", p.Token, nil, http.StatusOK); len(me.Passkeys) != lobby.MaxPasskeys ||
		slices.ContainsFunc(me.Passkeys, func(pk api.PasskeyInfo) bool { return !ids[pk.ID] }) {
		t.Fatalf("after the refusals: %+v", me)
	}
}
