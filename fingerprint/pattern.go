package fingerprint

import (
	"regexp"
	"strings"
)

var placeholders = []string{PNum, PID, PUUID, PHex, PHost, PEmail, PPath, PURL, PStr, PTime}

// Pattern returns an RE2 regular expression that matches every message whose template is
// template: case-insensitive (fingerprints ignore case), white space as any run of white space,
// and each placeholder as any non-empty text (a placeholder may stand for a list of values). It is
// anchored at both ends unless the template was cut at MaxTemplate, when only the start is. An
// empty template gives "".
func Pattern(template string) string {
	if template == "" {
		return ""
	}
	var b strings.Builder
	b.WriteString(`(?i)^\s*`)
	rest := template
	for rest != "" {
		i, p := nextPlaceholder(rest)
		lit := rest
		if i >= 0 {
			lit = rest[:i]
		}
		for j, word := range strings.Split(lit, " ") {
			if j > 0 {
				b.WriteString(`\s+`)
			}
			b.WriteString(regexp.QuoteMeta(word))
		}
		if i < 0 {
			break
		}
		b.WriteString(`.+?`)
		rest = rest[i+len(p):]
	}
	if len(template) < MaxTemplate-len("<email>") {
		b.WriteString(`\s*$`)
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
