package journal

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/omcp/toolfailure/internal/groupcommit"
	"github.com/omcp/toolfailure/store"
)

// appendReq is one record on its way into the journal, or, with rotate set, the drainer asking the
// appender to retire a fully drained active segment. The appender owns the active segment, so
// every change of it goes through its goroutine.
type appendReq struct {
	f      store.Failure
	buf    []byte
	rotate bool
}

// appended is what InsertFailure returns for a journaled record.
type appended struct {
	stored  store.Failure
	created bool
}

// appendItem is an appendReq in the appender's group commit.
type appendItem = groupcommit.Item[appendReq, appended]

var errClosed = errors.New("journal is closed")

// append writes f to the journal and returns once it is synced to disk.
func (s *Store) append(ctx context.Context, f store.Failure) (store.Failure, bool, error) {
	buf, err := encodeRecord(f)
	if err != nil {
		return store.Failure{}, false, err
	}
	res, err := s.appends.Submit(ctx, appendReq{f: f, buf: buf})
	switch {
	case errors.Is(err, groupcommit.ErrClosed):
		return store.Failure{}, false, fmt.Errorf("journal failure %x: %w: %w", f.ID, store.ErrUnavailable, errClosed)
	case err != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)):
		return store.Failure{}, false, fmt.Errorf("journal failure %x: %w", f.ID, err)
	case err != nil:
		return store.Failure{}, false, err
	}
	return res.stored, res.created, nil
}

// appender is the journal's group commit worker (package groupcommit): it writes every record
// that is waiting, syncs once, and then answers all of them. During an outage this is what keeps
// the journal from costing one fsync per Classify call.
type appender struct{ s *Store }

func (a appender) Flush(batch []*appendItem) { a.s.writeBatch(batch) }
func (a appender) Close()                    {}

// writeBatch appends the records of a batch that are new, syncs, and answers every request.
func (s *Store) writeBatch(batch []*appendItem) {
	var (
		toWrite []*appendItem
		size    int64
		local   = map[[16]byte]*appendItem{}
		keys    = map[tenantKey]*appendItem{}
		follow  = map[*appendItem]*appendItem{}
	)
	s.mu.RLock()
	room := s.opts.MaxBytes - s.bytes
	s.mu.RUnlock()
	for _, it := range batch {
		r := &it.Value
		if r.rotate {
			s.retireActive()
			it.Answer(appended{}, nil)
			continue
		}
		// Duplicates inside the journal: the same key, or the same ID, answered by the first.
		if stored, created, err, ok := s.fromPending(r.f); ok {
			it.Answer(appended{stored, created}, err)
			continue
		}
		if r.f.IdempotencyKey != "" {
			if l, ok := keys[tenantKey{r.f.TenantID, r.f.IdempotencyKey}]; ok {
				follow[it] = l
				continue
			}
		}
		if l, ok := local[r.f.ID]; ok {
			follow[it] = l
			continue
		}
		if size+int64(len(r.buf)) > room {
			it.Answer(appended{}, fmt.Errorf("journal failure %x: %w: %w (%d bytes)", r.f.ID, store.ErrUnavailable, ErrFull, s.opts.MaxBytes))
			continue
		}
		size += int64(len(r.buf))
		local[r.f.ID] = it
		if r.f.IdempotencyKey != "" {
			keys[tenantKey{r.f.TenantID, r.f.IdempotencyKey}] = it
		}
		toWrite = append(toWrite, it)
	}
	if len(toWrite) > 0 {
		err := s.writeAndSync(toWrite, size)
		for _, it := range toWrite {
			if err != nil {
				it.Answer(appended{}, fmt.Errorf("journal failure %x: %w: %w", it.Value.f.ID, store.ErrUnavailable, err))
			} else {
				it.Answer(appended{it.Value.f, true}, nil)
			}
		}
		if err == nil {
			s.journaled.Add(uint64(len(toWrite)))
			s.wake()
		}
	}
	for it, l := range follow {
		lres, lerr := l.Result()
		r := &it.Value
		switch {
		case lerr != nil:
			it.Answer(appended{}, lerr)
		case r.f.IdempotencyKey != "" && r.f.IdempotencyKey == l.Value.f.IdempotencyKey:
			it.Answer(appended{lres.stored, false}, nil)
		default:
			it.Answer(appended{}, fmt.Errorf("journal failure %x: %w: ID already stored", r.f.ID, store.ErrConflict))
		}
	}
}

// writeAndSync writes records to the active segment, starting a new one when it is full, and
// syncs. The records become pending only after the sync: nothing is visible, or drained, that a
// crash could take back.
func (s *Store) writeAndSync(reqs []*appendItem, size int64) error {
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
		buf = append(buf, r.Value.buf...)
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
	for _, it := range reqs {
		f := it.Value.f
		e := &entry{f: f, seq: seq}
		seg.entries = append(seg.entries, e)
		seg.left++
		s.pending[f.ID] = e
		if f.IdempotencyKey != "" {
			s.byKey[tenantKey{f.TenantID, f.IdempotencyKey}] = e
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
