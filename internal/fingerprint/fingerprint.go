// Package fingerprint names the problem a failure record is one occurrence of. Two records share
// a fingerprint when they come from the same tool with the same error type and status codes and
// their messages differ only in variable parts (numbers, IDs, UUIDs, hex, hosts, e-mail addresses,
// paths, quoted values, timestamps), which Template replaces with placeholders.
//
// The class, code and rule are deliberately left out: a fingerprint says what happened, not what
// the service made of it, so a change of rules regroups nothing. The package is pure and
// allocation-light because the server computes a fingerprint for every record it classifies.
package fingerprint

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Len is the length of a fingerprint: 16 lower-case hex characters (64 bits of SHA-256). At a
// million distinct problems per tenant the chance of any two colliding is below one in ten
// million.
const Len = 16

// MaxTemplate caps a template in bytes. Messages that share a long prefix but differ beyond it
// (a stack trace, a response body) are one problem; what follows is detail, not identity.
const MaxTemplate = 512

// maxInput caps how much of a message is scanned, for the same reason and to bound the cost.
const maxInput = 4 * MaxTemplate

// Input is what a fingerprint is made of. Pointers are nil for an absent code.
type Input struct {
	Tool        string
	Type        string // the error type as reported, e.g. "ECONNRESET"
	HTTPStatus  *int32
	GRPCCode    *int32
	JSONRPCCode *int32
	Message     string // already redacted
}

// Of returns the fingerprint of in and the template of its message.
func Of(in Input) (fp string, template string) {
	template = Template(in.Message)
	// Version prefix: a change of the normalisation must not silently mix old and new groups.
	var scratch [256]byte // most records fit: the service computes one per record (BenchmarkOf)
	buf := append(scratch[:0], "v1\x00"...)
	buf = append(buf, in.Tool...)
	buf = append(buf, 0)
	buf = append(buf, strings.TrimSpace(in.Type)...)
	buf = append(buf, 0)
	for _, c := range []*int32{in.HTTPStatus, in.GRPCCode, in.JSONRPCCode} {
		if c != nil {
			buf = strconv.AppendInt(buf, int64(*c), 10)
		} else {
			buf = append(buf, '-')
		}
		buf = append(buf, 0)
	}
	// Case does not make a different problem: "Connection reset" and "connection reset" are one.
	buf = appendLower(buf, template)
	sum := sha256.Sum256(buf)
	return hex.EncodeToString(sum[:Len/2]), template
}

// appendLower appends strings.ToLower(s) to b, without a copy of s for ASCII text.
func appendLower(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return append(b, strings.ToLower(s)...)
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b = append(b, c)
	}
	return b
}

// Valid reports whether s has the form of a fingerprint: 16 lower-case hex characters.
func Valid(s string) bool {
	if len(s) != Len {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// Placeholders that Template writes.
const (
	PNum   = "<num>"
	PID    = "<id>"
	PUUID  = "<uuid>"
	PHex   = "<hex>"
	PHost  = "<host>"
	PEmail = "<email>"
	PPath  = "<path>"
	PURL   = "<url>"
	PStr   = "<str>"
	PTime  = "<time>"
)

// Template returns msg with its variable parts replaced by placeholders, runs of white space made
// one space, and a run of the same placeholder separated only by commas, semicolons or spaces
// made one (a list of three IDs and a list of five are the same message). It works on words: the
// text between white space and the separators ()[]{}<>,;=|, with trailing .:!? set aside.
func Template(msg string) string {
	msg = cut(msg, maxInput)
	var b strings.Builder
	b.Grow(len(msg))
	last := ""       // the last placeholder written, while only list separators followed it
	pendingSep := "" // separators after last, held back in case the same placeholder follows
	space := false   // white space seen since the last thing written
	emit := func(tok string, isPlaceholder bool) {
		if isPlaceholder && tok == last {
			pendingSep, space = "", false
			return
		}
		if pendingSep != "" {
			b.WriteString(pendingSep)
			pendingSep = ""
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteString(tok)
		if isPlaceholder {
			last = tok
		} else {
			last = ""
		}
	}
	sep := func(s string) {
		if last != "" && (s == "," || s == ";") {
			if space {
				pendingSep += " "
				space = false
			}
			pendingSep += s
			return
		}
		if pendingSep != "" {
			b.WriteString(pendingSep)
			pendingSep = ""
		}
		emit(s, false)
	}
	i := 0
	for i < len(msg) && b.Len() < MaxTemplate {
		c := msg[i]
		switch {
		case isSpace(c):
			space = true
			i++
		case c == '"' || c == '`' || c == '\'' && (i == 0 || !isAlnum(msg[i-1])):
			if end := closingQuote(msg, i); end > 0 {
				emit(PStr, true)
				i = end + 1
				continue
			}
			sep(msg[i : i+1])
			i++
		case isSeparator(c):
			sep(msg[i : i+1])
			i++
		default:
			j := i
			for j < len(msg) && byteClass[msg[j]]&classWordEnd == 0 {
				j++
			}
			if strings.Contains(msg[i:j], "://") {
				// A URL's query and fragment hold separators; the URL ends at white space.
				for j < len(msg) && !isSpace(msg[j]) && msg[j] != '"' && msg[j] != '`' {
					j++
				}
			}
			word := msg[i:j]
			// Trailing punctuation ends a sentence or introduces a value; it is not part of the word.
			k := len(word)
			for k > 0 && strings.IndexByte(".:!?'", word[k-1]) >= 0 {
				k--
			}
			if k == 0 {
				emit(word, false)
			} else if p := classify(word[:k]); p != "" {
				emit(p, true)
				if k < len(word) {
					emit(word[k:], false)
				}
			} else {
				emit(word, false)
			}
			i = j
		}
	}
	if pendingSep != "" {
		b.WriteString(pendingSep)
	}
	return cut(b.String(), MaxTemplate)
}

// cut returns at most n bytes of s, never splitting a UTF-8 sequence.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// Character classes, by table: the scanner asks for every byte of every message.
const (
	classSpace = 1 << iota
	classSeparator
	classWordEnd // a byte that ends a word: white space, a separator, a double quote or backquote
)

var byteClass = func() (t [256]uint8) {
	for _, c := range []byte(" \t\n\r\f") { // RE2's \s, so that Pattern can match what is folded
		t[c] |= classSpace | classWordEnd
	}
	for _, c := range []byte("()[]{}<>,;=|") {
		t[c] |= classSeparator | classWordEnd
	}
	t['"'] |= classWordEnd
	t['`'] |= classWordEnd
	return t
}()

func isSpace(c byte) bool { return byteClass[c]&classSpace != 0 }

func isSeparator(c byte) bool { return byteClass[c]&classSeparator != 0 }

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isHex(c byte) bool { return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

// closingQuote returns the index of the quote that closes the one at i, or -1. A single quote
// closes only before a non-word character, so "can't" and "don't" inside a quoted value do not end
// it. Quoted values longer than a line are not values but prose, and are left alone.
func closingQuote(msg string, i int) int {
	q := msg[i]
	for j := i + 1; j < len(msg) && j-i <= 256; j++ {
		switch msg[j] {
		case '\\':
			j++
		case '\n':
			return -1
		case q:
			if q == '\'' && j+1 < len(msg) && isAlnum(msg[j+1]) {
				continue
			}
			return j
		}
	}
	return -1
}

// classify returns the placeholder for a word, or "" when the word is kept.
func classify(w string) string {
	if plainWord(w) {
		return ""
	}
	return classifyByTests(w)
}

// classifyByTests is classify without the shortcut for plain words.
func classifyByTests(w string) string {
	switch {
	case strings.Contains(w, "://"):
		return PURL
	case isTime(w):
		return PTime
	case isEmail(w):
		return PEmail
	case isPath(w):
		return PPath
	case isUUID(w):
		return PUUID
	case isNumber(w):
		return PNum
	case len(w) > 2 && w[0] == '0' && (w[1] == 'x' || w[1] == 'X') && allHex(w[2:]):
		return PHex
	case isHost(w):
		return PHost
	case len(w) >= 8 && allHex(w):
		return PHex
	}
	digits, letters := 0, 0
	for i := 0; i < len(w); i++ {
		if isDigit(w[i]) {
			digits++
		} else if isAlnum(w[i]) {
			letters++
		}
	}
	switch {
	case digits > 0:
		// Any word with a digit in it: order numbers, request IDs, "30s", "v2".
		return PID
	case letters >= 32 && !strings.ContainsAny(w, "-_."):
		// A long run of letters alone is a token, not a word of any language.
		return PID
	}
	return ""
}

func allHex(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isHex(s[i]) {
			return false
		}
	}
	return true
}

// isNumber: optional sign, digits with optional , or _ groups and at most one decimal point,
// optional exponent, then optionally % or a unit of up to three letters ("30s", "250ms", "12MB").
// Two or more dots make an address or a version, which isHost takes.
func isNumber(w string) bool {
	if strings.Count(w, ".") > 1 {
		return false
	}
	i := 0
	if i < len(w) && (w[i] == '-' || w[i] == '+') {
		i++
	}
	start, digits := i, 0
	for i < len(w) {
		c := w[i]
		switch {
		case isDigit(c):
			digits++
		case (c == '.' || c == ',' || c == '_') && i > start && i+1 < len(w) && isDigit(w[i+1]):
		case (c == 'e' || c == 'E') && digits > 0 && i+1 < len(w):
			i++
			if w[i] == '-' || w[i] == '+' {
				i++
			}
			for i < len(w) && isDigit(w[i]) {
				i++
			}
			return i == len(w) || isUnit(w[i:])
		default:
			return digits > 0 && isUnit(w[i:])
		}
		i++
	}
	return digits > 0
}

// plainWord reports whether w is a word that classify keeps whatever its tests: ASCII letters
// only (no digit, separator or dot that a placeholder's test needs), shorter than a token, and not
// eight hex letters or more. Most words of a message are such words, and skip the tests.
func plainWord(w string) bool {
	if len(w) >= 32 {
		return false
	}
	hex := true
	for i := 0; i < len(w); i++ {
		c := w[i] | 0x20
		if c < 'a' || c > 'z' {
			return false
		}
		hex = hex && c <= 'f'
	}
	return len(w) < 8 || !hex
}

func isUnit(s string) bool {
	if s == "%" {
		return true
	}
	if len(s) > 3 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') {
			return false
		}
	}
	return true
}

func isUUID(w string) bool {
	if len(w) != 36 {
		return false
	}
	for i := 0; i < 36; i++ {
		if i == 8 || i == 13 || i == 18 || i == 23 {
			if w[i] != '-' {
				return false
			}
		} else if !isHex(w[i]) {
			return false
		}
	}
	return true
}

// isTime: an ISO 8601 date (2006-01-02, optionally with a time and zone) or a clock time 15:04:05.
func isTime(w string) bool {
	if len(w) >= 10 && isDigits(w[0:4]) && w[4] == '-' && isDigits(w[5:7]) && w[7] == '-' && isDigits(w[8:10]) {
		return true
	}
	return len(w) >= 8 && isDigits(w[0:2]) && w[2] == ':' && isDigits(w[3:5]) && w[5] == ':' && isDigits(w[6:8])
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return s != ""
}

func isEmail(w string) bool {
	at := strings.IndexByte(w, '@')
	return at > 0 && strings.IndexByte(w[at+1:], '.') > 0
}

// isPath: absolute, home- or dot-relative Unix paths, Windows drive paths, and words with two or
// more slashes (a/b/c).
func isPath(w string) bool {
	switch {
	case len(w) > 1 && w[0] == '/':
		return true
	case strings.HasPrefix(w, "./"), strings.HasPrefix(w, "../"), strings.HasPrefix(w, "~/"):
		return true
	case len(w) > 2 && (w[0] >= 'A' && w[0] <= 'Z' || w[0] >= 'a' && w[0] <= 'z') && w[1] == ':' && (w[2] == '\\' || w[2] == '/'):
		return true
	case strings.Count(w, "/") >= 2, strings.Count(w, "\\") >= 2:
		return true
	}
	return false
}

// isHost: dotted names (api.example.com, db-1.internal:5432), IPv4 addresses with or without a
// port, and bracketed or bare IPv6 addresses. A dotted identifier such as a file name or a module
// path matches too; it is as variable as a host and takes the same placeholder.
func isHost(w string) bool {
	if strings.Count(w, ":") >= 2 && allHexColon(strings.Trim(w, "[]")) {
		return true
	}
	if c := strings.LastIndexByte(w, ':'); c > 0 && isDigits(w[c+1:]) {
		w = w[:c]
	}
	dot := strings.IndexByte(w, '.')
	if dot <= 0 || dot == len(w)-1 {
		return false
	}
	for _, label := range strings.Split(w, ".") {
		if label == "" {
			return false
		}
		for i := 0; i < len(label); i++ {
			if c := label[i]; !isAlnum(c) && c != '-' && c != '_' {
				return false
			}
		}
	}
	return true
}

func allHexColon(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isHex(s[i]) && s[i] != ':' && s[i] != '.' {
			return false
		}
	}
	return true
}
