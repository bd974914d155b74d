package ruleset

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/omcp/toolfailure/internal/classify"
	"github.com/omcp/toolfailure/internal/redact"
)

// A guidance template is text with {{placeholders}} that name fields of the
// request. Placeholders are deliberately few and never include
// error.message: the message is free text from the failing system, may hold
// user data or secrets, and could carry instructions aimed at the model.
// Every substituted value goes through the same redaction as the stored
// record (a value under a sensitive key is replaced whole, any other is
// scanned for secrets' shapes) before it is reduced to one short line of
// printable text: the guidance reaches the agent and the record, and must
// not carry what the record's fields hide.

const (
	maxValueRunes = 80
	// maxGuidanceBytes keeps the rendered guidance under the proposal's 500
	// characters (counted in bytes, the stricter reading).
	maxGuidanceBytes = 499
)

type segment struct {
	text string   // literal text, when path is nil
	path []string // placeholder path, e.g. ["error", "details", "data", "code"]
}

type template struct {
	segs []segment
}

// placeholderError locates a problem inside the template text.
type placeholderError struct {
	line, col int
	msg       string
}

func parseTemplate(src string) (*template, *placeholderError) {
	t := &template{}
	rest := src
	offset := 0
	for {
		i := strings.Index(rest, "{{")
		if i < 0 {
			if rest != "" {
				t.segs = append(t.segs, segment{text: rest})
			}
			return t, nil
		}
		if i > 0 {
			t.segs = append(t.segs, segment{text: rest[:i]})
		}
		j := strings.Index(rest[i:], "}}")
		line, col := position(src, offset+i)
		if j < 0 {
			return nil, &placeholderError{line, col, "unclosed {{"}
		}
		name := strings.TrimSpace(rest[i+2 : i+j])
		path, err := placeholderPath(name)
		if err != "" {
			return nil, &placeholderError{line, col, err}
		}
		t.segs = append(t.segs, segment{path: path})
		offset += i + j + 2
		rest = rest[i+j+2:]
	}
}

// placeholders lists the names a template may use, for error messages.
const placeholders = "tool, server, error.type, error.httpStatus, error.grpcCode, error.jsonrpcCode, error.retryAfter, retryAfterSeconds, error.attributes.KEY, error.details.PATH"

func placeholderPath(name string) ([]string, string) {
	switch name {
	case "tool", "server", "retryAfterSeconds",
		"error.type", "error.httpStatus", "error.grpcCode", "error.jsonrpcCode", "error.retryAfter":
		return strings.Split(name, "."), ""
	case "error.message":
		return nil, "{{error.message}} is not allowed: the message may hold user data, secrets or instructions aimed at the model; reference a structured field instead"
	}
	if key, ok := strings.CutPrefix(name, "error.attributes."); ok && key != "" {
		return []string{"error", "attributes", key}, ""
	}
	if p, ok := strings.CutPrefix(name, "error.details."); ok && p != "" {
		parts := strings.Split(p, ".")
		for _, s := range parts {
			if s == "" {
				return nil, fmt.Sprintf("{{%s}}: empty path segment", name)
			}
		}
		return append([]string{"error", "details"}, parts...), ""
	}
	return nil, fmt.Sprintf("unknown placeholder {{%s}}; known: %s", name, placeholders)
}

// position turns a byte offset into a 1-based line and column (in runes).
func position(s string, off int) (line, col int) {
	line, col = 1, 1
	for _, r := range s[:off] {
		if r == '\n' {
			line++
			col = 1
			continue
		}
		col++
	}
	return line, col
}

func (t *template) render(in *classify.Input, o *classify.Outcome, now time.Time) string {
	if t == nil || len(t.segs) == 0 {
		return ""
	}
	var b strings.Builder
	for _, s := range t.segs {
		if s.path == nil {
			b.WriteString(s.text)
			continue
		}
		b.WriteString(clean(redact.String(lookup(s.path, in, o, now))))
	}
	return truncate(strings.TrimSpace(b.String()), maxGuidanceBytes)
}

func lookup(path []string, in *classify.Input, o *classify.Outcome, now time.Time) string {
	e := &in.Error
	code := func(p *int32) string {
		if p == nil {
			return ""
		}
		return strconv.Itoa(int(*p))
	}
	switch path[0] {
	case "tool":
		return in.Tool
	case "server":
		return in.Server
	case "retryAfterSeconds":
		if o.RetryNotBefore.IsZero() {
			return ""
		}
		return strconv.FormatInt(int64(math.Ceil(o.RetryNotBefore.Sub(now).Seconds())), 10)
	}
	switch path[1] {
	case "type":
		return e.Type
	case "httpStatus":
		return code(e.HTTPStatus)
	case "grpcCode":
		return code(e.GRPCCode)
	case "jsonrpcCode":
		return code(e.JSONRPCCode)
	case "retryAfter":
		return e.RetryAfter
	case "attributes":
		return redact.Field(path[2], e.Attributes[path[2]])
	case "details":
		v := e.Details
		sensitive := false
		for _, k := range path[2:] {
			switch c := v.(type) {
			case map[string]any:
				v = c[k]
				// As the record keeps it: everything under a sensitive
				// key is replaced, however deep the path goes on.
				sensitive = sensitive || redact.SensitiveKey(k)
			case []any:
				i, err := strconv.Atoi(k)
				if err != nil || i < 0 || i >= len(c) {
					return ""
				}
				v = c[i]
			default:
				return ""
			}
		}
		switch c := v.(type) {
		case string:
			if sensitive && c != "" {
				return redact.Marker(redact.KindField)
			}
			return c
		case bool:
			return fmt.Sprint(c)
		case float64, json.Number:
			if sensitive {
				return redact.Marker(redact.KindField)
			}
			return fmt.Sprint(c)
		}
	}
	return ""
}

// clean makes a substituted value one short line of printable text.
func clean(s string) string {
	var b strings.Builder
	n := 0
	for _, r := range s {
		if n == maxValueRunes {
			b.WriteString("…")
			break
		}
		if !unicode.IsPrint(r) {
			r = ' '
		}
		b.WriteRune(r)
		n++
	}
	return b.String()
}

func truncate(s string, max int) string {
	if len(s) <= max {
		return s
	}
	const ell = "…"
	cut := max - len(ell)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + ell
}
