package classify_test

import (
	"bufio"
	"encoding/json"
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/omcp/toolfailure/classify"
)

// corpusCase is one line of a labelled corpus file (see the corpus README):
// a raw error as a client sends it and the outcome the baseline should give.
type corpusCase struct {
	ID     string      `json:"id"`
	Tool   string      `json:"tool"`
	Error  corpusError `json:"error"`
	Expect struct {
		Class     string `json:"class"`
		Code      string `json:"code"`
		Retryable bool   `json:"retryable"`
	} `json:"expect"`
	Accept []struct {
		Class string `json:"class"`
		Code  string `json:"code"`
	} `json:"accept"`
	ExpectRetryAfterSeconds *float64 `json:"expectRetryAfterSeconds"`
}

type corpusError struct {
	Message     string            `json:"message"`
	Type        string            `json:"type"`
	HTTPStatus  *int32            `json:"httpStatus"`
	GRPCCode    *int32            `json:"grpcCode"`
	JSONRPCCode *int32            `json:"jsonrpcCode"`
	RetryAfter  string            `json:"retryAfter"`
	Details     any               `json:"details"`
	Attributes  map[string]string `json:"attributes"`
}

// corpusPath is where the labelled corpus lives: $TOOLFAILURE_CORPUS, else
// the shared corpus next to the repository.
func corpusPath() string {
	if p := os.Getenv("TOOLFAILURE_CORPUS"); p != "" {
		return p
	}
	return filepath.Join("..", "..", "shared", "corpus", "baseline-public.jsonl")
}

func loadCorpus(t *testing.T) []corpusCase {
	t.Helper()
	path := corpusPath()
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		t.Skipf("corpus %s not present", path)
	}
	if err != nil {
		t.Fatalf("open corpus: %v", err)
	}
	defer f.Close()
	var cases []corpusCase
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 16<<20)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		var c corpusCase
		if err := json.Unmarshal([]byte(text), &c); err != nil {
			t.Fatalf("%s:%d: %v", path, line, err)
		}
		cases = append(cases, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("read corpus: %v", err)
	}
	if len(cases) == 0 {
		t.Fatalf("corpus %s is empty", path)
	}
	return cases
}

func (c corpusCase) input() *classify.Input {
	idempotent := true
	return &classify.Input{
		Tool: c.Tool,
		Error: classify.RawError{
			Message:     c.Error.Message,
			Type:        c.Error.Type,
			HTTPStatus:  c.Error.HTTPStatus,
			GRPCCode:    c.Error.GRPCCode,
			JSONRPCCode: c.Error.JSONRPCCode,
			RetryAfter:  c.Error.RetryAfter,
			Details:     c.Error.Details,
			Attributes:  c.Error.Attributes,
		},
		Annotations: classify.Annotations{IdempotentHint: &idempotent},
	}
}

// TestCorpus scores the baseline as the corpus README describes: class,
// (class, code) with accepted alternatives, retryable, and the retry delay
// within 5 s where one is expected. Every outcome's _meta must obey the SEP.
func TestCorpus(t *testing.T) {
	t.Parallel()
	cases := loadCorpus(t)
	now := time.Date(2025, 6, 3, 10, 0, 0, 0, time.UTC)
	var classOK, codeOK, retryOK, delayOK, delayN int
	for _, c := range cases {
		o := classify.Baseline(c.input(), now)
		checkSEP(t, c.ID, o.Meta("tf_01JX0000000000000000000000"))

		expClass, expRetry := c.Expect.Class, c.Expect.Retryable
		gotClass, gotCode := string(o.Class), o.Code
		codeMatch := gotClass == c.Expect.Class && gotCode == c.Expect.Code
		classMatch := gotClass == c.Expect.Class
		for _, a := range c.Accept {
			if gotClass == a.Class && gotCode == a.Code {
				codeMatch, classMatch = true, true
				expClass = a.Class
				expRetry = a.Class == string(classify.Reliability)
			}
		}
		if classMatch {
			classOK++
		}
		if codeMatch {
			codeOK++
		}
		if o.Retryable == expRetry {
			retryOK++
		}
		if c.ExpectRetryAfterSeconds != nil {
			delayN++
			got := o.RetryNotBefore.Sub(now).Seconds()
			if !o.RetryNotBefore.IsZero() && math.Abs(got-*c.ExpectRetryAfterSeconds) <= 5 {
				delayOK++
			} else {
				t.Logf("MISS delay %s: got %.1fs want %.0fs", c.ID, got, *c.ExpectRetryAfterSeconds)
			}
		}
		if !codeMatch || o.Retryable != expRetry {
			t.Logf("MISS %s: got %s/%s retryable=%v (rule %s), want %s/%s retryable=%v",
				c.ID, gotClass, gotCode, o.Retryable, o.RuleID, expClass, c.Expect.Code, expRetry)
		}
	}
	n := float64(len(cases))
	pct := func(k int, of float64) float64 { return 100 * float64(k) / of }
	t.Logf("corpus %s: %d cases; class %.1f%%, code %.1f%%, retryable %.1f%%, delay %d/%d",
		corpusPath(), len(cases), pct(classOK, n), pct(codeOK, n), pct(retryOK, n), delayOK, delayN)
	if pct(classOK, n) < 95 || pct(codeOK, n) < 90 || pct(retryOK, n) < 95 {
		t.Errorf("below the bar: class %.1f%% (95), code %.1f%% (90), retryable %.1f%% (95)",
			pct(classOK, n), pct(codeOK, n), pct(retryOK, n))
	}
	if delayN > 0 && pct(delayOK, float64(delayN)) < 90 {
		t.Errorf("retry delay right in only %d of %d cases", delayOK, delayN)
	}
}

// checkSEP verifies a _meta toolFailure object against the proposal's rules,
// after a JSON round trip so that types are what a client would decode.
func checkSEP(t *testing.T, id string, meta map[string]any) {
	t.Helper()
	raw, err := json.Marshal(meta)
	if err != nil {
		t.Errorf("%s: marshal meta: %v", id, err)
		return
	}
	if strings.Contains(string(raw), "e+") {
		t.Errorf("%s: meta has a number in exponent form: %s", id, raw)
	}
	var m map[string]any
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		t.Errorf("%s: decode meta: %v", id, err)
		return
	}
	allowed := map[string]bool{"class": true, "code": true, "retryable": true, "retryNotBefore": true, "correlationId": true, "agentGuidance": true}
	for k := range m {
		if !allowed[k] {
			t.Errorf("%s: unexpected key %q", id, k)
		}
	}
	class, _ := m["class"].(string)
	if class != "capability" && class != "reliability" && class != "governance" {
		t.Errorf("%s: class %q not in the closed set", id, class)
	}
	if code, _ := m["code"].(string); code == "" {
		t.Errorf("%s: empty code", id)
	}
	retryable := false
	if v, ok := m["retryable"]; ok {
		b, isBool := v.(bool)
		if !isBool {
			t.Errorf("%s: retryable is %T", id, v)
		}
		retryable = b
		if class != "reliability" {
			t.Errorf("%s: retryable present on class %s", id, class)
		}
	}
	if v, ok := m["retryNotBefore"]; ok {
		n, isNum := v.(json.Number)
		if _, err := n.Int64(); !isNum || err != nil || !retryable {
			t.Errorf("%s: retryNotBefore %v must be an integer and only when retryable", id, v)
		}
	}
	cid, _ := m["correlationId"].(string)
	if !strings.HasPrefix(cid, "tf_") || len(cid) > 64 {
		t.Errorf("%s: correlationId %q", id, cid)
	}
	if g, ok := m["agentGuidance"]; ok {
		s, isString := g.(string)
		if !isString || s == "" || len(s) >= 500 {
			t.Errorf("%s: agentGuidance %q", id, g)
		}
	}
}
