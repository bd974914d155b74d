package ruleset

import (
	"context"
	"errors"
	"testing"

	"cel.dev/cel-go/interpreter"

	"github.com/omcp/toolfailure/internal/classify"
)

// TestConditionStopsInsideItsLoop: a caller who leaves stops a condition in the middle of its
// loop over error.details, not only between rules: CEL looks at the context every
// interruptEvery iterations.
func TestConditionStopsInsideItsLoop(t *testing.T) {
	t.Parallel()
	// Planned as compileRule plans conditions; this one alone would be refused as too
	// expensive, which is what makes it a long loop.
	e, err := env()
	if err != nil {
		t.Fatal(err)
	}
	ast, iss := e.Compile(`error.details.exists(x, x == -1)`)
	if iss.Err() != nil {
		t.Fatal(iss.Err())
	}
	prog, err := newProgram(e, ast)
	if err != nil {
		t.Fatal(err)
	}
	list := make([]any, 100_000)
	for i := range list {
		list[i] = float64(i)
	}
	a := newActivation(&classify.Input{Tool: "t", Error: classify.RawError{Details: list}})

	// Live: the whole list is walked.
	m := a.startMeter(context.Background(), RequestBudget)
	if _, err := m.eval(prog); err != nil {
		t.Fatal(err)
	}
	whole := m.spent()
	m.close()

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	m = a.startMeter(ctx, RequestBudget)
	defer m.close()
	_, err = m.eval(prog)
	if !errors.Is(err, interpreter.InterruptError{}) || !m.cancelled || m.exhausted {
		t.Fatalf("err = %v (cancelled %v, exhausted %v), want an interrupt", err, m.cancelled, m.exhausted)
	}
	if m.spent() > whole/100 {
		t.Fatalf("spent %d before stopping; the whole loop costs %d", m.spent(), whole)
	}
}
