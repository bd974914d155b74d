package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"
)

// progress is the one-line progress display of a long operation: a bar
// when the total is known (bench's seeding), a spinner with the time so far
// when it is not (retention purge, rules apply waiting for the service). It
// draws only when its writer is a terminal, so that scripts, pipes and logs
// get the same output as before; a nil *progress does nothing.
type progress struct {
	mu          sync.Mutex
	w           io.Writer
	label       string
	total, done int64
	began       time.Time
	now         func() time.Time
	frame       int
	drawn       bool // a progress line is on the screen
	finished    bool
	stop        chan struct{}
	stopped     chan struct{}
}

// isTerminal reports whether w is a terminal; a dumb terminal cannot
// redraw a line, so it counts as none.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd())) && os.Getenv("TERM") != "dumb"
}

// newProgress starts a progress display on w for an operation of total
// steps (0: unknown). It returns nil, which displays nothing, when w is
// not a terminal.
func newProgress(w io.Writer, label string, total int64) *progress {
	if !isTerminal(w) {
		return nil
	}
	p := newProgressOn(w, label, total, time.Now)
	// Redrawn now and then even without news: the spinner turns and the
	// time so far counts up, so a slow step does not look like a hang.
	p.stop, p.stopped = make(chan struct{}), make(chan struct{})
	go p.spin(200 * time.Millisecond)
	return p
}

// newProgressOn is a progress display on any writer, with the clock given.
func newProgressOn(w io.Writer, label string, total int64, now func() time.Time) *progress {
	return &progress{w: w, label: label, total: total, began: now(), now: now}
}

func (p *progress) spin(every time.Duration) {
	defer close(p.stopped)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
			p.mu.Lock()
			p.frame++
			p.draw()
			p.mu.Unlock()
		}
	}
}

// Set records how many steps are done and redraws.
func (p *progress) Set(done int64) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done = done
	p.draw()
}

// Done removes the display; output that follows starts on a clean line.
func (p *progress) Done() {
	if p == nil {
		return
	}
	p.mu.Lock()
	if p.finished {
		p.mu.Unlock()
		return
	}
	p.finished = true
	p.clear()
	p.mu.Unlock()
	if p.stop != nil {
		close(p.stop)
		<-p.stopped
	}
}

// Write passes other output (log lines) to the same writer: it removes the
// progress line, writes, and draws the line again below.
func (p *progress) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	wasDrawn := p.drawn
	p.clear()
	n, err := p.w.Write(b)
	if wasDrawn && !p.finished {
		p.draw()
	}
	return n, err
}

// writer is the writer for output that shares the terminal with p.
func (p *progress) writer(fallback io.Writer) io.Writer {
	if p == nil {
		return fallback
	}
	return p
}

const barWidth = 30

var spinnerFrames = []string{"|", "/", "-", `\`}

// line is what the display shows now.
func (p *progress) line() string {
	elapsed := p.now().Sub(p.began).Truncate(time.Second)
	if p.total <= 0 {
		return fmt.Sprintf("%s %s… %s", spinnerFrames[p.frame%len(spinnerFrames)], p.label, elapsed)
	}
	done := min(max(p.done, 0), p.total)
	filled := int(done * barWidth / p.total)
	return fmt.Sprintf("%s [%s%s] %d/%d %3d%% %s", p.label, strings.Repeat("=", filled), strings.Repeat(" ", barWidth-filled),
		done, p.total, done*100/p.total, elapsed)
}

func (p *progress) draw() {
	if p.finished {
		return
	}
	// \r and "erase to end of line": the line is redrawn in place.
	fmt.Fprint(p.w, "\r"+p.line()+"\x1b[K")
	p.drawn = true
}

func (p *progress) clear() {
	if p.drawn {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.drawn = false
	}
}
