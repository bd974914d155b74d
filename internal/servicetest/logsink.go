package servicetest

import (
	"bytes"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"
)

// LogSink collects a logger's or a command's output and lets a test wait
// for a line, so that what a server logs after it answered is found
// without sleeping.
type LogSink struct {
	mu    sync.Mutex
	rest  []byte
	lines []string
	grew  chan struct{} // closed and replaced on every write
}

// NewLogSink returns an empty sink.
func NewLogSink() *LogSink { return &LogSink{grew: make(chan struct{})} }

func (s *LogSink) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rest = append(s.rest, p...)
	for {
		i := bytes.IndexByte(s.rest, '\n')
		if i < 0 {
			break
		}
		s.lines = append(s.lines, string(s.rest[:i]))
		s.rest = s.rest[i+1:]
	}
	close(s.grew)
	s.grew = make(chan struct{})
	return len(p), nil
}

// Text is everything written so far.
func (s *LogSink) Text() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Join(s.lines, "\n") + string(s.rest)
}

// WaitFor returns the first line that match accepts, waiting up to 30 s
// for it; every line must be one JSON object.
func (s *LogSink) WaitFor(t *testing.T, what string, match func(map[string]any) bool) map[string]any {
	t.Helper()
	deadline := time.NewTimer(30 * time.Second)
	defer deadline.Stop()
	for seen := 0; ; {
		s.mu.Lock()
		lines, grew := s.lines, s.grew
		s.mu.Unlock()
		for _, l := range lines[seen:] {
			var m map[string]any
			if err := json.Unmarshal([]byte(l), &m); err != nil {
				t.Fatalf("a log line is not JSON (%v):\n%s", err, l)
			}
			if match(m) {
				return m
			}
		}
		seen = len(lines)
		select {
		case <-grew:
		case <-deadline.C:
			t.Fatalf("no log line for %s in:\n%s", what, s.Text())
		}
	}
}
