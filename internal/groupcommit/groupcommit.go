// Package groupcommit is the queue → drain → flush → answer loop that lets
// many concurrent callers share one expensive durable write: a database
// commit, a file sync. Each caller submits one item and waits; a worker
// takes every item that is waiting (up to a batch size, optionally
// lingering a little for more), hands the batch to a flush function that
// makes it durable once, and each caller is answered with its own result.
// The PostgreSQL store's group commit and the journal's appender are both
// built on it.
//
// Under load batches grow by themselves: items that arrive during a flush
// form the next batch. With MaxWait zero an idle queue adds no latency.
package groupcommit

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// ErrClosed is the answer to a Submit made after Close began, and to one
// whose item was queued after the workers' last look.
var ErrClosed = errors.New("groupcommit: closed")

// errUnanswered is what a caller gets when a flush returned without
// answering its item: a bug in the flush function, reported rather than
// left to hang the caller.
var errUnanswered = errors.New("groupcommit: the flush did not answer this item")

// Config sizes a Queue. Zero values take the defaults.
type Config struct {
	// MaxBatch caps the items of one flush (default 256).
	MaxBatch int
	// MaxWait is how long a worker lingers for more items once it has one
	// (default 0: flush as soon as the queue is empty).
	MaxWait time.Duration
	// Workers is how many flushes may be in flight at once (default 1).
	Workers int
	// Capacity is how many items may wait (default 4×MaxBatch). A Submit
	// beyond it waits to queue: the back-pressure that keeps memory
	// bounded when the flushes are slower than the callers.
	Capacity int
}

// Item is one submitted value on its way through a flush.
type Item[T, R any] struct {
	ctx context.Context
	// Value is what was submitted. A flush may change it; the caller does
	// not see it again.
	Value T

	res      R
	err      error
	answered bool
	done     chan struct{}
}

// Context is the submitter's context: its values (trace context) and
// whether the submitter is still waiting.
func (it *Item[T, R]) Context() context.Context { return it.ctx }

// Answer gives the submitter its result. A flush answers every item of
// its batch exactly once; later calls are ignored.
func (it *Item[T, R]) Answer(res R, err error) {
	if it.answered {
		return
	}
	it.res, it.err, it.answered = res, err, true
	close(it.done)
}

// Result is the answer given, for a flush that answers one item from
// another's outcome (a duplicate from its leader); zero before Answer.
func (it *Item[T, R]) Result() (R, error) { return it.res, it.err }

// Worker is one worker goroutine's flush, with whatever it keeps from
// batch to batch (a connection, scratch space).
type Worker[T, R any] interface {
	// Flush makes the batch durable and answers every item of it. Items
	// whose submitter stopped waiting before the batch formed are
	// answered with the context's error and left out.
	Flush(batch []*Item[T, R])
	// Close releases what the worker holds, once it has stopped.
	Close()
}

// Queue is a group commit. It is safe for concurrent use.
type Queue[T, R any] struct {
	cfg   Config
	queue chan *Item[T, R]
	quit  chan struct{} // closed by Close: flush what is queued, then stop
	done  chan struct{} // closed when every worker has stopped
	once  sync.Once
}

// New starts cfg.Workers workers, each made by newWorker.
func New[T, R any](cfg Config, newWorker func() Worker[T, R]) *Queue[T, R] {
	if cfg.MaxBatch <= 0 {
		cfg.MaxBatch = 256
	}
	if cfg.Workers <= 0 {
		cfg.Workers = 1
	}
	if cfg.Capacity <= 0 {
		cfg.Capacity = 4 * cfg.MaxBatch
	}
	q := &Queue[T, R]{
		cfg:   cfg,
		queue: make(chan *Item[T, R], cfg.Capacity),
		quit:  make(chan struct{}),
		done:  make(chan struct{}),
	}
	var wg sync.WaitGroup
	for range cfg.Workers {
		w := newWorker()
		wg.Go(func() {
			defer w.Close()
			q.run(w)
		})
	}
	go func() {
		wg.Wait()
		close(q.done)
	}()
	return q
}

// Submit queues v and waits for the flush of its batch. The error is the
// flush's answer, ErrClosed, or the context's error wrapped with where it
// stopped waiting: before the item was queued, or after (when the item may
// still be made durable by its batch; the caller was not told so, which is
// all that durability promises).
func (q *Queue[T, R]) Submit(ctx context.Context, v T) (R, error) {
	var zero R
	it := &Item[T, R]{ctx: ctx, Value: v, done: make(chan struct{})}
	select {
	case <-q.quit:
		return zero, ErrClosed
	default:
	}
	select {
	case q.queue <- it:
	case <-ctx.Done():
		return zero, fmt.Errorf("wait to queue: %w", ctx.Err())
	case <-q.quit:
		return zero, ErrClosed
	}
	select {
	case <-it.done:
		return it.res, it.err
	case <-ctx.Done():
		return zero, fmt.Errorf("wait for the flush: %w", ctx.Err())
	case <-q.done:
		select {
		case <-it.done:
			return it.res, it.err
		default:
			return zero, ErrClosed // queued after the workers' last look
		}
	}
}

// Post queues v for a flush without waiting for its answer, when there is
// room at once; it reports whether v was queued. It is for work that must
// run on a worker, between flushes, and that nobody waits for.
func (q *Queue[T, R]) Post(v T) bool {
	it := &Item[T, R]{ctx: context.Background(), Value: v, done: make(chan struct{})}
	select {
	case <-q.quit:
		return false
	default:
	}
	select {
	case q.queue <- it:
		return true
	default:
		return false
	}
}

// Close flushes every item already queued, stops the workers and waits
// for them. Submits made from then on get ErrClosed. Close may be called
// more than once.
func (q *Queue[T, R]) Close() {
	q.once.Do(func() { close(q.quit) })
	<-q.done
}

// Len is how many items wait to be taken into a batch.
func (q *Queue[T, R]) Len() int { return len(q.queue) }

func (q *Queue[T, R]) run(w Worker[T, R]) {
	batch := make([]*Item[T, R], 0, q.cfg.MaxBatch)
	for {
		var first *Item[T, R]
		select {
		case first = <-q.queue:
		case <-q.quit:
			// Closing: what is queued was accepted, so it is flushed, not dropped.
			for {
				batch = q.drain(batch[:0])
				if len(batch) == 0 {
					return
				}
				q.flush(w, batch)
			}
		}
		batch = q.fill(append(batch[:0], first))
		q.flush(w, batch)
		clear(batch) // let answered items be collected
	}
}

// fill adds what is queued, without waiting, then lingers up to MaxWait for more.
func (q *Queue[T, R]) fill(batch []*Item[T, R]) []*Item[T, R] {
	batch = q.drain(batch)
	if q.cfg.MaxWait <= 0 || len(batch) >= q.cfg.MaxBatch {
		return batch
	}
	timer := time.NewTimer(q.cfg.MaxWait)
	defer timer.Stop()
	for len(batch) < q.cfg.MaxBatch {
		select {
		case it := <-q.queue:
			batch = q.drain(append(batch, it))
		case <-timer.C:
			return batch
		}
	}
	return batch
}

// drain adds what is queued, without waiting.
func (q *Queue[T, R]) drain(batch []*Item[T, R]) []*Item[T, R] {
	for len(batch) < q.cfg.MaxBatch {
		select {
		case it := <-q.queue:
			batch = append(batch, it)
		default:
			return batch
		}
	}
	return batch
}

// flush answers the items whose submitter has gone, flushes the rest and
// answers whatever the flush left unanswered.
func (q *Queue[T, R]) flush(w Worker[T, R], batch []*Item[T, R]) {
	var zero R
	live := batch[:0:0]
	n := 0
	for _, it := range batch {
		if err := it.ctx.Err(); err != nil {
			it.Answer(zero, fmt.Errorf("wait for the flush: %w", err))
			continue
		}
		n++
	}
	if n == len(batch) {
		live = batch
	} else {
		live = make([]*Item[T, R], 0, n)
		for _, it := range batch {
			if !it.answered {
				live = append(live, it)
			}
		}
	}
	if len(live) > 0 {
		w.Flush(live)
	}
	for _, it := range live {
		it.Answer(zero, errUnanswered)
	}
}
