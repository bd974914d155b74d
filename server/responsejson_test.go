package server

import (
	"bytes"
	"context"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect/v2/connectproto"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	v1 "github.com/omcp/toolfailure/gen/toolfailure/v1"
	"github.com/omcp/toolfailure/store"
)

// The range of google.protobuf.Timestamp: 0001-01-01T00:00:00Z to 9999-12-31T23:59:59Z.
const (
	minTimestamp = -62135596800
	maxTimestamp = 253402300799
)

// sampleResponses are ClassifyResponses as the service builds them, across the classes, with
// and without a retry time (at each precision protojson writes) and guidance, with text that
// needs escaping, plus random ones.
func sampleResponses(t *testing.T) []*v1.ClassifyResponse {
	t.Helper()
	base := time.Date(2026, 12, 1, 10, 30, 0, 0, time.UTC)
	var out []*v1.ClassifyResponse
	add := func(f store.Failure) {
		r, err := classifyResponse(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	for i, class := range []string{"capability", "reliability", "governance"} {
		for j, rnb := range []time.Time{{}, base, base.Add(123 * time.Millisecond), base.Add(123456 * time.Microsecond), base.Add(123456789)} {
			add(store.Failure{
				ID: [16]byte{byte(i), byte(j), 3, 4}, Class: class, Code: "code_" + class, Retryable: class == "reliability" && j%2 == 0,
				RetryNotBefore: rnb, AgentGuidance: []string{"", "Wait, then retry \"send\" with the same arguments.\n", "Ask the user <b>now</b> — ça va? 日本語 \u2028 \x01 \\"}[j%3],
				RuleID: []string{"baseline/http-503", "", "tenant rule ✓"}[j%3],
			})
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []rune("ab\"\\\n\t\x00\x1f/<>&é€😀\u2028\u2029 ")
	text := func() string {
		var sb strings.Builder
		for range rng.IntN(12) {
			sb.WriteRune(alphabet[rng.IntN(len(alphabet))])
		}
		return sb.String()
	}
	for range 200 {
		r := &v1.ClassifyResponse{RuleId: text()}
		if rng.IntN(5) > 0 {
			r.ToolFailure = &v1.ToolFailure{Class: v1.Class(rng.IntN(5)), Code: text(), Retryable: rng.IntN(2) == 0,
				CorrelationId: text(), AgentGuidance: text()}
			if rng.IntN(2) == 0 {
				r.ToolFailure.RetryNotBefore = &timestamppb.Timestamp{Seconds: rng.Int64N(maxTimestamp-minTimestamp) + minTimestamp, Nanos: int32(rng.IntN(1e9))}
			}
		}
		if rng.IntN(5) > 0 {
			m, err := structpb.NewStruct(map[string]any{text(): map[string]any{
				text(): text(), "n": rng.Float64() * math.Pow(10, float64(rng.IntN(50)-25)), "b": rng.IntN(2) == 0,
				"l": []any{text(), nil, -1.5, map[string]any{}}, "z": nil,
			}})
			if err != nil {
				t.Fatal(err)
			}
			r.Meta = m
		}
		out = append(out, r)
	}
	return out
}

func TestClassifyResponseJSON(t *testing.T) {
	t.Parallel()
	for i, r := range sampleResponses(t) {
		got, ok := appendClassifyResponse(nil, r)
		if !ok {
			t.Fatalf("response %d: the direct path gave up on %v", i, r)
		}
		want, err := protojson.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		sameJSON(t, got, want)
		back := new(v1.ClassifyResponse)
		if err := protojson.Unmarshal(got, back); err != nil {
			t.Fatalf("response %d: protojson cannot read %s: %v", i, got, err)
		}
		if !proto.Equal(back, r) {
			t.Errorf("response %d: read back as %v, want %v", i, back, r)
		}
	}
}

// TestClassifyResponseJSONFallsBack checks that what protojson refuses to write goes to
// protojson, which then reports it, instead of being written differently.
func TestClassifyResponseJSONFallsBack(t *testing.T) {
	t.Parallel()
	codec := jsonCodec{connectproto.NewJSONCodec()}
	badMeta, _ := structpb.NewStruct(map[string]any{"k": "ok"})
	badMeta.Fields["k"] = structpb.NewNumberValue(math.NaN())
	badKey := &structpb.Struct{Fields: map[string]*structpb.Value{"\xff": structpb.NewNullValue()}}
	for name, r := range map[string]*v1.ClassifyResponse{
		"rule id not UTF-8":  {RuleId: "a\xffb"},
		"guidance not UTF-8": {ToolFailure: &v1.ToolFailure{AgentGuidance: "\xc3("}},
		"time out of range":  {ToolFailure: &v1.ToolFailure{RetryNotBefore: &timestamppb.Timestamp{Seconds: maxTimestamp + 1}}},
		"nanos out of range": {ToolFailure: &v1.ToolFailure{RetryNotBefore: &timestamppb.Timestamp{Nanos: 1e9}}},
		"meta NaN":           {Meta: badMeta},
		"meta key not UTF-8": {Meta: badKey},
	} {
		if _, ok := appendClassifyResponse(nil, r); ok {
			t.Errorf("%s: written by the direct path", name)
		}
		_, want := protojson.Marshal(r)
		if want == nil {
			t.Fatalf("%s: protojson writes it", name)
		}
		if err := codec.MarshalWrite(context.Background(), new(bytes.Buffer), r); err == nil {
			t.Errorf("%s: the codec wrote it without an error", name)
		}
	}
}

// BenchmarkClassifyResponseJSON compares writing a ClassifyResponse with protojson and
// directly.
func BenchmarkClassifyResponseJSON(b *testing.B) {
	r, err := classifyResponse(store.Failure{ID: [16]byte{1, 2, 3}, Class: "reliability", Code: "retryable_transient_error", Retryable: true,
		RetryNotBefore: time.Date(2026, 12, 1, 10, 30, 0, 0, time.UTC), AgentGuidance: "Wait 30 s, then retry the same call.", RuleID: "baseline/http-503"})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	var buf bytes.Buffer
	for name, codec := range map[string]interface {
		MarshalWrite(context.Context, io.Writer, any) error
	}{"protojson": connectproto.NewJSONCodec(), "direct": jsonCodec{connectproto.NewJSONCodec()}} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				buf.Reset()
				if err := codec.MarshalWrite(ctx, &buf, r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestClassifyResponseJSONKnowsEveryField fails when a field is added to ClassifyResponse or
// ToolFailure in the .proto: the direct path would leave it out of the JSON until it is taught the
// field (and sampleResponses fills it).
func TestClassifyResponseJSONKnowsEveryField(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		msg   proto.Message
		known []string
	}{
		{&v1.ClassifyResponse{}, []string{"toolFailure", "meta", "ruleId"}},
		{&v1.ToolFailure{}, []string{"class", "code", "retryable", "retryNotBefore", "correlationId", "agentGuidance"}},
	} {
		fields := c.msg.ProtoReflect().Descriptor().Fields()
		var names []string
		for i := range fields.Len() {
			names = append(names, fields.Get(i).JSONName())
		}
		if !slices.Equal(names, c.known) {
			t.Errorf("%T has the fields %v; appendClassifyResponse writes %v", c.msg, names, c.known)
		}
	}
}
