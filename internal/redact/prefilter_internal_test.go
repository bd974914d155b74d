package redact

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/omcp/toolfailure/internal/racetest"
)

// The prefilter scan and the match finders replace simpler definitions for speed; they must give
// the same answers. These tests compare them with those definitions on random strings over
// alphabets dense in the patterns' own words and characters. The Unicode characters that (?i)
// folds to ASCII letters (the long s and the Kelvin sign) and invalid UTF-8 are in the alphabet.

var testTokens = []string{
	"authorization", "Authorization", "AUTHORIZATION", "proxy-", "Proxy-", "cookie", "Cookie", "set-", "Set-",
	"bearer", "Bearer ", "basic ", "eyJ", "eyJhbGciOi", "ghp_", "gho_", "github_pat_", "xox", "xoxb-", "xapp-",
	"hooks.slack.com", "HOOKS.SLACK.COM", "/services/", "sk_live_", "sk_test_", "rk_live_", "whsec_", "AKIA", "ASIA",
	"secret_access_key", "SecretAccessKey", "secretaccesskey", "secret_accesskey", "aws_", "sk-ant-", "sk-", "sk-proj-",
	"AIza", "://", "https://", "u:pw@", "@", "PRIVATE KEY", "-----BEGIN RSA PRIVATE KEY-----", "-----END RSA PRIVATE KEY-----",
	"pass", "password", "Passwd", "pwd", "secret", "token", "Token", "max_tokens", "key", "api_key", "apiKey", "auth",
	"session", "credential", "sig", "jwt", "csrf", "xsrf", "x.y-z", ":", "=", "=>", " ", "  ", "\t", "\n", "\r", "\f",
	"\"", "'", "\\", "\\\"", "&", ",", ";", "<", ">", "(", ")", "[", "]", "{", "}", "a1B2c3D4e5F6g7H8", "hunter2",
	"ABCDEFGHIJKLMNOP0123", "abcdefghijklmnopqrstuvwxyz0123456789", "0", "9", "_", "-", ".", "/", "+", "~",
	"[REDACTED:jwt]", "x", "X", "\u017f", "\u212a", "\xff", "é",
}

func randomText(rng *rand.Rand, n int) string {
	var b strings.Builder
	for range 1 + rng.IntN(n) {
		b.WriteString(testTokens[rng.IntN(len(testTokens))])
	}
	return b.String()
}

// naiveCandidates is what candidates computes: the patterns that have one of their prefilters in
// s, and for which after, if set, holds after some occurrence of it.
func naiveCandidates(s string) uint64 {
	var lower strings.Builder
	for i := 0; i < len(s); i++ {
		lower.WriteByte(lowerTable[s[i]])
	}
	var set uint64
	for pi, p := range patterns {
		text := s
		if p.FoldCase {
			text = lower.String()
		}
		for _, f := range p.Prefilters {
			for i := 0; ; i++ {
				j := strings.Index(text[i:], f)
				if j < 0 {
					break
				}
				i += j
				if p.after == nil || p.after(s[i+len(f):]) {
					set |= 1 << pi
					break
				}
			}
		}
	}
	return set
}

func TestCandidatesMatchPrefilters(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	for range 30_000 {
		s := randomText(rng, 12)
		if got, want := prefilter.candidates(s), naiveCandidates(s); got != want {
			t.Fatalf("candidates(%q) = %b, want %b", s, got, want)
		}
	}
}

// Patterns with a finder must find exactly what their regexp finds.
func TestFindersMatchPatterns(t *testing.T) {
	t.Parallel()
	check := func(s string) {
		for i := range patterns {
			p := &patterns[i]
			if p.find == nil {
				continue
			}
			got, want := p.findAll(s), p.re.FindAllStringSubmatchIndex(s, -1)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s finds %v in %q, its regexp %v", p.Kind, got, s, want)
			}
		}
	}
	for _, s := range []string{
		"password=hunter2", `{"password": "x"}`, `{\"password\": \"x\"}`, "pass='x'token=y", "pass='x", "key: \n value",
		"a.b-password => 'q'", "token:", "token=", "passwordpassword=1", "Proxy-Authorization: Basic abc", "xauthorization: a",
		"authorization:authorization: b", "Set-Cookie: a=b", "set-set-cookie: a", "aws_secret_access_key=" + strings.Repeat("A", 20),
		"aws_aws_secret_accesskey: " + strings.Repeat("b", 16), "hooks.slack.com/services/T0/B0/X", "\u212aey=1", "pa\u017f\u017f=1",
		// More start words that lead nowhere than findAtStarts tries one by one.
		strings.Repeat("eyJ x ", 12) + "eyJabcd.efgh.ij eyJ1234.5678.9 eyJ",
		strings.Repeat("Bearer x ", 10) + "Bearer abcdefgh12345678 bearer q Bearer 0123456789abcdef",
		strings.Repeat("proxy-authorization ", 10) + "Proxy-Authorization: Basic abc authorization=x",
	} {
		check(s)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for range racetest.Rounds(30_000) {
		check(randomText(rng, 12))
	}
}

// sensitiveKeyReference is SensitiveKey as first written: normalize, then search for each stem in
// turn.
func sensitiveKeyReference(name string) bool {
	var b []byte
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c >= 'A' && c <= 'Z':
			b = append(b, c+'a'-'A')
		case c == '-' || c == '_' || c == '.' || c == ' ':
		default:
			b = append(b, c)
		}
	}
	n := string(b)
	if n == "" {
		return false
	}
	for _, w := range exactKeys {
		if n == w {
			return true
		}
	}
	if !containsAny(n, stemKeys) && !strings.HasSuffix(n, "auth") {
		return false
	}
	for _, w := range innocentKeys {
		if n == w {
			return false
		}
	}
	if strings.Contains(n, "tokens") {
		return false
	}
	for _, p := range innocentPrefixes {
		if strings.HasPrefix(n, p) {
			return false
		}
	}
	for _, s := range innocentSuffixes {
		if strings.HasSuffix(n, s) && n != s {
			return false
		}
	}
	return true
}

func TestSensitiveKeyMatchesReference(t *testing.T) {
	t.Parallel()
	words := append(append(append(append([]string{"-", "_", ".", " ", "X", "é", "Api", "Key", "TOKEN", "x"},
		stemKeys...), exactKeys...), innocentKeys...), append(innocentPrefixes, innocentSuffixes...)...)
	rng := rand.New(rand.NewPCG(5, 6))
	for range 50_000 {
		var b strings.Builder
		for range 1 + rng.IntN(4) {
			b.WriteString(words[rng.IntN(len(words))])
		}
		name := b.String()
		if got, want := SensitiveKey(name), sensitiveKeyReference(name); got != want {
			t.Fatalf("SensitiveKey(%q) = %v, want %v", name, got, want)
		}
	}
}
