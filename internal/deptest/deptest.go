// Package deptest holds a package to the layers it may link: a test calls Forbid with what the
// package under test must not depend on, directly or not.
package deptest

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// Forbid fails t for each of pkgs (import paths) that the package in the test's directory links.
func Forbid(t testing.TB, pkgs ...string) {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	for _, p := range pkgs {
		if slices.Contains(deps, p) {
			t.Errorf("links %s", p)
		}
	}
}
