// Package correlation issues and parses the correlation IDs that tie a
// failed tool call seen by a user to the record kept by the service.
//
// An ID is a UUIDv7 written as "tf_" followed by 26 Crockford base32
// characters and one check character from the same alphabet, 30 characters
// in all, matching ^tf_[0-9A-HJKMNP-TV-Z]{27}$:
//
//	tf_01JDQ7Z5Q8R3M2V9X4K6N0T1BCV
//
// Why this shape:
//
//   - UUIDv7 sorts by creation time, so IDs index well in a B-tree and the
//     time a failure happened can be read off the ID itself.
//   - The 74 random bits come from crypto/rand, so an ID cannot be guessed
//     from another one and carries no data about the caller.
//   - Crockford base32 has no I, L, O or U, so an ID read aloud or copied by
//     hand survives; decoding maps I and L to 1 and O to 0.
//   - People retype these IDs from screenshots and chat messages. The check
//     character catches every single wrong character and every swap of two
//     neighbours, so a typo is reported as a malformed ID instead of a
//     silent "not found". It is computed with the Damm algorithm over a
//     totally anti-symmetric quasigroup of order 32 (see check), so it is
//     one of the 32 data symbols: Crockford's own mod-37 check adds the
//     symbols * ~ $ = U, which end a double-click selection early and mean
//     something to a shell.
//   - The "tf_" prefix makes the ID recognisable in logs and support tickets.
package correlation

import (
	"crypto/rand"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// ID is a UUIDv7 in big-endian byte order.
type ID [16]byte

// Prefix starts every correlation ID in its canonical form.
const Prefix = "tf_"

// Len is the length of the canonical string form: the prefix, 26 data
// characters and one check character.
const Len = len(Prefix) + dataLen + 1

const (
	dataLen = 26 // ceil(128/5) base32 digits; the top 2 of the 130 bits are zero
	// alphabet holds the 32 symbols of data and check characters alike.
	alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
	maxMilli = 1<<48 - 1
)

// ErrFormat reports a string that is not shaped like a correlation ID.
var ErrFormat = errors.New("correlation: malformed ID")

// ErrChecksum reports a well-formed ID whose check character does not match:
// almost always a typo.
var ErrChecksum = errors.New("correlation: check character mismatch")

// ErrCheckMissing reports 26 characters after the prefix: a whole ID
// but for its last, check character, which was probably lost in copying.
// It wraps ErrFormat.
var ErrCheckMissing = fmt.Errorf("%w: the check character (the 27th after tf_) is missing", ErrFormat)

// decode maps an input byte to its symbol value, or -1. Lowercase and Crockford's aliases (I, L → 1; O → 0)
// decode like their canonical forms.
var decode = func() [256]int8 {
	var t [256]int8
	for i := range t {
		t[i] = -1
	}
	for v := 0; v < len(alphabet); v++ {
		c := alphabet[v]
		t[c] = int8(v)
		if c >= 'A' && c <= 'Z' {
			t[c+'a'-'A'] = int8(v)
		}
	}
	for _, c := range "IiLl" {
		t[c] = 1
	}
	for _, c := range "Oo" {
		t[c] = 0
	}
	return t
}()

// New returns a fresh ID whose timestamp is now truncated to the millisecond.
// The other 74 bits are random; IDs made in the same millisecond are
// therefore unordered among themselves, which is fine for correlation.
func New(now time.Time) (ID, error) {
	var id ID
	ms := now.UnixMilli()
	if ms < 0 || ms > maxMilli {
		return id, fmt.Errorf("correlation: time %s outside the UUIDv7 range", now.UTC().Format(time.RFC3339))
	}
	if _, err := rand.Read(id[6:]); err != nil {
		return id, fmt.Errorf("correlation: read random bits: %w", err)
	}
	for i := 5; i >= 0; i-- {
		id[i] = byte(ms)
		ms >>= 8
	}
	id[6] = 0x70 | id[6]&0x0f // version 7
	id[8] = 0x80 | id[8]&0x3f // variant 10
	return id, nil
}

// Time returns the creation time stored in the ID, in UTC, to the millisecond.
func (id ID) Time() time.Time {
	var ms int64
	for _, b := range id[:6] {
		ms = ms<<8 | int64(b)
	}
	return time.UnixMilli(ms).UTC()
}

// String returns the canonical form: "tf_", 26 uppercase base32 characters,
// one check character.
func (id ID) String() string {
	var buf [Len]byte
	copy(buf[:], Prefix)
	d := id.digits()
	for i, v := range d {
		buf[len(Prefix)+i] = alphabet[v]
	}
	buf[Len-1] = alphabet[checkOf(d)]
	return string(buf[:])
}

// Parse reads an ID in canonical form, ignoring case. It requires the "tf_"
// prefix and the exact length; use ParseLoose for text typed by a person.
// Errors wrap ErrFormat or ErrChecksum.
func Parse(s string) (ID, error) {
	if len(s) == Len-1 && strings.EqualFold(s[:len(Prefix)], Prefix) {
		return ID{}, ErrCheckMissing
	}
	if len(s) != Len || !strings.EqualFold(s[:len(Prefix)], Prefix) {
		return ID{}, fmt.Errorf("%w: want %q followed by %d characters", ErrFormat, Prefix, dataLen+1)
	}
	return parseBody(s[len(Prefix):])
}

// ErrSeveral reports text that holds more than one different correlation ID,
// so that ParseLoose cannot tell which one was meant. It wraps ErrFormat.
var ErrSeveral = fmt.Errorf("%w: more than one correlation ID in the text", ErrFormat)

// ParseLoose accepts what a person is likely to paste or type: surrounding
// whitespace, an optional "tf_" prefix in any case, and dashes or spaces used
// to group characters. When the text holds more than an ID — quotes,
// brackets, a trailing period, a label such as "correlationId:", a JSON
// fragment copied from _meta, a log line — the one "tf_" token in it is
// taken (the same ID repeated counts once; two different ones are
// ErrSeveral). The check character still has to match.
func ParseLoose(s string) (ID, error) {
	id, err := parseGrouped(strings.Trim(s, wrapping))
	if err == nil || !errors.Is(err, ErrFormat) || errors.Is(err, ErrCheckMissing) {
		// An ID, or text shaped like one with a wrong or missing check
		// character: a typo to report, not something to search further.
		return id, err
	}
	tokens := prefixedTokens(s)
	switch len(tokens) {
	case 0:
		return ID{}, err
	case 1:
		return parseGrouped(tokens[0])
	}
	return ID{}, ErrSeveral
}

// wrapping is what may surround a pasted ID: white space, quotes, brackets
// and the punctuation that ends a sentence or a JSON member. None of it is
// an ID's character.
const wrapping = " \t\r\n\"'`()[]{}<>.,;:!?"

// prefixedTokens returns, once each and in upper case, the "tf_" tokens in s
// that are shaped like an ID with or without its check character: a whole
// word (letters, digits and underscores) made of "tf_" in any case and 26 or
// 27 letters and digits.
func prefixedTokens(s string) []string {
	var out []string
	for i := 0; i+len(Prefix) <= len(s); i++ {
		if !strings.EqualFold(s[i:i+len(Prefix)], Prefix) || i > 0 && isWord(s[i-1]) {
			continue
		}
		j := i + len(Prefix)
		for j < len(s) && isWord(s[j]) && s[j] != '_' {
			j++
		}
		if n := j - i - len(Prefix); (n == dataLen || n == dataLen+1) && (j == len(s) || !isWord(s[j])) {
			if tok := strings.ToUpper(s[i:j]); !slices.Contains(out, tok) {
				out = append(out, tok)
			}
		}
		i = j - 1
	}
	return out
}

// isWord reports the bytes of a word as a double-click selects it in most
// places: ASCII letters, digits and the underscore.
func isWord(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_'
}

// parseGrouped reads one ID with optional white space, an optional "tf_" or
// "tf-" prefix in any case, and dashes or spaces grouping its characters.
func parseGrouped(s string) (ID, error) {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range strings.TrimSpace(s) {
		switch r {
		case '-', ' ', '\t':
			continue
		}
		b.WriteRune(r)
	}
	t := b.String()
	switch {
	case len(t) >= len(Prefix) && strings.EqualFold(t[:len(Prefix)], Prefix):
		t = t[len(Prefix):]
	case len(t) >= 2 && strings.EqualFold(t[:2], "tf"):
		// "tf-…" with the dash removed above. No ID's body starts with T
		// (its first symbol is at most 7), so this cannot eat data.
		t = t[2:]
	}
	if len(t) == dataLen {
		return ID{}, ErrCheckMissing
	}
	if len(t) != dataLen+1 {
		return ID{}, fmt.Errorf("%w: want %d characters after the prefix, got %d", ErrFormat, dataLen+1, len(t))
	}
	return parseBody(t)
}

// parseBody decodes the 26 data characters and verifies the check character.
func parseBody(s string) (ID, error) {
	var hi, lo uint64
	for i := 0; i < dataLen; i++ {
		v := decode[s[i]]
		if v < 0 {
			return ID{}, fmt.Errorf("%w: invalid character %q at position %d", ErrFormat, s[i], len(Prefix)+i)
		}
		if i == 0 && v > 7 {
			// The first character carries only 3 bits: the value would not fit in 128 bits.
			return ID{}, fmt.Errorf("%w: first character %q out of range", ErrFormat, s[i])
		}
		hi = hi<<5 | lo>>59
		lo = lo<<5 | uint64(v)
	}
	var id ID
	for i := 0; i < 8; i++ {
		id[i] = byte(hi >> (56 - 8*i))
		id[8+i] = byte(lo >> (56 - 8*i))
	}
	c := decode[s[dataLen]]
	if c < 0 {
		return ID{}, fmt.Errorf("%w: invalid check character %q", ErrFormat, s[dataLen])
	}
	if int(c) != id.check() {
		return ID{}, fmt.Errorf("%w: %q", ErrChecksum, Prefix+s)
	}
	return id, nil
}

func (id ID) halves() (hi, lo uint64) {
	for i := 0; i < 8; i++ {
		hi = hi<<8 | uint64(id[i])
		lo = lo<<8 | uint64(id[8+i])
	}
	return hi, lo
}

// check returns the check symbol of the 26 data symbols.
//
// It is the Damm algorithm over the quasigroup x∗y = 2·x + y of GF(32)
// (polynomials over GF(2) modulo x⁵ + x² + 1, so + is XOR and 2 is the
// polynomial x). Damm needs a quasigroup that is totally anti-symmetric:
// (c∗x)∗y = (c∗y)∗x only when x = y, and x∗y = y∗x only when x = y. Here
// both reduce to (2+1)·(x+y) = 0, and 3 ≠ 0 in GF(32), so they hold; every
// row and column is a permutation (a Latin square), so one wrong symbol
// always changes the result. The interim value starts at 0 and the check
// symbol is the one that brings the final interim value back to 0:
// c with 2·s + c = 0, that is c = 2·s. TestQuasigroupIsTotallyAntiSymmetric
// checks the properties over the whole table; the typo tests check their
// consequence on IDs.
func (id ID) check() int {
	return checkOf(id.digits())
}

// checkOf folds symbol values through the quasigroup and returns the check.
func checkOf(digits [dataLen]byte) int {
	s := byte(0)
	for _, d := range digits {
		s = quasigroup(s, d)
	}
	return int(gfDouble(s))
}

// quasigroup is x∗y = 2·x + y in GF(32).
func quasigroup(x, y byte) byte { return gfDouble(x) ^ y }

// gfDouble multiplies by 2 (the polynomial x) modulo x⁵ + x² + 1.
func gfDouble(x byte) byte {
	x <<= 1
	if x&32 != 0 {
		x ^= 0b100101
	}
	return x
}

// digits returns the 26 base32 symbol values, most significant first.
func (id ID) digits() [dataLen]byte {
	var d [dataLen]byte
	hi, lo := id.halves()
	for i := dataLen - 1; i >= 0; i-- {
		d[i] = byte(lo & 31)
		lo = lo>>5 | hi<<59
		hi >>= 5
	}
	return d
}
