package groupcommit_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/omcp/toolfailure/internal/groupcommit"
)

// recorder is a worker that records its batches and answers each item
// with its value doubled, or an error for negative values: "a bad item".
type recorder struct {
	mu      sync.Mutex
	batches [][]int
	gate    chan struct{} // when set, each flush waits for it
	closed  bool
	skip    bool // answer nothing: a faulty flush
}

func (r *recorder) Flush(batch []*groupcommit.Item[int, int]) {
	if r.gate != nil {
		<-r.gate
	}
	r.mu.Lock()
	var vs []int
	for _, it := range batch {
		vs = append(vs, it.Value)
	}
	r.batches = append(r.batches, vs)
	r.mu.Unlock()
	if r.skip {
		return
	}
	for _, it := range batch {
		if it.Value < 0 {
			it.Answer(0, fmt.Errorf("bad item %d", it.Value))
			continue
		}
		it.Answer(2*it.Value, nil)
	}
}

func (r *recorder) Close() {
	r.mu.Lock()
	r.closed = true
	r.mu.Unlock()
}

func (r *recorder) seen() [][]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.batches)
}

func newQueue(cfg groupcommit.Config, r *recorder) *groupcommit.Queue[int, int] {
	return groupcommit.New(cfg, func() groupcommit.Worker[int, int] { return r })
}

// TestEachCallerGetsItsOwnAnswer: concurrent submitters share batches and
// each gets the answer to its own item; a bad item fails alone.
func TestEachCallerGetsItsOwnAnswer(t *testing.T) {
	t.Parallel()
	r := &recorder{}
	q := newQueue(groupcommit.Config{MaxBatch: 8}, r)
	defer q.Close()
	var wg sync.WaitGroup
	errs := make(chan error, 200)
	for i := -20; i < 180; i++ {
		wg.Go(func() {
			got, err := q.Submit(context.Background(), i)
			switch {
			case i < 0 && (err == nil || err.Error() != fmt.Sprintf("bad item %d", i)):
				errs <- fmt.Errorf("item %d: got %d, %v; want its own error", i, got, err)
			case i >= 0 && (err != nil || got != 2*i):
				errs <- fmt.Errorf("item %d: got %d, %v; want %d", i, got, err, 2*i)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	n := 0
	for _, b := range r.seen() {
		if len(b) > 8 {
			t.Errorf("batch of %d items, MaxBatch is 8", len(b))
		}
		n += len(b)
	}
	if n != 200 {
		t.Errorf("flushed %d items, want 200", n)
	}
}

// TestOrder: items from one submitter after another are flushed in the
// order they were queued, and items queued during a flush form the next
// batch together.
func TestOrder(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		r := &recorder{gate: make(chan struct{})}
		q := newQueue(groupcommit.Config{MaxBatch: 100}, r)
		go func() { _, _ = q.Submit(context.Background(), 0) }()
		synctest.Wait() // the first flush waits at the gate
		for i := 1; i <= 5; i++ {
			go func() { _, _ = q.Submit(context.Background(), i) }()
			synctest.Wait() // queued in this order
		}
		close(r.gate)
		q.Close()
		got := r.seen()
		want := [][]int{{0}, {1, 2, 3, 4, 5}}
		if !slices.EqualFunc(got, want, slices.Equal) {
			t.Fatalf("batches %v, want %v", got, want)
		}
	})
}

// TestMaxWaitLingers: with MaxWait a worker waits that long for more
// items before it flushes a partial batch, and no longer.
func TestMaxWaitLingers(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		r := &recorder{}
		q := newQueue(groupcommit.Config{MaxBatch: 10, MaxWait: time.Millisecond}, r)
		defer q.Close()
		start := time.Now()
		go func() { _, _ = q.Submit(context.Background(), 1) }()
		time.Sleep(500 * time.Microsecond)
		var elapsed time.Duration
		if _, err := q.Submit(context.Background(), 2); err != nil {
			t.Fatal(err)
		}
		elapsed = time.Since(start)
		if got := r.seen(); !slices.EqualFunc(got, [][]int{{1, 2}}, slices.Equal) {
			t.Fatalf("batches %v, want one batch of both items", got)
		}
		if elapsed != time.Millisecond {
			t.Fatalf("answered after %v, want MaxWait (1ms) after the first item", elapsed)
		}
	})
}

// TestCloseFlushesWhatIsQueued: Close while a flush is in flight lets it
// finish, flushes what was queued behind it, answers everyone, closes the
// worker, and refuses what comes after.
func TestCloseFlushesWhatIsQueued(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		r := &recorder{gate: make(chan struct{})}
		q := newQueue(groupcommit.Config{MaxBatch: 2}, r)
		results := make(chan error, 5)
		for i := range 5 {
			go func() {
				_, err := q.Submit(context.Background(), i)
				results <- err
			}()
			synctest.Wait()
		}
		closed := make(chan struct{})
		go func() {
			q.Close()
			close(closed)
		}()
		synctest.Wait()
		select {
		case <-closed:
			t.Fatal("Close returned while a flush was in flight")
		default:
		}
		close(r.gate)
		<-closed
		for range 5 {
			if err := <-results; err != nil {
				t.Errorf("an item queued before Close: %v", err)
			}
		}
		if !r.closed {
			t.Error("the worker was not closed")
		}
		if _, err := q.Submit(context.Background(), 9); !errors.Is(err, groupcommit.ErrClosed) {
			t.Errorf("Submit after Close: %v, want ErrClosed", err)
		}
		q.Close() // a second Close is harmless
	})
}

// TestCancelledCallers: a caller whose context ends stops waiting at once;
// if its item had not been flushed yet, the flush leaves it out.
func TestCancelledCallers(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		r := &recorder{gate: make(chan struct{})}
		q := newQueue(groupcommit.Config{MaxBatch: 10}, r)
		go func() { _, _ = q.Submit(context.Background(), 0) }() // holds the worker at the gate
		synctest.Wait()
		ctx, cancel := context.WithCancel(context.Background())
		errc := make(chan error, 1)
		go func() {
			_, err := q.Submit(ctx, 1)
			errc <- err
		}()
		synctest.Wait()
		cancel()
		if err := <-errc; !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled Submit: %v, want context.Canceled", err)
		}
		done := make(chan struct{})
		go func() {
			_, _ = q.Submit(context.Background(), 2)
			close(done)
		}()
		synctest.Wait()
		close(r.gate)
		<-done
		q.Close()
		if got := r.seen(); !slices.EqualFunc(got, [][]int{{0}, {2}}, slices.Equal) {
			t.Fatalf("batches %v: the cancelled item must be left out", got)
		}
		// A context already ended never queues.
		if _, err := q.Submit(ctx, 3); err == nil {
			t.Fatal("Submit with an ended context succeeded")
		}
	})
}

// TestUnansweredItemsAreAnswered: a flush that forgets an item does not
// leave its caller hanging.
func TestUnansweredItemsAreAnswered(t *testing.T) {
	t.Parallel()
	r := &recorder{skip: true}
	q := newQueue(groupcommit.Config{}, r)
	defer q.Close()
	if _, err := q.Submit(context.Background(), 1); err == nil {
		t.Fatal("an item the flush did not answer came back without an error")
	}
}

// TestBackPressure: beyond Capacity, Submit waits to queue, and gives up
// with its context.
func TestBackPressure(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		r := &recorder{gate: make(chan struct{})}
		q := newQueue(groupcommit.Config{MaxBatch: 1, Capacity: 2}, r)
		for i := range 3 { // one in the flush, two queued
			go func() { _, _ = q.Submit(context.Background(), i) }()
			synctest.Wait()
		}
		if q.Len() != 2 {
			t.Fatalf("Len = %d, want 2", q.Len())
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_, err := q.Submit(ctx, 3)
		if !errors.Is(err, context.DeadlineExceeded) || q.Len() != 2 {
			t.Fatalf("Submit on a full queue: %v (Len %d), want to wait and time out", err, q.Len())
		}
		close(r.gate)
		q.Close()
	})
}
