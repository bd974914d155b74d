package textmodel

import (
	_ "embed"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
)

// MaxLabels bounds the number of labels a model can have, so that callers
// can hold probabilities in a fixed array.
const MaxLabels = 9

// Model is a multinomial logistic regression over hashed features: one
// weight per (hash bucket, label), stored as int16 with one scale, plus a
// bias per label and a softmax temperature fitted on held-out predictions.
// It is immutable and safe for concurrent use.
type Model struct {
	labels      []string
	bits        uint
	scale       float32
	temperature float32
	bias        [MaxLabels]float32
	w           []int16 // bucket*len(labels) + label
}

// Labels returns the model's label names, in the order Predict reports
// their probabilities.
func (m *Model) Labels() []string { return m.labels }

// Temperature returns the softmax temperature.
func (m *Model) Temperature() float32 { return m.temperature }

// WithTemperature returns a copy of m that shares its weights and divides
// its logits by t before the softmax (t > 1 makes it less confident).
func (m *Model) WithTemperature(t float32) *Model {
	c := *m
	c.temperature = t
	return &c
}

// Predict writes into p the probability of every label for in and returns
// how many labels there are. It does not allocate: the feature scratch
// lives on the stack.
func (m *Model) Predict(in *Input, p *[MaxLabels]float32) int {
	n, _ := m.PredictWords(in, p)
	return n
}

// PredictWords is Predict that also returns how much text the prediction
// rests on: the letters of its words of two letters or more without
// digits (a CJK character counts two), so that a caller can refuse a
// guess made on next to nothing.
func (m *Model) PredictWords(in *Input, p *[MaxLabels]float32) (n, words int) {
	var f features
	extract(in, &f)
	var logits [MaxLabels]float64
	m.logits(&f, &logits)
	return m.softmax(&logits, p), f.words
}

// Logits returns the raw scores for in (before temperature), for
// calibration.
func (m *Model) Logits(in *Input) []float64 {
	var f features
	extract(in, &f)
	var l [MaxLabels]float64
	m.logits(&f, &l)
	return append([]float64(nil), l[:len(m.labels)]...)
}

func (m *Model) logits(f *features, out *[MaxLabels]float64) {
	nl := len(m.labels)
	var acc, hint, con [MaxLabels]int32
	mask := uint64(1)<<m.bits - 1
	for _, h := range f.h[:f.hints] {
		row := m.w[int(h&mask)*nl:][:nl]
		for l, v := range row {
			hint[l] += int32(v)
		}
	}
	for _, h := range f.h[f.hints:f.fixed] {
		row := m.w[int(h&mask)*nl:][:nl]
		for l, v := range row {
			con[l] += int32(v)
		}
	}
	for _, h := range f.h[f.fixed:f.n] {
		row := m.w[int(h&mask)*nl:][:nl]
		for l, v := range row {
			acc[l] += int32(v)
		}
	}
	norm := float64(m.scale) * invSqrt(f.n-f.fixed)
	cw := float64(m.scale) * conceptWeight
	for l := range nl {
		out[l] = float64(m.bias[l]) + norm*float64(acc[l]) + float64(m.scale)*float64(hint[l]) + cw*float64(con[l])
	}
}

func invSqrt(n int) float64 {
	if n == 0 {
		return 0
	}
	return 1 / math.Sqrt(float64(n))
}

func (m *Model) softmax(logits *[MaxLabels]float64, p *[MaxLabels]float32) int {
	nl := len(m.labels)
	t := float64(m.temperature)
	if t <= 0 {
		t = 1
	}
	hi := math.Inf(-1)
	for l := range nl {
		hi = max(hi, logits[l]/t)
	}
	var sum float64
	var e [MaxLabels]float64
	for l := range nl {
		e[l] = math.Exp(logits[l]/t - hi)
		sum += e[l]
	}
	for l := range nl {
		p[l] = float32(e[l] / sum)
	}
	return nl
}

// The file format: magic, version, then little-endian fields.
var magic = [4]byte{'T', 'F', 'T', 'M'}

const formatVersion = 1

// MarshalBinary encodes the model in the format Load reads.
func (m *Model) MarshalBinary() ([]byte, error) {
	var b []byte
	b = append(b, magic[:]...)
	b = append(b, formatVersion, byte(m.bits), byte(len(m.labels)))
	b = binary.LittleEndian.AppendUint32(b, math.Float32bits(m.scale))
	b = binary.LittleEndian.AppendUint32(b, math.Float32bits(m.temperature))
	for l := range m.labels {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(m.bias[l]))
	}
	names := strings.Join(m.labels, "\n")
	b = binary.LittleEndian.AppendUint16(b, uint16(len(names)))
	b = append(b, names...)
	for _, v := range m.w {
		b = binary.LittleEndian.AppendUint16(b, uint16(v))
	}
	return b, nil
}

// Load decodes a model written by MarshalBinary.
func Load(b []byte) (*Model, error) {
	if len(b) < 10 || [4]byte(b[:4]) != magic {
		return nil, errors.New("textmodel: not a model file")
	}
	if b[4] != formatVersion {
		return nil, fmt.Errorf("textmodel: format version %d, want %d", b[4], formatVersion)
	}
	m := &Model{bits: uint(b[5])}
	nl := int(b[6])
	if nl < 2 || nl > MaxLabels || m.bits < 4 || m.bits > 24 {
		return nil, fmt.Errorf("textmodel: %d labels, %d bits: out of range", nl, m.bits)
	}
	b = b[7:]
	if len(b) < 8+4*nl+2 {
		return nil, errors.New("textmodel: truncated header")
	}
	m.scale = math.Float32frombits(binary.LittleEndian.Uint32(b))
	m.temperature = math.Float32frombits(binary.LittleEndian.Uint32(b[4:]))
	b = b[8:]
	for l := range nl {
		m.bias[l] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*l:]))
	}
	b = b[4*nl:]
	n := int(binary.LittleEndian.Uint16(b))
	b = b[2:]
	if len(b) < n {
		return nil, errors.New("textmodel: truncated labels")
	}
	m.labels = strings.Split(string(b[:n]), "\n")
	if len(m.labels) != nl {
		return nil, fmt.Errorf("textmodel: %d label names, want %d", len(m.labels), nl)
	}
	b = b[n:]
	want := (1 << m.bits) * nl
	if len(b) != 2*want {
		return nil, fmt.Errorf("textmodel: %d weight bytes, want %d", len(b), 2*want)
	}
	m.w = make([]int16, want)
	for i := range m.w {
		m.w[i] = int16(binary.LittleEndian.Uint16(b[2*i:]))
	}
	return m, nil
}

//go:generate go run ../../corpus/trainmodel -corpus ../../../corpus -out weights.bin

//go:embed weights.bin
var embedded []byte

// Default returns the model trained on the repository's corpus and
// embedded in the binary. It panics if the embedded file is corrupt, which
// TestDefaultLoads rules out.
var Default = sync.OnceValue(func() *Model {
	m, err := Load(embedded)
	if err != nil {
		panic(err)
	}
	return m
})
