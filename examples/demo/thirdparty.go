package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/omcp/toolfailure/internal/mcpproxy"
	"github.com/omcp/toolfailure/mcpfailure"
)

// filesystemPackage is the npm package of the official MCP filesystem
// server, which examples/demo/package-lock.json pins.
const filesystemPackage = "@modelcontextprotocol/server-filesystem"

// installHint is how a reviewer gets the third-party part to run.
const installHint = "npm ci --prefix examples/demo"

// skippedLine starts the one line the demo prints instead of its
// third-party part when Node or the server is not installed.
const skippedLine = "Third-party server part SKIPPED: "

// minNodeMajor is the oldest Node the pinned server and its dependencies
// declare support for (their engines fields: the SDK >= 18, glob 18 || 20
// || >= 22).
const minNodeMajor = 18

// filesystemServer is an installed copy of the official filesystem server
// and the Node that runs it.
type filesystemServer struct {
	node, nodeVersion string
	script, version   string // dist/index.js and the package's version
}

// findFilesystemServer looks for Node on PATH (or the given binary) and for
// the server's package in pkgDir, or, when pkgDir is empty, in the
// node_modules that npm ci makes in examples/demo, seen from the
// repository's root or from examples/demo itself. It returns why not when
// either is missing, in words that say what to install.
func findFilesystemServer(ctx context.Context, node, pkgDir string) (*filesystemServer, string) {
	var fs filesystemServer
	if node == "" {
		p, err := exec.LookPath("node")
		if err != nil {
			return nil, "no node on PATH (install Node >= 18, then " + installHint + ")"
		}
		node = p
	}
	out, err := exec.CommandContext(ctx, node, "--version").Output()
	if err != nil {
		return nil, fmt.Sprintf("%s --version failed: %v", node, err)
	}
	fs.node, fs.nodeVersion = node, strings.TrimSpace(string(out))
	major, _ := strconv.Atoi(strings.SplitN(strings.TrimPrefix(fs.nodeVersion, "v"), ".", 2)[0])
	if major < minNodeMajor {
		return nil, fmt.Sprintf("%s is Node %s; %s needs Node >= %d", node, fs.nodeVersion, filesystemPackage, minNodeMajor)
	}

	candidates := []string{pkgDir}
	if pkgDir == "" {
		candidates = []string{
			filepath.Join("examples", "demo", "node_modules", filesystemPackage),
			filepath.Join("node_modules", filesystemPackage),
		}
	}
	for _, dir := range candidates {
		b, err := os.ReadFile(filepath.Join(dir, "package.json"))
		if err != nil {
			continue
		}
		var pkg struct {
			Version string `json:"version"`
		}
		if err := json.Unmarshal(b, &pkg); err != nil {
			return nil, fmt.Sprintf("%s: %v", filepath.Join(dir, "package.json"), err)
		}
		script, err := filepath.Abs(filepath.Join(dir, "dist", "index.js"))
		if err != nil {
			return nil, err.Error()
		}
		if _, err := os.Stat(script); err != nil {
			return nil, fmt.Sprintf("%s is incomplete (%v): run %s", dir, err, installHint)
		}
		fs.script, fs.version = script, pkg.Version
		return &fs, ""
	}
	return nil, fmt.Sprintf("%s is not installed (looked in %s): run %s",
		filesystemPackage, strings.Join(candidates, ", "), installHint)
}

// thirdPartyCall is one call of the third-party part. path is relative to
// the demo's directory, whose "allowed" subdirectory is the only one the
// server may read.
type thirdPartyCall struct {
	tool, path, what string
}

var thirdPartyCalls = []thirdPartyCall{
	{tool: "read_text_file", path: "allowed/notes.txt", what: "a file inside the allowed directory"},
	{tool: "read_text_file", path: "secret.txt", what: "a file outside the allowed directory"},
	{tool: "read_text_file", path: "allowed/missing.txt", what: "a file that does not exist"},
}

// thirdParty runs the official filesystem server, unmodified, as a child
// of the proxy (mcpproxy, the core of "toolfailure proxy --listen"), and
// calls it through the proxy with the same kind of client as the first
// part. For each failure it prints what a client that does not know the
// proposal gets (isError and the server's sentence) beside what the
// Dispatcher reads from the key the proxy added, and what it decides.
func thirdParty(ctx context.Context, w, logw io.Writer, first int, fsrv *filesystemServer, serviceURL, key string, rec *recorder) error {
	dir, err := os.MkdirTemp("", "toolfailure-demo-files-")
	if err != nil {
		return fmt.Errorf("create the served directory: %w", err)
	}
	defer os.RemoveAll(dir)
	// The server resolves symbolic links before comparing paths; so do we,
	// or a temporary directory under a link would be "outside" itself.
	if dir, err = filepath.EvalSymlinks(dir); err != nil {
		return err
	}
	allowed := filepath.Join(dir, "allowed")
	if err := os.Mkdir(allowed, 0o755); err != nil {
		return fmt.Errorf("create the allowed directory: %w", err)
	}
	for name, text := range map[string]string{
		filepath.Join(allowed, "notes.txt"): "Quarterly numbers are in the shared drive.\n",
		filepath.Join(dir, "secret.txt"):    "not for the agent\n",
	} {
		if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
			return fmt.Errorf("write %s: %w", name, err)
		}
	}

	p, err := mcpproxy.New(mcpproxy.Config{
		Classifier: mcpfailure.NewClassifierClient(nil, serviceURL, key),
		ServiceURL: serviceURL,
		// No label: failures are reported under the name the server gives
		// in its initialize result, as "toolfailure proxy" does by default.
		Budget: 2 * time.Second,
		// Warnings up: a miss or a broken session; not the start-up check's
		// "the service accepts the key".
		Logger: slog.New(slog.NewTextHandler(logw, &slog.HandlerOptions{Level: slog.LevelWarn})),
	})
	if err != nil {
		return err
	}
	if err := p.CheckService(ctx); err != nil {
		return fmt.Errorf("the proxy's check of the service: %w", err)
	}
	// The child's stderr is its start-up chatter; it is shown only when
	// the part fails, to say why.
	childLog := &lockedBuffer{}
	argv := []string{fsrv.node, fsrv.script, allowed}
	h := p.Handler(func() (mcp.Transport, error) { return mcpproxy.Command(argv, childLog) }, nil)
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	base, stopHTTP, err := serveHTTP(mux)
	if err != nil {
		_ = h.Close()
		return err
	}
	defer stopHTTP()
	defer h.Close() // before the HTTP server: its sessions' streams would hold Shutdown
	proxyURL := base + "/mcp"
	withChildLog := func(err error) error {
		if s := strings.TrimSpace(childLog.String()); s != "" {
			return fmt.Errorf("%w\nthe filesystem server's stderr:\n%s", err, s)
		}
		return err
	}

	client := mcp.NewClient(&mcp.Implementation{Name: "demo-agent", Version: "v1"}, nil)
	// A host offers its roots; the server asks for them through the proxy
	// and keeps to them. They are the directory it was started with.
	client.AddSendingMiddleware(rec.middleware)
	client.AddRoots(&mcp.Root{URI: "file://" + allowed, Name: "allowed"})
	session, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: proxyURL}, nil)
	if err != nil {
		return withChildLog(fmt.Errorf("connect through the proxy: %w", err))
	}
	defer session.Close()
	// Untrusted, as a third-party server should be: its annotations decide
	// nothing, only the service's classification does.
	dispatcher, err := mcpfailure.NewDispatcher(session, mcpfailure.DispatcherConfig{})
	if err != nil {
		return err
	}

	fmt.Fprintf(w, "Part 2: an unmodified third-party MCP server behind the proxy\n")
	fmt.Fprintf(w, "  MCP server  %s %s (Node %s), started by the proxy over stdio, may read only %s\n",
		filesystemPackage, fsrv.version, fsrv.nodeVersion, allowed)
	fmt.Fprintf(w, "  proxy       %s (streamable HTTP), the same relay as\n", proxyURL)
	fmt.Fprintf(w, "                toolfailure proxy --listen %s -- node %s %s\n",
		strings.TrimPrefix(base, "http://"), filepath.Join("…", filesystemPackage, "dist", "index.js"), allowed)
	fmt.Fprintf(w, "  client      the same Go SDK client and Dispatcher, not trusting this server\n\n")

	var lookupID string
	for i, c := range thirdPartyCalls {
		path := filepath.Join(dir, c.path)
		res, rep, callErr := dispatcher.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: map[string]any{"path": path}})
		if callErr != nil && res == nil {
			return withChildLog(fmt.Errorf("call %s %s: %w", c.tool, path, callErr))
		}
		fmt.Fprintf(w, "%d. %s %s — %s\n", first+i, c.tool, c.path, c.what)
		if !res.IsError {
			fmt.Fprintf(w, "   result    %q, passed through unchanged\n\n", firstText(res))
			continue
		}
		fmt.Fprintf(w, "   a client that does not know the proposal sees\n")
		fmt.Fprintf(w, "             isError: true, %q\n", firstText(res))
		if rep.CorrelationID == "" {
			// The proxy fails open: without the service the result goes
			// out as the server wrote it. The log above says why.
			fmt.Fprintf(w, "   the dispatcher finds no toolFailure key (the proxy could not classify it; see the log)\n")
		} else {
			fmt.Fprintf(w, "   the dispatcher reads _meta[%q], added by the proxy\n", mcpfailure.MetaKey)
			fmt.Fprintf(w, "             class %s, code %s, retryable %t, correlationId %s\n",
				rep.Class, rep.Code, rep.Retryable, rep.CorrelationID)
			if rep.AgentGuidance != "" {
				fmt.Fprintf(w, "   guidance  %q\n", rep.AgentGuidance)
			}
			if lookupID == "" {
				lookupID = rep.CorrelationID
			}
		}
		decided := strings.ToUpper(strings.ReplaceAll(string(rep.Action), "_", " "))
		fmt.Fprintf(w, "   decided   %s after %d attempt%s: %s\n\n", decided, rep.Attempts, plural(rep.Attempts), rep.Reason)
	}
	if lookupID != "" {
		if err := printLookup(ctx, w, mcpfailure.NewFailureClient(nil, serviceURL, key), lookupID); err != nil {
			return err
		}
	}
	return nil
}

// lockedBuffer collects a child's stderr, which the proxy copies from
// another goroutine.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
