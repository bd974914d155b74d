package main

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"

	"github.com/spf13/pflag"
)

// logFlags are --log-format and --log-level, which serve and proxy share so that one log
// pipeline reads both.
type logFlags struct {
	format, level *envString
}

func addLogFlags(fs *pflag.FlagSet) logFlags {
	return logFlags{
		format: envStringVar(fs, "log-format", "TOOLFAILURE_LOG_FORMAT", "text", "log format on stderr: text (key=value) or json (one object per line)"),
		level:  envStringVar(fs, "log-level", "TOOLFAILURE_LOG_LEVEL", "info", "least severe level logged: debug, info, warn or error"),
	}
}

// logger builds the one logger that everything the command logs goes through, or a usage error
// naming the flag.
func (f logFlags) logger(w io.Writer) (*slog.Logger, error) {
	var level slog.Level
	switch v := strings.ToLower(strings.TrimSpace(f.level.Get())); v {
	case "debug":
		level = slog.LevelDebug
	case "info":
		level = slog.LevelInfo
	case "warn", "warning":
		level = slog.LevelWarn
	case "error":
		level = slog.LevelError
	default:
		return nil, fmt.Errorf("%s %q: use debug, info, warn or error", f.level.source("log-level"), f.level.Get())
	}
	opts := &slog.HandlerOptions{Level: level}
	switch v := strings.ToLower(strings.TrimSpace(f.format.Get())); v {
	case "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	default:
		return nil, fmt.Errorf("%s %q: use text or json", f.format.source("log-format"), f.format.Get())
	}
}

// source names the flag for a message about a bad value, and the variable too when the value
// came from there, so that the operator knows what to fix.
func (e *envString) source(flag string) string {
	if !e.set && os.Getenv(e.env) != "" {
		return "--" + flag + " (from $" + e.env + ")"
	}
	return "--" + flag
}

// levelSet reports whether --log-level was given on the command line or in the environment,
// so that proxy's older --verbose does not override an explicit choice.
func (f logFlags) levelSet() bool {
	return f.level.set || os.Getenv(f.level.env) != ""
}

// childStderr is where the proxy sends an upstream command's stderr: as it is in text format,
// where a developer reads the server's own log beside the proxy's, and as one record per line in
// json format, so that the stream stays one JSON object per line for the log shipper.
func (f logFlags) childStderr(stderr io.Writer, log *slog.Logger) io.Writer {
	if strings.EqualFold(strings.TrimSpace(f.format.Get()), "json") {
		return &stderrLines{log: log}
	}
	return stderr
}

// maxStderrLine bounds what stderrLines holds of a line that has not ended yet.
const maxStderrLine = 64 << 10

// stderrLines logs each line written to it as one record.
type stderrLines struct {
	log  *slog.Logger
	mu   sync.Mutex
	rest []byte
}

func (w *stderrLines) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.rest = append(w.rest, p...)
	for {
		i := bytes.IndexByte(w.rest, '\n')
		if i < 0 {
			if len(w.rest) < maxStderrLine {
				return len(p), nil
			}
			i = len(w.rest)
		}
		w.log.Info("upstream stderr", slog.String("line", strings.TrimRight(string(w.rest[:i]), "\r")))
		w.rest = w.rest[min(i+1, len(w.rest)):]
	}
}
