package server

// certainlyValid reports whether a Classify or Explain request (the two have the same fields and
// rules) passes every protovalidate rule that classifier_service.proto and types.proto declare for
// it, checked by hand. It is the hot path's shortcut: protovalidate walks the message by
// reflection and allocates, which showed in CPU profiles of the service under `toolfailure bench`;
// BenchmarkValidateClassify compares the two. It only ever says yes when protovalidate would; on any doubt it says no,
// and protovalidate then judges the request and words the error, so callers see exactly the same
// answers. TestCertainlyValid holds it to protovalidate on thousands of requests at and around
// every limit, and fails when either message gains a field, so that a new rule cannot be missed
// here.
func certainlyValid(r classifyInput) bool {
	if tool := r.GetTool(); tool == "" || len(tool) > 256 {
		return false
	}
	if len(r.GetServer()) > 256 || len(r.GetIdempotencyKey()) > 256 || !traceparentShape(r.GetTraceparent()) {
		return false
	}
	e := r.GetError()
	if e == nil || len(e.Message) > 65536 || len(e.Type) > 256 || len(e.RetryAfter) > 128 {
		return false
	}
	if s := e.HttpStatus; s != nil && (*s < 100 || *s > 599) {
		return false
	}
	if c := e.GrpcCode; c != nil && (*c < 0 || *c > 16) {
		return false
	}
	// raw_error.not_empty
	if e.Message == "" && e.Type == "" && e.HttpStatus == nil && e.GrpcCode == nil && e.JsonrpcCode == nil &&
		e.RetryAfter == "" && e.Details == nil && len(e.Attributes) == 0 {
		return false
	}
	if len(e.Attributes) > 64 {
		return false
	}
	for k, v := range e.Attributes {
		if k == "" || len(k) > 256 || len(v) > 4096 {
			return false
		}
	}
	return true
}

// traceparentShape is the traceparent field's pattern,
// ^([0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2})?$, without a regular expression.
func traceparentShape(s string) bool {
	if s == "" {
		return true
	}
	if len(s) != 55 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch i {
		case 2, 35, 52:
			if c != '-' {
				return false
			}
		default:
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
				return false
			}
		}
	}
	return true
}
