// Package serviceurl checks the toolfailure service's URL as its users
// write it, so that the Go middleware and the proxy refuse a mistake in the
// same words before the HTTP client turns it into a confusing error at the
// first failure.
package serviceurl

import (
	"fmt"
	"net/url"
	"strings"
)

// Check refuses what is not an http:// or https:// URL with a host:
// "127.0.0.1:8080" parses as a URL with the scheme "127.0.0.1", and
// "localhost:8080" as one with the scheme "localhost".
func Check(raw string) error {
	u, err := url.Parse(raw)
	switch {
	case !strings.Contains(raw, "://"):
		return fmt.Errorf("the toolfailure service URL %q does not start with http:// or https:// (try http://%s)", raw, raw)
	case err != nil:
		return fmt.Errorf("the toolfailure service URL %q is not a URL: %v", raw, err)
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Errorf("the toolfailure service URL %q does not start with http:// or https:// (try http://%s)", raw, raw)
	case u.Host == "":
		return fmt.Errorf("the toolfailure service URL %q names no host", raw)
	}
	return nil
}
