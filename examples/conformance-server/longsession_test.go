package main_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"testing"
)

// TestLongSessionLikeDirect: a client on the official TypeScript SDK that
// calls tools 1,600 times on one session through "toolfailure proxy
// --listen" sees what it sees directly: no MaxListenersExceededWarning
// (abort listeners left on its transport's signal by responses that do not
// end), over an HTTP upstream and a stdio child alike. The mean time per
// call is logged beside the direct one.
func TestLongSessionLikeDirect(t *testing.T) {
	t.Parallel()
	node, _ := suiteOrSkip(t)
	env := os.Environ() // no key: fail-open, relaying only
	listening := regexp.MustCompile(`(http://\S+/mcp)`)
	direct := start(t, env, listening, "server", serverBin, "--plain", "--listen", "127.0.0.1:0")
	viaHTTP := start(t, env, listening, "proxy-http", toolfailureBin, "proxy", "--listen", "127.0.0.1:0", "--upstream", direct)
	viaStdio := start(t, env, listening, "proxy-stdio", toolfailureBin, "proxy", "--listen", "127.0.0.1:0", serverBin, "--plain")

	const calls = 1600
	for _, run := range []struct{ name, url string }{{"direct", direct}, {"proxy over HTTP", viaHTTP}, {"proxy over stdio", viaStdio}} {
		out, err := exec.Command(node, "longsession.mjs", run.url, strconv.Itoa(calls)).Output()
		if err != nil {
			t.Fatalf("%s: %v\n%s", run.name, err, out)
		}
		var got struct {
			Calls, Warnings, MicrosPerCall int
		}
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("%s: %v: %s", run.name, err, out)
		}
		t.Logf("%s: %d calls, %d µs per call, %d MaxListenersExceededWarning", run.name, got.Calls, got.MicrosPerCall, got.Warnings)
		if got.Calls != calls || got.Warnings != 0 {
			t.Errorf("%s: %d calls, %d MaxListenersExceededWarning; want %d calls and none", run.name, got.Calls, got.Warnings, calls)
		}
	}
}
