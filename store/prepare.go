package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	segjson "github.com/segmentio/encoding/json"

	"github.com/omcp/toolfailure/internal/fingerprint"
)

// Prepared is a record that Prepare canonicalised and checked. InsertFailure of every backend and
// every decorator takes one and trusts it, so that a record is checked once, on its caller's
// goroutine, however many layers it passes on its way to the disk. Only Prepare makes one: the zero
// Prepared holds no record, and Record refuses it.
type Prepared struct {
	f  Failure
	ok bool
}

// Failure returns the record as Prepare left it; for the zero Prepared, the zero Failure.
func (p Prepared) Failure() Failure { return p.f }

// Record is Failure for a store about to write the record: for the zero Prepared, which Prepare
// never returns, an error wrapping ErrInvalid instead, so that no layer stores what nothing checked.
func (p Prepared) Record() (Failure, error) {
	if !p.ok {
		return Failure{}, fmt.Errorf("%w: the record was not made by store.Prepare", ErrInvalid)
	}
	return p.f, nil
}

// SameCallAs returns p without its idempotency key and linked to holder, the record that holds
// the key: a journal replaying a record whose key another record took meanwhile stores it so
// (Failure.SameCallAs), which keeps both IDs valid and lets lookups name each from the other.
// No rule of a record needs the key, and the link is to another record of the same tenant, so
// the result needs no new check; a holder equal to the record's own ID, which no store answers
// with, leaves p without the key and unlinked.
func (p Prepared) SameCallAs(holder [16]byte) Prepared {
	p.f.IdempotencyKey = ""
	if holder != p.f.ID {
		p.f.SameCallAs = holder
	}
	return p
}

// Prepare canonicalises f for storage and checks it, once, on the caller's goroutine: every
// backend and every decorator stores what Prepare returns and trusts it. It fills CreatedAt (now)
// and OccurredAt (CreatedAt), truncates times to microseconds in UTC (PostgreSQL's precision, so
// that what InsertFailure returns equals what GetFailure reads back), lowercases trace context,
// makes absent JSON one representation (nil), and replaces U+0000 (see NULStandIn). The error names
// the record, wraps ErrInvalid and names the first broken rule; one bad record is refused alone
// instead of failing the batch it would share with others. Preparing a prepared record's Failure
// again changes nothing.
func Prepare(f Failure) (Prepared, error) {
	f.CreatedAt = storedTime(f.CreatedAt)
	if f.CreatedAt.IsZero() {
		f.CreatedAt = storedTime(time.Now())
	}
	f.OccurredAt = storedTime(f.OccurredAt)
	if f.OccurredAt.IsZero() {
		f.OccurredAt = f.CreatedAt
	}
	f.RetryNotBefore = storedTime(f.RetryNotBefore)
	f.TraceID = strings.ToLower(f.TraceID)
	f.SpanID = strings.ToLower(f.SpanID)
	f.Tool, f.Server, f.Code = ReplaceNUL(f.Tool), ReplaceNUL(f.Server), ReplaceNUL(f.Code)
	f.AgentGuidance, f.RuleID, f.IdempotencyKey = ReplaceNUL(f.AgentGuidance), ReplaceNUL(f.RuleID), ReplaceNUL(f.IdempotencyKey)
	f.Error = replaceNULInJSON(f.Error)
	f.NamedBy = nil // GetFailure computes it; a record that is written does not carry it
	f.ToolAnnotations = replaceNULInJSON(absentJSON(f.ToolAnnotations))
	f.Shadow = replaceNULInJSON(absentJSON(f.Shadow))
	if err := checkFailure(f); err != nil {
		return Prepared{}, fmt.Errorf("store failure %s: %w", uuid.UUID(f.ID), err)
	}
	if f.Fingerprint == "" {
		f.Fingerprint = FingerprintOf(f.Tool, f.Error)
	}
	return Prepared{f: f, ok: true}, nil
}

// FingerprintOf computes the fingerprint of a record from its tool and its stored error (a JSON
// object with message, type, httpStatus, grpcCode, jsonrpcCode); the server computes the same
// from the request without decoding JSON. An undecodable error yields the fingerprint of the tool
// alone rather than none.
func FingerprintOf(tool string, errJSON json.RawMessage) string {
	in := ErrorFields(errJSON)
	in.Tool = tool
	fp, _ := fingerprint.Of(in)
	return fp
}

// ErrorFields decodes what a fingerprint is made of from a stored error; Tool is left empty.
func ErrorFields(errJSON json.RawMessage) fingerprint.Input {
	var e struct {
		Message     string `json:"message"`
		Type        string `json:"type"`
		HTTPStatus  *int32 `json:"httpStatus"`
		GRPCCode    *int32 `json:"grpcCode"`
		JSONRPCCode *int32 `json:"jsonrpcCode"`
	}
	_ = json.Unmarshal(errJSON, &e)
	return fingerprint.Input{Type: e.Type, HTTPStatus: e.HTTPStatus, GRPCCode: e.GRPCCode, JSONRPCCode: e.JSONRPCCode, Message: e.Message}
}

// storedTime truncates t to microseconds in UTC; the zero time stays zero.
func storedTime(t time.Time) time.Time {
	if t.IsZero() {
		return t
	}
	return t.Truncate(time.Microsecond).UTC()
}

// absentJSON returns nil for absent JSON: nil, empty, or the literal null.
func absentJSON(j json.RawMessage) json.RawMessage {
	if t := bytes.TrimSpace(j); len(t) == 0 || string(t) == "null" {
		return nil
	}
	return j
}

// NULStandIn is what a U+0000 in a record's text becomes: U+2400 SYMBOL FOR NULL.
//
// PostgreSQL can keep U+0000 neither in text nor in a jsonb string, and refuses the whole row. An
// error message is outside input, and one with a NUL in it (a C string read one byte too far, a
// binary protocol's reply) is still a failure someone will look up; refusing it would lose the
// record for good, since a retry sends the same bytes. Both backends store the same stand-in, so a
// record reads back the same whichever keeps it, and the symbol shows a reader where the NUL was.
const NULStandIn = "\u2400"

// ReplaceNUL replaces every U+0000 in s with NULStandIn.
func ReplaceNUL(s string) string {
	if !strings.Contains(s, "\x00") {
		return s
	}
	return strings.ReplaceAll(s, "\x00", NULStandIn)
}

// replaceNULInJSON replaces every U+0000 inside the strings (values and keys) of the JSON text j
// with NULStandIn. JSON can only write a NUL as the escape \u0000 (raw control characters are
// invalid), and the stand-in's escape \u2400 has the same length, so a copy is rewritten in
// place; an escaped backslash is skipped, so the literal text "\\u0000" is left alone.
func replaceNULInJSON(j json.RawMessage) json.RawMessage {
	if !bytes.Contains(j, []byte("\\u0000")) {
		return j
	}
	out := bytes.Clone(j)
	inString := false
	for i := 0; i < len(out); i++ {
		switch c := out[i]; {
		case c == '"':
			inString = !inString
		case c == '\\' && inString:
			if i+5 < len(out) && out[i+1] == 'u' && string(out[i+2:i+6]) == "0000" {
				copy(out[i+2:i+6], "2400")
			}
			i++ // the escaped character neither ends the string nor starts an escape
		}
	}
	return out
}

// checkFailure reports whether f, as canonicalised, keeps the rules of a stored record, as an
// error wrapping ErrInvalid that names the first broken rule. It is the guard, not a fast path in
// front of one: the PostgreSQL schema keeps only cheap checks of the proposal's rules (class,
// retryable, retry time) and the length of trace context, and dropped the rest (migration 00004)
// because every record passes here first.
func checkFailure(f Failure) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrInvalid}, args...)...)
	}
	switch {
	case f.Tool == "":
		return bad("tool is empty")
	case f.Code == "":
		return bad("code is empty")
	case f.Class != ClassCapability && f.Class != ClassReliability && f.Class != ClassGovernance:
		return bad("class %q is not capability, reliability or governance", f.Class)
	case f.Retryable && f.Class != ClassReliability:
		return bad("retryable is only for class reliability")
	case !f.RetryNotBefore.IsZero() && !f.Retryable:
		return bad("retryNotBefore without retryable")
	case !isJSONObject(f.Error):
		return bad("error is not a JSON object")
	case f.ToolAnnotations != nil && !isJSONObject(f.ToolAnnotations):
		return bad("toolAnnotations is not a JSON object")
	case f.Shadow != nil && !isJSON(f.Shadow, '['):
		return bad("shadow is not a JSON array")
	case f.TraceID != "" && !isLowerHex(f.TraceID, 32):
		return bad("trace ID %q is not 32 lowercase hex digits", f.TraceID)
	case f.SpanID != "" && !isLowerHex(f.SpanID, 16):
		return bad("span ID %q is not 16 lowercase hex digits", f.SpanID)
	case f.SameCallAs != ([16]byte{}) && f.IdempotencyKey != "":
		return bad("a record linked to the one holding its idempotency key (sameCallAs) has no key")
	case f.SameCallAs != ([16]byte{}) && f.SameCallAs == f.ID:
		return bad("sameCallAs names the record itself")
	case f.Fingerprint != "" && !fingerprint.Valid(f.Fingerprint):
		return bad("fingerprint %q is not 16 lowercase hex digits", f.Fingerprint)
	}
	return nil
}

func isJSONObject(j []byte) bool { return isJSON(j, '{') }

// isJSON reports whether j is valid JSON whose value starts with open ('{' or '['). It runs on every
// record, so the check is segmentio's, which accepts exactly what encoding/json's does
// (FuzzValidAgrees) in a fraction of the time (BenchmarkValid), and which the binary holds anyway:
// the MCP SDK decodes with it.
func isJSON(j []byte, open byte) bool {
	t := bytes.TrimLeft(j, " \t\r\n")
	return len(t) > 0 && t[0] == open && segjson.Valid(t)
}

func isLowerHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
