package classify

import (
	"math/rand/v2"
	"testing"
)

// The literal prefilters in front of the status patterns are only worth having if they never say
// "cannot match" where a pattern does match: they must change cost, not behaviour. Random strings
// over an alphabet dense in the patterns' own characters, plus the tricky cases by hand.
func TestStatusPrefilterIsSound(t *testing.T) {
	t.Parallel()
	check := func(msg string) {
		if hasStatusDigits(msg) {
			return
		}
		for _, re := range httpStatusRes {
			if re.MatchString(msg) {
				t.Fatalf("%q matches %v, but the prefilter skips it", msg, re)
			}
		}
	}
	for _, msg := range []string{"HTTP/1.1 404", "http404", "status=503;", "(429) Too", "502", "error 500é",
		"sk_live_51Hx456789", "code 40001", "v4.0.0", "x: 503 B", "503-", "http/1.1404"} {
		check(msg)
	}
	alphabet := []byte("0123456789 45,:-()_/.aErorHTtpsuc=\u00e9X")
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200_000 {
		b := make([]byte, 1+rng.IntN(14))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		check(string(b))
	}
}
