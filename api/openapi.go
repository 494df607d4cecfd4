package api

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"net/http"
	"strings"
)

// openAPIDoc is the OpenAPI 3.1 description of the HTTP routes. It is a
// file, not built from the Go types, so that it reads and diffs as the
// document clients get, byte for byte; openapi_test.go keeps it true to the
// routes, the Go types and the answers of the real server.
//
//go:embed openapi.json
var openAPIDoc []byte

// openAPIETag is the document's entity tag, a hash of its bytes, so that a
// cache revalidates it cheaply and learns of a new build's document.
var openAPIETag = func() string {
	sum := sha256.Sum256(openAPIDoc)
	return `"` + hex.EncodeToString(sum[:16]) + `"`
}()

// serveOpenAPI answers GET /api/v1/openapi.json: the document, cacheable
// for an hour, or 304 when the client's copy has its ETag.
func serveOpenAPI(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Cache-Control", "public, max-age=3600")
	h.Set("ETag", openAPIETag)
	if etagListed(r.Header.Get("If-None-Match"), openAPIETag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h.Set("Content-Type", "application/json")
	_, _ = w.Write(openAPIDoc)
}

// etagListed reports whether an If-None-Match header names etag, or is
// "*"; the comparison is weak, as RFC 9110 asks for If-None-Match.
func etagListed(header, etag string) bool {
	for t := range strings.SplitSeq(header, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == "*" || t == etag {
			return true
		}
	}
	return false
}
