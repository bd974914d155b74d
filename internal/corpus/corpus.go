// Package corpus reads the labelled corpora of raw tool errors (the
// repository's corpus/ and the shared public one), scores a classifier on
// them, trains the text model, and measures how the baseline generalises
// with leave-system-out cross-validation: the model is trained without
// every case of the systems it is then scored on, so that the score says
// how it does on a system it has never seen.
package corpus

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/omcp/toolfailure/internal/classify"
)

// Case is one line of a corpus file (docs/classification.md, "The corpus").
type Case struct {
	ID      string `json:"id"`
	System  string `json:"system"`
	Vendor  string `json:"vendor"`
	Lang    string `json:"lang"`
	Pattern string `json:"pattern"`
	Source  string `json:"source"`
	Tool    string `json:"tool"`
	Error   Error  `json:"error"`
	Expect  struct {
		Class     string `json:"class"`
		Code      string `json:"code"`
		Retryable bool   `json:"retryable"`
	} `json:"expect"`
	Accept []struct {
		Class string `json:"class"`
		Code  string `json:"code"`
	} `json:"accept"`
	ExpectRetryAfterSeconds *float64 `json:"expectRetryAfterSeconds"`
	Note                    string   `json:"note"`

	// File is the file the case came from, for messages.
	File string `json:"-"`
}

// Error is the raw error exactly as ClassifyRequest.error carries it.
type Error struct {
	Message     string            `json:"message,omitempty"`
	Type        string            `json:"type,omitempty"`
	HTTPStatus  *int32            `json:"httpStatus,omitempty"`
	GRPCCode    *int32            `json:"grpcCode,omitempty"`
	JSONRPCCode *int32            `json:"jsonrpcCode,omitempty"`
	RetryAfter  string            `json:"retryAfter,omitempty"`
	Details     any               `json:"details,omitempty"`
	Attributes  map[string]string `json:"attributes,omitempty"`
}

// MessageOnly reports whether the error carries nothing but a message.
func (e *Error) MessageOnly() bool {
	return e.Message != "" && e.Type == "" && e.HTTPStatus == nil && e.GRPCCode == nil &&
		e.JSONRPCCode == nil && e.RetryAfter == "" && e.Details == nil && len(e.Attributes) == 0
}

// Input is the case as the service sees it: every corpus request is sent
// with idempotentHint true (the shared corpus README).
func (c *Case) Input() *classify.Input {
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

// Label is "class/code", the text model's label for the case.
func (c *Case) Label() string { return c.Expect.Class + "/" + c.Expect.Code }

// Accepts reports whether an outcome's class and code are right for the
// case, counting its accepted alternatives.
func (c *Case) Accepts(class, code string) (classOK, codeOK bool) {
	if class == c.Expect.Class && code == c.Expect.Code {
		return true, true
	}
	for _, a := range c.Accept {
		if class == a.Class && code == a.Code {
			return true, true
		}
	}
	return class == c.Expect.Class, false
}

// CheckLabels reports whether the case's expected class and code, and
// each accepted alternative, are a baseline class with a code of its
// class, and retryable is true exactly for reliability.
func (c *Case) CheckLabels() error { return c.checkLabels(classify.BaselineCodes()) }

func (c *Case) checkLabels(codes map[string]classify.Class) error {
	class, ok := codes[c.Expect.Code]
	if !ok || string(class) != c.Expect.Class {
		return fmt.Errorf("%s/%s is not a baseline class and code", c.Expect.Class, c.Expect.Code)
	}
	if c.Expect.Retryable != (class == classify.Reliability) {
		return fmt.Errorf("retryable must be true exactly for reliability")
	}
	for _, a := range c.Accept {
		if cl, ok := codes[a.Code]; !ok || string(cl) != a.Class {
			return fmt.Errorf("accept %s/%s is not a baseline class and code", a.Class, a.Code)
		}
	}
	return nil
}

// Load reads every *.jsonl file of dir, or the one file path names, in
// name order, and checks each case: a unique id, a system, a class in the
// closed set with a code of its class, and retryable exactly for
// reliability.
func Load(path string) ([]Case, error) {
	files := []string{path}
	if st, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("corpus %s: %w", path, err)
	} else if st.IsDir() {
		files, err = filepath.Glob(filepath.Join(path, "*.jsonl"))
		if err != nil {
			return nil, err
		}
		// Fresh batches join training once they have been scored at
		// their frozen commit (corpus/FRESH.md).
		fresh, err := filepath.Glob(filepath.Join(path, "fresh", "*.jsonl"))
		if err != nil {
			return nil, err
		}
		slices.Sort(files)
		slices.Sort(fresh)
		files = append(files, fresh...)
	}
	var cases []Case
	seen := map[string]string{}
	codes := classify.BaselineCodes()
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			return nil, fmt.Errorf("corpus %s: %w", file, err)
		}
		sc := bufio.NewScanner(bytes.NewReader(b))
		sc.Buffer(make([]byte, 0, 1<<20), 16<<20)
		for line := 1; sc.Scan(); line++ {
			text := strings.TrimSpace(sc.Text())
			if text == "" {
				continue
			}
			var c Case
			if err := json.Unmarshal([]byte(text), &c); err != nil {
				return nil, fmt.Errorf("%s:%d: %w", file, line, err)
			}
			c.File = filepath.Base(file)
			if c.Pattern == "-" {
				// The reports print "-" for no pattern, and two fresh
				// batches were written with it; it is not a pattern.
				c.Pattern = ""
			}
			where := fmt.Sprintf("%s:%d (%s)", file, line, c.ID)
			if c.ID == "" {
				return nil, fmt.Errorf("%s: no id", where)
			}
			if prev, dup := seen[c.ID]; dup {
				return nil, fmt.Errorf("%s: id also used at %s", where, prev)
			}
			seen[c.ID] = where
			if c.System == "" {
				c.System = c.ID // the shared corpus has no systems: each case its own
			}
			if err := c.checkLabels(codes); err != nil {
				return nil, fmt.Errorf("%s: %w", where, err)
			}
			cases = append(cases, c)
		}
		if err := sc.Err(); err != nil {
			return nil, fmt.Errorf("corpus %s: %w", file, err)
		}
	}
	if len(cases) == 0 {
		return nil, fmt.Errorf("corpus %s: no cases", path)
	}
	return cases, nil
}
