package mcpproxy

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// # Request IDs, as they were written
//
// A JSON-RPC ID is a string or any JSON number; the SDK's jsonrpc.ID holds
// an int64 or a string, and its decoder reads a number through a float64:
// 9007199254740993 becomes 9007199254740992, 1.5 becomes 1, 2^64−1 becomes
// −2^63. A relay that did the same would send the upstream an ID the client
// never used, and the client an answer to a call it never made.
//
// So the proxy keeps each ID as its sender wrote it. An ID that an int64 or
// a string writes back byte for byte (nearly every ID) is held as one; any
// other (a fraction, an exponent, an integer past int64, -0, a string whose
// escapes the encoder would write another way) is held as a string ID made
// of rawIDPrefix and the ID's JSON text, which encodeMessage writes back
// verbatim. The prefix holds a NUL and a random part, so no peer can write
// an ID that the proxy would take for one of these (and an ID that starts
// with it is itself kept as its text).
//
// The proxy matches an answer to its call by the ID's value (idKey), the
// way the peers' own JSON parsers compare them: an upstream that writes 1.5
// for the client's 1.50 still answers that call, and the answer reaches the
// client under 1.50, the ID as the client wrote it.

// rawIDPrefix starts the string of a jsonrpc.ID that stands for an ID's
// JSON text.
var rawIDPrefix = "\x00toolfailure-raw-id-" + rand.Text()[:10] + ":"

var errIDType = errors.New("invalid ID type: an ID is a string, a number or null")

// decodeID decodes an id member (nil when absent) of a message, valid JSON:
// the invalid ID for absent or null, an error for an object, an array or a
// boolean.
func decodeID(v []byte) (jsonrpc.ID, error) {
	switch {
	case v == nil || string(v) == "null":
		return jsonrpc.ID{}, nil
	case v[0] == '"':
		s, err := decodeString(v)
		if err != nil {
			return jsonrpc.ID{}, err
		}
		if !strings.HasPrefix(s, rawIDPrefix) && writesAs(s, v) {
			return stringID(s), nil
		}
		return stringID(rawIDPrefix + string(v)), nil
	case v[0] == '-' || ('0' <= v[0] && v[0] <= '9'):
		if n, err := strconv.ParseInt(string(v), 10, 64); err == nil {
			// Only when it writes back the same (not -0), and the SDK's
			// constructor, which takes a float64, holds it exactly.
			var b [20]byte
			if id, ok := int64ID(n); ok && bytes.Equal(strconv.AppendInt(b[:0], n, 10), v) {
				return id, nil
			}
		}
		if !json.Valid(v) {
			return jsonrpc.ID{}, errors.New("invalid number in ID")
		}
		return stringID(rawIDPrefix + string(v)), nil
	}
	return jsonrpc.ID{}, errIDType
}

// writesAs reports whether appendString writes s as exactly v.
func writesAs(s string, v []byte) bool {
	plain := true
	for _, c := range v[1 : len(v)-1] {
		if c < 0x20 || c > 0x7e || c == '\\' {
			plain = false
			break
		}
	}
	if plain {
		return true // decodeString returned the bytes between the quotes
	}
	var buf bytes.Buffer
	if appendString(&buf, s) != nil {
		return false
	}
	return bytes.Equal(buf.Bytes(), v)
}

// rawIDText returns the JSON text an ID held as its text stands for.
func rawIDText(id jsonrpc.ID) (string, bool) {
	s, ok := id.Raw().(string)
	if !ok || !strings.HasPrefix(s, rawIDPrefix) {
		return "", false
	}
	text := s[len(rawIDPrefix):]
	// Only what decodeID made: a JSON string or number, never text that
	// could put more than one value into the message.
	if text == "" || (text[0] != '"' && text[0] != '-' && (text[0] < '0' || text[0] > '9')) || !json.Valid([]byte(text)) {
		return "", false
	}
	return text, true
}

// appendID writes id's value as JSON: null for the invalid ID, an ID held
// as its text as that text.
func appendID(buf *bytes.Buffer, id jsonrpc.ID) error {
	switch v := id.Raw().(type) {
	case nil:
		buf.WriteString("null")
	case int64:
		buf.Write(strconv.AppendInt(buf.AvailableBuffer(), v, 10))
	case string:
		if text, ok := rawIDText(id); ok {
			buf.WriteString(text)
			return nil
		}
		return appendString(buf, v)
	default:
		b, err := marshalJSON(v)
		if err != nil {
			return err
		}
		buf.Write(b)
	}
	return nil
}

// idJSON is id's value as JSON.
func idJSON(id jsonrpc.ID) json.RawMessage {
	var buf bytes.Buffer
	if appendID(&buf, id) != nil {
		return json.RawMessage("null")
	}
	return buf.Bytes()
}

// idKey is the ID the proxy matches calls and answers by: id's value, so
// that 1.50 and 1.5, 1e3 and 1000, "\u0041" and "A" are one ID.
func idKey(id jsonrpc.ID) jsonrpc.ID {
	text, ok := rawIDText(id)
	if !ok {
		if n, isInt := id.Raw().(int64); isInt && (n > maxExactInt || n < -maxExactInt) {
			// From an SDK transport: the same key as the text would have.
			return numberKey(strconv.FormatInt(n, 10))
		}
		return id
	}
	if text[0] == '"' {
		s, err := decodeString([]byte(text))
		if err != nil {
			return id
		}
		return stringID(s)
	}
	return numberKey(text)
}

// numberKey is the key of a JSON number's value: an int64 ID when it is an
// integer in int64's range, else a string ID of the number in a canonical
// form (digits without leading or trailing zeros, and an exponent). It works
// on the digits: big.Rat would compute 1e999999999.
func numberKey(text string) jsonrpc.ID {
	other := func(canon string) jsonrpc.ID { return stringID(rawIDPrefix + "#" + canon) }
	sign, num := "", text
	if strings.HasPrefix(num, "-") {
		sign, num = "-", num[1:]
	}
	mant, expText := num, ""
	if i := strings.IndexAny(num, "eE"); i >= 0 {
		mant, expText = num[:i], num[i+1:]
	}
	exp := 0
	if expText != "" {
		e, err := strconv.Atoi(expText)
		if err != nil || e > 1<<40 || e < -(1<<40) {
			return other(text)
		}
		exp = e
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	digits := strings.TrimLeft(intPart+frac, "0")
	exp -= len(frac)
	if digits == "" {
		id, _ := int64ID(0) // 0, -0, 0.0, 0e5
		return id
	}
	trimmed := strings.TrimRight(digits, "0")
	exp += len(digits) - len(trimmed)
	digits = trimmed
	if exp >= 0 && len(digits)+exp <= 19 {
		if n, err := strconv.ParseInt(sign+digits+strings.Repeat("0", exp), 10, 64); err == nil {
			if id, ok := int64ID(n); ok {
				return id
			}
		}
	}
	return other(sign + digits + "e" + strconv.Itoa(exp))
}

// maxExactInt is the largest integer a float64 holds exactly, and so the
// largest that the SDK's ID constructor (jsonrpc.MakeID, which takes a
// float64 for a number) makes an int64 ID of without changing it.
const maxExactInt = 1 << 53

func int64ID(n int64) (jsonrpc.ID, bool) {
	if n > maxExactInt || n < -maxExactInt {
		return jsonrpc.ID{}, false
	}
	id, err := jsonrpc.MakeID(float64(n))
	return id, err == nil
}

func stringID(s string) jsonrpc.ID {
	id, _ := jsonrpc.MakeID(s)
	return id
}

// idValue is id as a log line or a span attribute shows it: a string or an
// int64, a number held as its text as that text.
func idValue(id jsonrpc.ID) any {
	text, ok := rawIDText(id)
	if !ok {
		return id.Raw()
	}
	if text[0] == '"' {
		if s, err := decodeString([]byte(text)); err == nil {
			return s
		}
	}
	return text
}
