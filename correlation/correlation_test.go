package correlation_test

import (
	"bytes"
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/omcp/toolfailure/correlation"
)

var t0 = time.Date(2025, 6, 3, 10, 15, 22, 418_000_000, time.UTC)

func mustNew(t testing.TB, now time.Time) correlation.ID {
	t.Helper()
	id, err := correlation.New(now)
	if err != nil {
		t.Fatalf("New(%v): %v", now, err)
	}
	return id
}

func TestRoundTrip(t *testing.T) {
	t.Parallel()
	for range 1000 {
		id := mustNew(t, t0)
		s := id.String()
		if len(s) != 30 {
			t.Fatalf("String() = %q: length %d, want 30", s, len(s))
		}
		if !strings.HasPrefix(s, "tf_") || strings.ToUpper(s[3:]) != s[3:] {
			t.Fatalf("String() = %q: want tf_ and uppercase", s)
		}
		got, err := correlation.Parse(s)
		if err != nil {
			t.Fatalf("Parse(%q): %v", s, err)
		}
		if got != id {
			t.Fatalf("Parse(%q) = %x, want %x", s, got, id)
		}
	}
}

func TestKnownValues(t *testing.T) {
	t.Parallel()
	// The all-zero and all-one values and one UUIDv7 pin the encoding: 26
	// digits of the 130-bit field (top 2 bits zero), then the Damm check
	// over GF(32) (computed by a separate implementation of check's
	// definition, not by this package).
	var zero, ones correlation.ID
	for i := range ones {
		ones[i] = 0xff
	}
	v7 := correlation.ID{0x01, 0x97, 0x35, 0x4b, 0x0d, 0x52, 0x7a, 0xbc, 0x8d, 0xef, 0x01, 0x23, 0x45, 0x67, 0x89, 0xab}
	cases := map[correlation.ID]string{
		zero: "tf_" + strings.Repeat("0", 26) + "0",
		ones: "tf_7" + strings.Repeat("Z", 25) + "C",
		v7:   "tf_01JWTMP3AJFAY8VVR14D2PF2DB6",
	}
	for id, want := range cases {
		if got := id.String(); got != want {
			t.Errorf("String() = %q, want %q", got, want)
		}
		back, err := correlation.Parse(want)
		if err != nil || back != id {
			t.Errorf("Parse(%q) = %x, %v", want, back, err)
		}
	}
}

func TestLowercaseAndAliases(t *testing.T) {
	t.Parallel()
	id := mustNew(t, t0)
	s := id.String()
	for _, in := range []string{
		strings.ToLower(s),
		"TF_" + s[3:],
		"Tf_" + strings.ToLower(s[3:]),
	} {
		got, err := correlation.Parse(in)
		if err != nil || got != id {
			t.Errorf("Parse(%q) = %x, %v; want %x", in, got, err, id)
		}
	}
	// Crockford aliases: O reads as 0, I and L as 1.
	var zero correlation.ID
	aliased := "tf_" + strings.Repeat("O", 26) + "o"
	if got, err := correlation.Parse(aliased); err != nil || got != zero {
		t.Errorf("Parse(%q) = %x, %v; want zero ID", aliased, got, err)
	}
	var one correlation.ID
	one[15] = 1
	for _, c := range []string{"1", "I", "i", "L", "l"} {
		in := "tf_" + strings.Repeat("0", 25) + c + "2"
		if got, err := correlation.Parse(in); err != nil || got != one {
			t.Errorf("Parse(%q) = %x, %v; want %x", in, got, err, one)
		}
	}
}

func TestParseRejects(t *testing.T) {
	t.Parallel()
	s := mustNew(t, t0).String()
	cases := map[string]error{
		"":                    correlation.ErrFormat,
		s[3:]:                 correlation.ErrFormat, // prefix is required
		"xx_" + s[3:]:         correlation.ErrFormat,
		s + "0":               correlation.ErrFormat,
		s[:29]:                correlation.ErrFormat,
		s[:10] + "U" + s[11:]: correlation.ErrFormat, // U is not in the alphabet
		s[:10] + "*" + s[11:]: correlation.ErrFormat,
		s[:29] + "*":          correlation.ErrFormat, // nor are Crockford's mod-37 check symbols
		s[:29] + "U":          correlation.ErrFormat,
		s[:10] + "!" + s[11:]: correlation.ErrFormat,
		s[:29] + "!":          correlation.ErrFormat,
		"tf_8" + s[4:]:        correlation.ErrFormat, // more than 128 bits
		" " + s[:29]:          correlation.ErrFormat,
	}
	for in, want := range cases {
		_, err := correlation.Parse(in)
		if !errors.Is(err, want) {
			t.Errorf("Parse(%q) error = %v, want %v", in, err, want)
		}
	}
}

// substitutes lists every symbol a person could type in place of c that
// decodes to a different value.
func substitutes(c byte) []byte {
	const set = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
	var out []byte
	for i := 0; i < len(set); i++ {
		if set[i] != c {
			out = append(out, set[i])
		}
	}
	return out
}

func TestEverySubstitutionDetected(t *testing.T) {
	t.Parallel()
	for range 20 {
		s := mustNew(t, t0).String()
		for pos := 3; pos < len(s); pos++ {
			for _, c := range substitutes(s[pos]) {
				typo := s[:pos] + string(c) + s[pos+1:]
				if _, err := correlation.Parse(typo); err == nil {
					t.Fatalf("Parse(%q) accepted a substitution of %q at %d in %q", typo, c, pos, s)
				} else if !errors.Is(err, correlation.ErrChecksum) && !errors.Is(err, correlation.ErrFormat) {
					t.Fatalf("Parse(%q) error %v wraps neither sentinel", typo, err)
				}
			}
		}
	}
}

func TestChecksumErrorIsDistinct(t *testing.T) {
	t.Parallel()
	s := mustNew(t, t0).String()
	// Changing a middle data character keeps the format valid, so only the
	// check character can catch it.
	pos := 20
	c := byte('0')
	if s[pos] == '0' {
		c = '1'
	}
	typo := s[:pos] + string(c) + s[pos+1:]
	_, err := correlation.Parse(typo)
	if !errors.Is(err, correlation.ErrChecksum) || errors.Is(err, correlation.ErrFormat) {
		t.Fatalf("Parse(%q) error = %v, want only ErrChecksum", typo, err)
	}
}

func TestAdjacentTranspositionDetected(t *testing.T) {
	t.Parallel()
	for range 200 {
		s := mustNew(t, t0).String()
		for pos := 3; pos < len(s)-1; pos++ { // the check character included
			if s[pos] == s[pos+1] {
				continue
			}
			b := []byte(s)
			b[pos], b[pos+1] = b[pos+1], b[pos]
			if _, err := correlation.Parse(string(b)); err == nil {
				t.Fatalf("Parse(%q) accepted a swap at %d of %q", b, pos, s)
			}
		}
	}
}

// TestIDsAreOneWord: every ID is one unbroken word of the 32-symbol
// alphabet, so a double-click selects it whole and a shell or a URL needs
// no quoting.
func TestIDsAreOneWord(t *testing.T) {
	t.Parallel()
	word := regexp.MustCompile(`^tf_[0-9A-HJKMNP-TV-Z]{27}$`)
	checks := map[byte]int{}
	for range 20000 {
		s := mustNew(t, t0).String()
		if !word.MatchString(s) {
			t.Fatalf("%q does not match %s", s, word)
		}
		checks[s[len(s)-1]]++
	}
	// The check is spread over the whole alphabet, not stuck on a few symbols.
	if len(checks) != 32 {
		t.Fatalf("check characters seen: %d distinct, want all 32", len(checks))
	}
}

func TestMissingCheckCharacter(t *testing.T) {
	t.Parallel()
	s := mustNew(t, t0).String()
	for _, in := range []string{s[:29], strings.ToLower(s[:29])} {
		_, err := correlation.Parse(in)
		if !errors.Is(err, correlation.ErrCheckMissing) || !errors.Is(err, correlation.ErrFormat) {
			t.Errorf("Parse(%q) error = %v, want ErrCheckMissing", in, err)
		}
	}
	for _, in := range []string{s[:29], s[3:29], " " + s[:29] + " ", "TF-" + s[3:29]} {
		_, err := correlation.ParseLoose(in)
		if !errors.Is(err, correlation.ErrCheckMissing) {
			t.Errorf("ParseLoose(%q) error = %v, want ErrCheckMissing", in, err)
		}
	}
	if !strings.Contains(correlation.ErrCheckMissing.Error(), "check character") {
		t.Errorf("ErrCheckMissing says %q; it must name the check character", correlation.ErrCheckMissing)
	}
}

func TestTimeOrdering(t *testing.T) {
	t.Parallel()
	var prev correlation.ID
	for i := range 200 {
		now := t0.Add(time.Duration(i) * time.Millisecond)
		id := mustNew(t, now)
		if got := id.Time(); !got.Equal(now.Truncate(time.Millisecond)) {
			t.Fatalf("Time() = %v, want %v", got, now)
		}
		if i > 0 {
			if bytes.Compare(prev[:], id[:]) >= 0 {
				t.Fatalf("ID %d not after its predecessor", i)
			}
			if prev.String() >= id.String() {
				t.Fatalf("string %s not after %s", id, prev)
			}
		}
		prev = id
	}
}

func TestVersionAndVariant(t *testing.T) {
	t.Parallel()
	seen := map[correlation.ID]bool{}
	for range 500 {
		id := mustNew(t, t0)
		if id[6]>>4 != 7 {
			t.Fatalf("version nibble = %x, want 7", id[6]>>4)
		}
		if id[8]>>6 != 2 {
			t.Fatalf("variant bits = %b, want 10", id[8]>>6)
		}
		if seen[id] {
			t.Fatalf("duplicate ID %s", id)
		}
		seen[id] = true
	}
}

func TestNewRejectsOutOfRangeTime(t *testing.T) {
	t.Parallel()
	for _, now := range []time.Time{time.Unix(-1, 0), time.UnixMilli(1 << 48)} {
		if _, err := correlation.New(now); err == nil {
			t.Errorf("New(%v) succeeded, want an error", now)
		}
	}
}

func TestParseLoose(t *testing.T) {
	t.Parallel()
	id := mustNew(t, t0)
	s := id.String()
	body := s[3:]
	ok := []string{
		s,
		"  " + s + "\n",
		body,
		strings.ToLower(body),
		"TF_" + body,
		"tf-" + body,
		"tf_" + body[:9] + "-" + body[9:18] + "-" + body[18:],
		body[:9] + " " + body[9:18] + " " + body[18:],
		"\t" + strings.ToLower(s) + " ",
		// The one tf_ token of a pasted text.
		`"` + s + `"`,
		"(" + s + ").",
		"[" + strings.ToLower(s) + "]",
		"'" + body + "',",
		"correlationId: " + s,
		`"correlationId": "` + s + `",`,
		`{"class":"reliability","code":"upstream_timeout","retryable":true,"correlationId":"` + s + `"}`,
		"Failed (ID " + s + "); see " + s + ".",
	}
	for _, in := range ok {
		got, err := correlation.ParseLoose(in)
		if err != nil || got != id {
			t.Errorf("ParseLoose(%q) = %x, %v; want %x", in, got, err, id)
		}
	}
	bad := map[string]error{
		"":                         correlation.ErrFormat,
		"tf_":                      correlation.ErrFormat,
		body[:20]:                  correlation.ErrFormat,
		body + "00":                correlation.ErrFormat,
		"tf_" + body + "_":         correlation.ErrFormat,
		body[:26] + flip(body[26]): correlation.ErrChecksum,
		// In a longer text: a typo is still a typo, two different IDs are ambiguous, and a
		// tf_ word that is not an ID's shape is not one.
		"correlationId: tf_" + body[:26] + flip(body[26]):      correlation.ErrChecksum,
		`"correlationId": "tf_` + body[:26] + `"`:              correlation.ErrCheckMissing,
		s + " or tf_" + body[:25] + flip(body[25]) + body[26:]: correlation.ErrSeveral,
		"see " + s + "_old":               correlation.ErrFormat,
		"see x" + s:                       correlation.ErrFormat,
		"correlationId: tf_" + body + "0": correlation.ErrFormat,
	}
	for in, want := range bad {
		if _, err := correlation.ParseLoose(in); !errors.Is(err, want) {
			t.Errorf("ParseLoose(%q) error = %v, want %v", in, err, want)
		}
	}
}

// flip returns a check symbol different from c.
func flip(c byte) string {
	if c == '0' {
		return "1"
	}
	return "0"
}

func FuzzParse(f *testing.F) {
	f.Add("tf_01JDQ7Z5Q8R3M2V9X4K6N0T1BCV")
	f.Add("tf_" + strings.Repeat("0", 27))
	f.Add("TF_7ZZZZZZZZZZZZZZZZZZZZZZZZZC")
	f.Add("tf_7ZZZZZZZZZZZZZZZZZZZZZZZZZ*")
	f.Add("")
	f.Add("tf-01jdq7z5q8-r3m2v9x4k6-n0t1bc7")
	f.Fuzz(func(t *testing.T, s string) {
		for _, parse := range []func(string) (correlation.ID, error){correlation.Parse, correlation.ParseLoose} {
			id, err := parse(s)
			if err != nil {
				if !errors.Is(err, correlation.ErrFormat) && !errors.Is(err, correlation.ErrChecksum) {
					t.Fatalf("error %v wraps neither sentinel", err)
				}
				continue
			}
			back, err := correlation.Parse(id.String())
			if err != nil || back != id {
				t.Fatalf("Parse(String()) = %x, %v; want %x", back, err, id)
			}
		}
	})
}

func BenchmarkString(b *testing.B) {
	id := mustNew(b, t0)
	for b.Loop() {
		_ = id.String()
	}
}

func BenchmarkParse(b *testing.B) {
	s := mustNew(b, t0).String()
	for b.Loop() {
		if _, err := correlation.Parse(s); err != nil {
			b.Fatal(err)
		}
	}
}
