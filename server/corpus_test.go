package server_test

import (
	"bufio"
	"encoding/json"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/omcp/toolfailure/conformance"
)

// corpusPath is the labelled corpus of real-world tool errors. It lives
// outside the repository; TOOLFAILURE_CORPUS points at it, and the default
// is where the project's workspace keeps it beside the checkout.
func corpusPath() string {
	if p := os.Getenv("TOOLFAILURE_CORPUS"); p != "" {
		return p
	}
	return filepath.Join("..", "..", "shared", "corpus", "baseline-public.jsonl")
}

type corpusCase struct {
	ID     string          `json:"id"`
	Tool   string          `json:"tool"`
	Error  json.RawMessage `json:"error"`
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

// TestCorpusThroughTheService scores the baseline the way acceptance runs
// do: each case sent to Classify over HTTP exactly as a client sends it,
// every returned meta checked against the proposal's rules.
func TestCorpusThroughTheService(t *testing.T) {
	t.Parallel()
	f, err := os.Open(corpusPath())
	if err != nil {
		t.Skipf("corpus not available (%v); set TOOLFAILURE_CORPUS", err)
	}
	defer f.Close()
	var cases []corpusCase
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<22)
	for sc.Scan() {
		if len(sc.Bytes()) == 0 {
			continue
		}
		var c corpusCase
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("corpus line: %v", err)
		}
		cases = append(cases, c)
	}
	b := setup(t)
	var classOK, codeOK, retryOK, delayOK, delayN int
	for _, c := range cases {
		body, _ := json.Marshal(map[string]any{
			"tool": c.Tool, "error": c.Error, "toolAnnotations": map[string]any{"idempotentHint": true},
		})
		sent := time.Now()
		status, res := b.post(t, classifyPath, b.reportKey, string(body))
		if status != http.StatusOK {
			t.Errorf("%s: request error %d %v", c.ID, status, res)
			continue
		}
		tf := metaOf(t, res)
		if vs := conformance.CheckToolFailure(tf); !conformance.Conforms(vs) {
			t.Errorf("%s: meta violates the proposal: %v", c.ID, vs)
		}
		class, code := tf["class"], tf["code"]
		okClass, okCode := class == c.Expect.Class, class == c.Expect.Class && code == c.Expect.Code
		for _, a := range c.Accept {
			if class == a.Class {
				okClass = true
				okCode = okCode || code == a.Code
			}
		}
		retryable, _ := tf["retryable"].(bool)
		wantRetry := c.Expect.Retryable
		if class != c.Expect.Class {
			wantRetry = class == "reliability"
		}
		if okClass {
			classOK++
		}
		if okCode {
			codeOK++
		} else {
			t.Logf("%s: got %v/%v, want %s/%s", c.ID, class, code, c.Expect.Class, c.Expect.Code)
		}
		if retryable == wantRetry {
			retryOK++
		}
		if c.ExpectRetryAfterSeconds != nil {
			delayN++
			if n, ok := tf["retryNotBefore"].(json.Number); ok {
				ms, _ := n.Int64()
				got := time.UnixMilli(ms).Sub(sent).Seconds()
				if math.Abs(got-*c.ExpectRetryAfterSeconds) <= 5 {
					delayOK++
				}
			}
		}
	}
	n := float64(len(cases))
	t.Logf("corpus through the service: %d cases; class %.1f%%, code %.1f%%, retryable %.1f%%, delay %d/%d",
		len(cases), 100*float64(classOK)/n, 100*float64(codeOK)/n, 100*float64(retryOK)/n, delayOK, delayN)
	if float64(classOK)/n < 0.95 || float64(codeOK)/n < 0.90 {
		t.Errorf("below the bar: class %d/%d, code %d/%d", classOK, len(cases), codeOK, len(cases))
	}
	if delayOK < delayN {
		t.Errorf("retry delay right for %d of %d cases", delayOK, delayN)
	}
}
