package journal_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/uuid"

	"github.com/omcp/toolfailure/store"
	"github.com/omcp/toolfailure/store/journal"
	"github.com/omcp/toolfailure/store/sqlite"
	"github.com/omcp/toolfailure/store/storetest"
	"github.com/omcp/toolfailure/store/storetest/sqlitetest"
)

// The journal is a store.Store and must behave as one in every respect while the store it wraps
// is up: the whole conformance suite runs through it.
func TestConformance(t *testing.T) {
	t.Parallel()
	type place struct{ db, dir string }
	var places sync.Map // store.Store → place
	open := func(t *testing.T, p place) store.Store {
		inner, err := sqlite.Open(t.Context(), p.db)
		if err != nil {
			t.Fatal(err)
		}
		// The suite checks the journal while its store is up. A store that is up but slow (a
		// loaded machine) would pass WriteTimeout and send records to the journal, where racing
		// callers of one idempotency key can each keep a record (the documented limit of an
		// outage); the timeout is set beyond any such slowness so that the suite tests what it means to.
		s, err := journal.Open(t.Context(), inner, journal.Options{Dir: p.dir, WriteTimeout: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Close() })
		places.Store(store.Store(s), p)
		return s
	}
	storetest.Run(t, storetest.Harness{
		Open: func(t *testing.T) store.Store {
			// The store under the journal starts from a copy of a migrated file: the suite tests
			// the journal, not migrating; Migrate then finds nothing to do.
			s := open(t, place{db: sqlitetest.Path(t), dir: filepath.Join(t.TempDir(), "journal")})
			if err := s.Migrate(t.Context()); err != nil {
				t.Fatal(err)
			}
			return s
		},
		Reopen: func(t *testing.T, s store.Store) store.Store {
			p, ok := places.Load(s)
			if !ok {
				t.Fatal("Reopen of a store that Open did not return")
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			return open(t, p.(place))
		},
	})
}

// outage wraps a real store and makes it unavailable on demand, the way a database that went away
// looks to a client: every call fails with store.ErrUnavailable.
type outage struct {
	store.Store
	down atomic.Bool
}

var errDown = fmt.Errorf("%w: connection refused (simulated)", store.ErrUnavailable)

func (o *outage) InsertFailure(ctx context.Context, f store.Prepared) (store.Failure, bool, error) {
	if o.down.Load() {
		return store.Failure{}, false, errDown
	}
	return o.Store.InsertFailure(ctx, f)
}

func (o *outage) GetFailure(ctx context.Context, tenantID int64, id [16]byte) (store.Failure, error) {
	if o.down.Load() {
		return store.Failure{}, errDown
	}
	return o.Store.GetFailure(ctx, tenantID, id)
}

func (o *outage) ListFailures(ctx context.Context, tenantID int64, q store.ListQuery) ([]store.Failure, error) {
	if o.down.Load() {
		return nil, errDown
	}
	return o.Store.ListFailures(ctx, tenantID, q)
}

func (o *outage) Ping(ctx context.Context) error {
	if o.down.Load() {
		return errDown
	}
	return o.Store.Ping(ctx)
}

type testBundle struct {
	ctx    context.Context
	dbPath string
	dir    string
	inner  *outage
	j      *journal.Store
	tenant store.Tenant
}

func setup(t *testing.T, opts journal.Options) *testBundle {
	t.Helper()
	dir := t.TempDir()
	// From a copy of a migrated file, on which Migrate below finds nothing to do.
	b := &testBundle{ctx: t.Context(), dbPath: sqlitetest.Path(t), dir: filepath.Join(dir, "journal")}
	b.open(t, opts)
	if err := b.j.Migrate(b.ctx); err != nil {
		t.Fatal(err)
	}
	tenant, err := b.j.EnsureTenant(b.ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	b.tenant = tenant
	return b
}

// open opens (or reopens, after a close or a crash) the store and its journal.
func (b *testBundle) open(t *testing.T, opts journal.Options) {
	t.Helper()
	inner, err := sqlite.Open(b.ctx, b.dbPath)
	if err != nil {
		t.Fatal(err)
	}
	b.inner = &outage{Store: inner}
	opts.Dir = b.dir
	if opts.ProbeInterval == 0 {
		opts.ProbeInterval = 20 * time.Millisecond
	}
	b.j, err = journal.Open(b.ctx, b.inner, opts)
	if err != nil {
		_ = inner.Close()
		t.Fatal(err)
	}
	j := b.j
	t.Cleanup(func() { _ = j.Close() })
}

func failure(t *testing.T, tenantID int64, i int) store.Failure {
	t.Helper()
	id, err := uuid.NewV7()
	if err != nil {
		t.Fatal(err)
	}
	return store.Failure{
		TenantID: tenantID, ID: id, Tool: "send_email", Server: "mail-mcp",
		Class: store.ClassReliability, Code: "retryable_transient_error", Retryable: true,
		RetryNotBefore: time.Now().Add(30 * time.Second),
		Error:          json.RawMessage(fmt.Sprintf(`{"message":"connection reset %d","type":"ECONNRESET"}`, i)),
		AgentGuidance:  "Wait 30 s, then retry the same call.",
	}
}

// waitFor polls cond until it holds, and fails t when it does not within the given time.
func waitFor(t *testing.T, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited %v for %s", within, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitDrained waits until the journal has nothing pending.
func waitDrained(t *testing.T, j *journal.Store) {
	t.Helper()
	waitFor(t, 20*time.Second, "the journal to have no pending records", func() bool { return j.Status().Pending == 0 })
}

// While the store is down, records are acknowledged from the journal, found by GetFailure, and
// idempotent; once it is back they are replayed, with nothing lost and nothing doubled.
func TestOutageJournalsAndDrains(t *testing.T) {
	t.Parallel()
	b := setup(t, journal.Options{})
	before := failure(t, b.tenant.ID, -1)
	if _, _, err := storetest.Insert(b.ctx, b.j, before); err != nil {
		t.Fatal(err)
	}

	b.inner.down.Store(true)
	const n = 50
	acked := make([]store.Failure, n)
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			f := failure(t, b.tenant.ID, i)
			if i%10 == 0 {
				f.IdempotencyKey = fmt.Sprintf("key-%d", i/20) // callers 0 and 10 share a key, and 20 and 30
			}
			acked[i], _, errs[i] = storetest.Insert(b.ctx, b.j, f)
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	st := b.j.Status()
	const distinct = n - 2
	if !st.Degraded || st.Pending != distinct {
		t.Fatalf("status during the outage = %+v, want degraded with %d pending", st, distinct)
	}
	if acked[0].ID != acked[10].ID {
		t.Fatalf("two callers with one idempotency key got IDs %x and %x", acked[0].ID, acked[10].ID)
	}
	for _, f := range acked {
		got, err := b.j.GetFailure(b.ctx, b.tenant.ID, f.ID)
		if err != nil {
			t.Fatalf("GetFailure(%x) during the outage: %v", f.ID, err)
		}
		if got.Code != f.Code || got.Class != f.Class {
			t.Fatalf("GetFailure(%x) = %s/%s, want %s/%s", f.ID, got.Class, got.Code, f.Class, f.Code)
		}
	}
	if err := b.j.Ping(b.ctx); err != nil {
		t.Fatalf("Ping during the outage = %v, want nil: the journal can take records", err)
	}
	if d := b.j.HealthDetail(); !strings.Contains(d, "degraded") || !strings.Contains(d, fmt.Sprint(distinct)) {
		t.Fatalf("HealthDetail during the outage = %q, want it to say degraded and %d kept", d, distinct)
	}
	if _, err := b.j.ListFailures(b.ctx, b.tenant.ID, store.ListQuery{}); !errors.Is(err, store.ErrUnavailable) {
		t.Fatalf("ListFailures during the outage: error %v, want ErrUnavailable", err)
	}

	b.inner.down.Store(false)
	waitDrained(t, b.j)
	if st := b.j.Status(); st.Degraded || st.Drained != distinct {
		t.Fatalf("status after recovery = %+v", st)
	}
	if d := b.j.HealthDetail(); d != "" {
		t.Fatalf("HealthDetail after recovery = %q, want empty", d)
	}
	list, err := b.inner.Store.ListFailures(b.ctx, b.tenant.ID, store.ListQuery{Limit: store.MaxListLimit})
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != distinct+1 { // plus the one from before
		t.Fatalf("the store has %d records after the drain, want %d", len(list), distinct+1)
	}
	for _, f := range acked {
		if _, err := b.inner.Store.GetFailure(b.ctx, b.tenant.ID, f.ID); err != nil {
			t.Fatalf("acknowledged record %x is not in the store: %v", f.ID, err)
		}
	}
	if files := segments(t, b.dir); len(files) != 0 {
		t.Fatalf("drained journal still holds segments %v", files)
	}
}

// A journal left behind by a crash is replayed by the next process, with its torn tail cut off.
func TestTornTailAfterCrash(t *testing.T) {
	t.Parallel()
	b := setup(t, journal.Options{})
	b.inner.down.Store(true)
	var acked []store.Failure
	for i := range 5 {
		f, _, err := storetest.Insert(b.ctx, b.j, failure(t, b.tenant.ID, i))
		if err != nil {
			t.Fatal(err)
		}
		acked = append(acked, f)
	}
	if err := b.j.Close(); err != nil {
		t.Fatal(err)
	}
	// What a process killed in the middle of an append leaves: part of a record, never acknowledged.
	files := segments(t, b.dir)
	if len(files) != 1 {
		t.Fatalf("segments %v, want one", files)
	}
	seg, err := os.OpenFile(files[0], os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := seg.Write([]byte{0, 0, 1, 0, 0xde, 0xad, 0xbe, 0xef, '{', '"'}); err != nil {
		t.Fatal(err)
	}
	if err := seg.Close(); err != nil {
		t.Fatal(err)
	}

	b.open(t, journal.Options{})
	b.inner.down.Store(true) // still down after the restart
	if st := b.j.Status(); st.Pending != len(acked) {
		t.Fatalf("after the restart %d records are pending, want %d", st.Pending, len(acked))
	}
	for _, f := range acked {
		if _, err := b.j.GetFailure(b.ctx, b.tenant.ID, f.ID); err != nil {
			t.Fatalf("GetFailure(%x) after the restart: %v", f.ID, err)
		}
	}
	// New records go after the cut; then the store comes back and takes them all.
	more, _, err := storetest.Insert(b.ctx, b.j, failure(t, b.tenant.ID, 99))
	if err != nil {
		t.Fatal(err)
	}
	acked = append(acked, more)
	b.inner.down.Store(false)
	waitDrained(t, b.j)
	for _, f := range acked {
		got, err := b.inner.Store.GetFailure(b.ctx, b.tenant.ID, f.ID)
		if err != nil {
			t.Fatalf("acknowledged record %x is not in the store: %v", f.ID, err)
		}
		if got.Class != f.Class || got.Code != f.Code {
			t.Fatalf("record %x is %s/%s in the store, want %s/%s", f.ID, got.Class, got.Code, f.Class, f.Code)
		}
	}
}

// A full journal refuses with ErrUnavailable instead of growing without bound.
func TestFull(t *testing.T) {
	t.Parallel()
	b := setup(t, journal.Options{MaxBytes: 2048})
	b.inner.down.Store(true)
	var err error
	for i := 0; i < 100 && err == nil; i++ {
		_, _, err = storetest.Insert(b.ctx, b.j, failure(t, b.tenant.ID, i))
	}
	if !errors.Is(err, journal.ErrFull) || !errors.Is(err, store.ErrUnavailable) {
		t.Fatalf("error = %v, want ErrFull and ErrUnavailable", err)
	}
	if st := b.j.Status(); st.Bytes > 2048 {
		t.Fatalf("journal holds %d bytes, more than its 2048", st.Bytes)
	}
}

// Invalid records are refused, not journaled: they could never be replayed.
func TestInvalidNotJournaled(t *testing.T) {
	t.Parallel()
	b := setup(t, journal.Options{})
	b.inner.down.Store(true)
	f := failure(t, b.tenant.ID, 0)
	f.Class = "transient"
	if _, _, err := storetest.Insert(b.ctx, b.j, f); !errors.Is(err, store.ErrInvalid) {
		t.Fatalf("error = %v, want ErrInvalid", err)
	}
	if _, _, err := b.j.InsertFailure(b.ctx, store.Prepared{}); !errors.Is(err, store.ErrInvalid) {
		t.Fatalf("zero Prepared: error = %v, want ErrInvalid", err)
	}
	if st := b.j.Status(); st.Pending != 0 {
		t.Fatalf("%d records pending, want 0", st.Pending)
	}
}

func segments(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "seg-*.tfj"))
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// Groups are counted by the store, so while some of a tenant's records are only in the journal
// the journal refuses to count rather than answer short; once drained, every record counts.
func TestGroupsCountJournaledRecordsOnceStored(t *testing.T) {
	t.Parallel()
	// In a bubble, the group count's wait for the drain (several seconds, while the store is down)
	// passes as soon as everything else is blocked.
	synctest.Test(t, testGroupsCountJournaledRecordsOnceStored)
}

func testGroupsCountJournaledRecordsOnceStored(t *testing.T) {
	b := setup(t, journal.Options{})
	if _, _, err := storetest.Insert(b.ctx, b.j, failure(t, b.tenant.ID, -1)); err != nil {
		t.Fatal(err)
	}
	b.inner.down.Store(true)
	var fp string
	for i := range 3 {
		f, _, err := storetest.Insert(b.ctx, b.j, failure(t, b.tenant.ID, i))
		if err != nil {
			t.Fatal(err)
		}
		fp = f.Fingerprint
	}
	now := time.Now()
	w := store.GroupFilter{Since: now.Add(-time.Hour), Until: now.Add(time.Hour)}
	// The wrapper fails only the calls it knows; the store itself would answer ListGroups, short.
	_, err := b.j.ListGroups(b.ctx, b.tenant.ID, store.GroupQuery{Filter: w})
	if !errors.Is(err, store.ErrUnavailable) || !strings.Contains(err.Error(), "still in the journal") {
		t.Fatalf("ListGroups with records in the journal: err = %v, want ErrUnavailable naming the journal", err)
	}
	if _, err := b.j.GetGroup(b.ctx, b.tenant.ID, fp, w.Since, w.Until); !errors.Is(err, store.ErrUnavailable) {
		t.Fatalf("GetGroup with records in the journal: err = %v, want ErrUnavailable", err)
	}
	b.inner.down.Store(false)
	waitDrained(t, b.j)
	groups, err := b.j.ListGroups(b.ctx, b.tenant.ID, store.GroupQuery{Filter: w})
	if err != nil {
		t.Fatal(err)
	}
	if len(groups) != 1 || groups[0].Count != 4 || groups[0].Fingerprint != fp {
		t.Fatalf("groups after the drain = %+v, want one of 4 records", groups)
	}
	g, err := b.j.GetGroup(b.ctx, b.tenant.ID, fp, w.Since, w.Until)
	if err != nil || g.Count != 4 {
		t.Fatalf("GetGroup after the drain = %+v, %v", g, err)
	}
}

// A second journal on the same directory is refused, after the short wait for a holder that is
// stopping, with an error that says so.
func TestSecondJournalOnADirectoryRefused(t *testing.T) {
	t.Parallel()
	b := setup(t, journal.Options{})
	other, err := sqlite.Open(b.ctx, filepath.Join(t.TempDir(), "other.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = other.Close() })
	_, err = journal.Open(b.ctx, other, journal.Options{Dir: b.dir})
	if err == nil || !strings.Contains(err.Error(), "another toolfailure uses this journal") {
		t.Fatalf("second Open on %s: %v, want it refused", b.dir, err)
	}
	if err := b.j.Close(); err != nil {
		t.Fatal(err)
	}
	j, err := journal.Open(b.ctx, other, journal.Options{Dir: b.dir})
	if err != nil {
		t.Fatalf("Open after the first journal closed: %v", err)
	}
	_ = j.Close()
}
