package main_test

import (
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestKeysCreateWhileServeHoldsEmbeddedStore: keys create on the file that
// a running serve has open says, in one line, which file, which process,
// and what to do.
func TestKeysCreateWhileServeHoldsEmbeddedStore(t *testing.T) {
	t.Parallel()
	bin, err := binary()
	if err != nil {
		t.Fatal(err)
	}
	dbFile := filepath.Join(t.TempDir(), "tf.db")
	svc := startService(t, "sqlite:"+dbFile)
	for _, args := range [][]string{
		{"keys", "create", "--tenant", "ops", "--scopes", "lookup", "--database-url", "sqlite:" + dbFile},
		{"retention", "show", "--tenant", "ops", "--database-url", "sqlite:" + dbFile},
	} {
		cmd := exec.Command(bin, args...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		if code := cmd.ProcessState.ExitCode(); code != 1 {
			t.Fatalf("%v: exit %d (%v), want 1: %s", args, code, err, stderr.String())
		}
		name := "toolfailure " + strings.Join(args[:2], " ")
		want := fmt.Sprintf("%s: the embedded store %s is in use by a running toolfailure (process %d): stop that server and run %q again, or pass --database-url for another database\n",
			name, dbFile, svc.cmd.Process.Pid, name)
		if stderr.String() != want {
			t.Errorf("%v:\nstderr %q\nwant   %q", args, stderr.String(), want)
		}
		if stdout.Len() != 0 {
			t.Errorf("%v: stdout %q", args, stdout.String())
		}
	}
}
