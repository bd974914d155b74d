package server

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/structpb"

	v1 "github.com/omcp/toolfailure/gen/toolfailure/v1"
	"github.com/omcp/toolfailure/internal/redact"
)

// referenceErrorJSON is what redactedError must store, built field by field: each field of the
// request redacted as the record's fields are, details as decoded JSON.
func referenceErrorJSON(t testing.TB, e *v1.RawError) []byte {
	t.Helper()
	r := &v1.RawError{
		Message: redact.String(e.GetMessage()), Type: redact.String(e.GetType()),
		HttpStatus: e.HttpStatus, GrpcCode: e.GrpcCode, JsonrpcCode: e.JsonrpcCode, RetryAfter: redact.String(e.GetRetryAfter()),
	}
	if len(e.GetAttributes()) > 0 {
		r.Attributes = redact.Map(e.GetAttributes())
	}
	if d := e.GetDetails(); d != nil {
		v, err := structpb.NewValue(redact.Value(d.AsInterface()))
		if err != nil {
			t.Fatal(err)
		}
		r.Details = v
	}
	b, err := protojson.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func sameJSON(t *testing.T, got, want []byte) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, got)
	}
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestRedactedErrorJSON(t *testing.T) {
	i32 := func(v int32) *int32 { return &v }
	details := func(v any) *structpb.Value {
		s, err := structpb.NewValue(v)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	cases := []*v1.RawError{
		{},
		{Message: "upstream returned 503 Service Unavailable", HttpStatus: i32(503), RetryAfter: "30"},
		{Message: "tab\there \"quoted\" back\\slash\nnew line \x01 ctl <html> & ünïcödé \u2028 😀", Type: "ValueError"},
		{Message: "Read timed out (api_key=sk_live_51HxYzABCDEF0123456789)", GrpcCode: i32(0), JsonrpcCode: i32(-32602)},
		{Message: "m", Attributes: map[string]string{"z": "last", "a": "first", "authorization": "Bearer abc.def.ghi",
			"empty_token": "", "db.response.status_code": "40001", "url": "https://user:hunter2@example.com/x"}},
		{Message: "details", Details: details(map[string]any{
			"password": "hunter2", "token": 12345.0, "secret": map[string]any{"x": 1.0}, "api_key": []any{"a"},
			"access_token": true, "client_secret": nil, "refresh_token": "",
			"nested":     map[string]any{"list": []any{"sk_live_51HxYzABCDEF0123456789", 1.5, false, nil, map[string]any{"Cookie": "a=b"}}},
			"numbers":    []any{0.0, -0.0, 1e-7, 1e-6, 123456789.0, 1e20, 1e21, -3.25e300, 5e-324, 503.0},
			"max_tokens": 4096.0, "structuredContent": map[string]any{"reason_code": "explicit_production_confirmation_required"},
		})},
		{Message: "list details", Details: details([]any{"a", 2.0, map[string]any{}})},
		{Message: "null details", Details: structpb.NewNullValue()},
		{Message: "string details", Details: structpb.NewStringValue("Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.abc")},
	}
	for _, e := range cases {
		got, _, _, err := redactedError(e, decodedDetails(e))
		if err != nil {
			t.Fatalf("%v: %v", e, err)
		}
		sameJSON(t, got, referenceErrorJSON(t, e))
	}

	// Random trees of every kind, with keys from both sides of the
	// sensitive-key line.
	rng := rand.New(rand.NewPCG(1, 2))
	keys := []string{"a", "password", "token", "max_tokens", "Authorization", "note", "x-api-key", "ok", "session_id"}
	strs := []string{"", "plain", "sk_live_51HxYzABCDEF0123456789", "ghp_0123456789abcdefghijABCDEFGHIJ012345", "é\"\\\n", "postgres://u:pw@h/db"}
	numbers := func() float64 { return math.Round(rng.NormFloat64()*1e6) / 1e3 }
	for range 500 {
		e := &v1.RawError{Message: strs[rng.IntN(len(strs))], Details: details(randomTree(rng, keys, strs, numbers, 3))}
		got, _, _, err := redactedError(e, decodedDetails(e))
		if err != nil {
			t.Fatal(err)
		}
		sameJSON(t, got, referenceErrorJSON(t, e))
	}
}

// BenchmarkCheckDetails compares measuring the details, as checkDetails does, with encoding them
// only to count their bytes.
func BenchmarkCheckDetails(b *testing.B) {
	v, err := structpb.NewValue(map[string]any{"error": map[string]any{"code": 503.0, "status": "UNAVAILABLE",
		"message": "The service is currently unavailable.", "details": []any{map[string]any{"reason": "BACKEND_DOWN", "retryDelay": "30s"}}}})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("measure", func(b *testing.B) {
		shape := jsonShape{limit: 32}
		for b.Loop() {
			if _, _, err := shape.measure(v, 0); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("protojson", func(b *testing.B) {
		for b.Loop() {
			if _, err := protojson.Marshal(v); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestJSONShape holds the size that checkDetails measures to the details as compact protojson, and
// the depth to the nesting, on random trees.
func TestJSONShape(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	keys := []string{"a", "note", "ok", "é", "quote\"d", "tab\tkey", ""}
	strs := []string{"", "plain", "é\"\\\n\r\t", "\x01\x1f ctl \b\f", "<html> & </html>", "\u2028 😀"}
	numbers := func() float64 {
		return []float64{0, -1.5, 1e-7, 1e21, 123456789, 5e-324, math.Round(rng.NormFloat64() * 1e6)}[rng.IntN(7)]
	}
	var nesting func(v *structpb.Value) int
	nesting = func(v *structpb.Value) int {
		deepest := 0
		switch k := v.GetKind().(type) {
		case *structpb.Value_StructValue:
			for _, f := range k.StructValue.GetFields() {
				deepest = max(deepest, 1+nesting(f))
			}
		case *structpb.Value_ListValue:
			for _, e := range k.ListValue.GetValues() {
				deepest = max(deepest, 1+nesting(e))
			}
		}
		return deepest
	}
	for range 2000 {
		v, err := structpb.NewValue(randomTree(rng, keys, strs, numbers, 6))
		if err != nil {
			t.Fatal(err)
		}
		encoded, err := protojson.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, encoded); err != nil {
			t.Fatal(err)
		}
		want := compact.Bytes()
		shape := jsonShape{limit: 100}
		size, deepest, err := shape.measure(v, 0)
		if err != nil || size != len(want) || deepest != nesting(v) {
			t.Fatalf("jsonShape = %d, depth %d, %v; want %d (%s), depth %d", size, deepest, err, len(want), want, nesting(v))
		}
		// Past the limit the walk stops, but still reports more than the limit.
		if n := nesting(v); n > 0 {
			shape := jsonShape{limit: n - 1}
			if _, d, _ := shape.measure(v, 0); d <= n-1 {
				t.Fatalf("limit %d: depth %d reported for nesting %d", n-1, d, n)
			}
		}
	}
	for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		shape := jsonShape{limit: 10}
		if _, _, err := shape.measure(structpb.NewNumberValue(f), 0); err == nil {
			t.Errorf("%v: no error", f)
		}
	}

}

// randomTree is a random JSON value, as structpb.NewValue takes it: null, booleans, numbers from
// numbers, strings from strs, and lists and objects (with keys from keys) nested up to depth
// levels.
func randomTree(rng *rand.Rand, keys, strs []string, numbers func() float64, depth int) any {
	switch n := rng.IntN(7); {
	case n == 0:
		return nil
	case n == 1:
		return rng.IntN(2) == 0
	case n == 2:
		return numbers()
	case n == 3 || depth == 0:
		return strs[rng.IntN(len(strs))]
	case n == 4:
		l := make([]any, rng.IntN(4))
		for i := range l {
			l[i] = randomTree(rng, keys, strs, numbers, depth-1)
		}
		return l
	default:
		m := map[string]any{}
		for range rng.IntN(5) {
			m[keys[rng.IntN(len(keys))]] = randomTree(rng, keys, strs, numbers, depth-1)
		}
		return m
	}
}

// decodedDetails is e's details as ClassifyInput decodes them.
func decodedDetails(e *v1.RawError) any {
	if d := e.GetDetails(); d != nil {
		return d.AsInterface()
	}
	return nil
}
