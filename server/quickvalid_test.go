package server

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"buf.build/go/protovalidate"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	v1 "github.com/omcp/toolfailure/gen/toolfailure/v1"
	"github.com/omcp/toolfailure/internal/racetest"
)

// TestCertainlyValid holds the hand-written check of Classify and Explain requests to
// protovalidate: on requests built from values at, just inside and just outside every declared
// limit, it must accept exactly what protovalidate accepts.
func TestCertainlyValid(t *testing.T) {
	t.Parallel()
	v, err := protovalidate.New()
	if err != nil {
		t.Fatal(err)
	}
	s := func(n int) string { return strings.Repeat("a", n) }
	i32 := func(n int32) *int32 { return &n }
	const tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	var (
		tools   = []string{"", "a", s(256), s(257), strings.Repeat("é", 128), strings.Repeat("é", 129), "send_email"}
		short   = []string{"", "x", s(256), s(257), strings.Repeat("ü", 128) + "x"}
		parents = []string{"", tp, strings.ToUpper(tp), tp[:54], tp + "0", strings.Replace(tp, "-", "_", 1),
			tp[:35] + "x" + tp[36:], "ff" + tp[2:], tp[:52] + "-0g", " " + tp[1:]}
		messages = []string{"", "upstream returned 503", s(65536), s(65537)}
		types    = []string{"", "ECONNRESET", s(256), s(257)}
		afters   = []string{"", "30", s(128), s(129)}
		https    = []*int32{nil, i32(99), i32(100), i32(503), i32(599), i32(600), i32(-1)}
		grpcs    = []*int32{nil, i32(-1), i32(0), i32(14), i32(16), i32(17)}
		jsonrpcs = []*int32{nil, i32(-32602), i32(0)}
		details  = []*structpb.Value{nil, structpb.NewNullValue(), structpb.NewStringValue("x"),
			structpb.NewStructValue(&structpb.Struct{Fields: map[string]*structpb.Value{"k": structpb.NewBoolValue(true)}})}
		annots = []*v1.ToolAnnotations{nil, {}, {IdempotentHint: new(bool)}}
		times  = []*timestamppb.Timestamp{nil, {Seconds: 1}, {Seconds: -1 << 40, Nanos: 2e9}}
	)
	attrs := func(r *rand.Rand) map[string]string {
		switch r.IntN(20) {
		case 0:
			return nil
		case 1:
			return map[string]string{"": "x"}
		case 2:
			return map[string]string{s(256): s(4096)}
		case 3:
			return map[string]string{s(257): "x"}
		case 4:
			return map[string]string{"k": s(4097)}
		case 5, 6:
			m := map[string]string{}
			for i := range 64 + r.IntN(2) { // 64 or 65 pairs
				m[s(i+1)] = "v"
			}
			return m
		default:
			return map[string]string{"db.response.status_code": "40001"}
		}
	}
	// Each field keeps an ordinary value (the one at index ok) most of the time, so that about
	// half of the requests pass and both answers are checked.
	pick := func(r *rand.Rand, n, ok int) int {
		if r.IntN(100) < 90 {
			return ok
		}
		return r.IntN(n)
	}
	r := rand.New(rand.NewPCG(1, 2))
	accepted, n := 0, racetest.Rounds(20000)
	for i := range n {
		e := &v1.RawError{
			Message: messages[pick(r, len(messages), 1)], Type: types[pick(r, len(types), 0)],
			RetryAfter: afters[pick(r, len(afters), 0)], HttpStatus: https[pick(r, len(https), 0)],
			GrpcCode: grpcs[pick(r, len(grpcs), 0)], JsonrpcCode: jsonrpcs[pick(r, len(jsonrpcs), 0)],
			Details: details[pick(r, len(details), 0)], Attributes: attrs(r),
		}
		if r.IntN(10) == 0 { // an error with nothing in it, for raw_error.not_empty
			e = &v1.RawError{}
		}
		if r.IntN(50) == 0 {
			e = nil
		}
		c := &v1.ClassifyRequest{
			Tool: tools[pick(r, len(tools), 6)], Server: short[pick(r, len(short), 0)], Error: e,
			ToolAnnotations: annots[pick(r, len(annots), 0)], IdempotencyKey: short[pick(r, len(short), 0)],
			Traceparent: parents[pick(r, len(parents), 0)], OccurredAt: times[pick(r, len(times), 0)],
		}
		x := &v1.ExplainRequest{Tool: c.Tool, Server: c.Server, Error: c.Error, ToolAnnotations: c.ToolAnnotations,
			IdempotencyKey: c.IdempotencyKey, Traceparent: c.Traceparent, OccurredAt: c.OccurredAt}
		want := v.Validate(c) == nil
		if got := certainlyValid(c); got != want {
			t.Fatalf("case %d: certainlyValid = %v, protovalidate accepts = %v, for %v", i, got, want, c)
		}
		if got, wantX := certainlyValid(x), v.Validate(x) == nil; got != wantX {
			t.Fatalf("case %d: Explain: certainlyValid = %v, protovalidate accepts = %v", i, got, wantX)
		}
		if want {
			accepted++
		}
	}
	t.Logf("%d of %d requests valid", accepted, n)
	if accepted < n/4 {
		t.Fatalf("only %d of %d requests were valid: the cases no longer reach the accepting side", accepted, n)
	}

	// A new field may come with a rule that certainlyValid does not know: make adding one fail here.
	fields := func(md protoreflect.MessageDescriptor) []string {
		var names []string
		for i := range md.Fields().Len() {
			names = append(names, string(md.Fields().Get(i).Name()))
		}
		slices.Sort(names)
		return names
	}
	request := []string{"error", "idempotency_key", "occurred_at", "server", "tool", "tool_annotations", "traceparent"}
	for _, md := range []protoreflect.MessageDescriptor{(&v1.ClassifyRequest{}).ProtoReflect().Descriptor(), (&v1.ExplainRequest{}).ProtoReflect().Descriptor()} {
		if got := fields(md); !slices.Equal(got, request) {
			t.Errorf("%s has fields %v; certainlyValid knows %v: check its rules there", md.FullName(), got, request)
		}
	}
	rawError := []string{"attributes", "details", "grpc_code", "http_status", "jsonrpc_code", "message", "retry_after", "type"}
	if got := fields((&v1.RawError{}).ProtoReflect().Descriptor()); !slices.Equal(got, rawError) {
		t.Errorf("RawError has fields %v; certainlyValid knows %v: check its rules there", got, rawError)
	}
}

// BenchmarkValidateClassify compares the two checks on a typical request.
func BenchmarkValidateClassify(b *testing.B) {
	v, err := protovalidate.New()
	if err != nil {
		b.Fatal(err)
	}
	status := int32(503)
	req := &v1.ClassifyRequest{Tool: "send_email", Server: "mail-mcp",
		Error: &v1.RawError{Message: "upstream returned 503 Service Unavailable", HttpStatus: &status, RetryAfter: "30",
			Attributes: map[string]string{"http.request.method": "POST"}},
		Traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}
	b.Run("protovalidate", func(b *testing.B) {
		for b.Loop() {
			if err := v.Validate(req); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("certainlyValid", func(b *testing.B) {
		for b.Loop() {
			if !certainlyValid(req) {
				b.Fatal("refused")
			}
		}
	})
}
