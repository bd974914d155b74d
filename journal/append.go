package journal

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/omcp/toolfailure/store"
)

// appendReq is one record on its way into the journal, or, with rotate set, the drainer asking the
// appender to retire a fully drained active segment. The appender owns the active segment, so
// every change of it goes through its goroutine.
type appendReq struct {
	f      store.Failure
	buf    []byte
	rotate bool
	done   chan struct{}

	stored  store.Failure
	created bool
	err     error
}

var errClosed = errors.New("journal is closed")

// append writes f to the journal and returns once it is synced to disk.
func (s *Store) append(ctx context.Context, f store.Failure) (store.Failure, bool, error) {
	buf, err := encodeRecord(f)
	if err != nil {
		return store.Failure{}, false, err
	}
	req := &appendReq{f: f, buf: buf, done: make(chan struct{})}
	select {
	case s.appends <- req:
	case <-ctx.Done():
		return store.Failure{}, false, fmt.Errorf("journal failure %x: %w", f.ID, ctx.Err())
	case <-s.quit:
		return store.Failure{}, false, fmt.Errorf("journal failure %x: %w: %w", f.ID, store.ErrUnavailable, errClosed)
	}
	select {
	case <-req.done:
		return req.stored, req.created, req.err
	case <-ctx.Done():
		return store.Failure{}, false, fmt.Errorf("journal failure %x: %w", f.ID, ctx.Err())
	}
}

// appendLoop is the journal's group commit: it writes every record that is waiting, syncs once,
// and then answers all of them. During an outage this is what keeps the journal from costing one
// fsync per Classify call.
func (s *Store) appendLoop() {
	defer s.wg.Done()
	const maxBatch = 256
	batch := make([]*appendReq, 0, maxBatch)
	for {
		var first *appendReq
		select {
		case first = <-s.appends:
		case <-s.quit:
			// Answer whatever is still queued: with the journal closing it cannot take records.
			for {
				select {
				case r := <-s.appends:
					r.err = fmt.Errorf("journal failure %x: %w: %w", r.f.ID, store.ErrUnavailable, errClosed)
					close(r.done)
				default:
					return
				}
			}
		}
		batch = append(batch[:0], first)
	fill:
		for len(batch) < maxBatch {
			select {
			case r := <-s.appends:
				batch = append(batch, r)
			default:
				break fill
			}
		}
		s.writeBatch(batch)
		clear(batch)
	}
}

// writeBatch appends the records of a batch that are new, syncs, and answers every request.
func (s *Store) writeBatch(batch []*appendReq) {
	var (
		toWrite []*appendReq
		size    int64
		local   = map[[16]byte]*appendReq{}
		keys    = map[tenantKey]*appendReq{}
		follow  = map[*appendReq]*appendReq{}
	)
	s.mu.RLock()
	room := s.opts.MaxBytes - s.bytes
	s.mu.RUnlock()
	for _, r := range batch {
		if r.rotate {
			s.retireActive()
			close(r.done)
			continue
		}
		// Duplicates inside the journal: the same key, or the same ID, answered by the first.
		if stored, created, err, ok := s.fromPending(r.f); ok {
			r.stored, r.created, r.err = stored, created, err
			close(r.done)
			continue
		}
		if r.f.IdempotencyKey != "" {
			if l, ok := keys[tenantKey{r.f.TenantID, r.f.IdempotencyKey}]; ok {
				follow[r] = l
				continue
			}
		}
		if l, ok := local[r.f.ID]; ok {
			follow[r] = l
			continue
		}
		if size+int64(len(r.buf)) > room {
			r.err = fmt.Errorf("journal failure %x: %w: %w (%d bytes)", r.f.ID, store.ErrUnavailable, ErrFull, s.opts.MaxBytes)
			close(r.done)
			continue
		}
		size += int64(len(r.buf))
		local[r.f.ID] = r
		if r.f.IdempotencyKey != "" {
			keys[tenantKey{r.f.TenantID, r.f.IdempotencyKey}] = r
		}
		toWrite = append(toWrite, r)
	}
	if len(toWrite) > 0 {
		err := s.writeAndSync(toWrite, size)
		for _, r := range toWrite {
			if err != nil {
				r.err = fmt.Errorf("journal failure %x: %w: %w", r.f.ID, store.ErrUnavailable, err)
			} else {
				r.stored, r.created = r.f, true
			}
			close(r.done)
		}
		if err == nil {
			s.journaled.Add(uint64(len(toWrite)))
			s.wake()
		}
	}
	for r, l := range follow {
		switch {
		case l.err != nil:
			r.err = l.err
		case r.f.IdempotencyKey != "" && r.f.IdempotencyKey == l.f.IdempotencyKey:
			r.stored = l.stored
		default:
			r.err = fmt.Errorf("journal failure %x: %w: ID already stored", r.f.ID, store.ErrConflict)
		}
		close(r.done)
	}
}

// writeAndSync writes records to the active segment, starting a new one when it is full, and
// syncs. The records become pending only after the sync: nothing is visible, or drained, that a
// crash could take back.
func (s *Store) writeAndSync(reqs []*appendReq, size int64) error {
	s.mu.RLock()
	active, seq := s.active, s.activeSeq
	activeBytes := int64(0)
	if seg := s.segs[seq]; seg != nil {
		activeBytes = seg.bytes
	}
	s.mu.RUnlock()
	if active != nil && activeBytes+size > s.opts.SegmentBytes {
		s.closeActive()
		active = nil
	}
	if active == nil {
		s.mu.Lock()
		seq = s.nextSeq
		s.nextSeq++
		s.mu.Unlock()
		file, err := createSegment(s.opts.Dir, seq)
		if err != nil {
			return err
		}
		s.mu.Lock()
		s.active, s.activeSeq = file, seq
		s.segs[seq] = &segment{bytes: int64(len(segmentMagic))}
		s.bytes += int64(len(segmentMagic))
		s.mu.Unlock()
		active = file
	}
	buf := make([]byte, 0, size)
	for _, r := range reqs {
		buf = append(buf, r.buf...)
	}
	_, err := active.Write(buf)
	if err == nil {
		err = active.Sync()
	}
	if err != nil {
		// The segment's tail is now unknown. Start a new segment for the next batch; the bytes
		// written, if any, are cut off as a torn tail, or kept aside as damage, at the next Open.
		s.log.Error("journal: write failed; starting a new segment", "segment", segmentName(seq), "error", err)
		s.closeActive()
		return fmt.Errorf("write journal: %w", err)
	}
	s.mu.Lock()
	seg := s.segs[seq]
	for _, r := range reqs {
		e := &entry{f: r.f, seq: seq}
		seg.entries = append(seg.entries, e)
		seg.left++
		s.pending[r.f.ID] = e
		if r.f.IdempotencyKey != "" {
			s.byKey[tenantKey{r.f.TenantID, r.f.IdempotencyKey}] = e
		}
	}
	seg.bytes += size
	s.bytes += size
	s.npending.Store(int64(len(s.pending)))
	s.mu.Unlock()
	return nil
}

// closeActive closes the active segment; it stays on disk until it is drained.
func (s *Store) closeActive() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.active != nil {
		_ = s.active.Close()
		s.active, s.activeSeq = nil, 0
	}
}

// retireActive closes and removes the active segment when every record in it has been drained,
// so that an idle journal holds no files at all.
func (s *Store) retireActive() {
	s.mu.Lock()
	seq := s.activeSeq
	seg := s.segs[seq]
	if s.active == nil || seg == nil || seg.left > 0 {
		s.mu.Unlock()
		return
	}
	_ = s.active.Close()
	s.active, s.activeSeq = nil, 0
	s.mu.Unlock()
	s.removeSegment(seq)
}

// removeSegment deletes a segment whose records are all in the store.
func (s *Store) removeSegment(seq uint64) {
	if err := os.Remove(filepath.Join(s.opts.Dir, segmentName(seq))); err != nil && !errors.Is(err, os.ErrNotExist) {
		s.log.Warn("journal: cannot remove a drained segment", "segment", segmentName(seq), "error", err)
		return
	}
	s.mu.Lock()
	if seg := s.segs[seq]; seg != nil {
		s.bytes -= seg.bytes
		delete(s.segs, seq)
	}
	s.mu.Unlock()
	// Losing the removal in a crash only means replaying records that the store already has.
	_ = syncDir(s.opts.Dir)
}
