package journal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/omcp/toolfailure/correlation"
	"github.com/omcp/toolfailure/store"
)

// drainTimeout bounds one replayed insert.
const drainTimeout = 30 * time.Second

// quarantineFile collects records that the store refused for good, one JSON object per line.
const quarantineFile = "quarantine.jsonl"

// drainLoop replays pending records into the store whenever there are some and the store answers,
// probing it every ProbeInterval while it does not.
func (s *Store) drainLoop() {
	defer s.wg.Done()
	ticker := time.NewTicker(s.opts.ProbeInterval)
	defer ticker.Stop()
	for {
		select {
		case <-s.quit:
			return
		case <-s.kick:
		case <-ticker.C:
		}
		if s.degraded.Load() {
			ctx, cancel := context.WithTimeout(context.Background(), max(s.opts.ProbeInterval, 2*time.Second))
			err := s.Store.Ping(ctx)
			cancel()
			if err != nil {
				continue
			}
			if s.degraded.CompareAndSwap(true, false) {
				s.log.Info("journal: the store answers again; writing to it directly and replaying the journal",
					"pending", s.npending.Load())
			}
		}
		if s.npending.Load() > 0 {
			s.drainAll()
		}
	}
}

// drainAll replays every pending record, oldest segment first, with a few inserts in flight so
// that the store's group commit can batch them. It stops at the first sign that the store is
// unavailable again.
func (s *Store) drainAll() {
	s.mu.RLock()
	seqs := make([]uint64, 0, len(s.segs))
	for seq := range s.segs {
		seqs = append(seqs, seq)
	}
	slices.Sort(seqs)
	var todo []*entry
	for _, seq := range seqs {
		for _, e := range s.segs[seq].entries {
			if !e.drained {
				todo = append(todo, e)
			}
		}
	}
	s.mu.RUnlock()

	var (
		work    = make(chan *entry)
		stop    = make(chan struct{})
		stopped sync.Once
		wg      sync.WaitGroup
	)
	for range s.opts.DrainConcurrency {
		wg.Go(func() {
			for e := range work {
				if err := s.drainOne(e); err != nil {
					stopped.Do(func() {
						s.markDegraded(err)
						close(stop)
					})
				}
			}
		})
	}
feed:
	for _, e := range todo {
		select {
		case work <- e:
		case <-stop:
			break feed
		case <-s.quit:
			break feed
		}
	}
	close(work)
	wg.Wait()
	s.reclaim()
}

// drainOne replays one record. It returns an error only when the store is unavailable; a record
// that the store refuses for good is quarantined and counts as drained.
func (s *Store) drainOne(e *entry) error {
	ctx, cancel := context.WithTimeout(context.Background(), drainTimeout)
	defer cancel()
	f := e.f
	// The record comes back from the journal's files, perhaps written by an earlier process, so
	// it is prepared here like any caller's; a record that the store's rules now refuse is
	// quarantined below, as one that the store refuses.
	p, err := store.Prepare(f)
	if err != nil {
		s.quarantine(e, err)
		s.markDrained(e)
		return nil
	}
	stored, _, err := s.Store.InsertFailure(ctx, p)
	if err == nil && stored.ID != f.ID {
		// While the record waited here, another one took its idempotency key in the store (a retry
		// that reached another replica, say, or a record stored before the outage that the journal
		// could not see). Both IDs were shown to someone, so both must stay valid: this one is
		// stored without the key, linked to the record that holds it, so that a lookup of either
		// names the other (docs/reference.md, "Idempotency across an outage"). The log line says
		// the same for whoever reads logs rather than records.
		s.log.Warn("journal: idempotency key taken meanwhile; storing the journaled record without it",
			"correlationId", correlation.ID(f.ID).String(), "tenant", f.TenantID,
			"sameKeyAs", correlation.ID(stored.ID).String())
		_, _, err = s.Store.InsertFailure(ctx, p.SameCallAs(stored.ID))
	}
	switch {
	case err == nil, errors.Is(err, store.ErrConflict):
		// Stored now, or already: an earlier drain or the original write got through.
	case errors.Is(err, store.ErrUnavailable), errors.Is(err, context.DeadlineExceeded):
		return err
	default:
		s.quarantine(e, err)
	}
	s.markDrained(e)
	return nil
}

func (s *Store) markDrained(e *entry) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e.drained {
		return
	}
	e.drained = true
	if s.pending[e.f.ID] == e {
		delete(s.pending, e.f.ID)
	}
	k := tenantKey{e.f.TenantID, e.f.IdempotencyKey}
	if e.f.IdempotencyKey != "" && s.byKey[k] == e {
		delete(s.byKey, k)
	}
	if seg := s.segs[e.seq]; seg != nil {
		seg.left--
	}
	s.npending.Store(int64(len(s.pending)))
	s.drained.Add(1)
	if len(s.pending) == 0 && s.emptied != nil {
		close(s.emptied)
		s.emptied = nil
	}
}

// quarantine keeps a record that the store will never take (its tenant was deleted, say) in a file
// of its own, and says so loudly: it was acknowledged, so dropping it silently is not an option,
// and keeping it pending would stop the journal from ever emptying.
func (s *Store) quarantine(e *entry, cause error) {
	s.quarantined.Add(1)
	s.log.Error("journal: the store refuses a journaled record; kept in "+quarantineFile,
		"id", fmt.Sprintf("%x", e.f.ID), "tenant", e.f.TenantID, "error", cause)
	line, err := encodeRecord(e.f)
	if err == nil {
		// The line is the record's JSON payload, after its binary header.
		var obj json.RawMessage = line[headerLen:]
		line = append(obj, '\n')
		var file *os.File
		file, err = os.OpenFile(filepath.Join(s.opts.Dir, quarantineFile), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err == nil {
			_, err = file.Write(line)
			err = errors.Join(err, file.Sync(), file.Close())
		}
	}
	if err != nil {
		s.log.Error("journal: cannot write the quarantine file", "error", err)
	}
}

// reclaim deletes segments whose records are all drained. The active segment is retired by the
// appender, which owns it.
func (s *Store) reclaim() {
	s.mu.RLock()
	var done []uint64
	activeDrained := false
	for seq, seg := range s.segs {
		if seg.left > 0 {
			continue
		}
		if seq == s.activeSeq && s.active != nil {
			activeDrained = true
			continue
		}
		done = append(done, seq)
	}
	s.mu.RUnlock()
	for _, seq := range done {
		s.removeSegment(seq)
	}
	if activeDrained {
		_ = s.appends.Post(appendReq{rotate: true}) // when busy appending, the next drain retires it
	}
}
