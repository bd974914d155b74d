package main

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"
)

// envValue is a flag of type T whose default comes from an environment variable, read when the
// command runs, as envString's is. typ is the type name help shows, the one pflag's own flag of
// that type shows, so that moving a flag to the environment does not change its help.
type envValue[T any] struct {
	value    T
	set      bool
	env, typ string
	parse    func(string) (T, error)
	format   func(T) string
}

func (e *envValue[T]) String() string { return e.format(e.value) }
func (e *envValue[T]) Type() string   { return e.typ }

func (e *envValue[T]) Set(v string) error {
	x, err := e.parse(strings.TrimSpace(v))
	if err != nil {
		return err
	}
	e.value, e.set = x, true
	return nil
}

// Get is the flag's value, else the variable's, else the fallback; a variable that does not
// parse is an error that names it.
func (e *envValue[T]) Get() (T, error) {
	if e.set {
		return e.value, nil
	}
	v := strings.TrimSpace(os.Getenv(e.env))
	if v == "" {
		return e.value, nil
	}
	x, err := e.parse(v)
	if err != nil {
		var zero T
		return zero, fmt.Errorf("$%s: %w", e.env, err)
	}
	return x, nil
}

// envDurationVar defines a duration flag with an environment fallback; negative durations are
// refused.
func envDurationVar(fs *pflag.FlagSet, name, env string, fallback time.Duration, usage string) *envValue[time.Duration] {
	e := &envValue[time.Duration]{value: fallback, env: env, typ: "duration",
		parse: func(s string) (time.Duration, error) {
			d, err := time.ParseDuration(s)
			if err != nil || d < 0 {
				return 0, fmt.Errorf("%q is not a duration such as 20s or 1m", s)
			}
			return d, nil
		},
		// "0", not "0s", so that help leaves out a zero default as it does for pflag's own
		// durations.
		format: func(d time.Duration) string {
			if d == 0 {
				return "0"
			}
			return d.String()
		},
	}
	fs.Var(e, name, usage+" (from $"+env+")")
	return e
}

// envFloatVar defines a number flag with an environment fallback; negative numbers are refused.
func envFloatVar(fs *pflag.FlagSet, name, env string, fallback float64, usage string) *envValue[float64] {
	e := &envValue[float64]{value: fallback, env: env, typ: "float64",
		parse: func(s string) (float64, error) {
			x, err := strconv.ParseFloat(s, 64)
			if err != nil || x < 0 || math.IsNaN(x) || math.IsInf(x, 0) {
				return 0, fmt.Errorf("%q is not a number of 0 or more", s)
			}
			return x, nil
		},
		format: func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) },
	}
	fs.Var(e, name, usage+" (from $"+env+")")
	return e
}
