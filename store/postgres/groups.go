package postgres

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/omcp/toolfailure/store"
	"github.com/omcp/toolfailure/store/internal/canonical"
)

// ListGroups counts the window's records by fingerprint at query time (see migration 00005 for
// why no aggregate is kept): without other filters, an index-only scan of
// failures_created_fingerprint over the window, then a hash aggregate. Each group's sample, its
// newest record in the window, is one probe of failures_fingerprint per group of the page, in the
// same statement.
func (s *Store) ListGroups(ctx context.Context, tenantID int64, q store.GroupQuery) ([]store.Group, error) {
	fl := q.Filter
	if err := store.CheckGroupWindow(fl.Since, fl.Until); err != nil {
		return nil, fmt.Errorf("list groups of tenant %d: %w", tenantID, err)
	}
	where, args := groupWhere("", tenantID, fl)
	var having string
	order := "n DESC, fingerprint DESC"
	if q.OrderBy == store.GroupsByLastSeen {
		order = "last DESC, fingerprint DESC"
	}
	if c := q.After; c != nil {
		key, ok := store.FingerprintKey(c.Fingerprint)
		if !ok {
			return nil, fmt.Errorf("list groups of tenant %d: %w: cursor fingerprint %q", tenantID, store.ErrInvalid, c.Fingerprint)
		}
		if q.OrderBy == store.GroupsByLastSeen {
			args = append(args, canonical.Time(c.LastSeen), key)
			having = fmt.Sprintf(` HAVING (max(created_at), fingerprint) < ($%d, $%d)`, len(args)-1, len(args))
		} else {
			args = append(args, c.Count, key)
			having = fmt.Sprintf(` HAVING (count(*), fingerprint) < ($%d::bigint, $%d)`, len(args)-1, len(args))
		}
	}
	args = append(args, canonical.Limit(q.Limit))
	sampleWhere, _ := groupWhere("f.", tenantID, fl)
	// A subquery rather than a CTE, so that every name after FROM is a table of the schema (the
	// tenant_id check of store/postgres reads statements that way).
	query := `SELECT g.n, g.first, g.last, s.* FROM (
		SELECT fingerprint, count(*) AS n, min(created_at) AS first, max(created_at) AS last
		FROM failures WHERE ` + strings.Join(where, " AND ") + `
		GROUP BY fingerprint` + having + `
		ORDER BY ` + order + ` LIMIT $` + strconv.Itoa(len(args)) + `) g CROSS JOIN LATERAL (
		SELECT ` + prefixed("f.", failureColumns) + ` FROM failures f
		WHERE ` + strings.Join(sampleWhere, " AND ") + ` AND f.fingerprint = g.fingerprint
		ORDER BY f.id DESC LIMIT 1) s
	ORDER BY ` + order
	rows, err := s.pool.Query(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("list groups of tenant %d: %w", tenantID, mapError(err))
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (store.Group, error) {
		return scanGroup(row)
	})
	if err != nil {
		return nil, fmt.Errorf("list groups of tenant %d: %w", tenantID, mapError(err))
	}
	return out, nil
}

// GetGroup aggregates one fingerprint's records in the window: a range of failures_fingerprint.
func (s *Store) GetGroup(ctx context.Context, tenantID int64, fp string, since, until time.Time) (store.Group, error) {
	if err := store.CheckGroupWindow(since, until); err != nil {
		return store.Group{}, fmt.Errorf("get group %s: %w", fp, err)
	}
	key, ok := store.FingerprintKey(fp)
	if !ok {
		return store.Group{}, fmt.Errorf("get group: %w: fingerprint %q", store.ErrInvalid, fp)
	}
	where, args := groupWhere("", tenantID, store.GroupFilter{Since: since, Until: until})
	args = append(args, key)
	where = append(where, "fingerprint = $"+strconv.Itoa(len(args)))
	sampleWhere, _ := groupWhere("f.", tenantID, store.GroupFilter{Since: since, Until: until})
	query := `SELECT g.n, g.first, g.last, s.* FROM (
		SELECT fingerprint, count(*) AS n, min(created_at) AS first, max(created_at) AS last
		FROM failures WHERE ` + strings.Join(where, " AND ") + ` GROUP BY fingerprint) g CROSS JOIN LATERAL (
		SELECT ` + prefixed("f.", failureColumns) + ` FROM failures f
		WHERE ` + strings.Join(sampleWhere, " AND ") + ` AND f.fingerprint = g.fingerprint
		ORDER BY f.id DESC LIMIT 1) s`
	g, err := scanGroup(s.pool.QueryRow(ctx, query, args...))
	if err != nil {
		return store.Group{}, fmt.Errorf("get group %s: %w", fp, mapError(err))
	}
	return g, nil
}

func scanGroup(row pgx.Row) (store.Group, error) {
	var g store.Group
	f, err := scanFailure(&rowSplitter{row: row, head: []any{&g.Count, &g.FirstSeen, &g.LastSeen}})
	if err != nil {
		return store.Group{}, err
	}
	g.Sample, g.Fingerprint = f, f.Fingerprint
	g.FirstSeen, g.LastSeen = g.FirstSeen.UTC(), g.LastSeen.UTC()
	return g, nil
}

// rowSplitter scans a row whose leading columns are the group's and the rest a failure's, so that
// scanFailure reads the failure unchanged.
type rowSplitter struct {
	row  pgx.Row
	head []any
}

func (r *rowSplitter) Scan(dest ...any) error {
	return r.row.Scan(append(append([]any{}, r.head...), dest...)...)
}

func prefixed(prefix, columns string) string {
	parts := strings.Split(columns, ",")
	for i, p := range parts {
		parts[i] = prefix + strings.TrimSpace(p)
	}
	return strings.Join(parts, ", ")
}

// groupWhere is the window and filters of a group query; the arguments are numbered from $1 and
// are the same whatever the prefix, so that the sample's subquery reuses them.
func groupWhere(prefix string, tenantID int64, fl store.GroupFilter) ([]string, []any) {
	args := []any{tenantID, canonical.Time(fl.Since), canonical.Time(fl.Until)}
	where := []string{prefix + "tenant_id = $1", prefix + "created_at >= $2", prefix + "created_at < $3", prefix + "fingerprint IS NOT NULL"}
	add := func(col string, v any) {
		args = append(args, v)
		where = append(where, prefix+col+" = $"+strconv.Itoa(len(args)))
	}
	if fl.Tool != "" {
		add("tool", store.ReplaceNUL(fl.Tool))
	}
	if fl.Class != "" {
		add("class", fl.Class)
	}
	if fl.Code != "" {
		add("code", store.ReplaceNUL(fl.Code))
	}
	if fl.Server != "" {
		add("server", store.ReplaceNUL(fl.Server))
	}
	if fl.Unclassified {
		where = append(where, prefix+"rule_id IN "+unclassifiedList)
	}
	return where, args
}

// unclassifiedList is store.UnclassifiedRuleIDs as SQL literals, as the partial index
// failures_unclassified names them (migrations/postgres/00007_unclassified.sql), so that the
// planner can match a query's predicate to the index's.
var unclassifiedList = func() string {
	quoted := make([]string, len(store.UnclassifiedRuleIDs))
	for i, id := range store.UnclassifiedRuleIDs {
		quoted[i] = "'" + strings.ReplaceAll(id, "'", "''") + "'"
	}
	return "(" + strings.Join(quoted, ", ") + ")"
}()

// GroupHours buckets the window's records of the fingerprints by hour: the same index-only scan
// of failures_created_fingerprint as ListGroups.
func (s *Store) GroupHours(ctx context.Context, tenantID int64, fps []string, since, until time.Time) (map[string][]int64, error) {
	if err := store.CheckGroupWindow(since, until); err != nil {
		return nil, fmt.Errorf("group hours: %w", err)
	}
	keys, err := store.FingerprintKeys(fps)
	if err != nil {
		return nil, fmt.Errorf("group hours: %w", err)
	}
	since, until = canonical.Time(since), canonical.Time(until)
	rows, err := s.pool.Query(ctx, `SELECT fingerprint, floor(date_part('epoch', created_at - $2) / 3600)::int AS h, count(*)
		FROM failures WHERE tenant_id = $1 AND created_at >= $2 AND created_at < $3 AND fingerprint = ANY($4)
		GROUP BY 1, 2`, tenantID, since, until, keys)
	if err != nil {
		return nil, fmt.Errorf("group hours of tenant %d: %w", tenantID, mapError(err))
	}
	defer rows.Close()
	out := map[string][]int64{}
	n := store.HourBuckets(since, until)
	for rows.Next() {
		var (
			key   int64
			h     int
			count int64
		)
		if err := rows.Scan(&key, &h, &count); err != nil {
			return nil, fmt.Errorf("group hours of tenant %d: %w", tenantID, err)
		}
		fp := store.FingerprintText(key)
		if out[fp] == nil {
			out[fp] = make([]int64, n)
		}
		if h >= 0 && h < n {
			out[fp][h] += count
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("group hours of tenant %d: %w", tenantID, mapError(err))
	}
	return out, nil
}
