package ruleset

import (
	"regexp"
	"strings"
)

// globRegexp translates a tool glob into an anchored RE2 expression, so that
// the shortcut compiles to the same CEL condition an author could write by
// hand: tool.matches("^send_.*$"). It also returns the glob's literal prefix,
// which the matcher index uses, and whether the glob has no wildcard at all
// (then the shortcut is a plain equality).
func globRegexp(glob string) (re, prefix string, exact bool) {
	var b strings.Builder
	b.WriteString("^")
	prefixDone := false
	var pre strings.Builder
	for _, r := range glob {
		switch r {
		case '*':
			b.WriteString(".*")
			prefixDone = true
		case '?':
			b.WriteString(".")
			prefixDone = true
		default:
			b.WriteString(regexp.QuoteMeta(string(r)))
			if !prefixDone {
				pre.WriteRune(r)
			}
		}
	}
	b.WriteString("$")
	return b.String(), pre.String(), !prefixDone
}

// celString quotes s as a CEL string literal. CEL's escapes are a superset
// of what strconv.Quote produces for valid UTF-8, except that CEL has no
// \x escapes above 0x7f; rule fields are UTF-8 text, so Quote is safe.
func celString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if r < 0x20 || r == 0x7f {
				b.WriteString(`\u00`)
				const hex = "0123456789abcdef"
				b.WriteByte(hex[r>>4])
				b.WriteByte(hex[r&0xf])
				continue
			}
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
