package server

import (
	"errors"
	"math"
	"strconv"
	"unicode/utf8"

	"google.golang.org/protobuf/types/known/structpb"
)

// The size limit on a request's details is checked on the decoded value, by measuring it rather
// than encoding it: encoding the details only to count their bytes cost as much as classifying
// the error (BenchmarkCheckDetails). Nesting is refused earlier still, by the codec while it reads
// (bodylimits.go).

var errNonFinite = errors.New("a number is NaN or infinite, which JSON cannot hold")

// jsonShape measures v as compact JSON (as protojson writes it, before redaction): its
// length and its nesting depth, counted from d, in one walk that keeps no output. It replaced
// encoding the details with protojson only to measure them, which cost as much as classifying
// the error. The walk stops going deeper past limit levels; a number that JSON cannot hold (NaN,
// ±Inf) is an error, as it is for protojson. Strings and numbers are written into scratch, one
// at a time, to be counted.
type jsonShape struct {
	limit   int
	scratch []byte
}

func (m *jsonShape) measure(v *structpb.Value, d int) (size, deepest int, err error) {
	if d > m.limit {
		return 0, d, nil
	}
	deepest = d
	switch k := v.GetKind().(type) {
	case *structpb.Value_BoolValue:
		if k.BoolValue {
			return len("true"), d, nil
		}
		return len("false"), d, nil
	case *structpb.Value_StringValue:
		m.scratch = appendJSONString(m.scratch[:0], k.StringValue)
		return len(m.scratch), d, nil
	case *structpb.Value_NumberValue:
		m.scratch, err = appendJSONNumber(m.scratch[:0], k.NumberValue)
		return len(m.scratch), d, err
	case *structpb.Value_StructValue:
		size = 2 // {}
		for name, f := range k.StructValue.GetFields() {
			n, deep, err := m.measure(f, d+1)
			if err != nil || deep > m.limit {
				return 0, max(deepest, deep), err
			}
			m.scratch = appendJSONString(m.scratch[:0], name)
			size += len(m.scratch) + 1 + n + 1 // "name":value,
			deepest = max(deepest, deep)
		}
		if len(k.StructValue.GetFields()) > 0 {
			size-- // no comma after the last
		}
		return size, deepest, nil
	case *structpb.Value_ListValue:
		size = 2 // []
		for _, e := range k.ListValue.GetValues() {
			n, deep, err := m.measure(e, d+1)
			if err != nil || deep > m.limit {
				return 0, max(deepest, deep), err
			}
			size += n + 1
			deepest = max(deepest, deep)
		}
		if len(k.ListValue.GetValues()) > 0 {
			size--
		}
		return size, deepest, nil
	default:
		return len("null"), d, nil
	}
}

// appendJSONNumber writes f as protojson does: plain notation from 1e-6 to 1e21, exponent
// notation outside, with a one-digit negative exponent unpadded.
func appendJSONNumber(b []byte, f float64) ([]byte, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, errNonFinite
	}
	format := byte('f')
	if a := math.Abs(f); a != 0 && (a < 1e-6 || a >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if n := len(b); format == 'e' && n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
		b[n-2] = b[n-1]
		b = b[:n-1]
	}
	return b, nil
}

// appendJSONString writes s as a JSON string, escaped as protojson escapes it. Protobuf strings
// are valid UTF-8 (the codecs refuse anything else); a stray invalid byte would still be written
// as U+FFFD, so the result is always valid JSON.
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
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
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
