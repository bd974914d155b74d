package main

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// safeText renders text that came from a failure record (a tool name, an error message, a
// template, a code, a rule's name) for a terminal. Records hold what failing systems said, and an
// attacker can make a system say anything: ESC sequences that retitle the window or write the
// clipboard (OSC 52), BEL, a CR that overwrites the line with a faked one, C1 controls that some
// terminals obey, and bidirectional overrides that show text in an order other than its own.
// Every such character becomes a visible escape: \n, \r and \t by name, other C0 controls and DEL
// as \x1b, C1 controls, bidi controls and the line and paragraph separators as \u202e, and a byte
// that is not UTF-8 as \xff. Everything else, backslashes included, is shown as it is. Every text
// printer of the CLI passes stored text through it; JSON output is escaped by its encoder.
func safeText(s string) string {
	if !needsEscape(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case unsafeRune(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// needsEscape reports whether safeText changes s; most text is plain and is returned as it is.
func needsEscape(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == 0x7f {
				return true
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || unsafeRune(r) {
			return true
		}
		i += size
	}
	return false
}

// unsafeRune reports a non-ASCII rune that a terminal may act on or that changes how the text
// around it is shown: C1 controls (U+0080 to U+009F), bidi controls (U+061C, U+200E, U+200F,
// U+202A to U+202E, U+2066 to U+2069) and the line and paragraph separators.
func unsafeRune(r rune) bool {
	return unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) || r == '\u2028' || r == '\u2029'
}
