package journal

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/omcp/toolfailure/internal/filelock"
	"github.com/omcp/toolfailure/internal/groupcommit"
	"github.com/omcp/toolfailure/store"
)

// Defaults of Options.
const (
	DefaultMaxBytes         = 1 << 30
	DefaultSegmentBytes     = 64 << 20
	DefaultWriteTimeout     = time.Second
	DefaultProbeInterval    = time.Second
	DefaultDrainConcurrency = 16
)

// ErrFull is returned (wrapped, together with store.ErrUnavailable) when the store is unavailable
// and the journal has reached Options.MaxBytes: the record was neither stored nor journaled.
var ErrFull = errors.New("journal full")

// Options configure a journal. Only Dir is required.
type Options struct {
	// Dir holds the journal's files; it is created if needed. It must be on a local disk that
	// survives the process (not a tmpfs), and be used by one process at a time (Open locks it).
	Dir string
	// MaxBytes bounds the journal on disk (DefaultMaxBytes). When the store is down and the journal
	// is full, InsertFailure fails with store.ErrUnavailable: the service answers unavailable
	// rather than fill the disk.
	MaxBytes int64
	// SegmentBytes is the size at which a new segment file is started (DefaultSegmentBytes).
	// Drained segments are deleted whole, so this is also the granularity of reclaiming space.
	SegmentBytes int64
	// WriteTimeout is how long InsertFailure waits for the store before it journals the record
	// instead (DefaultWriteTimeout). It is the longest that a Classify call is held up by a
	// database that stopped answering without closing its connections.
	WriteTimeout time.Duration
	// ProbeInterval is how often the store is pinged while it is unavailable (DefaultProbeInterval).
	ProbeInterval time.Duration
	// DrainConcurrency is how many journaled records are replayed at once
	// (DefaultDrainConcurrency); the store's group commit batches them.
	DrainConcurrency int
	// Logger receives state changes and drain problems; nil discards them.
	Logger *slog.Logger
}

func (o Options) withDefaults() Options {
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	if o.SegmentBytes <= 0 {
		o.SegmentBytes = DefaultSegmentBytes
	}
	if o.WriteTimeout <= 0 {
		o.WriteTimeout = DefaultWriteTimeout
	}
	if o.ProbeInterval <= 0 {
		o.ProbeInterval = DefaultProbeInterval
	}
	if o.DrainConcurrency <= 0 {
		o.DrainConcurrency = DefaultDrainConcurrency
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}

// Status is a snapshot of a journal, for health checks and metrics.
type Status struct {
	// Degraded is true while the store is considered unavailable: new records go to the journal.
	Degraded bool
	// Pending counts records in the journal that the store does not have yet.
	Pending int
	// Bytes is the size of the journal's segments on disk.
	Bytes int64
	// Journaled, Drained and Quarantined count records since Open: written to the journal,
	// replayed into the store, and set aside because the store refused them for good.
	Journaled, Drained, Quarantined uint64
}

// Store is a store.Store that keeps failure records in a local journal while the wrapped store is
// unavailable, and replays them into it once it is back. Everything but InsertFailure, GetFailure,
// ListFailures, Ping and Close passes through to the wrapped store, with the exceptions described
// in the package documentation (API keys and rules are served from the last answer during an
// outage).
type Store struct {
	store.Store
	opts Options
	log  *slog.Logger
	lock *os.File

	degraded atomic.Bool
	npending atomic.Int64 // len(pending), readable without the lock on the hot path

	mu sync.RWMutex
	// emptied is closed, and cleared, when the last pending record is drained; group counts wait
	// on it (see waitStored). Guarded by mu.
	emptied   chan struct{}
	pending   map[[16]byte]*entry
	byKey     map[tenantKey]*entry
	segs      map[uint64]*segment
	activeSeq uint64 // the segment being appended to; 0 when none is open
	active    *os.File
	nextSeq   uint64
	bytes     int64 // all segments

	appends *groupcommit.Queue[appendReq, appended]
	kick    chan struct{}
	quit    chan struct{}
	wg      sync.WaitGroup
	once    sync.Once

	journaled, drained, quarantined atomic.Uint64
}

type tenantKey struct {
	tenant int64
	key    string
}

// entry is one journaled record that the store may not have yet.
type entry struct {
	f       store.Failure
	seq     uint64
	drained bool
}

// segment is the bookkeeping of one segment file.
type segment struct {
	bytes   int64
	entries []*entry
	left    int // entries not yet drained
}

var _ store.Store = (*Store)(nil)
var _ store.RuleWatcher = (*Store)(nil)

// WatchRules forwards the wrapped store's notifications of rule changes (see store.ForwardWatch).
func (s *Store) WatchRules(ctx context.Context, fn func(store.RuleEvent)) error {
	return store.ForwardWatch(ctx, s.Store, fn)
}

// Open wraps inner with the journal in opts.Dir, reading whatever an earlier process left there:
// those records are pending until the drainer has replayed them, which it starts doing at once.
// Close closes inner too.
func Open(ctx context.Context, inner store.Store, opts Options) (*Store, error) {
	if inner == nil {
		return nil, errors.New("open journal: no store to wrap")
	}
	if opts.Dir == "" {
		return nil, errors.New("open journal: Options.Dir is required")
	}
	opts = opts.withDefaults()
	if err := os.MkdirAll(opts.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("open journal %s: %w", opts.Dir, err)
	}
	// The lock keeps a second process from appending to, or draining, the same journal.
	lock, err := filelock.Acquire(ctx, filepath.Join(opts.Dir, "LOCK"), lockWait)
	if errors.Is(err, filelock.ErrHeld) {
		return nil, fmt.Errorf("open journal %s: %w: another toolfailure uses this journal", opts.Dir, err)
	}
	if err != nil {
		return nil, fmt.Errorf("open journal %s: %w", opts.Dir, err)
	}
	s := &Store{
		Store:   inner,
		opts:    opts,
		log:     opts.Logger,
		lock:    lock,
		pending: map[[16]byte]*entry{},
		byKey:   map[tenantKey]*entry{},
		segs:    map[uint64]*segment{},
		nextSeq: 1,
		kick:    make(chan struct{}, 1),
		quit:    make(chan struct{}),
	}
	if err := s.load(ctx); err != nil {
		_ = lock.Close()
		return nil, fmt.Errorf("open journal %s: %w", opts.Dir, err)
	}
	if n := s.npending.Load(); n > 0 {
		s.log.Warn("journal: records from an earlier run are waiting for the store; replaying them",
			"pending", n, "bytes", s.bytes)
	}
	s.appends = groupcommit.New(groupcommit.Config{MaxBatch: 256, Capacity: 1024},
		func() groupcommit.Worker[appendReq, appended] { return appender{s} })
	s.wg.Add(1)
	go s.drainLoop()
	s.wake()
	return s, nil
}

// load reads every segment. A torn tail is cut off the last segment, where a crash leaves it; in
// an older segment the unreadable rest is kept aside under a .damaged name for an operator, since
// those segments were complete and synced before the next one began.
func (s *Store) load(ctx context.Context) error {
	seqs, err := listSegments(s.opts.Dir)
	if err != nil {
		return err
	}
	for i, seq := range seqs {
		if err := ctx.Err(); err != nil {
			return err
		}
		path := filepath.Join(s.opts.Dir, segmentName(seq))
		seg := &segment{}
		good, err := readSegment(path, func(f store.Failure, size int64) {
			e := &entry{f: f, seq: seq}
			if old, dup := s.pending[f.ID]; dup {
				// Journaled twice (a retry after an error): keep the first.
				_ = old
				seg.bytes += size
				return
			}
			seg.entries = append(seg.entries, e)
			seg.left++
			s.pending[f.ID] = e
			if f.IdempotencyKey != "" {
				if _, taken := s.byKey[tenantKey{f.TenantID, f.IdempotencyKey}]; !taken {
					s.byKey[tenantKey{f.TenantID, f.IdempotencyKey}] = e
				}
			}
			seg.bytes += size
		})
		if err != nil && !errors.Is(err, errTorn) {
			return err
		}
		if err != nil {
			if i == len(seqs)-1 {
				s.log.Warn("journal: cutting off a torn tail (a record that was never acknowledged)",
					"segment", segmentName(seq), "at", good, "reason", err)
				if terr := os.Truncate(path, good); terr != nil {
					return fmt.Errorf("cut torn tail of %s: %w", segmentName(seq), terr)
				}
			} else {
				s.log.Error("journal: damaged segment; its readable records are replayed, the rest is kept aside",
					"segment", segmentName(seq), "at", good, "reason", err)
				if cerr := copyAside(path, good); cerr != nil {
					return cerr
				}
			}
			if good < int64(len(segmentMagic)) {
				// Not even a header: a segment created by a crash mid-creation holds nothing.
				if rerr := os.Remove(path); rerr != nil {
					return fmt.Errorf("remove empty segment: %w", rerr)
				}
				s.nextSeq = max(s.nextSeq, seq+1)
				continue
			}
		}
		seg.bytes += int64(len(segmentMagic))
		s.segs[seq] = seg
		s.bytes += seg.bytes
		s.nextSeq = max(s.nextSeq, seq+1)
	}
	s.npending.Store(int64(len(s.pending)))
	return nil
}

// copyAside keeps the unreadable rest of a damaged segment in a file of its own, and cuts the
// segment at its last good record.
func copyAside(path string, good int64) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("keep damaged segment: %w", err)
	}
	if int64(len(data)) > good {
		if err := os.WriteFile(path+".damaged", data[good:], 0o600); err != nil {
			return fmt.Errorf("keep damaged segment: %w", err)
		}
	}
	if err := os.Truncate(path, good); err != nil {
		return fmt.Errorf("cut damaged segment: %w", err)
	}
	return nil
}

// InsertFailure stores p in the wrapped store when it answers within Options.WriteTimeout, and in
// the journal otherwise. Either way the record is durable when it returns.
func (s *Store) InsertFailure(ctx context.Context, p store.Prepared) (store.Failure, bool, error) {
	f, err := p.Record()
	if err != nil {
		return store.Failure{}, false, err
	}
	// A key or ID that is still only in the journal is answered from there: the store cannot
	// know it yet, and would make a second record.
	if s.npending.Load() > 0 {
		if stored, created, err, ok := s.fromPending(f); ok {
			return stored, created, err
		}
	}
	if !s.degraded.Load() {
		wctx, cancel := context.WithTimeout(ctx, s.opts.WriteTimeout)
		stored, created, err := s.Store.InsertFailure(wctx, p)
		timedOut := wctx.Err() != nil
		cancel()
		if err == nil {
			return stored, created, nil
		}
		if ctx.Err() != nil {
			return store.Failure{}, false, err // the caller gave up; nothing was acknowledged
		}
		if !errors.Is(err, store.ErrUnavailable) && !timedOut {
			return store.Failure{}, false, err
		}
		s.markDegraded(err)
	}
	return s.append(ctx, f)
}

// fromPending answers an insert whose idempotency key or ID is already journaled.
func (s *Store) fromPending(f store.Failure) (store.Failure, bool, error, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if f.IdempotencyKey != "" {
		if e, ok := s.byKey[tenantKey{f.TenantID, f.IdempotencyKey}]; ok {
			return e.f, false, nil, true
		}
	}
	if e, ok := s.pending[f.ID]; ok && e.f.TenantID == f.TenantID {
		if f.IdempotencyKey == e.f.IdempotencyKey {
			return e.f, false, nil, true
		}
		return store.Failure{}, false, fmt.Errorf("store failure %x: %w: ID already stored", f.ID, store.ErrConflict), true
	}
	return store.Failure{}, false, nil, false
}

func (s *Store) markDegraded(cause error) {
	if s.degraded.CompareAndSwap(false, true) {
		s.log.Error("journal: the store is unavailable; keeping failure records in the local journal until it is back",
			"error", cause)
	}
	s.wake()
}

func (s *Store) wake() {
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

// GetFailure looks in the journal first, which is a map lookup, then in the store: a record that
// a caller was shown is found whether or not it has been replayed yet.
func (s *Store) GetFailure(ctx context.Context, tenantID int64, id [16]byte) (store.Failure, error) {
	if s.npending.Load() > 0 {
		s.mu.RLock()
		e, ok := s.pending[id]
		s.mu.RUnlock()
		if ok && e.f.TenantID == tenantID {
			return e.f, nil
		}
	}
	return s.Store.GetFailure(ctx, tenantID, id)
}

// ListFailures merges the journal's pending records of the tenant into the store's page. When the
// store is unavailable it fails: a listing that silently left out everything already stored would
// mislead more than an error does.
func (s *Store) ListFailures(ctx context.Context, tenantID int64, q store.ListQuery) ([]store.Failure, error) {
	// The journal's records are read before the store's page: the drainer writes a record to the
	// store before it leaves the journal, so a record that moves meanwhile is seen at least once
	// (twice at most, and counted once). Read the other way round, a record drained between the
	// two reads would be in neither.
	var pending []store.Failure
	if s.npending.Load() > 0 {
		s.mu.RLock()
		for _, e := range s.pending {
			if e.f.TenantID == tenantID && matches(e.f, q) {
				pending = append(pending, e.f)
			}
		}
		s.mu.RUnlock()
	}
	page, err := s.Store.ListFailures(ctx, tenantID, q)
	if err != nil || len(pending) == 0 {
		return page, err
	}
	limit := q.Limit
	switch {
	case limit <= 0:
		limit = store.DefaultListLimit
	case limit > store.MaxListLimit:
		limit = store.MaxListLimit
	}
	seen := make(map[[16]byte]bool, len(page))
	for _, f := range page {
		seen[f.ID] = true
	}
	for _, f := range pending {
		if !seen[f.ID] {
			page = append(page, f)
		}
	}
	slices.SortFunc(page, func(a, b store.Failure) int { return bytes.Compare(b.ID[:], a.ID[:]) })
	// The store's page ended by its own byte budget; the merged page ends by the same rule, at
	// or before the store's last record, since the journal's records only add to the total.
	return store.CutPage(page, limit, q.MaxBytes), nil
}

// matches is store.Filter's meaning and the keyset cursor, applied to one record.
func matches(f store.Failure, q store.ListQuery) bool {
	fl := q.Filter
	return (fl.Tool == "" || f.Tool == fl.Tool) &&
		(fl.Class == "" || f.Class == fl.Class) &&
		(fl.Code == "" || f.Code == fl.Code) &&
		(fl.TraceID == "" || f.TraceID == strings.ToLower(fl.TraceID)) &&
		(fl.Server == "" || f.Server == fl.Server) &&
		(fl.Fingerprint == "" || f.Fingerprint == fl.Fingerprint) &&
		(fl.Since.IsZero() || !f.CreatedAt.Before(fl.Since)) &&
		(fl.Until.IsZero() || f.CreatedAt.Before(fl.Until)) &&
		(q.After == nil || bytes.Compare(f.ID[:], q.After[:]) < 0)
}

// Ping reports the service able to serve while either the store answers or the journal can take
// records: Classify keeps working through an outage, and that is what health checks ask. Status
// tells the two apart.
func (s *Store) Ping(ctx context.Context) error {
	err := s.Store.Ping(ctx)
	if err == nil {
		return nil
	}
	s.mu.RLock()
	room := s.bytes < s.opts.MaxBytes
	s.mu.RUnlock()
	if room && errors.Is(err, store.ErrUnavailable) {
		s.markDegraded(err)
		return nil
	}
	return err
}

// Status returns a snapshot of the journal.
func (s *Store) Status() Status {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return Status{
		Degraded:    s.degraded.Load(),
		Pending:     len(s.pending),
		Bytes:       s.bytes,
		Journaled:   s.journaled.Load(),
		Drained:     s.drained.Load(),
		Quarantined: s.quarantined.Load(),
	}
}

// Close stops the drainer, syncs and closes the journal, then closes the wrapped store. Records
// not yet replayed stay in the journal for the next Open.
func (s *Store) Close() error {
	var err error
	s.once.Do(func() {
		close(s.quit)
		// Records already queued were accepted: the appender writes them before it stops.
		s.appends.Close()
		s.wg.Wait()
		s.mu.Lock()
		if s.active != nil {
			err = errors.Join(s.active.Sync(), s.active.Close())
			s.active = nil
		}
		s.mu.Unlock()
		err = errors.Join(err, s.Store.Close(), s.lock.Close())
	})
	return err
}

// lockWait is how long Open waits for the journal's lock when its holder is about to release it
// (a service that is stopping while its replacement starts).
const lockWait = time.Second

// groupDrainWait bounds how long a group count waits for the tenant's journaled records to reach
// the store before it answers unavailable.
const groupDrainWait = 5 * time.Second

// pendingOfLocked counts the journal's records of the tenant; s.mu is held.
func (s *Store) pendingOfLocked(tenantID int64) int {
	n := 0
	for _, e := range s.pending {
		if e.f.TenantID == tenantID {
			n++
		}
	}
	return n
}

// waitStored returns once none of the tenant's records is only in the journal, waiting at most
// groupDrainWait (the drain probes a store that was unavailable every ProbeInterval) for the drain
// to store them: groups are
// counted by the store, and a count that silently left them out would mislead more than
// "retry shortly" does.
func (s *Store) waitStored(ctx context.Context, tenantID int64) error {
	if s.npending.Load() == 0 {
		return nil
	}
	timer := time.NewTimer(groupDrainWait)
	defer timer.Stop()
	for {
		s.mu.Lock()
		n := s.pendingOfLocked(tenantID)
		if n == 0 {
			s.mu.Unlock()
			return nil
		}
		if s.emptied == nil {
			s.emptied = make(chan struct{})
		}
		ch := s.emptied
		s.mu.Unlock()
		s.wake()
		select {
		case <-ch:
		case <-ctx.Done():
			return errGroupsPending(n)
		case <-timer.C:
			s.mu.RLock()
			n = s.pendingOfLocked(tenantID)
			s.mu.RUnlock()
			if n > 0 {
				return errGroupsPending(n)
			}
			return nil
		}
	}
}

func errGroupsPending(n int) error {
	return fmt.Errorf("%w: %d of the tenant's records are still in the journal; groups count them once they are stored", store.ErrUnavailable, n)
}

// ListGroups counts in the store once the tenant's journaled records are there (see waitStored).
func (s *Store) ListGroups(ctx context.Context, tenantID int64, q store.GroupQuery) ([]store.Group, error) {
	if err := s.waitStored(ctx, tenantID); err != nil {
		return nil, fmt.Errorf("list groups: %w", err)
	}
	return s.Store.ListGroups(ctx, tenantID, q)
}

// GetGroup is ListGroups' rule for one group.
func (s *Store) GetGroup(ctx context.Context, tenantID int64, fp string, since, until time.Time) (store.Group, error) {
	if err := s.waitStored(ctx, tenantID); err != nil {
		return store.Group{}, fmt.Errorf("get group: %w", err)
	}
	return s.Store.GetGroup(ctx, tenantID, fp, since, until)
}

// GroupHours is ListGroups' rule for hourly counts.
func (s *Store) GroupHours(ctx context.Context, tenantID int64, fps []string, since, until time.Time) (map[string][]int64, error) {
	if err := s.waitStored(ctx, tenantID); err != nil {
		return nil, fmt.Errorf("group hours: %w", err)
	}
	return s.Store.GroupHours(ctx, tenantID, fps, since, until)
}
