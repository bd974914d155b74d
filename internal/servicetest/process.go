package servicetest

import (
	"bufio"
	"os"
	"os/exec"
	"regexp"
	"testing"
	"time"
)

// StartAndScan starts cmd (the binaries under test: the service, a proxy, an MCP server), waits
// for a line of its stderr that matches re, and returns the match's first group, typically the
// address it listens on. The rest of stderr goes to the test log under what. The process gets an
// interrupt when the test ends, and is killed if it has not exited ten seconds later.
func StartAndScan(t testing.TB, cmd *exec.Cmd, re *regexp.Regexp, what string) string {
	t.Helper()
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", what, err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			t.Logf("%s: %s", what, line)
			if m := re.FindStringSubmatch(line); m != nil {
				select {
				case found <- m[1]:
				default:
				}
			}
		}
	}()
	select {
	case s := <-found:
		return s
	case <-time.After(60 * time.Second):
		t.Fatalf("%s did not start within 60 s", what)
		return ""
	}
}
