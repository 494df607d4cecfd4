package api_test

import (
	"encoding/json"
	"io"
	"klondike/api/protocol"
	"net/http"
	"strings"
	"testing"
)

// TestAPIJSONErrors asks /api/v1 for paths no route takes and for routes
// with other methods: every answer is a JSON error, 404 not_found or 405
// bad_request with Allow; outside /api/v1 the answers stay the web
// client's.
func TestAPIJSONErrors(t *testing.T) {
	_, base := testServer(t)
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, tc := range []struct {
		method, path string
		status       int
		allow        string
	}{
		{"GET", "/api/v1", 404, ""},
		{"GET", "/api/v1/", 404, ""},
		{"GET", "/api/v1/nope", 404, ""},
		{"GET", "/api/v1/matches/", 404, ""},
		{"GET", "/api/v1/matches/x", 404, ""},
		{"GET", "/api/v1/rounds", 404, ""},
		{"GET", "/api/v1/rounds/x", 404, ""},
		{"GET", "/api/v1/rounds/x/nope", 404, ""},
		{"GET", "/api/v1/rounds/x/leaderboard/more", 404, ""},
		{"GET", "/api/v1/rounds//leaderboard", 404, ""},
		{"GET", "/api/v1//matches", 404, ""},
		{"GET", "/api/v1/./matches", 404, ""},
		{"GET", "/api/v1/static/app.js", 404, ""},
		{"HEAD", "/api/v1/nope", 404, ""},
		{"POST", "/api/v1/nope", 404, ""},
		{"DELETE", "/api/v1", 404, ""},
		{"POST", "/api/v1/matches", 405, "GET, HEAD"},
		{"PUT", "/api/v1/matches", 405, "GET, HEAD"},
		{"OPTIONS", "/api/v1/matches", 405, "GET, HEAD"},
		{"DELETE", "/api/v1/rounds/x/replay", 405, "GET, HEAD"},
		{"PATCH", "/api/v1/rounds/x/leaderboard", 405, "GET, HEAD"},
		{"POST", "/api/v1/openapi.json", 405, "GET, HEAD"},
	} {
		req, err := http.NewRequest(tc.method, base+tc.path, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", tc.method, tc.path, err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		call := tc.method + " " + tc.path
		if resp.StatusCode != tc.status || resp.Header.Get("Allow") != tc.allow {
			t.Errorf("%s = %d, Allow %q; want %d, Allow %q: %s", call, resp.StatusCode, resp.Header.Get("Allow"), tc.status, tc.allow, b)
		}
		if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("%s: Content-Type %q, want application/json", call, ct)
		}
		if tc.method == "HEAD" {
			if len(b) != 0 {
				t.Errorf("%s: a body %q", call, b)
			}
			continue
		}
		var e struct{ Code, Message string }
		if err := json.Unmarshal(b, &e); err != nil {
			t.Errorf("%s: %v: %q", call, err, b)
		}
		want := protocol.CodeNotFound
		if tc.status == 405 {
			want = protocol.CodeBadRequest
		}
		if e.Code != want || e.Message == "" {
			t.Errorf("%s = %s, want code %s and a message", call, b, want)
		}
	}

	// Outside /api/v1 the web client and the mux answer as before.
	for _, tc := range []struct {
		method, path string
		status       int
	}{
		{"GET", "/api/v10", 404},
		{"GET", "/api", 404},
		{"GET", "/nope.txt", 404},
		{"POST", "/healthz", 405},
	} {
		req, _ := http.NewRequest(tc.method, base+tc.path, nil)
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if ct := resp.Header.Get("Content-Type"); resp.StatusCode != tc.status || !strings.HasPrefix(ct, "text/plain") {
			t.Errorf("%s %s = %d %q, want %d in text", tc.method, tc.path, resp.StatusCode, ct, tc.status)
		}
	}
}

// TestOpenAPIDocCached: the document is cacheable, and a client holding
// its ETag gets 304 without a body.
func TestOpenAPIDocCached(t *testing.T) {
	_, base := testServer(t)
	resp, err := http.Get(base + "/api/v1/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	etag, cc := resp.Header.Get("ETag"), resp.Header.Get("Cache-Control")
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" || etag == "" || !strings.HasPrefix(cc, "public, max-age=") {
		t.Fatalf("GET /api/v1/openapi.json = %d, Content-Type %q, ETag %q, Cache-Control %q", resp.StatusCode, resp.Header.Get("Content-Type"), etag, cc)
	}
	for _, inm := range []string{etag, "W/" + etag, `"other", ` + etag, "*"} {
		req, _ := http.NewRequest("GET", base+"/api/v1/openapi.json", nil)
		req.Header.Set("If-None-Match", inm)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotModified || len(b) != 0 || resp.Header.Get("ETag") != etag {
			t.Errorf("If-None-Match %s: %d, ETag %q, %d bytes; want 304 without a body", inm, resp.StatusCode, resp.Header.Get("ETag"), len(b))
		}
	}
	req, _ := http.NewRequest("GET", base+"/api/v1/openapi.json", nil)
	req.Header.Set("If-None-Match", `"other"`)
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != 200 {
		t.Errorf("If-None-Match of another tag: %v %v, want 200", resp.StatusCode, err)
	} else {
		resp.Body.Close()
	}
}
