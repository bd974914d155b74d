package textmodel_test

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/omcp/toolfailure/internal/classify/textmodel"
)

var labels = []string{"capability/invalid_input", "reliability/retryable_transient_error", "governance/auth_required"}

func tiny(t *testing.T) []textmodel.Example {
	t.Helper()
	msgs := [][2]string{
		{"invalid value for field 'email'", "0"}, {"missing required parameter: name", "0"}, {"value must be a number", "0"},
		{"connection reset by peer", "1"}, {"request timed out after 30s", "1"}, {"service temporarily unavailable", "1"},
		{"invalid api key provided", "2"}, {"token expired, please log in again", "2"}, {"authentication required", "2"},
	}
	var ex []textmodel.Example
	for _, m := range msgs {
		ex = append(ex, textmodel.Example{Input: textmodel.Input{Message: m[0]}, Label: int(m[1][0] - '0')})
	}
	return ex
}

func train(t *testing.T) *textmodel.Model {
	t.Helper()
	opt := textmodel.DefaultTrainOptions
	opt.Bits = 12
	m, err := textmodel.Train(labels, tiny(t), opt)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func argmax(p *[textmodel.MaxLabels]float32, n int) int {
	best := 0
	for i := range n {
		if p[i] > p[best] {
			best = i
		}
	}
	return best
}

func TestTrainLearnsAndRoundTrips(t *testing.T) {
	t.Parallel()
	m := train(t)
	var p [textmodel.MaxLabels]float32
	for _, c := range []struct {
		msg  string
		want int
	}{
		{"Connection reset by peer (os error 104)", 1},
		{"Invalid API key", 2},
		{"missing required parameter: id", 0},
	} {
		n := m.Predict(&textmodel.Input{Message: c.msg}, &p)
		if got := argmax(&p, n); got != c.want {
			t.Errorf("%q: label %d (%v), want %d", c.msg, got, p[:n], c.want)
		}
		var sum float32
		for _, v := range p[:n] {
			sum += v
		}
		if sum < 0.999 || sum > 1.001 {
			t.Errorf("%q: probabilities sum to %v", c.msg, sum)
		}
	}
	b, err := m.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	m2, err := textmodel.Load(b)
	if err != nil {
		t.Fatal(err)
	}
	b2, _ := m2.MarshalBinary()
	if !bytes.Equal(b, b2) {
		t.Fatal("a loaded model does not marshal to the same bytes")
	}
}

func TestTrainIsDeterministic(t *testing.T) {
	t.Parallel()
	a, _ := train(t).MarshalBinary()
	b, _ := train(t).MarshalBinary()
	if !bytes.Equal(a, b) {
		t.Fatal("two trainings on the same examples differ")
	}
}

func TestLoadRefusesDamagedFiles(t *testing.T) {
	t.Parallel()
	b, _ := train(t).MarshalBinary()
	for name, bad := range map[string][]byte{
		"empty":     nil,
		"magic":     append([]byte("XXXX"), b[4:]...),
		"truncated": b[:len(b)-1],
		"version":   append(append([]byte{}, b[:4]...), append([]byte{9}, b[5:]...)...),
	} {
		if _, err := textmodel.Load(bad); err == nil {
			t.Errorf("%s: Load accepted it", name)
		}
	}
}

// Variable parts are folded: the same template with other numbers, IDs and
// hosts gives the same probabilities.
func TestVariablePartsAreFolded(t *testing.T) {
	t.Parallel()
	m := train(t)
	var p1, p2 [textmodel.MaxLabels]float32
	m.Predict(&textmodel.Input{Message: "request 4f9c2a1b7e timed out after 123456 ms"}, &p1)
	m.Predict(&textmodel.Input{Message: "request 77aa01bc9d timed out after 998877 ms"}, &p2)
	if p1 != p2 {
		t.Fatalf("%v != %v", p1, p2)
	}
}

// Inputs past the caps cost no more than inputs at them, and nothing
// panics on junk.
func TestBadInput(t *testing.T) {
	t.Parallel()
	m := train(t)
	r := rand.New(rand.NewPCG(1, 2))
	junk := make([]byte, 64<<10)
	for i := range junk {
		junk[i] = byte(r.Uint32())
	}
	inputs := []textmodel.Input{
		{Message: strings.Repeat("timeout ", 8<<10)},
		{Message: string(junk), Type: string(junk[:300])},
		{Message: "ошибка: 権限がありません permission refusée \x00\x01\x1b[31m"},
		{HasHTTP: true, HTTPStatus: 503},
		{},
		{Details: map[string]any{"a": []any{map[string]any{"b": string(junk)}}, "c": nil, "d": 1.5}},
	}
	var p [textmodel.MaxLabels]float32
	for i := range inputs {
		n := m.Predict(&inputs[i], &p)
		for _, v := range p[:n] {
			if v != v || v < 0 || v > 1 {
				t.Errorf("input %d: probability %v", i, v)
			}
		}
	}
}

func TestPredictDoesNotAllocate(t *testing.T) {
	m := train(t)
	in := textmodel.Input{
		Message: "POST https://api.example.com/v1/items: 503 Service Unavailable (request id 8A1C:3B4E)",
		Type:    "HttpError", HasHTTP: true, HTTPStatus: 503,
		Details: map[string]any{"error": map[string]any{"code": "unavailable", "message": "try later"}},
	}
	var p [textmodel.MaxLabels]float32
	if n := testing.AllocsPerRun(100, func() { m.Predict(&in, &p) }); n != 0 {
		t.Fatalf("Predict allocates %v times per call", n)
	}
}

func TestDefaultLoads(t *testing.T) {
	t.Parallel()
	m := textmodel.Default()
	if len(m.Labels()) != 9 {
		t.Fatalf("the embedded model has %d labels, want the 8 baseline codes and internal_error", len(m.Labels()))
	}
}

// BenchmarkPredict measures the embedded model on a typical structured
// error and on a message at the input cap.
func BenchmarkPredict(b *testing.B) {
	m := textmodel.Default()
	var p [textmodel.MaxLabels]float32
	for _, c := range []struct {
		name string
		in   textmodel.Input
	}{
		{"typical", textmodel.Input{
			Message: "An error occurred (ThrottlingException) when calling the PutItem operation: Rate exceeded",
			Type:    "botocore.exceptions.ClientError", HasHTTP: true, HTTPStatus: 400,
			Details: map[string]any{"__type": "com.amazonaws.dynamodb#ThrottlingException", "message": "Rate exceeded"},
		}},
		{"capped", textmodel.Input{
			Message: strings.Repeat("Traceback (most recent call last): File \"/srv/app/main.py\", line 42, in handler ", 1000),
			Type:    strings.Repeat("x", 200),
			Details: map[string]any{"error": strings.Repeat("detail text ", 200)},
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				m.Predict(&c.in, &p)
			}
		})
	}
}
