package sqlite

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/omcp/toolfailure/store"
	"github.com/omcp/toolfailure/store/internal/canonical"
)

// ListGroups mirrors the PostgreSQL query: the window's records are aggregated by fingerprint
// (an index-only scan of failures_created_fingerprint when no other filter is set), and each
// group's sample is its newest record, found through failures_fingerprint.
func (s *Store) ListGroups(ctx context.Context, tenantID int64, q store.GroupQuery) ([]store.Group, error) {
	fl := q.Filter
	if err := store.CheckGroupWindow(fl.Since, fl.Until); err != nil {
		return nil, fmt.Errorf("list groups of tenant %d: %w", tenantID, err)
	}
	where, args := groupWhere(tenantID, fl)
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
			having = ` HAVING (max(created_at), fingerprint) < (?, ?)`
			args = append(args, canonical.Time(c.LastSeen).UnixMicro(), key)
		} else {
			having = ` HAVING (count(*), fingerprint) < (?, ?)`
			args = append(args, c.Count, key)
		}
	}
	args = append(args, canonical.Limit(q.Limit))
	query := `SELECT fingerprint, count(*) AS n, min(created_at), max(created_at) AS last
		FROM failures WHERE ` + strings.Join(where, " AND ") + ` GROUP BY fingerprint` + having +
		` ORDER BY ` + order + ` LIMIT ?`
	rows, err := s.readers.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("list groups of tenant %d: %w", tenantID, s.mapError(err))
	}
	var (
		groups []store.Group
		keys   []int64
	)
	for rows.Next() {
		var (
			g           store.Group
			key         int64
			first, last int64
		)
		if err := rows.Scan(&key, &g.Count, &first, &last); err != nil {
			rows.Close()
			return nil, fmt.Errorf("list groups of tenant %d: %w", tenantID, err)
		}
		g.Fingerprint, g.FirstSeen, g.LastSeen = store.FingerprintText(key), fromMicros(first), fromMicros(last)
		groups, keys = append(groups, g), append(keys, key)
	}
	if err := rows.Err(); err != nil {
		rows.Close()
		return nil, fmt.Errorf("list groups of tenant %d: %w", tenantID, s.mapError(err))
	}
	rows.Close()
	for i := range groups {
		sample, err := s.sample(ctx, tenantID, keys[i], fl)
		if err != nil {
			return nil, fmt.Errorf("list groups of tenant %d: sample of %s: %w", tenantID, groups[i].Fingerprint, s.mapError(err))
		}
		groups[i].Sample = sample
	}
	return groups, nil
}

// GetGroup aggregates one fingerprint's records in the window.
func (s *Store) GetGroup(ctx context.Context, tenantID int64, fp string, since, until time.Time) (store.Group, error) {
	if err := store.CheckGroupWindow(since, until); err != nil {
		return store.Group{}, fmt.Errorf("get group %s: %w", fp, err)
	}
	key, ok := store.FingerprintKey(fp)
	if !ok {
		return store.Group{}, fmt.Errorf("get group: %w: fingerprint %q", store.ErrInvalid, fp)
	}
	fl := store.GroupFilter{Since: since, Until: until}
	where, args := groupWhere(tenantID, fl)
	where = append(where, "fingerprint = ?")
	args = append(args, key)
	g := store.Group{Fingerprint: fp}
	var first, last *int64
	err := s.readers.QueryRowContext(ctx, `SELECT count(*), min(created_at), max(created_at) FROM failures WHERE `+
		strings.Join(where, " AND "), args...).Scan(&g.Count, &first, &last)
	if err != nil {
		return store.Group{}, fmt.Errorf("get group %s: %w", fp, s.mapError(err))
	}
	if g.Count == 0 {
		return store.Group{}, fmt.Errorf("get group %s: %w", fp, store.ErrNotFound)
	}
	g.FirstSeen, g.LastSeen = fromMicros(*first), fromMicros(*last)
	if g.Sample, err = s.sample(ctx, tenantID, key, fl); err != nil {
		return store.Group{}, fmt.Errorf("get group %s: sample: %w", fp, s.mapError(err))
	}
	return g, nil
}

func (s *Store) sample(ctx context.Context, tenantID, key int64, fl store.GroupFilter) (store.Failure, error) {
	where, args := groupWhere(tenantID, fl)
	where = append(where, "fingerprint = ?")
	args = append(args, key)
	return scanFailure(s.readers.QueryRowContext(ctx, `SELECT `+failureColumns+` FROM failures WHERE `+
		strings.Join(where, " AND ")+` ORDER BY id DESC LIMIT 1`, args...))
}

func groupWhere(tenantID int64, fl store.GroupFilter) ([]string, []any) {
	where := []string{"tenant_id = ?", "created_at >= ?", "created_at < ?", "fingerprint IS NOT NULL"}
	args := []any{tenantID, canonical.Time(fl.Since).UnixMicro(), canonical.Time(fl.Until).UnixMicro()}
	if fl.Tool != "" {
		where, args = append(where, "tool = ?"), append(args, store.ReplaceNUL(fl.Tool))
	}
	if fl.Class != "" {
		where, args = append(where, "class = ?"), append(args, fl.Class)
	}
	if fl.Code != "" {
		where, args = append(where, "code = ?"), append(args, store.ReplaceNUL(fl.Code))
	}
	if fl.Server != "" {
		where, args = append(where, "server = ?"), append(args, store.ReplaceNUL(fl.Server))
	}
	if fl.Unclassified {
		where = append(where, "rule_id IN (?"+strings.Repeat(", ?", len(store.UnclassifiedRuleIDs)-1)+")")
		for _, id := range store.UnclassifiedRuleIDs {
			args = append(args, id)
		}
	}
	return where, args
}

// GroupHours mirrors the PostgreSQL query; times are microseconds since the epoch here.
func (s *Store) GroupHours(ctx context.Context, tenantID int64, fps []string, since, until time.Time) (map[string][]int64, error) {
	if err := store.CheckGroupWindow(since, until); err != nil {
		return nil, fmt.Errorf("group hours: %w", err)
	}
	keys, err := store.FingerprintKeys(fps)
	if err != nil {
		return nil, fmt.Errorf("group hours: %w", err)
	}
	out := map[string][]int64{}
	if len(keys) == 0 {
		return out, nil
	}
	from := canonical.Time(since).UnixMicro()
	args := []any{from, tenantID, from, canonical.Time(until).UnixMicro()}
	for _, k := range keys {
		args = append(args, k)
	}
	rows, err := s.readers.QueryContext(ctx, `SELECT fingerprint, (created_at - ?) / 3600000000 AS h, count(*)
		FROM failures WHERE tenant_id = ? AND created_at >= ? AND created_at < ? AND fingerprint IN (?`+
		strings.Repeat(", ?", len(keys)-1)+`) GROUP BY 1, 2`, args...)
	if err != nil {
		return nil, fmt.Errorf("group hours of tenant %d: %w", tenantID, s.mapError(err))
	}
	defer rows.Close()
	n := store.HourBuckets(since, until)
	for rows.Next() {
		var key, h, count int64
		if err := rows.Scan(&key, &h, &count); err != nil {
			return nil, fmt.Errorf("group hours of tenant %d: %w", tenantID, err)
		}
		fp := store.FingerprintText(key)
		if out[fp] == nil {
			out[fp] = make([]int64, n)
		}
		if h >= 0 && h < int64(n) {
			out[fp][h] += count
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("group hours of tenant %d: %w", tenantID, s.mapError(err))
	}
	return out, nil
}
