package mcpproxy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// depthOf is the nesting of v: 0 for a scalar.
func depthOf(v any) int {
	d := 0
	switch x := v.(type) {
	case map[string]any:
		for _, e := range x {
			d = max(d, 1+depthOf(e))
		}
	case []any:
		for _, e := range x {
			d = max(d, 1+depthOf(e))
		}
	}
	return d
}

// TestSummaryFitsTheService: whatever a structuredContent holds, what is
// sent for it is within the service's limits on error.details (and the
// middleware's), and keeps the top-level members classification reads.
func TestSummaryFitsTheService(t *testing.T) {
	t.Parallel()
	deep := func(n int) string { return strings.Repeat(`[`, n) + `1` + strings.Repeat(`]`, n) }
	long := strings.Repeat("é<", 100_000)
	var wide strings.Builder
	for i := range 200_000 {
		if i > 0 {
			wide.WriteByte(',')
		}
		fmt.Fprintf(&wide, `"k%d":%d`, i, i)
	}
	for name, raw := range map[string]string{
		"deep array":   `{"reason_code":"quota","x":` + deep(100_000) + `}`,
		"wide object":  `{"reason_code":"quota","x":{` + wide.String() + `}}`,
		"long string":  `{"reason_code":"quota","x":"` + long + `"}`,
		"long key":     `{"reason_code":"quota","` + long + `":1}`,
		"many strings": `{"reason_code":"quota","x":[` + strings.TrimSuffix(strings.Repeat(`"`+strings.Repeat("<", 3000)+`",`, 500), ",") + `]}`,
		"huge number":  `{"reason_code":"quota","x":1e400}`,
	} {
		v := summarize([]byte(raw))
		b, err := json.Marshal(map[string]any{"structuredContent": v})
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if len(b) > maxStructuredBytes+64 {
			t.Errorf("%s: %d bytes sent, over %d", name, len(b), maxStructuredBytes)
		}
		if d := depthOf(v); d > maxStructuredDepth {
			t.Errorf("%s: nested %d levels, over %d", name, d, maxStructuredDepth)
		}
		if m, _ := v.(map[string]any); m["reason_code"] != "quota" {
			t.Errorf("%s: the top-level reason_code was lost: %.200s", name, b)
		}
	}
}

// TestCompactPastDepthLimit: a message nested deeper than encoding/json
// goes, which the decoder took, is written out again rather than refused.
func TestCompactPastDepthLimit(t *testing.T) {
	t.Parallel()
	result := strings.Repeat(`{ "a" : [ `, 20_000) + `"x y"` + strings.Repeat(` ] }`, 20_000)
	line := `{"jsonrpc":"2.0","id":1,"result":` + result + `}`
	m, err := decodeMessage([]byte(line))
	if err != nil {
		t.Fatal(err)
	}
	out, err := encodeMessage(m)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"jsonrpc":"2.0","id":1,"result":` + strings.ReplaceAll(strings.ReplaceAll(result, " ", ""), `"xy"`, `"x y"`) + `}`
	if !bytes.Equal(out, []byte(want)) {
		t.Errorf("encoded %.100s…, want %.100s…", out, want)
	}
	if !isErrorResult(json.RawMessage(`{"structuredContent":` + result + `,"isError":true}`)) {
		t.Error("a failed result nested past encoding/json's limit is not seen as failed")
	}
	if _, err := encodeMessage(&jsonrpc.Response{Result: json.RawMessage(`{"a":1} {`)}); err == nil {
		t.Error("invalid JSON was encoded")
	}
}
