package postgres

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/omcp/toolfailure/internal/groupcommit"
	"github.com/omcp/toolfailure/store"
	"github.com/omcp/toolfailure/store/internal/canonical"
)

// Group commit settings, read from the database URL's query (see the package documentation).
const (
	// DefaultMaxBatch caps the rows of one group commit. A commit costs one WAL flush whatever its
	// size, so larger batches only help until the batch no longer fits the time of one flush; 256
	// rows of a few kilobytes each are well past that point on any disk and still one small
	// statement.
	DefaultMaxBatch = 256
	// DefaultMaxWait is how long the writer lingers for more rows once it has one: none. The writer
	// flushes as soon as its queue is empty, and rows that arrive during a flush form the next batch,
	// so under load batches grow by themselves and an idle service adds no latency. A small wait
	// (a few hundred microseconds) trades latency for fewer, larger commits when the disk, not the
	// CPU, is the limit. With `toolfailure bench` a wait cut PostgreSQL's CPU per request but cost
	// more throughput than it saved: the callers of a closed loop pay the wait.
	DefaultMaxWait = time.Duration(0)
	// DefaultWriteTimeout bounds one batch's statement, so that a database that stopped answering
	// without closing the connection cannot hold the writer, and every queued caller, forever.
	DefaultWriteTimeout = 10 * time.Second
	// DefaultWriters is how many batches may be in flight at once. With one, a row that arrives
	// while a batch commits waits for that commit and then its own: up to two commit latencies,
	// but the largest batches and so the least CPU per row. With `toolfailure bench` on a small
	// machine (service, load and PostgreSQL sharing it), one writer beat two on throughput, CPU per
	// request and tail latency: where CPU, not commit latency, is the limit, one wins on every
	// count; raise it for a database with slow fsync and idle cores.
	DefaultWriters = 1

	paramMaxBatch     = "group_commit_max_batch"
	paramMaxWait      = "group_commit_max_wait"
	paramWriteTimeout = "group_commit_write_timeout"
	paramWriters      = "group_commit_writers"
)

// batchSettings are the group commit's knobs.
type batchSettings struct {
	writers      int
	maxBatch     int
	maxWait      time.Duration
	writeTimeout time.Duration
	// context is WithBatchContext's function, or nil.
	context func(write context.Context, callers []context.Context) context.Context
}

// takeBatchSettings reads the group commit parameters from a URL's query and returns the URL
// without them: pgx would otherwise send them to the server as run-time parameters, which it
// refuses. A keyword/value connection string is returned unchanged with the defaults.
func takeBatchSettings(databaseURL string) (string, batchSettings, error) {
	bs := batchSettings{writers: DefaultWriters, maxBatch: DefaultMaxBatch, maxWait: DefaultMaxWait, writeTimeout: DefaultWriteTimeout}
	if !strings.HasPrefix(databaseURL, "postgres://") && !strings.HasPrefix(databaseURL, "postgresql://") {
		return databaseURL, bs, nil
	}
	u, err := url.Parse(databaseURL)
	if err != nil {
		return "", bs, errors.New("parse database URL: malformed URL") // the URL may hold a password
	}
	q := u.Query()
	if v := q.Get(paramMaxBatch); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 10000 {
			return "", bs, fmt.Errorf("%s=%q: want a whole number from 1 to 10000", paramMaxBatch, v)
		}
		bs.maxBatch = n
	}
	if v := q.Get(paramWriters); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 64 {
			return "", bs, fmt.Errorf("%s=%q: want a whole number from 1 to 64", paramWriters, v)
		}
		bs.writers = n
	}
	for name, dst := range map[string]*time.Duration{paramMaxWait: &bs.maxWait, paramWriteTimeout: &bs.writeTimeout} {
		if v := q.Get(name); v != "" {
			d, err := time.ParseDuration(v)
			if err != nil || d < 0 {
				return "", bs, fmt.Errorf("%s=%q: want a duration such as 200us or 5s", name, v)
			}
			*dst = d
		}
	}
	if bs.writeTimeout == 0 {
		bs.writeTimeout = DefaultWriteTimeout
	}
	if !q.Has(paramMaxBatch) && !q.Has(paramMaxWait) && !q.Has(paramWriteTimeout) && !q.Has(paramWriters) {
		return databaseURL, bs, nil
	}
	q.Del(paramWriters)
	q.Del(paramMaxBatch)
	q.Del(paramMaxWait)
	q.Del(paramWriteTimeout)
	u.RawQuery = q.Encode()
	return u.String(), bs, nil
}

// pending is one InsertFailure waiting for its batch. Its Value is the record to insert.
type pending = groupcommit.Item[store.Failure, inserted]

// inserted is what InsertFailure returns: the record stored (the one submitted, or the earlier
// record that holds its idempotency key) and whether it was created.
type inserted struct {
	f       store.Failure
	created bool
}

// asInserted is InsertFailure's three results as an answer.
func asInserted(stored store.Failure, created bool, err error) (inserted, error) {
	return inserted{stored, created}, err
}

// batcher is the group commit (package groupcommit): writer goroutines (DefaultWriters per pool)
// take the rows of concurrent InsertFailure calls from one queue and write each batch with one
// statement, which PostgreSQL commits with one WAL flush. Each caller is answered after that
// commit, so the durability promise of InsertFailure is kept while the cost of a flush is shared
// by the whole batch.
type batcher struct {
	pool *pgxpool.Pool
	set  batchSettings
	q    *groupcommit.Queue[store.Failure, inserted]
}

func newBatcher(pool *pgxpool.Pool, set batchSettings) *batcher {
	b := &batcher{pool: pool, set: set}
	b.q = groupcommit.New(groupcommit.Config{MaxBatch: set.maxBatch, MaxWait: set.maxWait, Workers: set.writers},
		func() groupcommit.Worker[store.Failure, inserted] {
			// The tracer is read once: pgx.Conn.Config copies the whole configuration on every
			// call, which a batch should not pay for.
			return &writer{b: b, pool: pool, tracer: pool.Config().ConnConfig.Tracer}
		})
	return b
}

var errClosed = errors.New("store is closed")

// insert queues f and waits for its batch to commit.
func (b *batcher) insert(ctx context.Context, f store.Failure) (store.Failure, bool, error) {
	res, err := b.q.Submit(ctx, f)
	if errors.Is(err, groupcommit.ErrClosed) {
		return store.Failure{}, false, errClosed
	}
	if err != nil {
		return store.Failure{}, false, err
	}
	return res.f, res.created, nil
}

// close lets the writers finish every queued row, then stops them.
func (b *batcher) close() { b.q.Close() }

// key identifies a record for de-duplication inside one batch.
type idemKey struct {
	tenant int64
	key    string
}

type idKey struct {
	tenant int64
	id     [16]byte
}

// flush writes one batch and answers every request in it.
//
// Rows that share an idempotency key, or an ID, inside the batch are sent once: the first is the
// leader, and the others are answered from its outcome as if they had come after it, which is what
// the contract says of racing callers. Rows whose caller has gone are skipped; nobody was told
// about them.
func (w *writer) Flush(batch []*pending) {
	b := w.b
	var (
		leaders   = w.leaders[:0]
		followers map[*pending]*pending
		byKey     map[idemKey]*pending
		byID      = w.byID
	)
	if byID == nil {
		byID = make(map[idKey]*pending, len(batch))
		w.byID = byID
	}
	// The scratch space goes back to the writer for its next batch, emptied so that it holds no
	// finished request.
	defer func() {
		clear(leaders)
		w.leaders = leaders[:0]
		clear(byID)
	}()
	for _, p := range batch {
		var leader *pending
		if p.Value.IdempotencyKey != "" {
			if byKey == nil {
				byKey = map[idemKey]*pending{}
			}
			k := idemKey{p.Value.TenantID, p.Value.IdempotencyKey}
			if l, ok := byKey[k]; ok {
				leader = l
			} else {
				byKey[k] = p
			}
		}
		if leader == nil {
			k := idKey{p.Value.TenantID, p.Value.ID}
			if l, ok := byID[k]; ok {
				leader = l
			} else {
				byID[k] = p
			}
		}
		if leader != nil {
			if followers == nil {
				followers = map[*pending]*pending{}
			}
			followers[p] = leader
			continue
		}
		leaders = append(leaders, p)
	}

	ctx, cancel := context.WithTimeout(context.Background(), b.set.writeTimeout)
	defer cancel()
	// The write serves every caller of the batch; a tracer may link their
	// spans to its statements (WithBatchContext).
	if b.set.context != nil {
		callers := make([]context.Context, len(leaders))
		for i, p := range leaders {
			callers[i] = p.Context()
		}
		ctx = b.set.context(ctx, callers)
	}
	if len(leaders) > 0 {
		b.writeLeaders(ctx, w, leaders)
	}
	for _, p := range batch {
		leader, ok := followers[p]
		if !ok {
			continue
		}
		lres, lerr := leader.Result()
		switch {
		case lerr != nil:
			// The leader's failure may be its own (a bad row); this request is judged alone.
			p.Answer(asInserted(insertOne(ctx, b.pool, p.Value)))
		case p.Value.IdempotencyKey != "" && p.Value.IdempotencyKey == leader.Value.IdempotencyKey:
			p.Answer(asInserted(lres.f, false, nil))
		default: // the same ID with another key, or none: what a second insert of that ID meets
			p.Answer(inserted{}, fmt.Errorf("store failure %s: %w: ID already stored",
				canonical.ID(p.Value.ID), store.ErrConflict))
		}
	}
}

// Names of the batch statements, prepared once on each writer's connection.
const (
	insertBatchName       = "toolfailure_insert_failures"
	insertBatchNoKeysName = "toolfailure_insert_failures_no_keys"
)

// writeLeaders inserts rows that are distinct by ID and by idempotency key. One statement outside
// an explicit transaction is its own transaction: one round trip, one commit.
//
// The parameters are encoded here, straight into PostgreSQL's binary array format, and sent with
// pgconn: pgx's encoding of the same 19 arrays allocates per element, with pgtype values and with
// plain and pointer slices alike, and costs an order of magnitude more CPU per row
// (BenchmarkEncodeBatch compares the three in one run).
func (b *batcher) writeLeaders(ctx context.Context, w *writer, leaders []*pending) {
	rows := w.rows[:0]
	for _, p := range leaders {
		rows = append(rows, &p.Value)
	}
	defer func() {
		clear(rows)
		w.rows = rows[:0]
	}()
	inserted, err := w.execBatch(ctx, rows)
	if isNoPartition(err) {
		// A record of a day that has no partition yet: make it, and write the batch again.
		if perr := ensureRowPartitions(ctx, b.pool, rows); perr == nil {
			inserted, err = w.execBatch(ctx, rows)
		}
	}
	if err != nil {
		if isRowError(err) {
			// Something in one row broke a rule that store.Prepare does not know (text that
			// PostgreSQL will not store, say): nothing was written, so each row is tried on its
			// own and only the culprit fails.
			for _, p := range leaders {
				p.Answer(asInserted(insertOne(ctx, b.pool, p.Value)))
			}
			return
		}
		err = mapError(err)
		for _, p := range leaders {
			p.Answer(asInserted(store.Failure{}, false, fmt.Errorf("store failure %s: %w", canonical.ID(p.Value.ID), err)))
		}
		return
	}
	for _, p := range leaders {
		if _, ok := inserted[p.Value.ID]; ok {
			p.Answer(asInserted(p.Value, true, nil))
			continue
		}
		// Not inserted: its idempotency key was taken by a record committed earlier, which
		// DO NOTHING waited for, so a new statement sees it.
		p.Answer(asInserted(readByKey(ctx, b.pool, p.Value)))
	}
}

// writer is one writer goroutine's connection. A writer keeps the same connection from batch to
// batch, so that one PostgreSQL backend, with its caches and prepared statement warm, does all of
// its writes; it takes a new one only when that connection has failed.
type writer struct {
	b      *batcher
	pool   *pgxpool.Pool
	tracer pgx.QueryTracer // nil: no tracing
	conn   *pgxpool.Conn
	enc    encodedBatch
	// Scratch space of flush, writeLeaders and execBatch, kept from batch to batch: the writer
	// is one goroutine, and none of it outlives the batch.
	leaders  []*pending
	byID     map[idKey]*pending
	rows     []*store.Failure
	inserted map[[16]byte]struct{}
}

// Close returns the connection to the pool once the writer has stopped.
func (w *writer) Close() { w.release() }

// release returns the connection to the pool.
func (w *writer) release() {
	if w.conn != nil {
		w.conn.Release()
		w.conn = nil
	}
}

// execBatch runs insertBatch, or insertBatchNoKeys when no row has an idempotency key, and
// returns the IDs it inserted.
func (w *writer) execBatch(ctx context.Context, rows []*store.Failure) (inserted map[[16]byte]struct{}, err error) {
	if w.conn != nil && w.conn.Conn().IsClosed() {
		w.release() // the pool discards a closed connection
	}
	if w.conn == nil {
		if w.conn, err = w.pool.Acquire(ctx); err != nil {
			return nil, err
		}
	}
	c := w.conn.Conn()
	name, sql := insertBatchNoKeysName, insertBatchNoKeys
	for _, f := range rows {
		if f.IdempotencyKey != "" {
			name, sql = insertBatchName, insertBatch
			break
		}
	}
	// Prepared once per connection (pgx caches it), and its description saves each batch the
	// Describe that ExecPrepared would send to learn the result's one column.
	sd, err := c.Prepare(ctx, name, sql)
	if err != nil {
		return nil, err
	}
	if tracer := w.tracer; tracer != nil {
		ctx = tracer.TraceQueryStart(ctx, c, pgx.TraceQueryStartData{SQL: sql})
		defer func() {
			tracer.TraceQueryEnd(ctx, c, pgx.TraceQueryEndData{CommandTag: pgconn.NewCommandTag("INSERT"), Err: err})
		}()
	}
	w.enc.encode(rows)
	enc := &w.enc
	rr := c.PgConn().ExecStatement(ctx, sd, enc.params[:], enc.formats[:], binaryResults)
	if w.inserted == nil {
		w.inserted = make(map[[16]byte]struct{}, len(rows))
	}
	inserted = w.inserted
	clear(inserted)
	for rr.NextRow() {
		v := rr.Values()
		if len(v) != 1 || len(v[0]) != 16 {
			_, _ = rr.Close()
			return nil, fmt.Errorf("insert failures: unexpected row of %d columns", len(v))
		}
		inserted[[16]byte(v[0])] = struct{}{}
	}
	if _, err := rr.Close(); err != nil {
		return nil, err
	}
	return inserted, nil
}

var binaryResults = []int16{1}

// insertBatch is one statement for any number of rows: the rows travel as one array per column,
// so the statement text, and so its prepared plan, is the same for every batch size. The order of
// the arrays is the order of insertColumns.
//
// A row with an idempotency key takes its key in failure_keys first (see
// migrations/postgres/00006_partitions.sql) and is written only if the key was free: a key taken
// by a committed record leaves the row out of RETURNING, and one that a concurrent batch is taking
// makes this statement wait for that batch's commit, as a unique index would.
const insertBatch = `WITH rows AS (SELECT * FROM ` + unnestRows + `),
	taken AS (INSERT INTO failure_keys (tenant_id, idempotency_key, id)
		SELECT t, k, i FROM rows WHERE k IS NOT NULL
		ON CONFLICT (tenant_id, idempotency_key) DO NOTHING
		RETURNING id)
	INSERT INTO failures (` + insertColumns + `)
	SELECT ` + rowValues + ` FROM rows WHERE k IS NULL OR i IN (SELECT id FROM taken)
	RETURNING id`

// insertBatchNoKeys is insertBatch for a batch in which no row has an idempotency key: no row can
// meet an earlier record, so failure_keys is not visited (a clash of IDs is an error either way,
// and sends the batch row by row). RETURNING stays: without it the same batches cost PostgreSQL
// more CPU, not less, which we cannot explain. The plan is left to PostgreSQL:
// plan_cache_mode=auto settles on the generic plan after a few batches; forcing either plan was no
// better in `toolfailure bench`.
const insertBatchNoKeys = `INSERT INTO failures (` + insertColumns + `)
	SELECT ` + rowValues + ` FROM ` + unnestRows + `
	RETURNING id`

// unnestRows turns the arrays into rows.
const unnestRows = `unnest($1::bigint[], $2::uuid[], $3::text[], $4::text[], $5::text[], $6::text[],
		$7::boolean[], $8::timestamptz[], $9::text[], $10::text[], $11::bigint[], $12::text[],
		$13::text[], $14::text[], $15::text[], $16::text[], $17::timestamptz[], $18::timestamptz[],
		$19::text[], $20::bigint[])
		AS u(t, i, tool, srv, cl, co, r, rnb, ag, rid, rv, e, a, tr, sp, k, ca, oa, sh, fp)`

// rowValues are unnestRows' columns in the order of insertColumns.
const rowValues = `t, i, tool, srv, cl, co, r, rnb, ag, rid, rv, e::jsonb, a::jsonb, tr, sp, k, ca, oa, sh::jsonb, fp`

// batchColumns is the number of arrays insertBatch takes.
const batchColumns = 20

// Element types of insertBatch's arrays (pg_type OIDs, fixed since PostgreSQL's first releases).
const (
	oidBool        = 16
	oidInt8        = 20
	oidText        = 25
	oidTimestamptz = 1184
	oidUUID        = 2950
)

// encodedBatch is insertBatch's parameters in binary form.
type encodedBatch struct {
	params  [batchColumns][]byte
	formats [batchColumns]int16
	buf     []byte // holds every array; kept from batch to batch by its writer
}

// encode writes each column of rows as a one-dimensional PostgreSQL array in the binary format of
// array_recv: a header (dimensions, null flag, element type, length, lower bound), then each
// element as a length and its bytes, -1 for NULL. It reuses e's buffer, so the parameters of the
// previous batch must no longer be in use: a writer encodes its next batch only after the last
// one's statement has returned, and pgconn copies parameters into its own send buffer.
func (e *encodedBatch) encode(rows []*store.Failure) {
	for i := range e.formats {
		e.formats[i] = 1
	}
	n := len(rows)
	// One buffer for every array, so that a batch costs a handful of allocations whatever its size.
	size := batchColumns * 20
	for _, f := range rows {
		// Each element's length, then the fixed-size values (three int8, a uuid, a bool, three
		// timestamps), then the texts.
		size += batchColumns*4 + 3*8 + 16 + 1 + 3*8 + len(f.Tool) + len(f.Server) + len(f.Class) +
			len(f.Code) + len(f.AgentGuidance) + len(f.RuleID) + len(f.Error) + len(f.ToolAnnotations) +
			len(f.TraceID) + len(f.SpanID) + len(f.IdempotencyKey) + len(f.Shadow)
	}
	if cap(e.buf) < size {
		e.buf = make([]byte, 0, size)
	}
	buf := e.buf[:0]
	col := 0
	array := func(oid uint32, elem func(buf []byte, f *store.Failure) []byte) {
		start := len(buf)
		buf = binary.BigEndian.AppendUint32(buf, 1) // dimensions
		buf = binary.BigEndian.AppendUint32(buf, 1) // may hold NULLs; PostgreSQL checks anyway
		buf = binary.BigEndian.AppendUint32(buf, oid)
		buf = binary.BigEndian.AppendUint32(buf, uint32(n))
		buf = binary.BigEndian.AppendUint32(buf, 1) // lower bound
		for _, f := range rows {
			buf = elem(buf, f)
		}
		e.params[col] = buf[start:len(buf):len(buf)]
		col++
	}
	array(oidInt8, func(b []byte, f *store.Failure) []byte { return appendInt8(b, f.TenantID) })
	array(oidUUID, func(b []byte, f *store.Failure) []byte {
		b = binary.BigEndian.AppendUint32(b, 16)
		return append(b, f.ID[:]...)
	})
	array(oidText, func(b []byte, f *store.Failure) []byte { return appendText(b, f.Tool, false) })
	array(oidText, func(b []byte, f *store.Failure) []byte { return appendText(b, f.Server, false) })
	array(oidText, func(b []byte, f *store.Failure) []byte { return appendText(b, f.Class, false) })
	array(oidText, func(b []byte, f *store.Failure) []byte { return appendText(b, f.Code, false) })
	array(oidBool, func(b []byte, f *store.Failure) []byte {
		b = binary.BigEndian.AppendUint32(b, 1)
		if f.Retryable {
			return append(b, 1)
		}
		return append(b, 0)
	})
	array(oidTimestamptz, func(b []byte, f *store.Failure) []byte {
		return appendTime(b, f.RetryNotBefore, f.RetryNotBefore.IsZero())
	})
	array(oidText, func(b []byte, f *store.Failure) []byte { return appendText(b, f.AgentGuidance, false) })
	array(oidText, func(b []byte, f *store.Failure) []byte { return appendText(b, f.RuleID, false) })
	array(oidInt8, func(b []byte, f *store.Failure) []byte { return appendInt8(b, f.RuleVersion) })
	array(oidText, func(b []byte, f *store.Failure) []byte { return appendText(b, f.Error, false) })
	array(oidText, func(b []byte, f *store.Failure) []byte {
		return appendText(b, f.ToolAnnotations, f.ToolAnnotations == nil)
	})
	array(oidText, func(b []byte, f *store.Failure) []byte { return appendText(b, f.TraceID, f.TraceID == "") })
	array(oidText, func(b []byte, f *store.Failure) []byte { return appendText(b, f.SpanID, f.SpanID == "") })
	array(oidText, func(b []byte, f *store.Failure) []byte {
		return appendText(b, f.IdempotencyKey, f.IdempotencyKey == "")
	})
	array(oidTimestamptz, func(b []byte, f *store.Failure) []byte { return appendTime(b, f.CreatedAt, false) })
	array(oidTimestamptz, func(b []byte, f *store.Failure) []byte { return appendTime(b, f.OccurredAt, false) })
	array(oidText, func(b []byte, f *store.Failure) []byte { return appendText(b, f.Shadow, f.Shadow == nil) })
	array(oidInt8, func(b []byte, f *store.Failure) []byte {
		key, ok := store.FingerprintKey(f.Fingerprint)
		if !ok {
			return binary.BigEndian.AppendUint32(b, 0xFFFFFFFF) // NULL
		}
		return appendInt8(b, key)
	})
	if cap(buf) <= 1<<20 { // one batch of huge records should not pin its buffer for good
		e.buf = buf[:0]
	} else {
		e.buf = nil
	}
}

func appendInt8(b []byte, v int64) []byte {
	b = binary.BigEndian.AppendUint32(b, 8)
	return binary.BigEndian.AppendUint64(b, uint64(v))
}

// appendText writes a text element, or NULL.
func appendText[T ~string | ~[]byte](b []byte, s T, null bool) []byte {
	if null {
		return binary.BigEndian.AppendUint32(b, 0xFFFFFFFF) // -1: NULL
	}
	b = binary.BigEndian.AppendUint32(b, uint32(len(s)))
	return append(b, s...)
}

// postgresEpoch is where timestamptz's binary form counts microseconds from.
var postgresEpoch = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

func appendTime(b []byte, t time.Time, null bool) []byte {
	if null {
		return binary.BigEndian.AppendUint32(b, 0xFFFFFFFF)
	}
	b = binary.BigEndian.AppendUint32(b, 8)
	// Seconds and microseconds apart: t.Sub would saturate beyond ±292 years, and records may
	// carry any time from year 1 to 9999.
	us := (t.Unix()-postgresEpoch.Unix())*1_000_000 + int64(t.Nanosecond()/1000)
	return binary.BigEndian.AppendUint64(b, uint64(us))
}

// isRowError reports whether a batch failed because of the data in some row (SQLSTATE classes 22,
// data exception, and 23, integrity constraint violation), as opposed to the database or the
// connection failing, when retrying row by row would only fail again, slower.
func isRowError(err error) bool {
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) {
		return false
	}
	return strings.HasPrefix(pgErr.Code, "22") || strings.HasPrefix(pgErr.Code, "23")
}

// insertOne writes one row in its own transaction: the path of a row whose batch failed.
func insertOne(ctx context.Context, pool *pgxpool.Pool, f store.Failure) (store.Failure, bool, error) {
	id := canonical.ID(f.ID)
	insert := func() (store.Failure, error) {
		return scanFailure(pool.QueryRow(ctx, insertFailure,
			f.TenantID, f.ID, f.Tool, f.Server, f.Class, f.Code, f.Retryable, nullTime(f.RetryNotBefore),
			f.AgentGuidance, f.RuleID, f.RuleVersion, nullJSON(f.Error), nullJSON(f.ToolAnnotations),
			nullString(f.TraceID), nullString(f.SpanID), nullString(f.IdempotencyKey),
			f.CreatedAt, f.OccurredAt, nullJSON(f.Shadow), fingerprintArg(f.Fingerprint), nullID(f.SameCallAs)))
	}
	stored, err := insert()
	if isNoPartition(err) {
		if perr := ensureRowPartitions(ctx, pool, []*store.Failure{&f}); perr == nil {
			stored, err = insert()
		}
	}
	if err == nil {
		return stored, true, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) || f.IdempotencyKey == "" {
		return store.Failure{}, false, fmt.Errorf("store failure %s: %w", id, mapError(err))
	}
	return readByKey(ctx, pool, f)
}

// readByKey returns the record that holds f's idempotency key.
func readByKey(ctx context.Context, pool *pgxpool.Pool, f store.Failure) (store.Failure, bool, error) {
	stored, err := scanFailure(pool.QueryRow(ctx, `SELECT `+prefixed("f.", failureColumns)+`
		FROM failure_keys k JOIN failures f ON f.tenant_id = k.tenant_id AND f.id = k.id
		WHERE k.tenant_id = $1 AND k.idempotency_key = $2`,
		f.TenantID, f.IdempotencyKey))
	if err != nil {
		return store.Failure{}, false, fmt.Errorf("store failure %s: read record of idempotency key %q: %w",
			canonical.ID(f.ID), f.IdempotencyKey, mapError(err))
	}
	return stored, false, nil
}
