package corpus_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/omcp/toolfailure/internal/classify"
	"github.com/omcp/toolfailure/internal/classify/textmodel"
	"github.com/omcp/toolfailure/internal/corpus"
	"github.com/omcp/toolfailure/internal/racetest"
)

const corpusDir = "../../corpus"

func load(t *testing.T) []corpus.Case {
	t.Helper()
	cases, err := corpus.Load(corpusDir)
	if err != nil {
		t.Fatal(err)
	}
	return cases
}

// crossValidated is the corpus's grouped cross-validation and the model
// trained on all of it, computed once for the two tests that need them:
// the fold models of the one calibrate the other (corpus.CrossValidate).
var crossValidated = sync.OnceValue(func() (cv struct {
	verdicts []corpus.Verdict
	model    *textmodel.Model
	err      error
}) {
	cases, err := corpus.Load(corpusDir)
	if err != nil {
		cv.err = err
		return cv
	}
	cv.verdicts, cv.model, cv.err = corpus.CrossValidate(cases, classify.DefaultModelThreshold)
	return cv
})

// Floors of grouped cross-validation (the model is trained without every
// case of the systems, vendors and pages it is scored on; training is
// deterministic, so a change that drops under them fails here, not by
// chance). The floors are class 95 % and code 90 %; the corpus
// measures what docs/classification.md's table says (the floors sit at or
// a tenth below it, as the shares are compared unrounded; a sealed batch
// harder than the corpus can lower them when it joins), so these hold what
// is reached until the families its misses show are covered
// (docs/classification.md, "How well it generalises"). The retry mistakes
// are held as shares of all cases at the floors: permanent errors
// told to retry at 1 %, transient errors not retried at 4 %.
const (
	floorClass               = 93.9
	floorCode                = 88.5
	floorPermanentRetryable  = 1.0
	floorTransientNotRetried = 4.0
)

func TestLeaveSystemOut(t *testing.T) {
	t.Parallel()
	if racetest.Enabled {
		t.Skip("ten trainings under the race detector take minutes; scripts/test runs this test without it")
	}
	cv := crossValidated()
	if cv.err != nil {
		t.Fatal(cv.err)
	}
	vs := cv.verdicts
	var b strings.Builder
	corpus.Report(&b, "leave-system-out", vs)
	t.Log("\n" + b.String())
	tot := corpus.Sum(vs)
	if c := corpus.Pct(tot.Class, tot.N); c < floorClass {
		t.Errorf("class %.1f%%, floor %.1f%%", c, floorClass)
	}
	if c := corpus.Pct(tot.Code, tot.N); c < floorCode {
		t.Errorf("code %.1f%%, floor %.1f%%", c, floorCode)
	}
	if p := corpus.Pct(tot.PermanentRetryable, tot.N); p > floorPermanentRetryable {
		t.Errorf("permanent errors told to retry: %.2f%% of all cases, floor %.1f%%", p, floorPermanentRetryable)
	}
	if p := corpus.Pct(tot.TransientNotRetried, tot.N); p > floorTransientNotRetried {
		t.Errorf("transient errors not retried: %.2f%% of all cases, floor %.1f%%", p, floorTransientNotRetried)
	}
	if tot.SEP > 0 {
		t.Errorf("%d outcomes break the proposal", tot.SEP)
	}
}

// The committed weights are exactly what training on the committed corpus
// gives: go generate reproduces them.
func TestCommittedModelReproduces(t *testing.T) {
	t.Parallel()
	if racetest.Enabled {
		t.Skip("training under the race detector takes minutes; scripts/test runs this test without it")
	}
	cv := crossValidated()
	if cv.err != nil {
		t.Fatal(cv.err)
	}
	got, err := cv.model.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join("..", "classify", "textmodel", "weights.bin"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("internal/classify/textmodel/weights.bin is not what training on corpus/ gives: run go generate ./internal/classify/textmodel and commit")
	}
}

// againstConventions are the cases of sealed fresh batches whose label
// contradicts a convention docs/classification.md writes down, with the
// convention. A sealed batch keeps its writer's label (corpus/FRESH.md
// scores it as written), so the classifier, which follows the convention,
// is not required to reproduce it. Whether it does moves between
// retrains for the entries a pack reads as transient, since the pack's
// retry then waits on the text model's assent, so an entry the classifier
// agrees with is logged rather than failed; the label, not the list, is
// what a convention written later may change (corpus/FRESH.md).
var againstConventions = map[string]string{
	// Transient: "DNS failure (EAI_AGAIN, and ENOTFOUND next to a host name
	// lookup)"; playwright-err-name-not-resolved, the same browser error,
	// is labelled so.
	"crawl4ai-name-not-resolved": "a host name that does not resolve is transient",
	// Transient: "a device, gateway or sensor reported offline with
	// nothing said of what a person must do at it".
	"fastprk-gateway-offline": "a bare device offline is transient",
	// Transient: "a service closed outside its opening hours (it opens
	// again by itself)".
	"jra-ipat-hours": "a service outside its opening hours opens again by itself",
	// The same for a season: a farm park in its winter closure that
	// reopens in mid-April (2026-12-07b's tichy-closed-winter, a winter
	// break until March, is labelled transient).
	"koiwai-farm-closed": "a place closed for the season opens again by itself",
	// And for a hotel closed for the winter whose bookings open on a
	// stated day, and for today's ticket sales closed with the opening
	// hours and tomorrow's sales from midnight (transient.opens-again:
	// "orders or bookings accepted from a stated day").
	"mercues-ferme":               "bookings that open on a stated day open by themselves",
	"hanmer-springs-pools-closed": "sales that open again at a stated hour open by themselves",
	// And for a place closed for the season that says when it reopens
	// (transient.season-reopens; the transient convention names it).
	"lepal-parc-ferme":          "a park closed for the season that says when it reopens opens by itself",
	"hostellingscotland-closed": "a hostel closed for the season that says when it reopens opens by itself",
	// And for a branch closed on Sundays whose bookings open again on
	// Monday morning (transient.closed-reopens; the transient convention:
	// "a service closed outside its opening hours").
	"plantmark-branch-closed": "a branch closed on its closing day opens again by itself",
	// And for a weaver's commission book closed for one year that reopens
	// for the next on a stated day (the deadlines convention: "a window
	// that opens again by itself … is transient").
	"donegal-handweavers": "a commission book that reopens on a stated day opens by itself",
	// Conflicts: "a file, database or record that another process or user
	// has locked … the lock goes when they finish".
	"aras-innovator-item-locked":          "a part locked by a named user is transient",
	"allplan-project-locked-de":           "a drawing locked by a named user for editing is transient",
	"omninet-omnitracker-objekt-gesperrt": "an object locked while a named user edits it is transient",
	"nolte-planer-sperre":                 "a plan open at another workstation is a lock its user releases",
	"photomechanic-catalog-locked":        "a catalog locked by another process is a lock that goes when it finishes",
	// Conflicts: "a stale nonce (ACME badNonce) — is reliability"; a form's
	// security nonce that a fresh page renews is one.
	"leaky-paywall-nonce": "a stale form nonce is renewed and the call passes",
	// Transient: "a bare upstream '500 Internal Server Error' stays
	// reliability".
	"koreagold-api-500":    "a bare 500 Internal Server Error is a wait",
	"stoff-stil-gql-crash": "a bare internal server error is a wait",
}

// With the committed model, as the service runs it, no permanent error of
// the corpus is told to retry (but the few whose label goes against a
// written convention), and every outcome obeys the proposal.
func TestCorpusWithCommittedModel(t *testing.T) {
	t.Parallel()
	cases := load(t)
	vs := corpus.Score(classify.DefaultEngine(), cases)
	tot := corpus.Sum(vs)
	seen := map[string]bool{}
	for _, v := range vs {
		if why, ok := againstConventions[v.Case.ID]; ok {
			seen[v.Case.ID] = true
			if !v.PermanentRetryable {
				t.Logf("%s, listed as against a convention (%s), does not come out retryable with this model", v.Case.ID, why)
			}
			continue
		}
		if v.PermanentRetryable {
			t.Errorf("%s (%s): a permanent error came out retryable: %s/%s by %s", v.Case.ID, v.Case.Label(), v.Outcome.Class, v.Outcome.Code, v.Outcome.RuleID)
		}
		if len(v.SEP) > 0 {
			t.Errorf("%s: %v", v.Case.ID, v.SEP)
		}
	}
	for id := range againstConventions {
		if !seen[id] {
			t.Errorf("againstConventions names %s, which the corpus does not have", id)
		}
	}
	t.Logf("trained-on corpus: class %.1f%%, code %.1f%% (not a measure of generalisation)", corpus.Pct(tot.Class, tot.N), corpus.Pct(tot.Code, tot.N))
}

// The corpus keeps its promised make-up.
func TestCorpusMakeup(t *testing.T) {
	t.Parallel()
	m := corpus.MakeupOf(load(t))
	if m.Cases < 4000 || m.Systems < 900 {
		t.Errorf("%d cases from %d systems; want at least 4000 from 900", m.Cases, m.Systems)
	}
	if p := corpus.Pct(m.NotEnglish, m.Cases); p < 15 {
		t.Errorf("%.1f%% not in English; want at least 15%%", p)
	}
	if p := corpus.Pct(m.MessageOnly, m.Cases); p < 25 {
		t.Errorf("%.1f%% message-only; want at least 25%%", p)
	}
	for _, c := range load(t) {
		if c.Source == "" {
			t.Errorf("%s: no source", c.ID)
		}
		if c.Vendor == "" {
			t.Errorf("%s: no vendor (cross-validation holds a vendor's systems out together)", c.ID)
		}
	}
}

// The public corpus, which the model never trains on, stays fully right
// through the baseline packs and the engine.
func TestPublicCorpus(t *testing.T) {
	t.Parallel()
	path := filepath.Join("..", "..", "..", "shared", "corpus", "baseline-public.jsonl")
	if p := os.Getenv("TOOLFAILURE_CORPUS"); p != "" {
		path = p
	}
	if _, err := os.Stat(path); err != nil {
		t.Skipf("public corpus %s not present", path)
	}
	cases, err := corpus.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range corpus.Score(classify.DefaultEngine(), cases) {
		if !v.CodeOK || !v.RetryOK || len(v.SEP) > 0 {
			t.Errorf("%s: got %s/%s retryable=%v by %s, want %s", v.Case.ID, v.Outcome.Class, v.Outcome.Code, v.Outcome.Retryable, v.Outcome.RuleID, v.Case.Label())
		}
	}
}
