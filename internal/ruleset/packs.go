package ruleset

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/omcp/toolfailure/internal/classify"
)

// The baseline packs: what the service knows about particular families of
// errors (certificates, developer tools, agent frameworks, vendors' codes)
// written as rules in the rules-file model, embedded in the binary and
// evaluated by the same index and CEL programs as a tenant's rules. They
// run after the tenant's rules and before the generic baseline (status
// codes, Retry-After, gRPC, JSON-RPC, SQLSTATE, errno and the text model).
// A tenant rule with the same name as a pack rule replaces it.

//go:embed packs/*.yaml
var packFiles embed.FS

// packCostLimit is the CEL cost limit of pack rules. Their message
// patterns are long alternations of phrases, which CEL's estimator prices
// as if each ran over the largest message accepted; they are ours and
// reviewed, the needle prefilter keeps most of them from running at all,
// and RE2 is linear in the message whatever the pattern.
const packCostLimit = 8 * costLimit

// Pack is one embedded baseline pack.
type Pack struct {
	Name   string // the file name without .yaml
	Source []byte // the file as written, for export
	Rules  []Rule
}

type packState struct {
	packs []Pack
	set   *Set
	names map[string]int // rule name → position in set.rules
}

var loadPacks = sync.OnceValues(func() (*packState, error) {
	entries, err := fs.Glob(packFiles, "packs/*.yaml")
	if err != nil {
		return nil, err
	}
	slices.Sort(entries)
	st := &packState{}
	var all []Rule
	for _, name := range entries {
		b, err := packFiles.ReadFile(name)
		if err != nil {
			return nil, err
		}
		f, err := ParseFile(b)
		if err != nil {
			return nil, fmt.Errorf("baseline pack %s: %w", name, err)
		}
		p := Pack{Name: strings.TrimSuffix(path.Base(name), ".yaml"), Source: b, Rules: f.Rules}
		for _, r := range f.Rules {
			if !strings.HasPrefix(r.Name, p.Name+".") {
				return nil, fmt.Errorf("baseline pack %s: rule %q must be named %s.…", name, r.Name, p.Name)
			}
		}
		st.packs = append(st.packs, p)
		all = append(all, f.Rules...)
	}
	set, err := compileSet(0, all, packCostLimit)
	if err != nil {
		return nil, fmt.Errorf("baseline packs: %w", err)
	}
	st.set = set
	st.names = make(map[string]int, len(set.rules))
	for i, r := range set.rules {
		st.names[r.Name] = i
	}
	return st, nil
})

// packs returns the compiled packs. They are embedded and checked by
// TestBaselinePacksCompile, so a failure here is a build defect.
func packs() *packState {
	st, err := loadPacks()
	if err != nil {
		panic(err)
	}
	return st
}

// Warm compiles the baseline packs and loads the text model now, and
// classifies one error through them, so that the first Classify after a
// start does not pay for it: a proxy or middleware in front of the
// service waits a quarter of a second for an answer by default, and a
// cold first call can take longer than that on a loaded host.
func Warm() {
	var none *Set
	in := classify.Input{Error: classify.RawError{Message: "upstream connect error: connection refused"}}
	none.ClassifyWith(classify.DefaultEngine(), &in, time.Now())
}

// BaselinePacks returns the embedded packs, in file-name order.
func BaselinePacks() []Pack { return packs().packs }

// BaselinePackRules returns every pack rule in evaluation order.
func BaselinePackRules() []Rule { return packs().set.Rules() }

// overriddenPacks marks the pack rules that the tenant's rules replace by
// name; nil when none.
func overriddenPacks(rules []*compiled) []bool {
	st := packs()
	var skip []bool
	for _, r := range rules {
		if i, ok := st.names[r.Name]; ok {
			if skip == nil {
				skip = make([]bool, len(st.set.rules))
			}
			skip[i] = true
		}
	}
	return skip
}

// LoadBaseline compiles the embedded baseline packs and loads the text
// model, so that the first classification does not pay for them (under a
// loaded machine that can exceed a caller's budget), and reports a pack
// that does not compile, which would otherwise panic on first use.
//
// Compiling the packs (their CEL programs and the needle automaton) is a
// one-time burst of garbage many times the size of what it keeps, and it
// leaves the heap grown and the collector's target high; a collection and
// a return of the freed memory to the operating system right after it
// keep a service that has just started from holding that as resident
// memory.
func LoadBaseline() error {
	if _, err := loadPacks(); err != nil {
		return err
	}
	classify.DefaultEngine()
	debug.FreeOSMemory()
	return nil
}
