package postgres

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/omcp/toolfailure/correlation"
	"github.com/omcp/toolfailure/store"
	"github.com/omcp/toolfailure/store/internal/canonical"
)

// Failure records live in range partitions of their ID, one per UTC day
// (migrations/postgres/00006_partitions.sql says why by ID). This file keeps them: partitions are
// made ahead of time by Migrate and by every retention round, a record for a day without one gets
// it on the spot, and a partition whose every record is past every tenant's retention is dropped
// whole.

// PartitionsAhead is how many days of partitions past today Migrate and each retention round make
// sure exist. A week outlasts any outage of the retention loop that the service would survive
// anyway; a day without its partition is still made when its first record arrives.
const PartitionsAhead = 7

// partitionDay is the width of a partition. Lookups by ID read one partition and first pages the
// newest one or two whatever the width, so the width decides what retention frees and when: a day
// frees space a day after records expire instead of up to a week later, and keeps each drop small.
// With daily partitions, `toolfailure bench --seed 10000000 --drop-partition 1000000` meets every
// lookup floor at 10 M records (docs/scaling.md, step 3).
const partitionDay = 24 * time.Hour

// lockTimeout bounds how long a partition's creation or detachment waits for a lock on the
// failures table. Inserts hold only a shared lock and never conflict with either; this is for the
// rare statement that holds a stronger one, so that the maintenance gives up and comes back later
// rather than making every insert queue behind it.
const lockTimeout = "50ms"

// partition is one partition's name and range of IDs; lo is nil from MINVALUE, hi nil to MAXVALUE.
type partition struct {
	name          string
	lo, hi        *[16]byte
	detachPending bool
}

// idAt is the smallest UUIDv7 of the millisecond t, the bound of a partition that starts at t.
func idAt(t time.Time) [16]byte { return store.ExpiryBound(t) }

var boundRE = regexp.MustCompile(`^FOR VALUES FROM \((MINVALUE|'[0-9a-f-]{36}')\) TO \((MAXVALUE|'[0-9a-f-]{36}')\)$`)

func parseBound(v string) (*[16]byte, error) {
	if v == "MINVALUE" || v == "MAXVALUE" {
		return nil, nil
	}
	id, err := uuid.Parse(strings.Trim(v, "'"))
	if err != nil {
		return nil, fmt.Errorf("partition bound %s: %w", v, err)
	}
	b := [16]byte(id)
	return &b, nil
}

// partitions lists the failures table's partitions in order of their ranges.
func partitions(ctx context.Context, q querier) ([]partition, error) {
	rows, err := q.Query(ctx, `SELECT c.relname, pg_get_expr(c.relpartbound, c.oid), i.inhdetachpending
		FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
		WHERE i.inhparent = 'failures'::regclass`)
	if err != nil {
		return nil, fmt.Errorf("list partitions: %w", mapError(err))
	}
	var out []partition
	for rows.Next() {
		var (
			p     partition
			bound string
		)
		if err := rows.Scan(&p.name, &bound, &p.detachPending); err != nil {
			rows.Close()
			return nil, fmt.Errorf("list partitions: %w", mapError(err))
		}
		m := boundRE.FindStringSubmatch(bound)
		if m == nil {
			rows.Close()
			return nil, fmt.Errorf("list partitions: %s: unexpected bound %q", p.name, bound)
		}
		if p.lo, err = parseBound(m[1]); err != nil {
			rows.Close()
			return nil, err
		}
		if p.hi, err = parseBound(m[2]); err != nil {
			rows.Close()
			return nil, err
		}
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list partitions: %w", mapError(err))
	}
	slices.SortFunc(out, func(a, b partition) int { return compareLo(a.lo, b.lo) })
	return out, nil
}

func compareLo(a, b *[16]byte) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return -1
	case b == nil:
		return 1
	}
	return slices.Compare(a[:], b[:])
}

// covers reports whether p holds the ID id.
func (p partition) covers(id [16]byte) bool {
	return (p.lo == nil || slices.Compare(p.lo[:], id[:]) <= 0) && (p.hi == nil || slices.Compare(id[:], p.hi[:]) < 0)
}

// querier is what partitions needs of a pool or a connection.
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// EnsurePartitions makes sure that a partition exists for every day from from to to (UTC),
// creating the missing ones. Creating one never blocks inserts: the table is made on its own and
// then attached, which takes only a lock that inserts do not conflict with.
func (s *Store) EnsurePartitions(ctx context.Context, from, to time.Time) error {
	return ensurePartitions(ctx, s.pool, from, to)
}

func ensurePartitions(ctx context.Context, pool *pgxpool.Pool, from, to time.Time) error {
	var days []time.Time
	for day := from.UTC().Truncate(partitionDay); !day.After(to); day = day.Add(partitionDay) {
		days = append(days, day)
	}
	return ensureDays(ctx, pool, days)
}

// ensureDays creates the partitions of the UTC days that start at days, where none covers them.
func ensureDays(ctx context.Context, pool *pgxpool.Pool, days []time.Time) error {
	existing, err := partitions(ctx, pool)
	if err != nil {
		return err
	}
	for _, day := range days {
		created, err := ensureDay(ctx, pool, existing, day)
		if err != nil {
			return err
		}
		if created {
			if existing, err = partitions(ctx, pool); err != nil {
				return err
			}
		}
	}
	return nil
}

// ensureDay creates the partition of the UTC day that starts at day, unless one covers its start,
// and reports whether the partitions changed. The new partition is the day's range, cut short
// where a partition of another shape begins, so that the two never overlap.
func ensureDay(ctx context.Context, pool *pgxpool.Pool, existing []partition, day time.Time) (bool, error) {
	lo, hi := idAt(day), idAt(day.Add(partitionDay))
	for _, p := range existing {
		if p.covers(lo) {
			return false, nil
		}
		// Not covering lo, a partition that overlaps the day starts inside it.
		if p.lo != nil && slices.Compare(p.lo[:], lo[:]) > 0 && slices.Compare(p.lo[:], hi[:]) < 0 {
			hi = *p.lo
		}
	}
	name := "failures_p" + day.Format("20060102")
	// A table of its own first, then attached: CREATE TABLE … PARTITION OF would lock the whole
	// failures table against inserts while it runs, ATTACH PARTITION does not.
	create := fmt.Sprintf(`CREATE TABLE IF NOT EXISTS %s (LIKE failures INCLUDING DEFAULTS INCLUDING CONSTRAINTS)`, name)
	attach := fmt.Sprintf(`ALTER TABLE failures ATTACH PARTITION %s FOR VALUES FROM ('%s') TO ('%s')`,
		name, canonical.ID(lo), canonical.ID(hi))
	var err error
	for attempt := range createAttempts {
		if attempt > 0 {
			select {
			case <-ctx.Done():
				return false, fmt.Errorf("create partition %s: %w", name, errors.Join(err, ctx.Err()))
			case <-time.After(time.Duration(attempt) * 20 * time.Millisecond):
			}
		}
		// Made here or by another replica meanwhile, the partitions changed either way.
		if err = createPartition(ctx, pool, lo, create, attach); err == nil {
			return true, nil
		}
		if !isLockTimeout(err) {
			break
		}
	}
	return false, fmt.Errorf("create partition %s: %w", name, mapError(err))
}

// createAttempts is how many times a partition's creation is tried when it gives up waiting for a
// lock: another statement that held one briefly (a detach, an index build) is usually done by then.
const createAttempts = 5

// partitionLockKey serialises the creation of partitions within a schema. Replicas that start
// together, or inserts that meet the same missing day, would otherwise create the same table and
// queue their attachments behind one another until the lock timeout; under the lock, the second
// finds the partition made and does nothing.
const partitionLockKey = `hashtextextended('toolfailure partitions ' || coalesce(current_schema(), ''), 0)`

// createPartition makes and attaches the partition whose range starts at lo, unless one that
// covers lo exists once the partition lock is held.
func createPartition(ctx context.Context, pool *pgxpool.Pool, lo [16]byte, create, attach string) error {
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(`+partitionLockKey+`)`); err != nil {
			return err
		}
		now, err := partitions(ctx, tx)
		if err != nil {
			return err
		}
		if slices.ContainsFunc(now, func(p partition) bool { return p.covers(lo) }) {
			return nil
		}
		for _, q := range []string{`SET LOCAL lock_timeout = '` + lockTimeout + `'`, create, attach} {
			if _, err := tx.Exec(ctx, q); err != nil {
				return err
			}
		}
		return nil
	})
}

// isLockTimeout reports a statement that gave up waiting for a lock (lock_timeout).
func isLockTimeout(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "55P03"
}

// isNoPartition reports an insert of a record whose day has no partition.
func isNoPartition(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "23514" && strings.HasPrefix(pgErr.Message, "no partition of relation")
}

// ensureRowPartitions creates the partitions of the days of rows.
func ensureRowPartitions(ctx context.Context, pool *pgxpool.Pool, rows []*store.Failure) error {
	var days []time.Time
	for _, f := range rows {
		if day := correlation.ID(f.ID).Time().UTC().Truncate(partitionDay); !slices.Contains(days, day) {
			days = append(days, day)
		}
	}
	return ensureDays(ctx, pool, days)
}

// retentionLockKey serialises dropping partitions with changes of retention (SetRetention takes
// it too), so that a retention raised while a drop is being decided is seen by it.
const retentionLockKey = `hashtextextended('toolfailure retention ' || coalesce(current_schema(), ''), 0)`

// dropExpiredPartitions drops every partition whose records are all older than the longest
// retention of any tenant at now; none while some tenant keeps its records forever. It returns
// how many records the dropped partitions held.
//
// A partition is detached CONCURRENTLY, which waits for the queries that may still read it but
// locks out no insert or lookup, then dropped. The retention lock is held meanwhile, and the
// retentions are read under it, so that a change of retention either comes before the decision
// and counts, or waits for the drop.
func dropExpiredPartitions(ctx context.Context, pool *pgxpool.Pool, now time.Time) (int64, error) {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return 0, fmt.Errorf("drop expired partitions: %w", mapError(err))
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock(`+retentionLockKey+`)`); err != nil {
		return 0, fmt.Errorf("drop expired partitions: take the retention lock: %w", mapError(err))
	}
	defer func() {
		_, _ = conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock(`+retentionLockKey+`)`)
	}()
	var (
		forever bool
		longest *int32
	)
	if err := conn.QueryRow(ctx, `SELECT bool_or(retention_days IS NULL), max(retention_days) FROM tenants`).
		Scan(&forever, &longest); err != nil {
		return 0, fmt.Errorf("drop expired partitions: read retentions: %w", mapError(err))
	}
	parts, err := partitions(ctx, conn)
	if err != nil {
		return 0, err
	}
	var bound [16]byte
	if !forever && longest != nil {
		bound = store.ExpiryBound(now.AddDate(0, 0, -int(*longest)))
	}
	var dropped int64
	for _, p := range parts {
		expired := !forever && longest != nil && p.hi != nil && slices.Compare(p.hi[:], bound[:]) <= 0
		if !expired && !p.detachPending {
			continue
		}
		// Counted, not estimated, because the caller reports what was removed. A partition whose
		// records have all expired receives no more, so the count stays true until the drop.
		var rows int64
		if err := conn.QueryRow(ctx, `SELECT count(*) FROM `+p.name).Scan(&rows); err != nil {
			return dropped, fmt.Errorf("drop partition %s: count its records: %w", p.name, mapError(err))
		}
		if p.detachPending {
			// A detach that an earlier round began and did not finish (the service stopped).
			if _, err := conn.Exec(ctx, `ALTER TABLE failures DETACH PARTITION `+p.name+` FINALIZE`); err != nil {
				return dropped, fmt.Errorf("drop partition %s: finish detaching: %w", p.name, mapError(err))
			}
		} else {
			// The key rows of the partition's records go first: a key whose record is gone would
			// answer a retry with nothing.
			if _, err := conn.Exec(ctx, `DELETE FROM failure_keys
				WHERE tenant_id = ANY (SELECT id FROM tenants) AND id < $1`, p.hi); err != nil {
				return dropped, fmt.Errorf("drop partition %s: delete its idempotency keys: %w", p.name, mapError(err))
			}
			if _, err := conn.Exec(ctx, `SET lock_timeout = '`+lockTimeout+`'`); err != nil {
				return dropped, fmt.Errorf("drop partition %s: %w", p.name, mapError(err))
			}
			_, err := conn.Exec(ctx, `ALTER TABLE failures DETACH PARTITION `+p.name+` CONCURRENTLY`)
			_, _ = conn.Exec(context.WithoutCancel(ctx), `RESET lock_timeout`)
			if err != nil {
				return dropped, fmt.Errorf("drop partition %s: detach: %w", p.name, mapError(err))
			}
		}
		if _, err := conn.Exec(ctx, `DROP TABLE `+p.name); err != nil {
			return dropped, fmt.Errorf("drop partition %s: %w", p.name, mapError(err))
		}
		dropped += rows
	}
	return dropped, nil
}
