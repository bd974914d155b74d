package corpus_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/omcp/toolfailure/internal/classify"
	"github.com/omcp/toolfailure/internal/corpus"
	"github.com/omcp/toolfailure/internal/racetest"
	"github.com/omcp/toolfailure/internal/ruleset"
)

func writeCorpus(t *testing.T, lines ...string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "c.jsonl")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// LoadConfirmed reads a corpus without the field exactly as Load does,
// leaves out what an export marked unconfirmed, and takes a tenant's own
// codes in the confirmed cases, but not a baseline code of another class.
func TestLoadConfirmed(t *testing.T) {
	t.Parallel()
	plain, _ := corpus.Load(corpusDir)
	got, unconfirmed, err := corpus.LoadConfirmed(corpusDir)
	if err != nil || unconfirmed != 0 || !reflect.DeepEqual(got, plain) {
		t.Fatalf("corpus/: %d cases (Load: %d), %d unconfirmed, %v", len(got), len(plain), unconfirmed, err)
	}

	const (
		ok       = `{"id": "a", "tool": "t", "error": {"httpStatus": 404}, "expect": {"class": "capability", "code": "resource_not_found", "retryable": false}}`
		yes      = `{"id": "b", "tool": "t", "error": {"message": "m"}, "expect": {"class": "governance", "code": "mail_needs_confirmation", "retryable": false}, "confirmed": true}`
		no       = `{"id": "c", "tool": "t", "error": {"message": "m"}, "expect": {"class": "governance", "code": "Not A Code", "retryable": true}, "confirmed": false}`
		wrongTag = `{"id": "d", "tool": "t", "error": {"message": "m"}, "expect": {"class": "governance", "code": "invalid_input", "retryable": false}, "confirmed": true}`
	)
	cases, unconfirmed, err := corpus.LoadConfirmed(writeCorpus(t, ok, yes, "", no))
	if err != nil || unconfirmed != 1 || len(cases) != 2 || cases[1].Expect.Code != "mail_needs_confirmation" || cases[1].System != "b" {
		t.Fatalf("%d cases, %d unconfirmed, %v", len(cases), unconfirmed, err)
	}
	for _, bad := range [][]string{
		{yes, wrongTag},
		{no, strings.Replace(ok, `"id": "a"`, `"id": "c"`, 1)}, // an id used twice, unconfirmed or not
		{no},
	} {
		if cases, _, err := corpus.LoadConfirmed(writeCorpus(t, bad...)); err == nil && len(cases) > 0 {
			t.Errorf("%q: accepted", bad)
		}
	}
	if cases, unconfirmed, err := corpus.LoadConfirmed(writeCorpus(t, no)); err != nil || len(cases) != 0 || unconfirmed != 1 {
		t.Errorf("all unconfirmed: %d cases, %d unconfirmed, %v", len(cases), unconfirmed, err)
	}
}

// FoldEngines gives the engines LeaveSystemOut scores with: a tenant with
// no rules in front of them gets LeaveSystemOut's verdicts exactly.
func TestFoldEnginesAreLeaveSystemOuts(t *testing.T) {
	t.Parallel()
	if racetest.Enabled {
		t.Skip("twenty trainings under the race detector take minutes; scripts/test runs this test without it")
	}
	if testing.Short() {
		t.Skip("trains twenty models")
	}
	all := load(t)
	cases := all[:0:0]
	for i := range all {
		if i%8 == 0 { // a sample: each fold's training stays short
			cases = append(cases, all[i])
		}
	}
	want, err := corpus.LeaveSystemOut(cases, classify.DefaultModelThreshold)
	if err != nil {
		t.Fatal(err)
	}
	engines, folds, err := corpus.FoldEngines(cases, classify.DefaultModelThreshold)
	if err != nil {
		t.Fatal(err)
	}
	var none *ruleset.Set
	for i := range cases {
		got := corpus.Judge(&cases[i], none.ClassifyWith(engines[folds[i]], cases[i].Input(), corpus.Now).Outcome)
		if !reflect.DeepEqual(got, want[i]) {
			t.Fatalf("%s: %+v, LeaveSystemOut %+v", cases[i].ID, got.Outcome, want[i].Outcome)
		}
	}
}
