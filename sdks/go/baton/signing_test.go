package baton

import (
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"
)

type signingVector struct {
	Secret, Tenant, Method, Path, Body, Timestamp, Canonical, Signature string
}

// The vectors libs/protocol's signing.spec.ts checks the engine's signing against.
func loadVectors(t *testing.T) []signingVector {
	raw, err := os.ReadFile("../../../libs/protocol/signing-vectors.json")
	if err != nil {
		t.Fatalf("the shared signing vectors: %v", err)
	}
	var file struct{ Vectors []signingVector }
	if err := json.Unmarshal(raw, &file); err != nil || len(file.Vectors) == 0 {
		t.Fatalf("signing-vectors.json: %v (%d vectors)", err, len(file.Vectors))
	}
	return file.Vectors
}

func TestSignReproducesTheSharedVectors(t *testing.T) {
	for _, v := range loadVectors(t) {
		if got := Canonical(v.Timestamp, v.Method, v.Path, []byte(v.Body)); got != v.Canonical {
			t.Errorf("%s %s: canonical %q, want %q", v.Method, v.Path, got, v.Canonical)
		}
		at, _ := strconv.ParseInt(v.Timestamp, 10, 64)
		h := Sign(v.Secret, v.Tenant, v.Method, v.Path, []byte(v.Body), at)
		if h[HeaderSignature] != v.Signature || h[HeaderTimestamp] != v.Timestamp || h[HeaderTenant] != v.Tenant {
			t.Errorf("%s %s: headers %v, want signature %s", v.Method, v.Path, h, v.Signature)
		}
		if r := Verify(v.Secret, v.Timestamp, v.Signature, v.Method, v.Path, []byte(v.Body), at, DefaultMaxSkewMs); r != "" {
			t.Errorf("%s %s: own vector refused: %s", v.Method, v.Path, r)
		}
	}
}

func TestVerifyRefusesWhatTheEngineRefuses(t *testing.T) {
	v := loadVectors(t)[0]
	at, _ := strconv.ParseInt(v.Timestamp, 10, 64)
	body := []byte(v.Body)
	cases := []struct {
		name                          string
		secret, ts, sig, method, path string
		body                          []byte
		now                           int64
		want                          VerifyReason
	}{
		{"another secret", "other", v.Timestamp, v.Signature, v.Method, v.Path, body, at, SignatureBad},
		{"a changed body", v.Secret, v.Timestamp, v.Signature, v.Method, v.Path, []byte(strings.Replace(v.Body, "7", "8", 1)), at, SignatureBad},
		{"another path", v.Secret, v.Timestamp, v.Signature, v.Method, "/baton/runs", body, at, SignatureBad},
		{"another method", v.Secret, v.Timestamp, v.Signature, "PUT", v.Path, body, at, SignatureBad},
		{"too late", v.Secret, v.Timestamp, v.Signature, v.Method, v.Path, body, at + 300_001, SignatureStale},
		{"too early", v.Secret, v.Timestamp, v.Signature, v.Method, v.Path, body, at - 300_001, SignatureStale},
		{"at the edge", v.Secret, v.Timestamp, v.Signature, v.Method, v.Path, body, at + 300_000, ""},
		{"missing", v.Secret, "", "", v.Method, v.Path, body, at, SignatureMissingHeaders},
		{"not a timestamp", v.Secret, "soon", v.Signature, v.Method, v.Path, body, at, SignatureStale},
		{"upper case", v.Secret, v.Timestamp, strings.ToUpper(v.Signature), v.Method, v.Path, body, at, SignatureMalformed},
		{"0 appended", v.Secret, v.Timestamp, v.Signature + "0", v.Method, v.Path, body, at, SignatureMalformed},
		{"zz appended", v.Secret, v.Timestamp, v.Signature + "zz", v.Method, v.Path, body, at, SignatureMalformed},
		{"short", v.Secret, v.Timestamp, v.Signature[:63], v.Method, v.Path, body, at, SignatureMalformed},
		{"with a space", v.Secret, v.Timestamp, " " + v.Signature, v.Method, v.Path, body, at, SignatureMalformed},
	}
	for _, c := range cases {
		if got := Verify(c.secret, c.ts, c.sig, c.method, c.path, c.body, c.now, DefaultMaxSkewMs); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
