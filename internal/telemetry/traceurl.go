package telemetry

import (
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// TraceURLTemplate turns a trace ID into a link to the operator's trace
// viewer. The template is a URL with {trace_id} (and optionally {span_id})
// in it, for example
//
//	https://jaeger.example.com/trace/{trace_id}
//	https://grafana.example.com/explore?left={"queries":[{"query":"{trace_id}"}]}
//
// It is parsed once at start-up, so that a typo in the operator's setting
// fails there and not as a broken link in front of a support engineer.
// A nil *TraceURLTemplate expands to "" (no viewer configured).
type TraceURLTemplate struct {
	raw string
}

// ParseTraceURLTemplate checks an operator-set template. Empty means no
// viewer and returns nil without error.
func ParseTraceURLTemplate(s string) (*TraceURLTemplate, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	if !strings.Contains(s, "{trace_id}") {
		return nil, errors.New("trace URL template: no {trace_id} placeholder")
	}
	probe := strings.NewReplacer("{trace_id}", "0", "{span_id}", "0").Replace(s)
	u, err := url.Parse(probe)
	if err != nil {
		return nil, fmt.Errorf("trace URL template: %w", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		// Anything else (javascript:, data:) must never become a link.
		return nil, fmt.Errorf("trace URL template: scheme %q is not http or https", u.Scheme)
	}
	if u.Host == "" {
		return nil, errors.New("trace URL template: no host")
	}
	return &TraceURLTemplate{raw: s}, nil
}

// Expand returns the link for a trace, or "" when there is no template or
// no valid trace ID. IDs are checked to be hexadecimal of the W3C lengths,
// so nothing but hex digits is ever substituted into the URL; spanID is
// optional and an invalid one is left out.
func (t *TraceURLTemplate) Expand(traceID, spanID string) string {
	if t == nil || !isHexID(traceID, 32) {
		return ""
	}
	if !isHexID(spanID, 16) {
		spanID = ""
	}
	return strings.NewReplacer("{trace_id}", strings.ToLower(traceID), "{span_id}", strings.ToLower(spanID)).Replace(t.raw)
}

// String returns the template as configured.
func (t *TraceURLTemplate) String() string {
	if t == nil {
		return ""
	}
	return t.raw
}

func isHexID(s string, n int) bool {
	if len(s) != n {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil && strings.Trim(s, "0") != ""
}
