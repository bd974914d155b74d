package server

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"connectrpc.com/connect/v2"
	"connectrpc.com/connect/v2/connectproto"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/structpb"

	v1 "github.com/omcp/toolfailure/gen/toolfailure/v1"
	"github.com/omcp/toolfailure/internal/racetest"
)

var testBodyLimits = newBodyLimits(Limits{}.withDefaults())

// emptyObjects is a Classify body whose details are [{},{},…], size bytes in all.
func emptyObjects(size int) []byte {
	const head, tail = `{"tool":"t","error":{"details":[`, `{}]}}`
	n := (size - len(head) - len(tail)) / 3
	return []byte(head + strings.Repeat("{},", n) + tail)
}

func strictDecode(t *testing.T, body []byte) (*v1.ClassifyRequest, error) {
	t.Helper()
	req := &v1.ClassifyRequest{}
	return req, protojson.UnmarshalOptions{}.Unmarshal(body, req)
}

// TestLimitJSON: the read-time pass over a JSON body refuses details that are certainly too
// large or too deep without decoding them, cuts attributes down to one pair over the limit, and
// leaves everything else alone.
func TestLimitJSON(t *testing.T) {
	t.Parallel()
	lim := testBodyLimits
	deep := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	for _, tc := range []struct {
		name, body string
		refused    *structpb.Value // nil: nothing refused
	}{
		{"small", `{"tool":"t","error":{"message":"x","details":{"a":[1,2,{"b":null}]}}}`, nil},
		{"1 MiB of empty objects", string(emptyObjects(1 << 20)), detailsTooLarge},
		{"33 levels", `{"tool":"t","error":{"details":` + deep(34) + `}}`, detailsTooDeep},
		{"32 levels", `{"tool":"t","error":{"details":` + deep(33) + `}}`, nil},
		{"20000 levels", `{"tool":"t","error":{"details":` + deep(20000) + `}}`, detailsTooDeep},
		{"details after other fields, spaced", "{ \"tool\" : \"t\" ,\n \"error\" : { \"message\" : \"m\" , \"details\" : [ " +
			strings.Repeat("{ } ,\n", 100000) + "{ } ] , \"type\" : \"X\" } , \"server\" : \"s\" }", detailsTooLarge},
		{"key with an escape", `{"tool":"t","error":{"d\u0065tails":` + deep(40) + `}}`, detailsTooDeep},
		// 300,000 bytes of escapes that decode to 50,000 bytes: not certainly too large.
		{"escapes", `{"tool":"t","error":{"details":"` + strings.Repeat(`\u0041`, 50000) + `"}}`, nil},
		{"details elsewhere", `{"tool":"t","server":"s","idempotencyKey":"k","error":{"message":"details"}}`, nil},
	} {
		out, refused, err := limitJSON([]byte(tc.body), lim)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if refused != tc.refused {
			t.Errorf("%s: refused %p, want %p", tc.name, refused, tc.refused)
		}
		if tc.refused == nil && !bytes.Equal(out, []byte(tc.body)) {
			t.Errorf("%s: body changed", tc.name)
		}
		if tc.refused != nil {
			req, err := strictDecode(t, out)
			if err != nil || len(out) > 200 {
				t.Errorf("%s: what is decoded (%d bytes): %v", tc.name, len(out), err)
			} else if req.GetError().GetDetails() == nil {
				t.Errorf("%s: details gone", tc.name)
			}
		}
	}

	// Details already over a limit, in a body that turns out not to be JSON: refused at once
	// (protojson would refuse the body, but only after decoding the details).
	for name, body := range map[string]string{
		"broken inside": `{"tool":"t","error":{"details":[` + strings.Repeat("{},", 100000) + `{]}}`,
		"broken after":  `{"tool":"t","error":{"details":[` + strings.Repeat("{},", 100000) + `{}],"message":tru}}`,
		"unterminated":  `{"tool":"t","error":{"details":` + strings.Repeat("[", 40),
	} {
		if _, _, err := limitJSON([]byte(body), lim); err == nil || !strings.Contains(err.Error(), "error.details") {
			t.Errorf("%s: %v, want error.details refused", name, err)
		}
	}

	// Attributes: cut after one pair more than the limit, which protovalidate then refuses.
	var b strings.Builder
	b.WriteString(`{"tool":"t","error":{"attributes":{`)
	for i := range 100000 {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `"k%d":"v"`, i)
	}
	b.WriteString(`},"message":"m"}}`)
	out, refused, err := limitJSON([]byte(b.String()), lim)
	if err != nil || refused != nil {
		t.Fatalf("attributes: %v, %v", refused, err)
	}
	req, err := strictDecode(t, out)
	if err != nil || len(req.GetError().GetAttributes()) != lim.attrPairs+1 || req.GetError().GetMessage() != "m" {
		t.Fatalf("attributes: %d decoded, %v", len(req.GetError().GetAttributes()), err)
	}
}

// TestLimitJSONAgreesWithCheckDetails: on random valid bodies, near the limits and spaced and
// escaped in every way JSON allows, the read-time pass refuses only what checkDetails refuses
// once the body is decoded, with the same answer; and what it lets through is the body as sent.
func TestLimitJSONAgreesWithCheckDetails(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(31, 4))
	refusedBoth, n := 0, racetest.Rounds(20000)
	for i := range n {
		limits := Limits{MaxDetailsBytes: 20 + rng.IntN(300), MaxDetailsDepth: 1 + rng.IntN(5)}.withDefaults()
		svc := &classifierService{cfg: Config{Limits: limits}}
		details := randomJSON(rng, 0, 3+rng.IntN(5))
		body := `{"tool":"t",` + ws(rng) + `"error":` + ws(rng) + `{"message":"m",` + ws(rng) + `"details":` + ws(rng) + details + ws(rng) + `}}`
		req, err := strictDecode(t, []byte(body))
		if err != nil {
			t.Fatalf("case %d: generated body is not valid: %v\n%s", i, err, body)
		}
		want := svc.checkDetails(req.GetError().GetDetails())

		out, refused, err := limitJSON([]byte(body), newBodyLimits(limits))
		if err != nil {
			t.Fatalf("case %d: %v\n%s", i, err, body)
		}
		if refused == nil {
			if !bytes.Equal(out, []byte(body)) {
				t.Fatalf("case %d: body changed", i)
			}
			continue
		}
		got := svc.checkDetails(refused)
		if want == nil || connect.CodeOf(want) != connect.CodeOf(got) || want.Error() != got.Error() {
			t.Fatalf("case %d: read-time answer %v, decoded answer %v\n%s", i, got, want, details)
		}
		refusedBoth++
	}
	if refusedBoth < n/20 {
		t.Fatalf("only %d of %d cases were refused while reading: the generator misses the limits", refusedBoth, n)
	}
}

// ws is JSON whitespace, often none.
func ws(rng *rand.Rand) string {
	return [...]string{"", "", "", " ", "\n\t", "  \r\n"}[rng.IntN(6)]
}

func randomJSON(rng *rand.Rand, depth, maxDepth int) string {
	k := rng.IntN(10)
	if depth >= maxDepth {
		k = rng.IntN(5)
	}
	switch k {
	case 0:
		return [...]string{"true", "false", "null"}[rng.IntN(3)]
	case 1, 2:
		return [...]string{"0", "-1", "1.5e3", "100000000000000000000", "0.000001", "12345", "-0.0", "1E-2"}[rng.IntN(8)]
	case 3, 4:
		return randomJSONString(rng)
	case 5, 6, 7:
		n := rng.IntN(6)
		parts := make([]string, n)
		for j := range parts {
			parts[j] = ws(rng) + randomJSON(rng, depth+1, maxDepth) + ws(rng)
		}
		return "[" + strings.Join(parts, ",") + "]"
	default:
		n := rng.IntN(5)
		parts := make([]string, n)
		for j := range parts {
			parts[j] = ws(rng) + fmt.Sprintf(`"k%d%s"`, j, [...]string{"", `\n`, `\u00e9`, "é", `\"`}[rng.IntN(5)]) + ws(rng) + ":" + ws(rng) + randomJSON(rng, depth+1, maxDepth) + ws(rng)
		}
		return "{" + strings.Join(parts, ",") + "}"
	}
}

func randomJSONString(rng *rand.Rand) string {
	var b strings.Builder
	b.WriteByte('"')
	for range rng.IntN(12) {
		b.WriteString([...]string{"a", "b", " ", `\n`, `\"`, `\\`, `\/`, `\u0041`, `\u00e9`, `\ud83d\ude00`, "é", "😀", "<", `\u001f`}[rng.IntN(14)])
	}
	b.WriteByte('"')
	return b.String()
}

// TestLimitBinary: the walk over the binary encoding refuses details with more values than the
// JSON limit leaves room for, or nested too deep, and attributes over the limit, before decoding;
// a request within the limits passes, and a canonical encoding it refuses is refused by
// checkDetails too.
func TestLimitBinary(t *testing.T) {
	t.Parallel()
	lim := testBodyLimits
	marshal := func(details *structpb.Value, attrs map[string]string) []byte {
		b, err := proto.Marshal(&v1.ClassifyRequest{Tool: "t", Error: &v1.RawError{Message: "m", Details: details, Attributes: attrs}})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	empties := make([]*structpb.Value, 262000)
	for i := range empties {
		empties[i] = structpb.NewStructValue(&structpb.Struct{})
	}
	nest := func(n int) *structpb.Value {
		v := structpb.NewNullValue()
		for range n {
			v = structpb.NewListValue(&structpb.ListValue{Values: []*structpb.Value{v}})
		}
		return v
	}
	attrs := map[string]string{}
	for i := range 100 {
		attrs[fmt.Sprint(i)] = "v"
	}
	small, _ := structpb.NewValue(map[string]any{"a": []any{1.0, "x", nil, map[string]any{"b": true}}})
	svc := &classifierService{cfg: Config{Limits: Limits{}.withDefaults()}}
	for _, tc := range []struct {
		name    string
		body    []byte
		want    string // "" for none
		decoded *structpb.Value
	}{
		{"small", marshal(small, map[string]string{"k": "v"}), "", small},
		{"262,000 empty objects", marshal(structpb.NewListValue(&structpb.ListValue{Values: empties}), nil), "error.details: larger than", nil},
		{"33 levels", marshal(nest(33), nil), "error.details: nesting deeper than 32", nest(33)},
		{"32 levels", marshal(nest(32), nil), "", nest(32)},
		{"100 attributes", marshal(nil, attrs), "error.attributes: more than 64", nil},
	} {
		err := limitBinary(tc.body, lim)
		switch {
		case tc.want == "" && err != nil, tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
		if tc.decoded != nil && (err != nil) != (svc.checkDetails(tc.decoded) != nil) {
			t.Errorf("%s: walk says %v, checkDetails %v", tc.name, err, svc.checkDetails(tc.decoded))
		}
	}
}

// TestBodyLimitsFieldNumbers: ExplainRequest has error where ClassifyRequest has it, as the
// binary walk assumes.
func TestBodyLimitsFieldNumbers(t *testing.T) {
	t.Parallel()
	explain := (&v1.ExplainRequest{}).ProtoReflect().Descriptor().Fields().ByName("error")
	if explain == nil || explain.Number() != errorField || explain.Message().FullName() != "toolfailure.v1.RawError" {
		t.Fatal("ExplainRequest.error is not ClassifyRequest.error")
	}
	if f := (&structpb.Struct{}).ProtoReflect().Descriptor().Fields().ByName("fields"); f.MapValue().Number() != mapValueField {
		t.Fatal("map value field number")
	}
	var _ protoreflect.FieldNumber = mapValueField
}

// TestLimitedCodecs: through the codecs, a refused body decodes to a request that checkDetails
// refuses, and other messages are untouched.
func TestLimitedCodecs(t *testing.T) {
	t.Parallel()
	strict := connectproto.NewJSONCodec()
	strict.UnmarshalOptions.DiscardUnknown = false
	codec := limitedJSONCodec{strict, testBodyLimits}
	req := &v1.ExplainRequest{}
	if err := codec.UnmarshalRead(t.Context(), bytes.NewBuffer(emptyObjects(1<<20)), req); err != nil {
		t.Fatal(err)
	}
	if req.GetError().GetDetails() != detailsTooLarge || req.GetTool() != "t" {
		t.Fatalf("decoded %v", req)
	}
	if err := codec.UnmarshalRead(t.Context(), bytes.NewBufferString(`{"unknown":1}`), &v1.ClassifyRequest{}); err == nil {
		t.Fatal("unknown field accepted")
	}
	if err := codec.UnmarshalRead(t.Context(), bytes.NewBufferString(""), &v1.ClassifyRequest{}); err == nil {
		t.Fatal("empty body accepted")
	}
	other := &v1.GetFailureRequest{}
	if err := codec.UnmarshalRead(t.Context(), bytes.NewBufferString(`{"correlationId":"x"}`), other); err != nil || other.GetCorrelationId() != "x" {
		t.Fatalf("GetFailure: %v %v", other, err)
	}
}
