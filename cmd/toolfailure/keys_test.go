package main

import (
	"encoding/hex"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/omcp/toolfailure/internal/apikey"
)

// TestKeysListRevoke: create (one key with an expiry), list in text and JSON (never a key or its
// hash), revoke with an audit line and record, revoke again (no change), and the usage errors.
func TestKeysListRevoke(t *testing.T) {
	t.Parallel()
	db := "sqlite:" + filepath.Join(t.TempDir(), "keys.db")
	code, out, errOut := runCmd(t, "keys", "create", "--tenant", "acme", "--scopes", "report,lookup", "--expires-in", "90d", "--database-url", db)
	if code != 0 {
		t.Fatalf("keys create: exit %d %s", code, errOut)
	}
	acmeKey := strings.TrimSpace(out)
	if !strings.Contains(errOut, `msg="api key created" audit=true key_id=`) || !strings.Contains(errOut, "expires_at=") || strings.Contains(errOut, acmeKey) {
		t.Errorf("keys create's audit line: %q", errOut)
	}
	code, out, errOut = runCmd(t, "keys", "create", "--tenant", "globex", "--scopes", "rules", "--database-url", db)
	if code != 0 {
		t.Fatalf("keys create: exit %d %s", code, errOut)
	}
	globexKey := strings.TrimSpace(out)
	acmeID, globexID := acmeKey[4:12], globexKey[4:12]
	noKey := func(name, s string) {
		t.Helper()
		for _, k := range []string{acmeKey, globexKey} {
			if strings.Contains(s, k) || strings.Contains(s, k[13:]) || strings.Contains(s, hex.EncodeToString(apikey.Hash(k))) {
				t.Errorf("%s shows a key or its hash:\n%s", name, s)
			}
		}
	}

	code, out, errOut = runCmd(t, "keys", "list", "--database-url", db)
	if code != 0 {
		t.Fatalf("keys list: exit %d %s", code, errOut)
	}
	noKey("keys list", out+errOut)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "ID") || !strings.Contains(lines[0], "LAST USED") ||
		!strings.HasPrefix(lines[1], acmeID) || !strings.Contains(lines[1], "report,lookup") || !strings.Contains(lines[1], "active") ||
		!strings.HasPrefix(lines[2], globexID) || !strings.Contains(lines[2], "never") {
		t.Fatalf("keys list:\n%s", out)
	}

	code, out, errOut = runCmd(t, "keys", "revoke", globexID, "--database-url", db)
	if code != 0 {
		t.Fatalf("keys revoke: exit %d %s", code, errOut)
	}
	if !strings.Contains(errOut, `msg="api key revoked" audit=true key_id=`+globexID) || !strings.Contains(errOut, "tenant=globex") || !strings.Contains(errOut, "by=\"keys revoke by ") {
		t.Errorf("keys revoke's audit line: %q", errOut)
	}
	noKey("keys revoke", out+errOut)
	if code, _, errOut = runCmd(t, "keys", "revoke", globexID, "--database-url", db); code != 0 || !strings.Contains(errOut, "already revoked") {
		t.Errorf("second revoke: exit %d %q", code, errOut)
	}
	if code, _, errOut = runCmd(t, "keys", "revoke", "nosuchid", "--database-url", db); code != 1 || !strings.Contains(errOut, `no key with ID "nosuchid"`) {
		t.Errorf("revoke of an unknown ID: exit %d %q", code, errOut)
	}
	// A whole key pasted instead of its ID is forgiven, and never echoed.
	if code, out, errOut = runCmd(t, "keys", "revoke", globexKey, "--database-url", db); code != 0 || !strings.Contains(errOut, "already revoked") {
		t.Errorf("revoke by the whole key: exit %d %q", code, errOut)
	}
	noKey("keys revoke KEY", out+errOut)

	code, out, errOut = runCmd(t, "keys", "list", "--tenant", "globex", "--output", "json", "--database-url", db)
	if code != 0 {
		t.Fatalf("keys list --output json: exit %d %s", code, errOut)
	}
	noKey("keys list --output json", out)
	var got struct {
		Keys []map[string]any `json:"keys"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("keys list --output json: %v\n%s", err, out)
	}
	if len(got.Keys) != 1 {
		t.Fatalf("keys list --tenant globex: %d keys\n%s", len(got.Keys), out)
	}
	k := got.Keys[0]
	if k["id"] != globexID || k["tenant"] != "globex" || k["status"] != "revoked" || k["revokedAt"] == nil ||
		!strings.HasPrefix(k["revokedBy"].(string), "keys revoke by ") || !strings.HasPrefix(k["createdBy"].(string), "keys create by ") || k["createdAt"] == nil {
		t.Errorf("listed key: %v", k)
	}
	for _, field := range []string{"hash", "key", "secret", "keyHash"} {
		if _, ok := k[field]; ok {
			t.Errorf("keys list --output json has %q", field)
		}
	}
	code, out, _ = runCmd(t, "keys", "list", "--tenant", "acme", "--output", "json", "--database-url", db)
	if code != 0 || !strings.Contains(out, `"expiresAt"`) || !strings.Contains(out, `"status": "active"`) {
		t.Errorf("acme's key in JSON: exit %d\n%s", code, out)
	}
	if code, out, _ = runCmd(t, "keys", "list", "--tenant", "nobody", "--output", "json", "--database-url", db); code != 0 || strings.TrimSpace(out) != `{
  "keys": []
}` {
		t.Errorf("keys list of an unknown tenant: exit %d %q", code, out)
	}
}

func TestKeysUsageErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"keys", "create", "--tenant", "a", "--scopes", "report", "--expires-in", "soon"}, "--expires-in"},
		{[]string{"keys", "create", "--tenant", "a", "--scopes", "report", "--expires-in", "-1h"}, "must be positive"},
		{[]string{"keys", "revoke"}, "want one key ID"},
		{[]string{"keys", "revoke", "a b"}, "is not a key ID"},
		{[]string{"keys", "list", "--output", "yaml"}, `--output "yaml"`},
		{[]string{"keys", "list", "--tenant", " "}, "--tenant"},
	} {
		code, _, errOut := runCmd(t, c.args...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d %q, want 2 and %q", c.args, code, errOut, c.want)
		}
	}
}

func TestParseExpiresIn(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"90d": "2160h0m0s", "1h30m": "1h30m0s", " 2d ": "48h0m0s"} {
		d, err := parseExpiresIn(in)
		if err != nil || d.String() != want {
			t.Errorf("parseExpiresIn(%q) = %v, %v; want %s", in, d, err, want)
		}
	}
	for _, in := range []string{"", "0", "0d", "-3d", "1.5d", "d", "1y"} {
		if _, err := parseExpiresIn(in); err == nil {
			t.Errorf("parseExpiresIn(%q) accepted", in)
		}
	}
}
