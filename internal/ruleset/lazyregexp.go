package ruleset

import (
	"regexp"
	"regexp/syntax"
	"sync"
)

// lazyRegexp is a regular expression compiled on its first use. The packs'
// patterns split into hundreds of branches, and the needle prefilter lets
// only those whose phrases occur in a message run at all, while a compiled
// branch holds kilobytes (its program and, for most, a one-pass copy of
// it): compiled up front, they would keep megabytes that most workloads
// never run, and that every garbage collection scans.
type lazyRegexp struct {
	src  string
	once sync.Once
	re   *regexp.Regexp
}

// newLazyRegexp checks src now and compiles it on first use. Parsing is
// what can fail: compiling a parsed expression cannot, so the first use
// never meets an error.
func newLazyRegexp(src string) (*lazyRegexp, error) {
	if _, err := syntax.Parse(src, syntax.Perl); err != nil {
		return nil, err
	}
	return &lazyRegexp{src: src}, nil
}

func (l *lazyRegexp) get() *regexp.Regexp {
	l.once.Do(func() { l.re = regexp.MustCompile(l.src) })
	return l.re
}

// MatchString reports whether s contains a match of the expression.
func (l *lazyRegexp) MatchString(s string) bool { return l.get().MatchString(s) }

// String is the expression's source.
func (l *lazyRegexp) String() string { return l.src }
