package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestMCPServerFilter: the list commands filter by the MCP server's label with --mcp-server,
// while --server stays the service's URL, and their tables name each record's (or each
// problem's latest record's) MCP server.
func TestMCPServerFilter(t *testing.T) {
	t.Parallel()
	dbFile := filepath.Join(t.TempDir(), "tf.db")
	url, out, _ := startServe(t, "--database-url", "sqlite:"+dbFile)
	key := regexp.MustCompile(`export TOOLFAILURE_KEY=(\S+)`).FindStringSubmatch(out)[1]
	// The same tool on two MCP servers, and a record without a label.
	byServer := map[string][]string{}
	for i, server := range []string{"mail-mcp", "docs-mcp", "mail-mcp", "", "docs-mcp", "mail-mcp"} {
		res := post(t, url+"/toolfailure.v1.ClassifierService/Classify", key,
			fmt.Sprintf(`{"tool": "search", "server": %q, "error": {"message": "index %d unavailable", "httpStatus": 503}}`, server, i))
		byServer[server] = append(byServer[server], res["toolFailure"].(map[string]any)["correlationId"].(string))
	}
	ids := regexp.MustCompile(`tf_[0-9A-Z]{27}`)

	// Text: only mail-mcp's records, each row naming it.
	code, text, errOut := runCmd(t, "failures", "list", "--mcp-server", "mail-mcp", "--server", url, "--key", key)
	if code != 0 {
		t.Fatalf("failures list --mcp-server: exit %d: %s", code, errOut)
	}
	got := ids.FindAllString(text, -1)
	slices.Sort(got)
	want := slices.Sorted(slices.Values(byServer["mail-mcp"]))
	if !slices.Equal(got, want) {
		t.Fatalf("failures list --mcp-server mail-mcp lists %v, want %v:\n%s", got, want, text)
	}
	lines := strings.Split(strings.TrimSpace(text), "\n")
	if !strings.Contains(lines[0], "MCP SERVER") {
		t.Errorf("no MCP SERVER column:\n%s", text)
	}
	for _, l := range lines[1:] {
		if !strings.Contains(l, " search ") || !strings.Contains(l, " mail-mcp ") {
			t.Errorf("row does not name the tool and its MCP server: %q", l)
		}
	}

	// JSON carries the label; the flag may follow the others.
	code, text, errOut = runCmd(t, "failures", "list", "--server", url, "--key", key, "--output", "json", "--mcp-server", "docs-mcp")
	if code != 0 {
		t.Fatalf("failures list --output json --mcp-server: exit %d: %s", code, errOut)
	}
	var listed struct {
		Failures []struct {
			CorrelationID string `json:"correlationId"`
			Server        string `json:"server"`
		} `json:"failures"`
	}
	if err := json.Unmarshal([]byte(text), &listed); err != nil {
		t.Fatal(err)
	}
	if len(listed.Failures) != len(byServer["docs-mcp"]) {
		t.Fatalf("--mcp-server docs-mcp --output json: %d records, want %d:\n%s", len(listed.Failures), len(byServer["docs-mcp"]), text)
	}
	for _, f := range listed.Failures {
		if f.Server != "docs-mcp" || !slices.Contains(byServer["docs-mcp"], f.CorrelationID) {
			t.Errorf("--mcp-server docs-mcp listed %s of %q", f.CorrelationID, f.Server)
		}
	}

	// Unfiltered, the unlabelled record shows "-" in the column.
	code, text, errOut = runCmd(t, "failures", "list", "--server", url, "--key", key)
	if code != 0 || !regexp.MustCompile(regexp.QuoteMeta(byServer[""][0])+`\s+search\s+-\s`).MatchString(text) {
		t.Errorf("failures list: exit %d, the unlabelled record's row does not show -:\n%s%s", code, text, errOut)
	}

	// Groups: one problem across the servers; --mcp-server counts one server's records of it.
	code, text, errOut = runCmd(t, "groups", "list", "--mcp-server", "mail-mcp", "--server", url, "--key", key)
	if code != 0 {
		t.Fatalf("groups list --mcp-server: exit %d: %s", code, errOut)
	}
	lines = strings.Split(strings.TrimSpace(text), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], "MCP SERVER") || !regexp.MustCompile(`^[0-9a-f]{16}\s+3\s.*\ssearch\s+mail-mcp\s`).MatchString(lines[1]) {
		t.Fatalf("groups list --mcp-server mail-mcp: want one problem of 3 records from mail-mcp:\n%s", text)
	}
	code, text, errOut = runCmd(t, "groups", "list", "--server", url, "--key", key, "--output", "json")
	if code != 0 {
		t.Fatalf("groups list --output json: exit %d: %s", code, errOut)
	}
	var groups struct {
		Groups []struct {
			Count  string `json:"count"`
			Server string `json:"server"`
		} `json:"groups"`
	}
	if err := json.Unmarshal([]byte(text), &groups); err != nil {
		t.Fatal(err)
	}
	// Which record of the six is the newest depends on IDs that are random within a
	// millisecond, so the group's server may be any of the three.
	if len(groups.Groups) != 1 || groups.Groups[0].Count != "6" {
		t.Fatalf("groups list without --mcp-server: want one problem of 6 records:\n%s", text)
	}
}
