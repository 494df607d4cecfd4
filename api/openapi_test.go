package api_test

import (
	"bytes"
	"context"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"mime"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	webauthnproto "github.com/go-webauthn/webauthn/protocol"
	"github.com/gorilla/websocket"

	"klondike/api"
	"klondike/api/apitest"
	"klondike/api/protocol"
	"klondike/api/servertest"
	"klondike/api/web"
	"klondike/engine"
	"klondike/lobby"
	"klondike/lobby/challenge"
	"klondike/lobby/memstore"
	"klondike/lobby/rating"
	"klondike/match"
)

// oaDoc is an OpenAPI document as decoded JSON, its numbers json.Number.
type oaDoc map[string]any

func decodeJSON(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("data after the JSON value")
	}
	return v, nil
}

func parseDoc(t *testing.T, b []byte) oaDoc {
	t.Helper()
	v, err := decodeJSON(b)
	if err != nil {
		t.Fatalf("the OpenAPI document: %v", err)
	}
	doc, ok := v.(map[string]any)
	if !ok || doc["openapi"] != "3.1.0" {
		t.Fatalf("the OpenAPI document is not OpenAPI 3.1.0: openapi = %v", doc["openapi"])
	}
	return doc
}

// pointer returns the object a local $ref ("#/components/schemas/Match")
// names.
func (d oaDoc) pointer(ref string) (map[string]any, error) {
	rest, ok := strings.CutPrefix(ref, "#/")
	if !ok {
		return nil, fmt.Errorf("$ref %q is not local", ref)
	}
	var cur any = map[string]any(d)
	for _, tok := range strings.Split(rest, "/") {
		tok = strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)
		m, _ := cur.(map[string]any)
		if cur, ok = m[tok]; !ok {
			return nil, fmt.Errorf("$ref %q: nothing at %q", ref, tok)
		}
	}
	m, ok := cur.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("$ref %q is not an object", ref)
	}
	return m, nil
}

// resolve follows node's $ref, if it has one, to what it names.
func (d oaDoc) resolve(node any) map[string]any {
	m, _ := node.(map[string]any)
	for range 8 {
		ref, ok := m["$ref"].(string)
		if !ok {
			return m
		}
		next, err := d.pointer(ref)
		if err != nil {
			return nil
		}
		m = next
	}
	return nil
}

// obj returns the object at a path of keys from node, or nil.
func obj(node any, keys ...string) map[string]any {
	if d, ok := node.(oaDoc); ok {
		node = map[string]any(d)
	}
	m, _ := node.(map[string]any)
	for _, k := range keys {
		m, _ = m[k].(map[string]any)
	}
	return m
}

// schemaKeywords are the JSON Schema keywords the document may use: those
// validate checks, and annotations. Any other keyword fails the test, so
// that the document never states a constraint nobody checks.
var schemaKeywords = map[string]bool{
	"$ref": true, "type": true, "enum": true, "oneOf": true,
	"properties": true, "required": true, "additionalProperties": true,
	"items": true, "minItems": true, "maxItems": true,
	"pattern": true, "minLength": true, "format": true,
	"minimum": true, "maximum": true,
	"description": true, "title": true,
}

// jsonType returns the JSON Schema type of a decoded JSON value.
func jsonType(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case json.Number:
		if strings.ContainsAny(string(v), ".eE") {
			return "number"
		}
		return "integer"
	case map[string]any:
		return "object"
	case []any:
		return "array"
	}
	return fmt.Sprintf("%T", v)
}

// schemaTypes returns a schema's type keyword as a list.
func schemaTypes(s map[string]any) []string {
	switch ts := s["type"].(type) {
	case string:
		return []string{ts}
	case []any:
		var out []string
		for _, t := range ts {
			out = append(out, fmt.Sprint(t))
		}
		return out
	}
	return nil
}

func num(v any) float64 {
	n, _ := v.(json.Number)
	f, _ := n.Float64()
	return f
}

// validate checks a decoded JSON value against a schema of the document:
// type (a list for nullable values), enum, $ref, oneOf, properties,
// required, additionalProperties, items, minItems, maxItems, pattern,
// minLength, format date-time, minimum and maximum. It returns the first
// violation, with where it is (at).
func (d oaDoc) validate(s map[string]any, v any, at string) error {
	for k := range s {
		if !schemaKeywords[k] {
			return fmt.Errorf("%s: the schema keyword %q is not one this validator checks", at, k)
		}
	}
	if ref, ok := s["$ref"].(string); ok {
		target, err := d.pointer(ref)
		if err != nil {
			return fmt.Errorf("%s: %v", at, err)
		}
		if err := d.validate(target, v, at); err != nil {
			return err
		}
	}
	if ts := schemaTypes(s); ts != nil {
		jt := jsonType(v)
		if !slices.Contains(ts, jt) && !(jt == "integer" && slices.Contains(ts, "number")) {
			return fmt.Errorf("%s: %s is of type %s, not %v", at, show(v), jt, ts)
		}
	}
	if enum, ok := s["enum"].([]any); ok && !slices.ContainsFunc(enum, func(e any) bool { return reflect.DeepEqual(e, v) }) {
		return fmt.Errorf("%s: %s is not one of %v", at, show(v), enum)
	}
	if alts, ok := s["oneOf"].([]any); ok {
		if _, errs := d.oneOf(alts, v, at); len(errs) != len(alts)-1 {
			return fmt.Errorf("%s: %s is valid against %d of the oneOf schemas, not 1: %v", at, show(v), len(alts)-len(errs), errs)
		}
	}
	switch v := v.(type) {
	case map[string]any:
		props := obj(s, "properties")
		if req, ok := s["required"].([]any); ok {
			for _, r := range req {
				if _, ok := v[r.(string)]; !ok {
					return fmt.Errorf("%s: the required property %q is missing", at, r)
				}
			}
		}
		for _, k := range slices.Sorted(maps.Keys(v)) {
			if ps, ok := props[k]; ok {
				if err := d.validate(ps.(map[string]any), v[k], at+"."+k); err != nil {
					return err
				}
				continue
			}
			switch ap := s["additionalProperties"].(type) {
			case bool:
				if !ap {
					return fmt.Errorf("%s: the property %q is not in the schema", at, k)
				}
			case map[string]any:
				if err := d.validate(ap, v[k], at+"."+k); err != nil {
					return err
				}
			}
		}
	case []any:
		if m, ok := s["minItems"]; ok && float64(len(v)) < num(m) {
			return fmt.Errorf("%s: %d items, fewer than %v", at, len(v), m)
		}
		if m, ok := s["maxItems"]; ok && float64(len(v)) > num(m) {
			return fmt.Errorf("%s: %d items, more than %v", at, len(v), m)
		}
		if items := obj(s, "items"); items != nil {
			for i, e := range v {
				if err := d.validate(items, e, fmt.Sprintf("%s[%d]", at, i)); err != nil {
					return err
				}
			}
		}
	case string:
		if p, ok := s["pattern"].(string); ok {
			re, err := regexp.Compile(p)
			if err != nil {
				return fmt.Errorf("%s: pattern %q: %v", at, p, err)
			}
			if !re.MatchString(v) {
				return fmt.Errorf("%s: %q does not match %q", at, v, p)
			}
		}
		if m, ok := s["minLength"]; ok && float64(utf8.RuneCountInString(v)) < num(m) {
			return fmt.Errorf("%s: %q is shorter than %v", at, v, m)
		}
		switch f := s["format"]; f {
		case nil:
		case "date-time":
			if _, err := time.Parse(time.RFC3339Nano, v); err != nil {
				return fmt.Errorf("%s: %q is not a date-time: %v", at, v, err)
			}
		default:
			return fmt.Errorf("%s: the format %v is not one this validator checks", at, f)
		}
	case json.Number:
		if m, ok := s["minimum"]; ok && num(v) < num(m) {
			return fmt.Errorf("%s: %v is below the minimum %v", at, v, m)
		}
		if m, ok := s["maximum"]; ok && num(v) > num(m) {
			return fmt.Errorf("%s: %v is above the maximum %v", at, v, m)
		}
	}
	return nil
}

// oneOf validates v against each schema of alts: it returns the index of
// the last one v is valid against (-1 if none), and the errors of the
// others.
func (d oaDoc) oneOf(alts []any, v any, at string) (valid int, errs []error) {
	valid = -1
	for i, a := range alts {
		alt, _ := a.(map[string]any)
		if err := d.validate(alt, v, fmt.Sprintf("%s(oneOf %d)", at, i)); err != nil {
			errs = append(errs, err)
		} else {
			valid = i
		}
	}
	return valid, errs
}

func show(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 80 {
		b = append(b[:77], "..."...)
	}
	return string(b)
}

// lint checks what the document says without traffic: every $ref
// resolves, every schema uses only the keywords validate checks (a value
// that no schema refuses passes validate with each schema), and every
// {parameter} of a path is declared in its operations.
func (d oaDoc) lint() []error {
	var errs []error
	var walk func(node any, at string)
	walk = func(node any, at string) {
		switch n := node.(type) {
		case map[string]any:
			if ref, ok := n["$ref"].(string); ok {
				if _, err := d.pointer(ref); err != nil {
					errs = append(errs, fmt.Errorf("%s: %v", at, err))
				}
			}
			for _, k := range slices.Sorted(maps.Keys(n)) {
				walk(n[k], at+"/"+k)
			}
		case []any:
			for i, e := range n {
				walk(e, fmt.Sprintf("%s/%d", at, i))
			}
		}
	}
	walk(map[string]any(d), "#")
	var schema func(s map[string]any, at string)
	schema = func(s map[string]any, at string) {
		for k := range s {
			if !schemaKeywords[k] {
				errs = append(errs, fmt.Errorf("%s: the schema keyword %q is not one the test's validator checks", at, k))
			}
		}
		if f, ok := s["format"]; ok && f != "date-time" {
			errs = append(errs, fmt.Errorf("%s: the format %v is not one the test's validator checks", at, f))
		}
		for name, p := range obj(s, "properties") {
			schema(p.(map[string]any), at+"/properties/"+name)
		}
		if items := obj(s, "items"); items != nil {
			schema(items, at+"/items")
		}
		if ap := obj(s, "additionalProperties"); ap != nil {
			schema(ap, at+"/additionalProperties")
		}
		if alts, ok := s["oneOf"]; ok {
			list, _ := alts.([]any)
			if len(list) < 2 {
				errs = append(errs, fmt.Errorf("%s/oneOf: not a list of 2 schemas or more", at))
			}
			for i, a := range list {
				alt, ok := a.(map[string]any)
				if !ok {
					errs = append(errs, fmt.Errorf("%s/oneOf/%d: not a schema", at, i))
					continue
				}
				schema(alt, fmt.Sprintf("%s/oneOf/%d", at, i))
			}
		}
	}
	for name, s := range obj(d, "components", "schemas") {
		schema(s.(map[string]any), "#/components/schemas/"+name)
	}
	// Inline schemas: those under a "schema" key anywhere else.
	var inline func(node any, at string)
	inline = func(node any, at string) {
		switch n := node.(type) {
		case map[string]any:
			for k, v := range n {
				if k == "schema" {
					schema(v.(map[string]any), at+"/schema")
				} else if at+"/"+k != "#/components/schemas" {
					inline(v, at+"/"+k)
				}
			}
		case []any:
			for i, e := range n {
				inline(e, fmt.Sprintf("%s/%d", at, i))
			}
		}
	}
	inline(map[string]any(d), "#")
	param := regexp.MustCompile(`\{([^}]+)\}`)
	for path, item := range obj(d, "paths") {
		var want []string
		for _, m := range param.FindAllStringSubmatch(path, -1) {
			want = append(want, m[1])
		}
		for method, op := range item.(map[string]any) {
			var got []string
			ps, _ := op.(map[string]any)["parameters"].([]any)
			for _, p := range ps {
				if p := d.resolve(p); p["in"] == "path" && p["required"] == true {
					got = append(got, p["name"].(string))
				}
			}
			if slices.Sort(got); !slices.Equal(got, slices.Sorted(slices.Values(want))) {
				errs = append(errs, fmt.Errorf("%s %s: path parameters %q, want %q", method, path, got, want))
			}
		}
	}
	return errs
}

// operations returns the document's operations by "METHOD /path", the
// form of a ServeMux pattern.
func (d oaDoc) operations() map[string]map[string]any {
	ops := map[string]map[string]any{}
	for path, item := range obj(d, "paths") {
		for method, op := range item.(map[string]any) {
			ops[strings.ToUpper(method)+" "+path] = op.(map[string]any)
		}
	}
	return ops
}

// pathTemplate returns the document's path that a request path is an
// instance of ({id} matching one segment), or "".
func (d oaDoc) pathTemplate(p string) string {
	segs := strings.Split(p, "/")
	for tpl := range obj(d, "paths") {
		ts := strings.Split(tpl, "/")
		if len(ts) != len(segs) {
			continue
		}
		ok := true
		for i, s := range ts {
			if s != segs[i] && !(strings.HasPrefix(s, "{") && strings.HasSuffix(s, "}") && segs[i] != "") {
				ok = false
				break
			}
		}
		if ok {
			return tpl
		}
	}
	return ""
}

// apiChecker checks real answers against the document and records which
// documented answers it saw.
type apiChecker struct {
	t      *testing.T
	doc    oaDoc
	client *http.Client
	// seen has "GET /path 200", "fallback NotFound", and for a body of a
	// oneOf schema "GET /path 200 oneOf 1", the schema it was valid against.
	seen map[string]bool
}

func newChecker(t *testing.T, doc oaDoc) *apiChecker {
	return &apiChecker{
		t: t, doc: doc, seen: map[string]bool{},
		client: &http.Client{
			Timeout:       10 * time.Second,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
	}
}

// do sends a request, checks the answer against the document and returns
// it with its body.
func (c *apiChecker) do(method, url string, header http.Header) (*http.Response, []byte) {
	c.t.Helper()
	return c.doBody(method, url, header, nil)
}

// doBody is do with a request body, sent as JSON when it is not nil.
func (c *apiChecker) doBody(method, url string, header http.Header, reqBody []byte) (*http.Response, []byte) {
	c.t.Helper()
	var rd io.Reader
	if reqBody != nil {
		rd = bytes.NewReader(reqBody)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		c.t.Fatal(err)
	}
	if reqBody != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	maps.Copy(req.Header, header)
	resp, err := c.client.Do(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, url, err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		c.t.Fatalf("%s %s: reading the body: %v", method, url, err)
	}
	c.check(method, req.URL.Path, resp, body)
	return resp, body
}

// get is do for a GET.
func (c *apiChecker) get(url string) (*http.Response, []byte) {
	c.t.Helper()
	return c.do(http.MethodGet, url, nil)
}

// send is doBody with the player's credential: Authorization: Bearer
// token unless token is "". body is sent as is when it is a string or
// []byte, as its JSON otherwise, and not at all when nil.
func (c *apiChecker) send(method, url, token string, body any) (*http.Response, []byte) {
	c.t.Helper()
	var header http.Header
	if token != "" {
		header = http.Header{"Authorization": {"Bearer " + token}}
	}
	var b []byte
	switch v := body.(type) {
	case nil:
	case string:
		b = []byte(v)
	case []byte:
		b = v
	default:
		var err error
		if b, err = json.Marshal(v); err != nil {
			c.t.Fatal(err)
		}
	}
	return c.doBody(method, url, header, b)
}

// check finds the documented response of an answer and checks the answer
// against it: its status, its required headers, its media type and its
// body against the schema. Under /api/v1, an answer of no documented
// operation must be the NotFound or MethodNotAllowed response; elsewhere,
// a path of no other operation is GET /'s, as the mux routes it.
func (c *apiChecker) check(method, path string, resp *http.Response, body []byte) {
	c.t.Helper()
	what := fmt.Sprintf("%s %s = %d", method, path, resp.StatusCode)
	opMethod := method
	if method == http.MethodHead {
		opMethod = http.MethodGet
	}
	tpl := c.doc.pathTemplate(path)
	if tpl == "" && path != "/api/v1" && !strings.HasPrefix(path, "/api/v1/") {
		// The mux gives every path no other route takes to "GET /", the
		// web client, as the document says.
		tpl = "/"
	}
	op := c.doc.operations()[opMethod+" "+tpl]
	status := strconv.Itoa(resp.StatusCode)
	var want map[string]any
	switch {
	case op != nil:
		r, ok := obj(op, "responses")[status]
		if !ok {
			c.t.Errorf("%s: the document has no %s response for %s %s: %s", what, status, opMethod, tpl, body)
			return
		}
		want = c.doc.resolve(r)
		c.seen[opMethod+" "+tpl+" "+status] = true
	case path == "/api/v1" || strings.HasPrefix(path, "/api/v1/"):
		name := map[int]string{http.StatusNotFound: "NotFound", http.StatusMethodNotAllowed: "MethodNotAllowed"}[resp.StatusCode]
		if name == "" {
			c.t.Errorf("%s: an /api/v1 path of no route answers 404 or 405: %s", what, body)
			return
		}
		want = obj(c.doc, "components", "responses", name)
		c.seen["fallback "+name] = true
	default:
		c.t.Errorf("%s: the path is not in the document", what)
		return
	}
	for name, h := range obj(want, "headers") {
		h := c.doc.resolve(h)
		v := resp.Header.Get(name)
		if v == "" {
			if h["required"] == true {
				c.t.Errorf("%s: no %s header", what, name)
			}
			continue
		}
		if err := c.doc.validate(obj(h, "schema"), v, "header "+name); err != nil {
			c.t.Errorf("%s: %v", what, err)
		}
	}
	content := obj(want, "content")
	if len(content) == 0 {
		if len(body) != 0 {
			c.t.Errorf("%s: documented without content, answered %q", what, body)
		}
		return
	}
	ct := resp.Header.Get("Content-Type")
	mt, _, err := mime.ParseMediaType(ct)
	media := obj(content, mt)
	if err != nil || media == nil {
		c.t.Errorf("%s: Content-Type %q, documented %q", what, ct, slices.Sorted(maps.Keys(content)))
		return
	}
	if method == http.MethodHead {
		if len(body) != 0 {
			c.t.Errorf("%s: a body %q", what, body)
		}
		return
	}
	var v any = string(body)
	if mt == "application/json" {
		if v, err = decodeJSON(body); err != nil {
			c.t.Errorf("%s: not JSON: %v: %s", what, err, body)
			return
		}
	}
	schema := obj(media, "schema")
	if err := c.doc.validate(schema, v, "body"); err != nil {
		c.t.Errorf("%s: %v\n%s", what, err, body)
		return
	}
	if alts, ok := schema["oneOf"].([]any); ok && op != nil {
		i, _ := c.doc.oneOf(alts, v, "body")
		c.seen[fmt.Sprintf("%s %s %s oneOf %d", opMethod, tpl, status, i)] = true
	}
}

// covered fails the test for each documented response that no answer
// checked was, and for each schema of a response's oneOf that no answer
// was valid against.
func (c *apiChecker) covered() {
	c.t.Helper()
	for key, op := range c.doc.operations() {
		for status, r := range obj(op, "responses") {
			if !c.seen[key+" "+status] {
				c.t.Errorf("the documented %s response of %s was never produced", status, key)
			}
			for mt, media := range obj(c.doc.resolve(r), "content") {
				alts, _ := obj(media, "schema")["oneOf"].([]any)
				for i, alt := range alts {
					if !c.seen[fmt.Sprintf("%s %s oneOf %d", key, status, i)] {
						c.t.Errorf("no %s %s answer of %s was valid against its oneOf schema %d, %v", status, mt, key, i, obj(alt)["$ref"])
					}
				}
			}
		}
	}
	for _, name := range []string{"NotFound", "MethodNotAllowed"} {
		if !c.seen["fallback "+name] {
			c.t.Errorf("no /api/v1 answer was the %s response", name)
		}
	}
}

// wsDial opens a WebSocket at base/ws with the header; it returns the
// handshake's answer with its body, and the connection if it opened,
// whose messages it reads and drops until it closes.
func wsDial(t *testing.T, base string, header http.Header) (*websocket.Conn, *http.Response, []byte) {
	t.Helper()
	conn, resp, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(base, "http")+"/ws", header)
	if resp == nil {
		t.Fatalf("dial %s/ws: %v", base, err)
	}
	var body []byte
	if resp.Body != nil {
		body, _ = io.ReadAll(resp.Body)
		resp.Body.Close()
	}
	if conn != nil {
		// Reading answers the server's close frame, as a client does.
		go func() {
			for {
				if _, _, err := conn.ReadMessage(); err != nil {
					return
				}
			}
		}()
		t.Cleanup(func() { conn.Close() })
	}
	return conn, resp, body
}

// faultCoord is a Coord whose open list and round records fail with err
// while it is set, as a store that is down or broken.
type faultCoord struct {
	lobby.Coord
	mu  sync.Mutex
	err error
}

func (c *faultCoord) set(err error) {
	c.mu.Lock()
	c.err = err
	c.mu.Unlock()
}

func (c *faultCoord) fault() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

func (c *faultCoord) OpenMatches(ctx context.Context, after int64, limit int) ([]lobby.OpenMatch, error) {
	if err := c.fault(); err != nil {
		return nil, err
	}
	return c.Coord.OpenMatches(ctx, after, limit)
}

func (c *faultCoord) LoadRound(ctx context.Context, id string) ([]byte, error) {
	if err := c.fault(); err != nil {
		return nil, err
	}
	return c.Coord.LoadRound(ctx, id)
}

// faultChallenges is a challenge.Store and a RecordStore whose round records and
// players' records fail as its coord's do.
type faultChallenges struct {
	challenge.Store
	records challenge.RecordStore
	coord   *faultCoord
}

func (a *faultChallenges) Load(ctx context.Context, id string) (challenge.Record, error) {
	if err := a.coord.fault(); err != nil {
		return challenge.Record{}, err
	}
	return a.Store.Load(ctx, id)
}

func (a *faultChallenges) AddResult(ctx context.Context, playerID string, g challenge.GameResult) (bool, error) {
	return a.records.AddResult(ctx, playerID, g)
}

func (a *faultChallenges) Records(ctx context.Context, playerID string) ([]challenge.VariantRecord, error) {
	if err := a.coord.fault(); err != nil {
		return nil, err
	}
	return a.records.Records(ctx, playerID)
}

func (a *faultChallenges) Recent(ctx context.Context, playerID string, limit int) ([]challenge.GameResult, error) {
	if err := a.coord.fault(); err != nil {
		return nil, err
	}
	return a.records.Recent(ctx, playerID, limit)
}

func (a *faultChallenges) DeleteRecords(ctx context.Context, playerID string) error {
	return a.records.DeleteRecords(ctx, playerID)
}

// faultPlayers are a store's players whose calls fail with err while it
// is set, and whose calls named in gone answer match.ErrNotFound, as they
// do when the player was deleted on another node a moment before. Only
// the calls that the players' routes make first, or that they make after
// the player was found, are overridden.
type faultPlayers struct {
	lobby.Players
	mu   sync.Mutex
	err  error
	gone map[string]bool
}

func (p *faultPlayers) set(err error, gone ...string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.err, p.gone = err, map[string]bool{}
	for _, m := range gone {
		p.gone[m] = true
	}
}

func (p *faultPlayers) fault(method string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.gone[method] {
		return fmt.Errorf("%w: the player was deleted", match.ErrNotFound)
	}
	return p.err
}

func (p *faultPlayers) Resume(ctx context.Context, cred string, idle time.Duration) (lobby.Player, error) {
	if err := p.fault("Resume"); err != nil {
		return lobby.Player{}, err
	}
	return p.Players.Resume(ctx, cred, idle)
}

func (p *faultPlayers) Get(ctx context.Context, id string) (lobby.Player, error) {
	if err := p.fault("Get"); err != nil {
		return lobby.Player{}, err
	}
	return p.Players.Get(ctx, id)
}

func (p *faultPlayers) Rename(ctx context.Context, id, name string) error {
	if err := p.fault("Rename"); err != nil {
		return err
	}
	return p.Players.Rename(ctx, id, name)
}

func (p *faultPlayers) AddPasskey(ctx context.Context, playerID string, pk lobby.Passkey, idle time.Duration) error {
	if err := p.fault("AddPasskey"); err != nil {
		return err
	}
	return p.Players.AddPasskey(ctx, playerID, pk, idle)
}

func (p *faultPlayers) UpdatePasskey(ctx context.Context, playerID string, pk lobby.Passkey, idle time.Duration) error {
	if err := p.fault("UpdatePasskey"); err != nil {
		return err
	}
	return p.Players.UpdatePasskey(ctx, playerID, pk, idle)
}

func (p *faultPlayers) PutCeremony(ctx context.Context, id string, data []byte, ttl time.Duration) error {
	if err := p.fault("PutCeremony"); err != nil {
		return err
	}
	return p.Players.PutCeremony(ctx, id, data, ttl)
}

func (p *faultPlayers) TakeCeremony(ctx context.Context, id string) ([]byte, error) {
	if err := p.fault("TakeCeremony"); err != nil {
		return nil, err
	}
	return p.Players.TakeCeremony(ctx, id)
}

// getAs is c.get, the body decoded as T.
func getAs[T any](c *apiChecker, url string) T {
	c.t.Helper()
	var v T
	if _, body := c.get(url); json.Unmarshal(body, &v) != nil {
		c.t.Fatalf("GET %s: %s", url, body)
	}
	return v
}

// TestOpenAPI keeps api/openapi.json true: the server serves it, its routes
// are the server's routes, and real traffic produces every response it
// documents, each valid against its schema.
func TestOpenAPI(t *testing.T) {
	srv, base := testServer(t)
	resp, err := http.Get(base + "/api/v1/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	served, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if file, err := os.ReadFile("openapi.json"); err != nil || !bytes.Equal(served, file) {
		t.Fatalf("GET /api/v1/openapi.json is not api/openapi.json (%v)", err)
	}
	doc := parseDoc(t, served)
	for _, err := range doc.lint() {
		t.Error(err)
	}

	// The document's operations are the server's routes, the web client's
	// included.
	routes := map[string]bool{}
	for _, p := range api.RoutePatterns(srv) {
		routes[p] = true
	}
	ops := doc.operations()
	for p := range routes {
		if ops[p] == nil {
			t.Errorf("the route %q is not in the document", p)
		}
	}
	for p := range ops {
		if !routes[p] {
			t.Errorf("the document's %q is not a route of the server", p)
		}
	}

	c := newChecker(t, doc)
	r, _ := c.get(base + "/api/v1/openapi.json")
	c.do(http.MethodGet, base+"/api/v1/openapi.json", http.Header{"If-None-Match": {r.Header.Get("ETag")}})
	c.get(base + "/healthz")
	c.get(base + "/readyz")
	c.get(base + "/metrics")

	// The web client: its pages, an asset of each type, a page the
	// browser has, the icon's redirect, and paths of no page or asset.
	for _, p := range []string{"/", "/daily", "/m/VJPYET", "/deal/1", "/c/cf0335bbf400a/", "/p/0123456789abcdef", "/ladder", "/ladder/klondike/3", "/privacy", "/index.html"} {
		c.get(base + p)
	}
	for _, a := range []string{"app.css", "js/app.js", "favicon.svg"} {
		c.get(base + "/static/" + web.Version() + "/" + a)
	}
	r, _ = c.get(base + "/")
	c.do(http.MethodGet, base+"/", http.Header{"If-None-Match": {r.Header.Get("ETag")}})
	c.get(base + "/favicon.ico")
	c.get(base + "/nope")
	c.get(base + "/static/" + web.Version() + "/nope.js")

	// The lobby list, a page at a time, and its bad parameters.
	openPublic(t, srv, 3)
	next := base + "/api/v1/matches?limit=2"
	for pages := 0; next != ""; pages++ {
		if pages == 3 {
			t.Fatal("3 pages of 2 do not end a list of 3 matches")
		}
		_, body := c.get(next)
		var page struct {
			NextCursor string `json:"next_cursor"`
		}
		_ = json.Unmarshal(body, &page)
		next = ""
		if page.NextCursor != "" {
			next = base + "/api/v1/matches?limit=2&cursor=" + page.NextCursor
		}
	}
	c.get(base + "/api/v1/matches?limit=ten")
	c.get(base + "/api/v1/matches?cursor=-1")

	// A round with a random deal: its leaderboard while it runs, its
	// replay refused until it ends.
	a := apitest.Dial(t, base)
	a.Hello("alice")
	info := apitest.Request[protocol.Match](a, protocol.CreateMatch{Type: protocol.TypeCreateMatch,
		Settings: protocol.PartialSettings{CountdownS: new(0), MaxPlayers: new(1)}}).Match
	a.Send(protocol.MatchRef{Type: protocol.TypeStartMatch, MatchID: info.ID})
	roundID := apitest.Expect[protocol.RoundStarted](a).RoundID
	for seq := 1; seq <= 2; seq++ {
		moveOK(t, a, roundID, seq, "D")
	}
	c.get(base + "/api/v1/rounds/" + roundID + "/leaderboard")
	c.get(base + "/api/v1/rounds/" + roundID + "/replay")
	resign(a, roundID)
	apitest.Expect[protocol.RoundOver](a)
	c.get(base + "/api/v1/rounds/" + roundID + "/leaderboard")
	c.get(base + "/api/v1/rounds/" + roundID + "/replay")

	// A known deal, won: no salt or commitment, a finish time.
	info = apitest.Request[protocol.Match](a, protocol.CreateMatch{Type: protocol.TypeCreateMatch,
		Settings: protocol.PartialSettings{Seed: new("1"), Undo: new("on"), CountdownS: new(0), MaxPlayers: new(1)}}).Match
	a.Send(protocol.MatchRef{Type: protocol.TypeStartMatch, MatchID: info.ID})
	roundID = apitest.Expect[protocol.RoundStarted](a).RoundID
	for i, mv := range winningGame(t) {
		moveOK(t, a, roundID, i+1, mv)
	}
	apitest.Expect[protocol.RoundOver](a)
	c.get(base + "/api/v1/rounds/" + roundID + "/leaderboard")
	c.get(base + "/api/v1/rounds/" + roundID + "/replay")
	c.get(base + "/api/v1/rounds/nope/leaderboard")
	c.get(base + "/api/v1/rounds/nope/replay")

	// A public match of Double Klondike: the lobby list names its game;
	// its replay's layout has nine piles and two decks. A challenge of
	// Thumb and Pouch: its variant's name, its replay once closed.
	info = apitest.Request[protocol.Match](a, protocol.CreateMatch{Type: protocol.TypeCreateMatch,
		Settings: protocol.PartialSettings{Game: new("double_klondike"), CountdownS: new(0), MaxPlayers: new(2), Public: new(true)}}).Match
	c.get(base + "/api/v1/matches")
	a.Send(protocol.MatchRef{Type: protocol.TypeStartMatch, MatchID: info.ID})
	roundID = apitest.Expect[protocol.RoundStarted](a).RoundID
	moveOK(t, a, roundID, 1, "D")
	resign(a, roundID)
	apitest.Expect[protocol.RoundOver](a)
	c.get(base + "/api/v1/rounds/" + roundID + "/replay")
	tp := apitest.Request[protocol.AsyncRound](a, protocol.CreateChallenge{Type: protocol.TypeCreateChallenge,
		Settings: protocol.PartialSettings{Game: new("thumb_and_pouch")}}).Round.RoundID
	st := apitest.Request[protocol.RoundStarted](a, protocol.RoundRef{Type: protocol.TypeStartAttempt, RoundID: tp})
	moveOK(t, a, st.RoundID, 1, "D")
	resign(a, st.RoundID)
	apitest.Expect[protocol.AttemptOver](a)
	apitest.Request[protocol.AsyncRound](a, protocol.RoundRef{Type: protocol.TypeCloseChallenge, RoundID: tp})
	c.get(base + "/api/v1/rounds/" + tp + "/leaderboard")
	c.get(base + "/api/v1/rounds/" + tp + "/replay")

	// A challenge alice and bob each play once: its board, pages of it and
	// bad page parameters; an attempt's own round; the replays refused
	// until the creator closes it, then published, a page at a time.
	id := apitest.Request[protocol.AsyncRound](a, protocol.CreateChallenge{Type: protocol.TypeCreateChallenge, WindowS: 3600}).Round.RoundID
	b := apitest.Dial(t, base)
	b.Hello("bob")
	var attempt string
	for i, p := range []*apitest.Client{a, b} {
		st := apitest.Request[protocol.RoundStarted](p, protocol.RoundRef{Type: protocol.TypeStartAttempt, RoundID: id})
		for seq := 1; seq <= i+1; seq++ {
			moveOK(t, p, st.RoundID, seq, "D")
		}
		if i == 0 {
			attempt = st.RoundID
			c.get(base + "/api/v1/rounds/" + attempt + "/leaderboard")
			c.get(base + "/api/v1/rounds/" + attempt + "/replay")
		}
		resign(p, st.RoundID)
		apitest.Expect[protocol.AttemptOver](p)
	}
	type board struct {
		Entries []match.BoardEntry `json:"entries"`
		Around  []match.BoardEntry `json:"around"`
		Rank    int                `json:"rank"`
	}
	lb := base + "/api/v1/rounds/" + id + "/leaderboard"
	if all := getAs[board](c, lb); len(all.Entries) != 2 {
		t.Errorf("the challenge's board: %+v", all)
	}
	if page := getAs[board](c, lb+"?from=2&limit=1"); len(page.Entries) != 1 || page.Entries[0].Rank != 2 {
		t.Errorf("the board from 2, 1 entry: %+v", page)
	}
	if mine := getAs[board](c, lb+"?player="+b.PlayerID); mine.Rank == 0 || len(mine.Around) != 2 {
		t.Errorf("bob's place on the board: %+v", mine)
	}
	c.get(lb + "?from=0")
	c.get(lb + "?limit=ten")
	rp := base + "/api/v1/rounds/" + id + "/replay"
	c.get(rp)
	apitest.Request[protocol.AsyncRound](a, protocol.RoundRef{Type: protocol.TypeCloseChallenge, RoundID: id})
	type replay struct {
		Players  []match.PlayerReplay `json:"players"`
		NextFrom int                  `json:"next_from"`
	}
	if all := getAs[replay](c, rp); len(all.Players) != 2 || all.NextFrom != 0 {
		t.Errorf("the challenge's replay: %d games, next_from %d", len(all.Players), all.NextFrom)
	}
	if page := getAs[replay](c, rp+"?limit=1"); len(page.Players) != 1 || page.NextFrom != 2 {
		t.Errorf("the replay, 1 game: %d games, next_from %d", len(page.Players), page.NextFrom)
	}
	c.get(rp + "?from=2&limit=1")
	c.get(rp + "?from=first")
	c.get(base + "/api/v1/rounds/" + attempt + "/leaderboard")
	c.get(base + "/api/v1/rounds/" + attempt + "/replay")

	// A challenge on a numbered deal, closed unplayed: no salt or
	// commitment, an empty board.
	id = apitest.Request[protocol.AsyncRound](a, protocol.CreateChallenge{Type: protocol.TypeCreateChallenge,
		Settings: protocol.PartialSettings{Seed: new("1")}}).Round.RoundID
	apitest.Request[protocol.AsyncRound](a, protocol.RoundRef{Type: protocol.TypeCloseChallenge, RoundID: id})
	c.get(base + "/api/v1/rounds/" + id + "/leaderboard")
	c.get(base + "/api/v1/rounds/" + id + "/replay")

	// The daily rounds; records of players with games and of one without.
	c.get(base + "/api/v1/daily")
	for _, p := range []string{a.PlayerID, b.PlayerID, "0123456789abcdef"} {
		c.get(base + "/api/v1/players/" + p + "/records")
	}

	// The players' routes (players_test.go and passkeys_test.go test what
	// they do): a profile, and no such player; the player's own data, and
	// the refusals without a credential, with an unknown one, with one
	// in a query string, and of bodies of another form.
	players := base + "/api/v1/players/"
	c.get(players + a.PlayerID)
	c.get(players + "0123456789abcdef")
	me := base + "/api/v1/me"
	unknown := strings.Repeat("0", 48)
	for _, tok := range []string{a.Token, "", unknown} {
		c.send(http.MethodGet, me, tok, nil)
		c.send(http.MethodGet, me+"/export", tok, nil)
		c.send(http.MethodPost, me+"/passkeys/options", tok, nil)
		c.send(http.MethodPost, me+"/passkeys", tok, `{"ceremony":"nope","credential":{}}`)
	}
	c.get(me + "?access_token=" + a.Token)
	c.send(http.MethodPatch, me, a.Token, `{"name":"Alice Liddell"}`)
	c.send(http.MethodPatch, me, a.Token, `{"name":"\u202eecila"}`)
	c.send(http.MethodPatch, me, a.Token, `{}`)
	c.send(http.MethodPatch, me, a.Token, `name=alice`)
	c.send(http.MethodPatch, me, "", `{"name":"alice"}`)
	c.send(http.MethodPost, me+"/passkeys", a.Token, `{"ceremony":"nope"}`)

	// A passkey added, and signed in with; bad bodies; a player with the
	// most passkeys.
	auth := &authenticator{t: t, origin: api.DefaultPublicURL}
	pk, _ := addPasskey(c, base, a.Token, auth)
	passkeyLogin(c, base, auth, pk)
	login := base + "/api/v1/passkeys/login"
	c.send(http.MethodPost, login, "", `{"ceremony":"nope","credential":{}}`)
	c.send(http.MethodPost, login, "", `[]`)
	for range lobby.MaxPasskeys - 1 {
		addPasskey(c, base, a.Token, auth)
	}
	c.send(http.MethodPost, me+"/passkeys/options", a.Token, nil)

	// Signing out, everywhere, and deleting: each once, then refused, a
	// player each; the deleted player has no profile.
	for _, route := range []struct{ method, url string }{
		{http.MethodPost, me + "/signout"},
		{http.MethodPost, me + "/signout-everywhere"},
		{http.MethodDelete, me},
	} {
		p := apitest.Dial(t, base)
		p.Hello("dora")
		for _, tok := range []string{p.Token, p.Token, ""} {
			c.send(route.method, route.url, tok, nil)
		}
		if route.method == http.MethodDelete {
			c.get(players + p.PlayerID)
		}
	}

	// The ladders (ratings_test.go tests what they do): an empty one, a bad
	// draw, a game of no name; a round that rated nobody.
	c.get(base + "/api/v1/ladder/klondike/3")
	c.get(base + "/api/v1/ladder/klondike/2")
	c.get(base + "/api/v1/ladder/spider/3")
	c.get(base + "/api/v1/rounds/" + roundID + "/ratings")

	// Paths under /api/v1 that no route takes, and wrong methods.
	c.get(base + "/api/v1/")
	c.do(http.MethodPost, base+"/api/v1/matches", nil)

	// The WebSocket handshake and its refusals.
	_, resp, body := wsDial(t, base, nil)
	c.check(http.MethodGet, "/ws", resp, body)
	c.get(base + "/ws")
	c.do(http.MethodGet, base+"/ws", http.Header{"Origin": {"https://elsewhere.example"}})

	// A store that is down, then broken; a full address; a shutdown.
	coord := &faultCoord{Coord: memstore.NewCoord()}
	mem := memstore.NewBackends()
	store := &faultChallenges{Store: mem.Challenges, records: mem.Challenges, coord: coord}
	ratings := &faultRatings{Ratings: mem.Ratings}
	down := servertest.New(servertest.Config{
		Logger:     slog.New(slog.NewTextHandler(io.Discard, nil)),
		Coord:      coord,
		Challenges: store,
		Records:    store,
		Ratings:    ratings,
		Limits:     api.Limits{MaxConnsPerIP: 1},
	})
	hs := httptest.NewServer(down)
	t.Cleanup(func() {
		down.Close()
		hs.Close()
	})
	// A ladder and a rated round's record, seeded.
	seedLadder(t, mem.Ratings, "klondike/3", "00000000000000f1", []seedPlayer{
		{id: "00000000000000a1", name: "ann", rating: 1700, at: time.Now()},
		{id: "00000000000000a2", name: "abe", rating: 1600, at: time.Now()},
	})
	c.get(hs.URL + "/api/v1/ladder/klondike/3?limit=1&around=00000000000000a2")
	c.get(hs.URL + "/api/v1/rounds/00000000000000f1/ratings")
	for _, err := range []error{fmt.Errorf("%w: down", match.ErrUnavailable), errors.New("a broken record")} {
		coord.set(err)
		ratings.set(err)
		c.get(hs.URL + "/api/v1/ladder/klondike/3")
		c.get(hs.URL + "/api/v1/rounds/00000000000000f1/ratings")
		c.get(hs.URL + "/api/v1/matches")
		c.get(hs.URL + "/api/v1/rounds/0123456789abcdef/leaderboard")
		c.get(hs.URL + "/api/v1/rounds/0123456789abcdef/replay")
		c.get(hs.URL + "/api/v1/daily")
		c.get(hs.URL + "/api/v1/players/0123456789abcdef/records")
	}
	if conn, resp, _ := wsDial(t, hs.URL, nil); conn == nil {
		t.Fatalf("the first connection to a server of 1 a address: %d", resp.StatusCode)
	}
	_, resp, body = wsDial(t, hs.URL, nil)
	c.check(http.MethodGet, "/ws", resp, body)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := down.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	c.get(hs.URL + "/readyz")
	c.get(hs.URL + "/ws")

	// The players' routes on a store that is down, then broken; a player
	// deleted on another node while a route serves it; an address out of
	// new players.
	fp := &faultPlayers{Players: memstore.NewBackends().Players}
	flaky := servertest.New(servertest.Config{
		Logger:               slog.New(slog.NewTextHandler(io.Discard, nil)),
		Players:              fp,
		PublicURL:            testPublicURL,
		NewSessionsPerMinute: 5,
	})
	fs := httptest.NewServer(flaky)
	t.Cleanup(func() {
		flaky.Close()
		fs.Close()
	})
	g := apitest.Dial(t, fs.URL)
	g.Hello("gina")
	fauth := newAuthenticator(t)
	gpk, _ := addPasskey(c, fs.URL, g.Token, fauth)
	fp.set(nil, "Rename")
	c.send(http.MethodPatch, fs.URL+"/api/v1/me", g.Token, `{"name":"Gina"}`)
	fp.set(nil, "AddPasskey")
	cer := sendAs[ceremonyOf](c, http.MethodPost, fs.URL+"/api/v1/me/passkeys/options", g.Token, nil, http.StatusOK)
	_, cred := fauth.create(cer.Options)
	c.send(http.MethodPost, fs.URL+"/api/v1/me/passkeys", g.Token, answer(cer.Ceremony, cred))
	fp.set(nil, "UpdatePasskey")
	cer = sendAs[ceremonyOf](c, http.MethodPost, fs.URL+"/api/v1/passkeys/login/options", "", nil, http.StatusOK)
	c.send(http.MethodPost, fs.URL+"/api/v1/passkeys/login", "", answer(cer.Ceremony, fauth.get(cer.Options, gpk)))
	for _, err := range []error{fmt.Errorf("%w: down", match.ErrUnavailable), errors.New("a broken player")} {
		fp.set(err)
		c.get(fs.URL + "/api/v1/players/" + g.PlayerID)
		for _, route := range []struct{ method, path string }{
			{http.MethodGet, "/me"},
			{http.MethodPatch, "/me"},
			{http.MethodDelete, "/me"},
			{http.MethodGet, "/me/export"},
			{http.MethodPost, "/me/signout"},
			{http.MethodPost, "/me/signout-everywhere"},
			{http.MethodPost, "/me/passkeys/options"},
			{http.MethodPost, "/me/passkeys"},
			{http.MethodPost, "/passkeys/login/options"},
			{http.MethodPost, "/passkeys/login"},
		} {
			c.send(route.method, fs.URL+"/api/v1"+route.path, g.Token, `{"name":"Gina","ceremony":"nope","credential":{}}`)
		}
	}
	fp.set(nil)
	limited := false
	for range 10 {
		if r, _ := c.send(http.MethodPost, fs.URL+"/api/v1/passkeys/login/options", "", nil); r.StatusCode == http.StatusTooManyRequests {
			limited = true
			break
		}
	}
	if !limited {
		t.Error("10 passkey sign-ins begun from one address of 5 new players a minute were all let through")
	}

	c.covered()
}

// TestOpenAPIMatchesGoTypes compares each schema of the JSON answers with
// the Go type that encodes it: the same properties, required exactly
// when never omitted, nullable exactly when a pointer is not omitted, and
// types that fit. A property added to a type, or taken out of the
// document, fails here even when no answer of TestOpenAPI carries it.
func TestOpenAPIMatchesGoTypes(t *testing.T) {
	b, err := os.ReadFile("openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	doc := parseDoc(t, b)
	types := map[string]reflect.Type{
		"Error":        reflect.TypeFor[api.HTTPError](),
		"MatchesPage":  reflect.TypeFor[api.MatchesPage](),
		"Match":        reflect.TypeFor[match.MatchInfo](),
		"Settings":     reflect.TypeFor[match.Settings](),
		"Member":       reflect.TypeFor[match.MemberInfo](),
		"Total":        reflect.TypeFor[match.Total](),
		"Leaderboard":  reflect.TypeFor[api.LeaderboardReply](),
		"Entry":        reflect.TypeFor[match.Entry](),
		"Status":       reflect.TypeFor[engine.Status](),
		"Replay":       reflect.TypeFor[match.Replay](),
		"PlayerReplay": reflect.TypeFor[match.PlayerReplay](),
		"LoggedMove":   reflect.TypeFor[match.LogEntry](),
		"Rules":        reflect.TypeFor[engine.Rules](),
		"Deal":         reflect.TypeFor[engine.Deal](),
		"Card":         reflect.TypeFor[engine.Card](),

		"Daily":            reflect.TypeFor[api.DailyReply](),
		"AsyncInfo":        reflect.TypeFor[challenge.Info](),
		"Records":          reflect.TypeFor[api.RecordsReply](),
		"VariantRecord":    reflect.TypeFor[challenge.VariantRecord](),
		"AsyncLeaderboard": reflect.TypeFor[api.ChallengeLeaderboardReply](),
		"BoardEntry":       reflect.TypeFor[match.BoardEntry](),
		"AsyncReplay":      reflect.TypeFor[api.ChallengeReplayReply](),

		"PlayerInfo":     reflect.TypeFor[api.PlayerInfo](),
		"Profile":        reflect.TypeFor[api.Profile](),
		"RecentGame":     reflect.TypeFor[api.RecentGame](),
		"MadeChallenge":  reflect.TypeFor[api.MadeChallenge](),
		"Passkey":        reflect.TypeFor[api.PasskeyInfo](),
		"Me":             reflect.TypeFor[api.MeReply](),
		"Export":         reflect.TypeFor[api.Export](),
		"LoginReply":     reflect.TypeFor[api.LoginReply](),
		"CeremonyAnswer": reflect.TypeFor[api.CeremonyBody](),
		// The two options routes answer one Go type, whose options are
		// go-webauthn's: a registration's or a sign-in's.
		"RegistrationCeremony": reflect.TypeFor[api.CeremonyReply](),
		"LoginCeremony":        reflect.TypeFor[api.CeremonyReply](),
		"CreationOptions":      reflect.TypeFor[webauthnproto.CredentialCreation](),
		"RequestOptions":       reflect.TypeFor[webauthnproto.CredentialAssertion](),

		"RoundRatings": reflect.TypeFor[match.RoundRatings](),
		"RatingChange": reflect.TypeFor[match.RatingChange](),
		"PlayerRating": reflect.TypeFor[api.PlayerRating](),
		"RatingPoint":  reflect.TypeFor[lobby.RatingPoint](),
		"Ladder":       reflect.TypeFor[api.LadderReply](),
		"LadderEntry":  reflect.TypeFor[api.LadderEntry](),
		"RatedRound":   reflect.TypeFor[api.RatedRoundReply](),
		"RatedPlayer":  reflect.TypeFor[lobby.RatedPlayer](),
		"Rating":       reflect.TypeFor[rating.Rating](),
	}
	g := goSchemas{doc: doc, names: map[reflect.Type]string{}}
	for name, typ := range types {
		g.names[typ] = name
	}
	for _, name := range slices.Sorted(maps.Keys(obj(doc, "components", "schemas"))) {
		s := obj(doc, "components", "schemas", name)
		typ, ok := types[name]
		if !ok {
			// A schema of no Go type of its own (ID) is a string.
			if !slices.Equal(schemaTypes(s), []string{"string"}) {
				t.Errorf("#/components/schemas/%s: no Go type, and not a string", name)
			}
			continue
		}
		for _, err := range g.component(name, s, typ) {
			t.Error(err)
		}
	}
	for name := range types {
		if obj(doc, "components", "schemas", name) == nil {
			t.Errorf("#/components/schemas/%s is missing", name)
		}
	}
}

// goSchemas compares the document's schemas with Go types.
type goSchemas struct {
	doc   oaDoc
	names map[reflect.Type]string // the component of each Go type
}

var textMarshaler = reflect.TypeFor[encoding.TextMarshaler]()

// component compares a component schema with its Go type.
func (g goSchemas) component(name string, s map[string]any, typ reflect.Type) []error {
	at := "#/components/schemas/" + name
	if typ.Kind() != reflect.Struct || typ.Implements(textMarshaler) {
		if err := g.value(at, s, typ, false); err != nil {
			return []error{err}
		}
		return nil
	}
	var errs []error
	if !slices.Equal(schemaTypes(s), []string{"object"}) || s["additionalProperties"] != false {
		errs = append(errs, fmt.Errorf("%s: want type object and additionalProperties false, as %v encodes", at, typ))
	}
	props := obj(s, "properties")
	var required []string
	for _, r := range s["required"].([]any) {
		required = append(required, r.(string))
	}
	fields := map[string]bool{}
	for _, f := range jsonFields(typ) {
		tag, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if tag == "" {
			tag = f.Name
		}
		fields[tag] = true
		omit := slices.Contains(strings.Split(opts, ","), "omitempty") || slices.Contains(strings.Split(opts, ","), "omitzero")
		p := obj(props, tag)
		if p == nil {
			errs = append(errs, fmt.Errorf("%s: no property %q for %v.%s", at, tag, typ, f.Name))
			continue
		}
		if slices.Contains(required, tag) == omit {
			errs = append(errs, fmt.Errorf("%s: %q required is %v, but %v.%s is omitted when empty: %v",
				at, tag, !omit, typ, f.Name, omit))
		}
		if err := g.value(at+"/properties/"+tag, p, f.Type, !omit); err != nil {
			errs = append(errs, err)
		}
	}
	for p := range props {
		if !fields[p] {
			errs = append(errs, fmt.Errorf("%s: the property %q is no field of %v", at, p, typ))
		}
	}
	return errs
}

// jsonFields returns the fields that encoding/json writes of a struct
// type: its exported fields with a name, and those of the structs it
// embeds without a name, as encoding/json promotes them (export embeds
// profile). Fields of one name at two depths are not resolved: no type
// the document describes has them.
func jsonFields(typ reflect.Type) []reflect.StructField {
	var fs []reflect.StructField
	for i := range typ.NumField() {
		f := typ.Field(i)
		tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if tag == "-" {
			continue
		}
		if f.Anonymous && tag == "" && f.Type.Kind() == reflect.Struct {
			fs = append(fs, jsonFields(f.Type)...)
			continue
		}
		if f.IsExported() {
			fs = append(fs, f)
		}
	}
	return fs
}

// value compares the schema of one value with its Go type; nullable says
// whether a nil pointer would encode as null.
func (g goSchemas) value(at string, s map[string]any, typ reflect.Type, nullable bool) error {
	if typ.Kind() == reflect.Interface || typ == reflect.TypeFor[json.RawMessage]() {
		// An any, or raw JSON, is whatever the code puts there, which the
		// type does not say: TestOpenAPI checks the answers that carry it
		// (a ceremony's options) against the schema.
		return nil
	}
	if ref, ok := s["$ref"].(string); ok {
		target := strings.TrimPrefix(ref, "#/components/schemas/")
		elem := typ
		if elem.Kind() == reflect.Pointer {
			elem = elem.Elem()
		}
		if typ.Kind() == reflect.Pointer && nullable {
			return fmt.Errorf("%s: %v may be null, which a $ref alone does not allow", at, typ)
		}
		switch name, ok := g.names[elem]; {
		case ok && name == target:
			return nil
		case ok:
			return fmt.Errorf("%s: $ref %s, but %v is %s", at, target, typ, name)
		case elem.Kind() == reflect.String && slices.Equal(schemaTypes(obj(g.doc, "components", "schemas", target)), []string{"string"}):
			return nil
		}
		return fmt.Errorf("%s: $ref %s for a %v", at, target, typ)
	}
	want := map[string]bool{}
	if typ.Kind() == reflect.Pointer {
		if nullable {
			want["null"] = true
		}
		typ = typ.Elem()
	}
	switch {
	case typ == reflect.TypeFor[time.Time]():
		want["string"] = true
		if s["format"] != "date-time" {
			return fmt.Errorf("%s: a time without format date-time", at)
		}
	case typ.Implements(textMarshaler), typ.Kind() == reflect.String:
		want["string"] = true
	case typ.Kind() == reflect.Bool:
		want["boolean"] = true
	case typ.Kind() >= reflect.Int && typ.Kind() <= reflect.Uint64:
		want["integer"] = true
	case typ.Kind() == reflect.Float32 || typ.Kind() == reflect.Float64:
		want["number"] = true
	case typ.Kind() == reflect.Slice || typ.Kind() == reflect.Array:
		want["array"] = true
		if err := g.value(at+"/items", obj(s, "items"), typ.Elem(), false); err != nil {
			return err
		}
	case typ.Kind() == reflect.Struct && !strings.HasPrefix(typ.PkgPath(), "klondike/") && s["additionalProperties"] == true:
		// A structure of another module that follows a specification
		// (go-webauthn's W3C PublicKeyCredentialCreationOptions), described
		// as an open object: its members are the specification's.
		want["object"] = true
	case typ.Kind() == reflect.Struct:
		return fmt.Errorf("%s: the struct %v is described inline, not by a $ref to its component", at, typ)
	default:
		return fmt.Errorf("%s: a %v, which this test does not compare", at, typ)
	}
	got := map[string]bool{}
	for _, ty := range schemaTypes(s) {
		got[ty] = true
	}
	if !maps.Equal(got, want) {
		return fmt.Errorf("%s: type %v, but %v encodes as %v", at, schemaTypes(s), typ, slices.Sorted(maps.Keys(want)))
	}
	return nil
}
