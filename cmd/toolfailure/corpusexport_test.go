package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/omcp/toolfailure/internal/corpus"
	"github.com/omcp/toolfailure/internal/redact"
	"github.com/omcp/toolfailure/internal/redact/redacttest"
)

// TestCorpusExportNeverHoldsASecret classifies failures that carry every
// kind of secret in every field a request can carry one in, through the
// real service on PostgreSQL, exports them, and checks that no line holds
// a value the redactor would remove; that each line is a corpus case
// labelled with the service's decision and not confirmed; and that bench
// classify scores the file only once its cases are confirmed.
func TestCorpusExportNeverHoldsASecret(t *testing.T) {
	t.Parallel()
	exportSecrets := redacttest.Samples(t)

	dbURL := migrated(t)
	url, _, _ := startServe(t, "--database-url", dbURL)
	code, out, errOut := runCmd(t, "keys", "create", "--tenant", "acme", "--scopes", "report,lookup", "--database-url", dbURL)
	if code != 0 {
		t.Fatalf("keys create: exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	key := lines[len(lines)-1]

	// Each field a request can carry a secret in, as the request's JSON.
	fields := []struct {
		name    string
		request func(secret string) map[string]any
	}{
		{"message", func(s string) map[string]any { return req("t", "", map[string]any{"message": "failed: " + s}) }},
		{"type", func(s string) map[string]any { return req("t", "", map[string]any{"message": "m", "type": s}) }},
		{"retryAfter", func(s string) map[string]any { return req("t", "", map[string]any{"httpStatus": 429, "retryAfter": s}) }},
		{"details string", func(s string) map[string]any {
			return req("t", "", map[string]any{"message": "m", "details": map[string]any{"info": s}})
		}},
		{"details, deep in a list", func(s string) map[string]any {
			return req("t", "", map[string]any{"details": map[string]any{"a": []any{map[string]any{"b": "x " + s}}}})
		}},
		{"details, a string body", func(s string) map[string]any {
			return req("t", "", map[string]any{"httpStatus": 500, "details": "<html>" + s + "</html>"})
		}},
		{"attributes", func(s string) map[string]any {
			return req("t", "", map[string]any{"message": "m", "attributes": map[string]any{"note": s}})
		}},
		{"tool", func(s string) map[string]any { return req(s, "", map[string]any{"message": "m"}) }},
		{"server", func(s string) map[string]any { return req("t", s, map[string]any{"message": "m"}) }},
	}
	decisions := map[string][2]string{} // correlation ID → class, code
	classifyOne := func(body map[string]any) {
		b, _ := json.Marshal(body)
		res := post(t, url+"/toolfailure.v1.ClassifierService/Classify", key, string(b))
		tf := res["meta"].(map[string]any)["io.modelcontextprotocol/toolFailure"].(map[string]any)
		decisions[tf["correlationId"].(string)] = [2]string{tf["class"].(string), tf["code"].(string)}
	}
	for _, f := range fields {
		for _, s := range exportSecrets {
			classifyOne(f.request(s.Text))
		}
	}
	// Values under a key that names a secret, whatever they look like.
	classifyOne(req("t", "", map[string]any{"message": "m", "details": map[string]any{"password": "plain words", "auth": map[string]any{"pin": 4829}}}))
	classifyOne(req("t", "", map[string]any{"message": "m", "attributes": map[string]any{"api_key": "plain words"}}))

	file := filepath.Join(t.TempDir(), "mine.jsonl")
	code, _, errOut = runCmd(t, "corpus", "export", "--since", "1h", "-o", file, "--server", url, "--key", key)
	if code != 0 || !strings.Contains(errOut, fmt.Sprintf("%d records to %s", len(decisions), file)) {
		t.Fatalf("corpus export: exit %d: %s", code, errOut)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		for _, s := range exportSecrets {
			if strings.Contains(line, s.Secret) {
				t.Errorf("the export holds a %s: %s", s.Kind, line)
			}
		}
		if strings.Contains(line, "plain words") || strings.Contains(line, "4829") {
			t.Errorf("the export holds a value under a secret's key: %s", line)
		}
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("line %d: %v", n, err)
		}
		if again := redact.Value(rec); !reflect.DeepEqual(again, rec) {
			t.Errorf("the redactor would still change line %d:\n%s", n, line)
		}
		id, _ := rec["id"].(string)
		want, ok := decisions[id]
		expect, _ := rec["expect"].(map[string]any)
		if !ok || expect["class"] != want[0] || expect["code"] != want[1] || expect["retryable"] != (want[0] == "reliability") {
			t.Errorf("line %d: id %q, expect %v; the service decided %v", n, id, expect, want)
		}
		if rec["confirmed"] != false || !strings.HasPrefix(rec["source"].(string), "exported from toolfailure ") {
			t.Errorf("line %d: confirmed %v, source %v", n, rec["confirmed"], rec["source"])
		}
	}
	if n != len(decisions) {
		t.Fatalf("%d lines exported, %d failures classified", n, len(decisions))
	}

	// Unconfirmed, the file is read but not scored; confirmed, it is.
	cases, unconfirmed, err := corpus.LoadConfirmed(file)
	if err != nil || len(cases) != 0 || unconfirmed != n {
		t.Fatalf("LoadConfirmed: %d cases, %d unconfirmed, %v", len(cases), unconfirmed, err)
	}
	if code, _, errOut := runCmd(t, "bench", "classify", "--corpus", file); code != 1 || !strings.Contains(errOut, "no confirmed cases") {
		t.Errorf("bench classify of an unconfirmed export: exit %d: %s", code, errOut)
	}
	confirmed := filepath.Join(t.TempDir(), "confirmed.jsonl")
	if err := os.WriteFile(confirmed, bytes.ReplaceAll(data, []byte(`"confirmed":false`), []byte(`"confirmed":true`)), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = runCmd(t, "bench", "classify", confirmed, "--peers")
	if code != 0 || !strings.Contains(out, fmt.Sprintf("confirmed.jsonl: %d cases", n)) {
		t.Errorf("bench classify of the confirmed export: exit %d:\n%s%s", code, out, errOut)
	}

	// Flags after the arguments, and a window that holds nothing.
	code, out, errOut = runCmd(t, "corpus", "export", "--server", url, "--key", key, "--since", "2h", "--until", "90m")
	if code != 0 || out != "" || !strings.Contains(errOut, "0 records") {
		t.Errorf("an empty window: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// req is a ClassifyRequest as JSON.
func req(tool, server string, e map[string]any) map[string]any {
	r := map[string]any{"tool": tool, "error": e, "toolAnnotations": map[string]any{"idempotentHint": true}}
	if server != "" {
		r["server"] = server
	}
	return r
}
