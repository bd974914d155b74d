package main

import (
	"strings"
	"testing"
)

// TestServeTenantLimitFlags: the tenant limits of serve take whole numbers from their flags or,
// when a flag is not given, from their environment variables; anything else is a usage error
// that names the flag, before the service opens a store or a port.
func TestServeTenantLimitFlags(t *testing.T) {
	t.Setenv("TOOLFAILURE_TENANT_CONCURRENCY", "two")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--tenant-in-flight", "-3"}, `"-3" is not a whole number`},
		{[]string{"serve", "--tenant-in-flight", "many"}, "--tenant-in-flight"},
		{[]string{"serve", "--tenant-in-flight", "8"}, `--tenant-concurrency: $TOOLFAILURE_TENANT_CONCURRENCY="two" is not a whole number`},
	} {
		code, _, errOut := runCmd(t, c.args...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, errOut, c.want)
		}
	}
}
