package baton

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// The headers of a signed request (libs/protocol/src/signing.ts).
const (
	HeaderTenant    = "X-Baton-Tenant"
	HeaderTimestamp = "X-Baton-Timestamp"
	HeaderSignature = "X-Baton-Signature"
)

// DefaultMaxSkewMs is how far a signed timestamp may be from the receiver's clock.
const DefaultMaxSkewMs = 300_000

// Only lower-case hex of exactly 64 characters verifies: lenient hex decoding would let a
// re-spelt copy of a captured signature pass a replay guard keyed on the header string.
var canonicalSignature = regexp.MustCompile(`^[0-9a-f]{64}$`)

// Canonical is the signed text: `timestamp\nMETHOD\npath\nhex(sha256(body))`.
func Canonical(timestamp, method, path string, body []byte) string {
	sum := sha256.Sum256(body)
	return timestamp + "\n" + strings.ToUpper(method) + "\n" + path + "\n" + hex.EncodeToString(sum[:])
}

// Signature is the lower-case hex HMAC-SHA256 of Canonical with the tenant's executor secret.
func Signature(secret, timestamp, method, path string, body []byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(Canonical(timestamp, method, path, body)))
	return hex.EncodeToString(mac.Sum(nil))
}

// Sign returns the three headers of a request signed at nowMs (epoch ms).
func Sign(secret, tenant, method, path string, body []byte, nowMs int64) map[string]string {
	ts := strconv.FormatInt(nowMs, 10)
	return map[string]string{
		HeaderTenant:    tenant,
		HeaderTimestamp: ts,
		HeaderSignature: Signature(secret, ts, method, path, body),
	}
}

// VerifyReason says why a signature was refused; "" when it is valid.
type VerifyReason string

const (
	SignatureMissingHeaders VerifyReason = "MISSING_HEADERS"
	SignatureStale          VerifyReason = "STALE_TIMESTAMP"
	SignatureMalformed      VerifyReason = "MALFORMED_SIGNATURE"
	SignatureBad            VerifyReason = "BAD_SIGNATURE"
)

// Verify checks a request's timestamp (within maxSkewMs of nowMs) and signature, as the engine does.
func Verify(secret, timestamp, signature, method, path string, body []byte, nowMs, maxSkewMs int64) VerifyReason {
	if timestamp == "" || signature == "" {
		return SignatureMissingHeaders
	}
	at, err := strconv.ParseFloat(strings.TrimSpace(timestamp), 64)
	if err != nil || math.IsNaN(at) || math.IsInf(at, 0) || math.Abs(float64(nowMs)-at) > float64(maxSkewMs) {
		return SignatureStale
	}
	if !canonicalSignature.MatchString(signature) {
		return SignatureMalformed
	}
	if !hmac.Equal([]byte(Signature(secret, timestamp, method, path, body)), []byte(signature)) {
		return SignatureBad
	}
	return ""
}

func (r VerifyReason) message() string {
	switch r {
	case SignatureMissingHeaders:
		return "signature: missing x-baton-timestamp / x-baton-signature headers"
	case SignatureStale:
		return "signature: x-baton-timestamp is malformed or more than " + strconv.Itoa(DefaultMaxSkewMs) + " ms away from the executor's clock"
	case SignatureMalformed:
		return "signature: x-baton-signature is not lower-case hex of exactly 64 characters"
	default:
		return "signature: the signature does not match (secret, method, path or body differ)"
	}
}
