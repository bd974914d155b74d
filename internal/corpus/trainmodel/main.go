// Command trainmodel trains the baseline's text model on the repository's
// corpus and writes the weights that classify/textmodel embeds (go generate
// runs it), or measures how the baseline generalises.
//
//	go run ./internal/corpus/trainmodel -out classify/textmodel/weights.bin
//	go run ./internal/corpus/trainmodel -check        # the committed weights are what training gives
//	go run ./internal/corpus/trainmodel -lso          # leave-system-out table
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"

	"github.com/omcp/toolfailure/classify"
	"github.com/omcp/toolfailure/internal/corpus"
)

func main() {
	dir := flag.String("corpus", "corpus", "corpus directory or file")
	out := flag.String("out", "", "write the trained model here")
	check := flag.String("check", "", "compare a trained model with this file; exit 1 when they differ")
	lso := flag.Bool("lso", false, "print the leave-system-out table")
	misses := flag.Bool("misses", false, "with -lso: list every case whose class or code is wrong")
	threshold := flag.Float64("threshold", classify.DefaultModelThreshold, "class probability threshold for -lso")
	flag.Parse()
	if err := run(*dir, *out, *check, *lso, *misses, float32(*threshold)); err != nil {
		fmt.Fprintln(os.Stderr, "trainmodel:", err)
		os.Exit(1)
	}
}

func run(dir, out, check string, lso, misses bool, threshold float32) error {
	cases, err := corpus.Load(dir)
	if err != nil {
		return err
	}
	corpus.WriteMakeup(os.Stdout, corpus.MakeupOf(cases))
	if lso {
		vs, err := corpus.LeaveSystemOut(cases, threshold)
		if err != nil {
			return err
		}
		corpus.Report(os.Stdout, "leave-system-out", vs)
		if misses {
			corpus.Misses(os.Stdout, vs)
		}
	}
	if out == "" && check == "" {
		return nil
	}
	m, err := corpus.Train(cases)
	if err != nil {
		return err
	}
	b, err := m.MarshalBinary()
	if err != nil {
		return err
	}
	if check != "" {
		have, err := os.ReadFile(check)
		if err != nil {
			return err
		}
		if !bytes.Equal(have, b) {
			return fmt.Errorf("%s is not what training on %s gives: run go generate ./classify/textmodel and commit", check, dir)
		}
	}
	if out != "" {
		return os.WriteFile(out, b, 0o644)
	}
	return nil
}
