package main

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestSafeText(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"plain text, café, 日本, ␀ and C:\\path":   "plain text, café, 日本, ␀ and C:\\path",
		"title\x1b]0;pwned\x07":                  `title\x1b]0;pwned\x07`,
		"\x1b]52;c;ZWNobyBvd25lZA==\x07":         `\x1b]52;c;ZWNobyBvd25lZA==\x07`,
		"ok\rFAKE":                               `ok\rFAKE`,
		"two\nlines\tand a tab":                  `two\nlines\tand a tab`,
		"nul\x00 del\x7f bs\b":                   `nul\x00 del\x7f bs\x08`,
		"csi\u009b31m next\u0085line":            `csi\u009b31m next\u0085line`,
		"bidi \u202egnp.exe\u202c \u2066x\u2069": `bidi \u202egnp.exe\u202c \u2066x\u2069`,
		"lrm\u200e alm\u061c ls\u2028 ps\u2029":  `lrm\u200e alm\u061c ls\u2028 ps\u2029`,
		"bad utf-8 \xff\xc3":                     `bad utf-8 \xff\xc3`,
	} {
		if got := safeText(in); got != want {
			t.Errorf("safeText(%q) = %q, want %q", in, got, want)
		}
		requireTerminalSafe(t, "safeText", safeText(in))
	}
}

// requireTerminalSafe fails unless out holds nothing a terminal acts on but line feeds.
func requireTerminalSafe(t *testing.T, what, out string) {
	t.Helper()
	for i, r := range out {
		if r == utf8.RuneError && !strings.HasPrefix(out[i:], "\uFFFD") ||
			r != '\n' && (r < 0x20 || r == 0x7f || unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) || r == '\u2028' || r == '\u2029') {
			t.Fatalf("%s: raw %U at byte %d reaches the terminal:\n%q", what, r, i, out)
		}
	}
}

// TestTextOutputEscapesTerminalControls: a record whose tool, message, type and details hold
// terminal controls (a window title change, an OSC 52 clipboard write, a CR that fakes a line, a
// C1 CSI, bidi overrides) is shown by lookup, failures list, groups list and groups show with every
// control visible as an escape; --output json stays JSON that decodes to the stored text.
func TestTextOutputEscapesTerminalControls(t *testing.T) {
	t.Parallel()
	dbURL := migrated(t)
	if code, _, errOut := runCmd(t, "migrate", "--database-url", dbURL); code != 0 {
		t.Fatalf("migrate: exit %d %s", code, errOut)
	}
	url, _, _ := startServe(t, "--database-url", dbURL)
	code, out, errOut := runCmd(t, "keys", "create", "--tenant", "acme", "--scopes", "report,lookup,rules", "--database-url", dbURL)
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if code != 0 {
		t.Fatalf("keys create: exit %d %s", code, errOut)
	}
	key := lines[len(lines)-1]

	const (
		tool    = "evil\x1b]0;owned\x07_tool\u202e"
		osc52   = "\x1b]52;c;cm0gLXJmIH4K\x07"
		message = "disk full " + osc52 + "\r\x1b[2KOK: all good\u009b31m \u2066hidden\u2069 on volume 7"
	)
	body, _ := json.Marshal(map[string]any{"tool": tool, "error": map[string]any{
		"message": message, "type": "E\x1b[31mIO", "details": map[string]any{"note": "bidi \u202eexe.gnp\u202c del\x7f"}}})
	res := post(t, url+"/toolfailure.v1.ClassifierService/Classify", key, string(body))
	cid := res["toolFailure"].(map[string]any)["correlationId"].(string)

	run := func(args ...string) string {
		t.Helper()
		code, out, errOut := runCmd(t, append(args, "--server", url, "--key", key)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		return out
	}
	lookup := run("lookup", cid)
	list := run("failures", "list")
	groups := run("groups", "list")
	for what, out := range map[string]string{"lookup": lookup, "failures list": list, "groups list": groups} {
		requireTerminalSafe(t, what, out)
		if !strings.Contains(out, `evil\x1b]0;owned\x07_tool\u202e`) {
			t.Errorf("%s does not show the tool with its controls escaped:\n%s", what, out)
		}
	}
	for _, want := range []string{
		`disk full \x1b]52;c;cm0gLXJmIH4K\x07\r\x1b[2KOK: all good\u009b31m \u2066hidden\u2069 on volume 7`,
		`E\x1b[31mIO`, `\u202eexe.gnp\u202c del\x7f`,
	} {
		if !strings.Contains(lookup, want) {
			t.Errorf("lookup does not show %s:\n%s", want, lookup)
		}
	}
	if !strings.Contains(groups, `disk full \x1b]`) {
		t.Errorf("groups list does not show the template with its ESC escaped:\n%s", groups)
	}
	fp := regexp.MustCompile(`(?m)^([0-9a-f]{16})\s`).FindStringSubmatch(groups)
	if fp == nil {
		t.Fatalf("groups list shows no fingerprint:\n%s", groups)
	}
	requireTerminalSafe(t, "groups show", run("groups", "show", fp[1]))

	// JSON output is JSON: it carries the stored text exactly (the encoder escapes it).
	var f struct {
		Tool  string `json:"tool"`
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	js := run("lookup", cid, "--output", "json")
	if err := json.Unmarshal([]byte(js), &f); err != nil || f.Tool != tool || f.Error.Message != message {
		t.Fatalf("lookup --output json: %v; tool %q, message %q", err, f.Tool, f.Error.Message)
	}
}
