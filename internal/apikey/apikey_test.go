package apikey_test

import (
	"bytes"
	"testing"

	"github.com/omcp/toolfailure/internal/apikey"
)

func TestNewKeysAreDistinctAndWellFormed(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for range 100 {
		k, err := apikey.New()
		if err != nil {
			t.Fatal(err)
		}
		if err := apikey.Check(k.Secret); err != nil {
			t.Fatalf("minted key %q fails its own check: %v", k.ID, err)
		}
		if !bytes.Equal(apikey.Hash(k.Secret), k.Hash) {
			t.Fatal("hash of the secret differs from the minted hash")
		}
		if seen[k.Secret] || seen[k.ID] {
			t.Fatal("duplicate key or id")
		}
		seen[k.Secret], seen[k.ID] = true, true
	}
}

func TestCheckRejects(t *testing.T) {
	t.Parallel()
	k, _ := apikey.New()
	for _, s := range []string{"", "Bearer x", k.Secret[:len(k.Secret)-1], "xxx_" + k.Secret[4:], k.Secret + "a"} {
		if apikey.Check(s) == nil {
			t.Errorf("Check(%q) accepted a malformed key", s)
		}
	}
}

func TestParseScopes(t *testing.T) {
	t.Parallel()
	got, err := apikey.ParseScopes("report, lookup,report,,rules")
	if err != nil || len(got) != 3 || got[0] != "report" || got[1] != "lookup" || got[2] != "rules" {
		t.Fatalf("ParseScopes = %v, %v", got, err)
	}
	for _, bad := range []string{"", "report,admin", " , "} {
		if _, err := apikey.ParseScopes(bad); err == nil {
			t.Errorf("ParseScopes(%q) accepted", bad)
		}
	}
}
