package corpus

import (
	"fmt"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// A fresh batch measures the rules on systems they were not written from
// (corpus/FRESH.md), so none of its systems or vendors may already be in
// the corpus under another spelling: "Acme API", "acme-api" and "ACME"
// are one name. Names is what the corpus already holds, by NameKey.
type Names struct {
	systems map[string]string // NameKey → the name as first written
	vendors map[string]string
	// systemWords and vendorWords map a name's words (nameWords) to the
	// name, for the check that a name holds a known one.
	systemWords map[string]string
	vendorWords map[string]string
	ids         map[string]bool
}

// NewNames returns the names of cases.
func NewNames(cases []Case) *Names {
	n := &Names{systems: map[string]string{}, vendors: map[string]string{},
		systemWords: map[string]string{}, vendorWords: map[string]string{}, ids: map[string]bool{}}
	for i := range cases {
		n.Add(&cases[i])
	}
	return n
}

// Add records the case's id, system and vendor.
func (n *Names) Add(c *Case) {
	n.ids[c.ID] = true
	if k := NameKey(c.System); k != "" {
		if _, ok := n.systems[k]; !ok {
			n.systems[k] = c.System
			if w := nameWords(c.System); !genericAlone(c.System, w) {
				n.systemWords[w] = c.System
			}
		}
	}
	if k := NameKey(c.Vendor); k != "" {
		if _, ok := n.vendors[k]; !ok {
			n.vendors[k] = c.Vendor
			if w := nameWords(c.Vendor); !genericAlone(c.Vendor, w) {
				n.vendorWords[w] = c.Vendor
			}
		}
	}
}

// HasID reports whether a case already uses id.
func (n *Names) HasID(id string) bool { return n.ids[id] }

// Clash says why the case's system or vendor is one the corpus holds, or
// returns "". Exact clashes compare names by NameKey, across systems and
// vendors (a vendor's name used as a system is the same maker). With
// contain, a name whose words hold a known name's words in a row, or are
// held by them, also clashes ("Acme Cloud" against "Acme"), for systems of
// four characters or more and vendors of six or more, where a shorter name
// would match by chance. Whole words only: "Pagoda" does not hold "Agoda".
func (n *Names) Clash(c *Case, contain bool) string {
	sys, ven := NameKey(c.System), NameKey(c.Vendor)
	if sys == "" {
		return "no system"
	}
	if k, ok := n.systems[sys]; ok {
		return fmt.Sprintf("system %q is known as %q", c.System, k)
	}
	if k, ok := n.vendors[sys]; ok {
		return fmt.Sprintf("system %q is a known vendor %q", c.System, k)
	}
	if ven != "" {
		if k, ok := n.vendors[ven]; ok {
			return fmt.Sprintf("vendor %q is known as %q", c.Vendor, k)
		}
		if k, ok := n.systems[ven]; ok {
			return fmt.Sprintf("vendor %q is a known system %q", c.Vendor, k)
		}
	}
	if !contain {
		return ""
	}
	if k := held(nameWords(c.System), 4, n.systemWords); k != "" {
		return fmt.Sprintf("system %q overlaps the known system %q", c.System, k)
	}
	if k := held(nameWords(c.Vendor), 6, n.vendorWords); k != "" {
		return fmt.Sprintf("vendor %q overlaps the known vendor %q", c.Vendor, k)
	}
	return ""
}

// held returns a known name whose words hold words in a row or are held
// by them, both at least min letters long (the smallest such name, so that
// the message is the same on every run). Words are compared with a space
// on each side, so only whole words match.
func held(words string, min int, known map[string]string) string {
	if nameLetters(words) < min {
		return ""
	}
	found := ""
	for k, name := range known {
		if nameLetters(k) >= min && (strings.Contains(words, k) || strings.Contains(k, words)) && (found == "" || name < found) {
			found = name
		}
	}
	return found
}

// genericAlone reports whether a name is one word once its noise words
// are gone ("API Holdings", "api-sports"): that word says what a business
// does, not whose it is, so other names that hold it are not the same
// maker. The exact check still takes the name.
func genericAlone(name, words string) bool {
	if strings.Count(words, " ") != 2 { // " word "
		return false
	}
	raw := strings.FieldsFunc(name, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	return len(raw) > 1
}

func nameLetters(words string) int { return len([]rune(words)) - strings.Count(words, " ") }

// nameNoise are words that name no one: "Acme API" is Acme.
var nameNoise = map[string]bool{"api": true, "sdk": true, "rest": true, "the": true}

// NameKey is the spelling-free form of a system's or vendor's name:
// compatibility-decomposed and lower-cased, accents and punctuation
// dropped, the words of nameNoise left out, the rest run together.
func NameKey(s string) string { return strings.ReplaceAll(nameWords(s), " ", "") }

// nameWords is NameKey with each word kept apart, and a space before and
// after every word: " acme cloud ".
func nameWords(s string) string {
	var b, word strings.Builder
	b.WriteByte(' ')
	flush := func() {
		if w := word.String(); w != "" && !nameNoise[w] {
			b.WriteString(w)
			b.WriteByte(' ')
		}
		word.Reset()
	}
	for _, r := range norm.NFKD.String(s) {
		switch {
		case unicode.Is(unicode.Mn, r):
			// an accent, split off its letter by NFKD
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			word.WriteRune(unicode.ToLower(r))
		default:
			flush()
		}
	}
	flush()
	if b.Len() == 1 {
		return ""
	}
	return b.String()
}
