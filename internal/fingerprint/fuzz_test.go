package fingerprint

import (
	"regexp"
	"testing"
	"unicode/utf8"
)

// FuzzTemplate holds Template and Pattern to their promises on any text: the template is bounded
// and valid UTF-8 for valid input, the same message gives the same fingerprint, and the pattern of
// a message's template compiles and matches that message, which SuggestRule relies on.
func FuzzTemplate(f *testing.F) {
	for _, l := range labelledSet(1) {
		f.Add(l.in.Message)
	}
	f.Add(`a "b`)
	f.Add("x 'y' z 'it's'")
	f.Add("\x00\xff\xfe")
	f.Fuzz(func(t *testing.T, msg string) {
		tpl := Template(msg)
		if len(tpl) > MaxTemplate {
			t.Fatalf("template of %d bytes", len(tpl))
		}
		if !utf8.ValidString(msg) {
			return
		}
		if !utf8.ValidString(tpl) {
			t.Fatalf("template %q of valid text is not valid UTF-8", tpl)
		}
		a, _ := Of(Input{Tool: "t", Message: msg})
		b, _ := Of(Input{Tool: "t", Message: msg})
		if a != b || !Valid(a) {
			t.Fatalf("fingerprints %q and %q", a, b)
		}
		p := PatternOf(msg)
		if p == "" {
			return
		}
		re, err := regexp.Compile(p)
		if err != nil {
			t.Fatalf("pattern %q does not compile: %v", p, err)
		}
		if !re.MatchString(msg) {
			t.Fatalf("message %q does not match the pattern %q of its template %q", msg, p, tpl)
		}
	})
}
