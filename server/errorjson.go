package server

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"

	"google.golang.org/protobuf/types/known/structpb"

	v1 "github.com/omcp/toolfailure/gen/toolfailure/v1"
	"github.com/omcp/toolfailure/internal/redact"
)

// redactedErrorJSON is the raw error as received, with every secret that
// redaction recognises replaced, as the JSON object that is stored (the
// API's field names, as protojson writes them). It is written directly, in
// one pass that redacts as it goes, instead of redacting a copy and then
// encoding it with protojson, which cost several times more per Classify
// (BenchmarkRedactedErrorJSON compares them). TestRedactedErrorJSON holds it
// to that protojson form.
func redactedErrorJSON(e *v1.RawError) ([]byte, error) {
	b, _, _, err := redactedError(e)
	return b, err
}

// redactedError is redactedErrorJSON that also returns the redacted message
// and type, which the record's fingerprint is computed from, so that they are
// redacted once.
func redactedError(e *v1.RawError) (_ []byte, message, typ string, err error) {
	w := objectWriter{b: make([]byte, 0, 64+len(e.GetMessage())+len(e.GetType())+len(e.GetRetryAfter()))}
	w.b = append(w.b, '{')
	if m := e.GetMessage(); m != "" {
		message = redact.String(m)
		w.key("message")
		w.b = appendJSONString(w.b, message)
	}
	if t := e.GetType(); t != "" {
		typ = redact.String(t)
		w.key("type")
		w.b = appendJSONString(w.b, typ)
	}
	w.int("httpStatus", e.HttpStatus)
	w.int("grpcCode", e.GrpcCode)
	w.int("jsonrpcCode", e.JsonrpcCode)
	if r := e.GetRetryAfter(); r != "" {
		w.key("retryAfter")
		w.b = appendJSONString(w.b, redact.String(r))
	}
	if d := e.GetDetails(); d != nil {
		w.key("details")
		if w.b, err = appendValue(w.b, d, redacted); err != nil {
			return nil, "", "", fmt.Errorf("details: %w", err)
		}
	}
	if attrs := e.GetAttributes(); len(attrs) > 0 {
		w.key("attributes")
		w.b, _ = appendObject(w.b, attrs, func(b []byte, k, v string) ([]byte, error) {
			return appendJSONString(b, redact.Field(k, v)), nil
		})
	}
	return append(w.b, '}'), message, typ, nil
}

// appendObject writes m as a JSON object, its keys in sorted order as protojson writes them, each
// value written by value.
func appendObject[V any](b []byte, m map[string]V, value func(b []byte, key string, v V) ([]byte, error)) ([]byte, error) {
	b = append(b, '{')
	var small [16]string // the keys of most objects fit, so that sorting them allocates nothing
	keys := small[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, k)
		b = append(b, ':')
		var err error
		if b, err = value(b, k, m[k]); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

// errNotUTF8 is a string that protojson would refuse to write.
var errNotUTF8 = errors.New("a string is not valid UTF-8")

var errNonFinite = errors.New("a number is NaN or infinite, which JSON cannot hold")

// valueMode is what appendValue does to the values it writes.
type valueMode uint8

const (
	asIs     valueMode = iota // written as they are
	redacted                  // every string redacted
	replaced                  // under a sensitive key: all but null, booleans and "" become the field marker
)

// appendValue writes v as JSON, as protojson writes a google.protobuf.Value. In the redacted
// modes, a value under a sensitive key is replaced by the field marker, except null, booleans
// and empty strings, which cannot hold a secret, and every other string is redacted.
func appendValue(b []byte, v *structpb.Value, mode valueMode) ([]byte, error) {
	switch k := v.GetKind().(type) {
	case *structpb.Value_BoolValue:
		return strconv.AppendBool(b, k.BoolValue), nil
	case *structpb.Value_StringValue:
		s := k.StringValue
		switch {
		case mode == asIs && !utf8.ValidString(s):
			return nil, errNotUTF8
		case s == "" || mode == asIs:
		case mode == replaced:
			s = redact.Marker(redact.KindField)
		default:
			s = redact.String(s)
		}
		return appendJSONString(b, s), nil
	case *structpb.Value_NumberValue:
		if mode == replaced {
			return appendJSONString(b, redact.Marker(redact.KindField)), nil
		}
		return appendJSONNumber(b, k.NumberValue)
	case *structpb.Value_StructValue:
		if mode == replaced {
			return appendJSONString(b, redact.Marker(redact.KindField)), nil
		}
		return appendStruct(b, k.StructValue, mode)
	case *structpb.Value_ListValue:
		if mode == replaced {
			return appendJSONString(b, redact.Marker(redact.KindField)), nil
		}
		b = append(b, '[')
		for i, e := range k.ListValue.GetValues() {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendValue(b, e, mode); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	default: // null, or a Value with no kind set, which protojson also writes as null
		return append(b, "null"...), nil
	}
}

// appendStruct writes s as JSON. In the redacted modes, the values under a sensitive key are
// replaced.
func appendStruct(b []byte, s *structpb.Struct, mode valueMode) ([]byte, error) {
	return appendObject(b, s.GetFields(), func(b []byte, name string, f *structpb.Value) ([]byte, error) {
		if mode == asIs && !utf8.ValidString(name) {
			return nil, errNotUTF8
		}
		m := mode
		if m != asIs {
			m = redacted
			if redact.SensitiveKey(name) {
				m = replaced
			}
		}
		return appendValue(b, f, m)
	})
}

// appendJSONNumber writes f as encoding/json and protojson do: plain
// notation from 1e-6 to 1e21, exponent notation outside.
func appendJSONNumber(b []byte, f float64) ([]byte, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, errNonFinite
	}
	format := byte('f')
	if a := math.Abs(f); a != 0 && (a < 1e-6 || a >= 1e21) {
		format = 'e'
	}
	return strconv.AppendFloat(b, f, format, -1, 64), nil
}

// appendJSONString writes s as a JSON string. Protobuf strings are valid
// UTF-8 (the codecs refuse anything else); a stray invalid byte would still
// be written as U+FFFD, so the result is always valid JSON.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, "\ufffd"...)
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// annotationsJSON is a as protojson writes it (the hints that were set, by their JSON names), with
// none of protojson's reflection: four optional booleans do not need it.
// TestAnnotationsJSON holds it to protojson.
func annotationsJSON(a *v1.ToolAnnotations) []byte {
	w := objectWriter{b: make([]byte, 0, 96)}
	w.b = append(w.b, '{')
	for _, h := range [...]struct {
		name string
		v    *bool
	}{
		{"idempotentHint", a.IdempotentHint}, {"readOnlyHint", a.ReadOnlyHint},
		{"destructiveHint", a.DestructiveHint}, {"openWorldHint", a.OpenWorldHint},
	} {
		if h.v != nil {
			w.key(h.name)
			w.b = strconv.AppendBool(w.b, *h.v)
		}
	}
	return append(w.b, '}')
}
