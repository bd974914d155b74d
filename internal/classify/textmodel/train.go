package textmodel

import (
	"fmt"
	"math"
)

// Example is one labelled input for Train.
type Example struct {
	Input Input
	Label int // index into the labels given to Train
}

// TrainOptions are the training settings. The zero value is not useful;
// start from DefaultTrainOptions.
type TrainOptions struct {
	Bits         uint    // hash buckets = 1 << Bits
	Epochs       int     // passes over the examples
	LearningRate float64 // AdaGrad step size
	L2           float64 // weight decay per update, relative to the step
	Seed         uint64  // order of the examples in each pass
}

// DefaultTrainOptions are the settings the committed model is trained
// with. The small step and the weight decay keep AdaGrad from giving a
// word or n-gram seen in a handful of cases a weight that outvotes the
// rest of the message: such a weight fits the systems in training and
// misreads the ones that are not, which grouped cross-validation, not
// training accuracy, shows (docs/classification.md, "The text model").
// The buckets grow with the corpus: too few make words of different
// meaning share a weight; the chapter gives the measurements.
var DefaultTrainOptions = TrainOptions{Bits: 17, Epochs: 30, LearningRate: 0.1, L2: 1e-4, Seed: 1}

// Train fits a model to the examples. It is deterministic: the same
// examples in the same order and the same options give the same bytes, on
// every platform (explicit float64 conversions keep the compiler from
// fusing multiply-adds, which would change rounding between
// architectures).
func Train(labels []string, examples []Example, opt TrainOptions) (*Model, error) {
	nl := len(labels)
	if nl < 2 || nl > MaxLabels {
		return nil, fmt.Errorf("textmodel: %d labels, want 2 to %d", nl, MaxLabels)
	}
	if opt.Bits < 4 || opt.Bits > 24 {
		return nil, fmt.Errorf("textmodel: %d bits, want 4 to 24", opt.Bits)
	}
	mask := uint64(1)<<opt.Bits - 1
	// Extract once: bucket indices and the per-example norm.
	rows := make([][]uint32, len(examples))
	norms := make([]float64, len(examples))
	vals := make([][]float64, len(examples))
	var f features
	for i := range examples {
		if l := examples[i].Label; l < 0 || l >= nl {
			return nil, fmt.Errorf("textmodel: example %d has label %d of %d", i, l, nl)
		}
		extract(&examples[i].Input, &f)
		r := make([]uint32, f.n)
		for j, h := range f.h[:f.n] {
			r[j] = uint32(h & mask)
		}
		rows[i] = r
		norms[i] = invSqrt(f.n - f.fixed)
		v := make([]float64, f.n)
		for j := range v {
			v[j] = f.weight(j, norms[i])
		}
		vals[i] = v
	}
	w := make([]float64, (1<<opt.Bits)*nl)
	g2 := make([]float64, len(w)) // AdaGrad's sums of squared gradients
	var bias, bg2 [MaxLabels]float64
	order := make([]int, len(examples))
	for i := range order {
		order[i] = i
	}
	rng := splitmix{opt.Seed}
	var grad [MaxLabels]float64
	for range opt.Epochs {
		// Fisher–Yates with our own generator: its sequence is fixed
		// forever, unlike a library's.
		for i := len(order) - 1; i > 0; i-- {
			j := int(rng.next() % uint64(i+1))
			order[i], order[j] = order[j], order[i]
		}
		for _, i := range order {
			r, vs := rows[i], vals[i]
			var z [MaxLabels]float64
			for l := range nl {
				z[l] = bias[l]
			}
			for j, b := range r {
				v := vs[j]
				row := w[int(b)*nl:][:nl]
				for l := range nl {
					z[l] += float64(v * row[l])
				}
			}
			hi := math.Inf(-1)
			for l := range nl {
				hi = max(hi, z[l])
			}
			var sum float64
			for l := range nl {
				z[l] = math.Exp(z[l] - hi)
				sum += z[l]
			}
			for l := range nl {
				grad[l] = z[l] / sum
			}
			grad[examples[i].Label] -= 1
			for l := range nl {
				bg2[l] += float64(grad[l] * grad[l])
				bias[l] -= float64(opt.LearningRate * grad[l] / (math.Sqrt(bg2[l]) + 1e-8))
			}
			for j, b := range r {
				v := vs[j]
				k := int(b) * nl
				for l := range nl {
					g := float64(grad[l]*v) + float64(opt.L2*w[k+l])
					g2[k+l] += float64(g * g)
					w[k+l] -= float64(opt.LearningRate * g / (math.Sqrt(g2[k+l]) + 1e-8))
				}
			}
		}
	}
	return quantize(labels, opt.Bits, w, bias), nil
}

// quantize stores the weights as int16 with one scale: a quarter of the
// size of float64, exact integer sums at inference time, and a byte-exact
// file for a given training run.
func quantize(labels []string, bits uint, w []float64, bias [MaxLabels]float64) *Model {
	var hi float64
	for _, v := range w {
		hi = max(hi, math.Abs(v))
	}
	scale := hi / math.MaxInt16
	if scale == 0 {
		scale = 1
	}
	m := &Model{labels: append([]string(nil), labels...), bits: bits, scale: float32(scale), temperature: 1}
	m.w = make([]int16, len(w))
	s := float64(m.scale)
	for i, v := range w {
		m.w[i] = int16(max(-math.MaxInt16, min(math.MaxInt16, math.Round(v/s))))
	}
	for l := range labels {
		m.bias[l] = float32(bias[l])
	}
	return m
}

// splitmix is SplitMix64: a tiny generator whose sequence is part of the
// training recipe.
type splitmix struct{ s uint64 }

func (r *splitmix) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}
