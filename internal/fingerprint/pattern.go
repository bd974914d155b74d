package fingerprint

import (
	"regexp"
	"strings"
)

// space is the white space that Template folds: RE2's \s, which is why Template does not take a
// vertical tab for white space.
const space = `\s`

var placeholders = []string{PNum, PID, PUUID, PHex, PHost, PEmail, PPath, PURL, PStr, PTime}

// PatternOf is Pattern for the template of msg, anchored at the end only when neither the message
// nor its template was cut: then the pattern matches every message of msg's group.
func PatternOf(msg string) string {
	tpl := Template(msg)
	return pattern(tpl, len(msg) <= maxInput && len(tpl) < MaxTemplate-len(PEmail))
}

// Pattern returns an RE2 regular expression that matches every message whose template is
// template: case-insensitive (fingerprints ignore case), with . matching newlines (a collapsed list may span lines), white space as any run of white space,
// and each placeholder as any non-empty text (a placeholder may stand for a list of values). It is
// anchored at both ends unless the template may have been cut at MaxTemplate, when only the start
// is. An empty template gives "".
func Pattern(template string) string {
	return pattern(template, len(template) < MaxTemplate-len(PEmail))
}

func pattern(template string, anchorEnd bool) string {
	if template == "" {
		return ""
	}
	var b strings.Builder
	b.WriteString(`(?is)^` + space + `*`)
	rest := template
	for rest != "" {
		i, p := nextPlaceholder(rest)
		lit := rest
		if i >= 0 {
			lit = rest[:i]
		}
		for j, word := range strings.Split(lit, " ") {
			if j > 0 {
				b.WriteString(space + `+`)
			}
			b.WriteString(regexp.QuoteMeta(word))
		}
		if i < 0 {
			break
		}
		b.WriteString(`.+?`)
		rest = rest[i+len(p):]
	}
	if anchorEnd {
		b.WriteString(space + `*$`)
	}
	return b.String()
}

// nextPlaceholder returns the index and text of the first placeholder in s, or -1.
func nextPlaceholder(s string) (int, string) {
	best, text := -1, ""
	for _, p := range placeholders {
		if i := strings.Index(s, p); i >= 0 && (best < 0 || i < best) {
			best, text = i, p
		}
	}
	return best, text
}
