package server

import (
	"fmt"

	"buf.build/gen/go/bufbuild/protovalidate/protocolbuffers/go/buf/validate"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	v1 "github.com/omcp/toolfailure/gen/toolfailure/v1"
)

// certainlyValid reports whether a Classify or Explain request (the two have the same fields and
// rules) passes every protovalidate rule that classifier_service.proto and types.proto declare for
// it, checked by hand. It is the hot path's shortcut: protovalidate walks the message by
// reflection and allocates, which showed in CPU profiles of the service under `toolfailure bench`;
// BenchmarkValidateClassify compares the two. It only ever says yes when protovalidate would; on any doubt it says no,
// and protovalidate then judges the request and words the error, so callers see exactly the same
// answers. Its limits are read from the .proto's own rules (quickLimits), not written twice.
// TestCertainlyValid holds it to protovalidate on thousands of requests at and around every
// limit, and fails when either message gains a field, so that a new rule cannot be missed here.
func certainlyValid(r classifyInput) bool {
	l := &quick
	if tool := r.GetTool(); uint64(len(tool)) < l.toolMin || uint64(len(tool)) > l.tool {
		return false
	}
	if uint64(len(r.GetServer())) > l.server || uint64(len(r.GetIdempotencyKey())) > l.idempotencyKey || !traceparentShape(r.GetTraceparent()) {
		return false
	}
	e := r.GetError()
	if e == nil || uint64(len(e.Message)) > l.message || uint64(len(e.Type)) > l.typ || uint64(len(e.RetryAfter)) > l.retryAfter {
		return false
	}
	if s := e.HttpStatus; s != nil && (*s < l.httpMin || *s > l.httpMax) {
		return false
	}
	if c := e.GrpcCode; c != nil && (*c < l.grpcMin || *c > l.grpcMax) {
		return false
	}
	// raw_error.not_empty
	if e.Message == "" && e.Type == "" && e.HttpStatus == nil && e.GrpcCode == nil && e.JsonrpcCode == nil &&
		e.RetryAfter == "" && e.Details == nil && len(e.Attributes) == 0 {
		return false
	}
	if uint64(len(e.Attributes)) > l.attrPairs {
		return false
	}
	for k, v := range e.Attributes {
		if uint64(len(k)) < l.attrKeyMin || uint64(len(k)) > l.attrKey || uint64(len(v)) > l.attrValue {
			return false
		}
	}
	return true
}

// quickLimits are the limits certainlyValid checks, as the .proto declares them.
type quickLimits struct {
	toolMin, tool, server, idempotencyKey     uint64
	message, typ, retryAfter                  uint64
	httpMin, httpMax, grpcMin, grpcMax        int32
	attrPairs, attrKeyMin, attrKey, attrValue uint64
}

var quick = mustQuickLimits()

// mustQuickLimits reads quickLimits from the buf.validate options of ClassifyRequest and
// RawError. A rule that is not there (a limit removed or renamed in the .proto) panics at start,
// which TestCertainlyValid also runs into: the shortcut must not guess.
func mustQuickLimits() quickLimits {
	req := (&v1.ClassifyRequest{}).ProtoReflect().Descriptor().Fields()
	raw := (&v1.RawError{}).ProtoReflect().Descriptor().Fields()
	rules := func(fields protoreflect.FieldDescriptors, name string) *validate.FieldRules {
		f := fields.ByName(protoreflect.Name(name))
		if f == nil {
			panic(fmt.Sprintf("certainlyValid: no field %s", name))
		}
		r, _ := proto.GetExtension(f.Options(), validate.E_Field).(*validate.FieldRules)
		if r == nil {
			panic(fmt.Sprintf("certainlyValid: field %s has no buf.validate rules", name))
		}
		return r
	}
	maxBytes := func(r *validate.FieldRules, field string) uint64 {
		s := r.GetString_()
		if s == nil || !s.HasMaxBytes() {
			panic(fmt.Sprintf("certainlyValid: %s has no string.max_bytes", field))
		}
		return s.GetMaxBytes()
	}
	tool := rules(req, "tool")
	attrs := rules(raw, "attributes").GetMap()
	http, grpc := rules(raw, "http_status").GetInt32(), rules(raw, "grpc_code").GetInt32()
	if attrs == nil || http == nil || grpc == nil || !http.HasGte() || !http.HasLte() || !grpc.HasGte() || !grpc.HasLte() {
		panic("certainlyValid: the attributes, http_status or grpc_code rules are not the ones it reads")
	}
	return quickLimits{
		toolMin: tool.GetString_().GetMinLen(), tool: maxBytes(tool, "tool"),
		server: maxBytes(rules(req, "server"), "server"), idempotencyKey: maxBytes(rules(req, "idempotency_key"), "idempotency_key"),
		message: maxBytes(rules(raw, "message"), "message"), typ: maxBytes(rules(raw, "type"), "type"),
		retryAfter: maxBytes(rules(raw, "retry_after"), "retry_after"),
		httpMin:    http.GetGte(), httpMax: http.GetLte(), grpcMin: grpc.GetGte(), grpcMax: grpc.GetLte(),
		attrPairs: attrs.GetMaxPairs(), attrKeyMin: attrs.GetKeys().GetString_().GetMinLen(),
		attrKey: maxBytes(attrs.GetKeys(), "attributes' keys"), attrValue: maxBytes(attrs.GetValues(), "attributes' values"),
	}
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
