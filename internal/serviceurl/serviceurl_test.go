package serviceurl_test

import (
	"strings"
	"testing"

	"github.com/omcp/toolfailure/internal/serviceurl"
)

func TestCheck(t *testing.T) {
	t.Parallel()
	for raw, want := range map[string]string{
		"http://127.0.0.1:8080":  "",
		"https://tf.example.com": "",
		"127.0.0.1:8080":         "does not start with http:// or https:// (try http://127.0.0.1:8080)",
		"localhost:8080":         "does not start with http:// or https:// (try http://localhost:8080)",
		"ftp://tf.example.com":   "does not start with http:// or https://",
		"http://":                "names no host",
		"http://bad host/":       "is not a URL",
	} {
		err := serviceurl.Check(raw)
		switch {
		case want == "" && err != nil:
			t.Errorf("%q: %v", raw, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("%q: error %v, want one containing %q", raw, err, want)
		}
	}
}
