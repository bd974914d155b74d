package pgtest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Migrate brings the schema that url selects (through search_path) to the current version, as the
// code under test would at start-up.
type Migrate func(ctx context.Context, url string) error

// Migrated returns the URL of a schema on which migrate has already run, for a test that needs a
// migrated database but does not test migrating: running every migration for every test is most of
// what such tests cost. name keys a pool of schemas that one test binary hands out and takes back;
// every caller passing the same name must pass an equivalent migrate.
//
// When the test ends, the schema's tables are emptied (except tables that held rows straight after
// migrating, such as the migration tool's version table), its sequences are set back, and the
// schema goes back to the pool. A schema whose structure no longer matches what migrating left
// (a table, column, index, function, trigger or constraint added or removed, a partition created
// on demand), or whose kept tables' contents or sequences changed, is dropped instead, so a test
// always starts from exactly the migrated state. A test that checks what migrations create, or
// changes the schema on purpose, should still use URL and migrate itself.
//
// The pooled schemas are dropped when the test binary ends, which is why the package's TestMain
// must call Main (or Run); Migrated fails the test otherwise.
func Migrated(t testing.TB, name string, migrate Migrate) string {
	t.Helper()
	if !connected(t) {
		return ""
	}
	if !mainRunning.Load() {
		t.Fatalf("pgtest: Migrated keeps schemas until the test binary ends: TestMain must call pgtest.Main or pgtest.Run")
	}
	p := poolFor(name)
	s := p.take()
	if s == nil {
		s = p.create(t, migrate)
	}
	t.Cleanup(func() {
		if err := p.giveBack(s); err != nil {
			t.Errorf("pgtest: %v", err)
		}
	})
	return s.url
}

// Main runs the tests of a package that uses Migrated, drops the schemas the pools still hold, and
// exits:
//
//	func TestMain(m *testing.M) { pgtest.Main(m) }
func Main(m *testing.M) { os.Exit(Run(m)) }

// Run is Main without the exit, for a TestMain that has clean-up of its own to do after the
// tests: it runs them, drops the pools' schemas and returns the exit code.
func Run(m *testing.M) int {
	mainRunning.Store(true)
	code := m.Run()
	if err := dropPools(); err != nil {
		fmt.Fprintf(os.Stderr, "pgtest: %v\n", err)
		if code == 0 {
			code = 1
		}
	}
	return code
}

var (
	mainRunning atomic.Bool
	pools       struct {
		mu     sync.Mutex
		byName map[string]*pool
	}
)

// pool holds one binary's migrated schemas for one name. free are ready to hand out; live are all
// that exist, handed out or not, for Main to drop.
type pool struct {
	mu   sync.Mutex
	free []*pooled
	live map[*pooled]bool
}

// pooled is one migrated schema and what it looked like straight after migrating.
type pooled struct {
	schema, url string
	// emptied are the tables to empty, every table that was empty after migrating, in an order in
	// which deleting never breaks a foreign key (referencing tables first); nil when the foreign
	// keys go round in a cycle, and then they are truncated instead.
	emptied []string
	// cyclic is set when the foreign keys between emptied tables form a cycle.
	cyclic bool
	// sequences restores every sequence to its value after migrating.
	sequences string
	// kept are the tables that held rows after migrating; they are not truncated.
	kept []string
	// pristine is the fingerprint (see fingerprint) taken after migrating.
	pristine string
}

func poolFor(name string) *pool {
	pools.mu.Lock()
	defer pools.mu.Unlock()
	if pools.byName == nil {
		pools.byName = map[string]*pool{}
	}
	p := pools.byName[name]
	if p == nil {
		p = &pool{live: map[*pooled]bool{}}
		pools.byName[name] = p
	}
	return p
}

func (p *pool) take() *pooled {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.free) == 0 {
		return nil
	}
	s := p.free[len(p.free)-1]
	p.free = p.free[:len(p.free)-1]
	return s
}

// create makes a new schema, migrates it and records its pristine state. Migrating happens
// outside any lock, so parallel tests that find the pool empty migrate at the same time.
func (p *pool) create(t testing.TB, migrate Migrate) *pooled {
	t.Helper()
	schema, u := newSchema(t)
	s := &pooled{schema: schema, url: u}
	p.mu.Lock()
	p.live[s] = true
	p.mu.Unlock()
	fail := func(format string, args ...any) {
		t.Helper()
		p.forget(s)
		if err := dropSchema(schema); err != nil {
			t.Errorf("pgtest: %v", err)
		}
		t.Fatalf(format, args...)
	}
	if err := migrate(t.Context(), u); err != nil {
		fail("pgtest: migrate schema %s: %v", schema, err)
	}
	err := withAdmin(t.Context(), func(ctx context.Context, conn *pgx.Conn) error {
		// Found through their dependencies on the schema, as in fingerprint.
		rows, err := conn.Query(ctx, `SELECT c.relname FROM pg_class c
			WHERE c.oid IN (SELECT objid FROM pg_depend WHERE classid = 'pg_class'::regclass
				AND refclassid = 'pg_namespace'::regclass AND refobjid = $1::regnamespace)
			AND c.relkind IN ('r', 'p') AND NOT c.relispartition ORDER BY c.relname`, schema)
		if err != nil {
			return err
		}
		tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return err
		}
		for _, table := range tables {
			var hasRows bool
			q := `SELECT EXISTS (SELECT 1 FROM ` + pgx.Identifier{schema, table}.Sanitize() + `)`
			if err := conn.QueryRow(ctx, q).Scan(&hasRows); err != nil {
				return err
			}
			if hasRows {
				s.kept = append(s.kept, table)
			} else {
				s.emptied = append(s.emptied, table)
			}
		}
		if s.emptied, s.cyclic, err = deletionOrder(ctx, conn, schema, s.emptied); err != nil {
			return err
		}
		rows, err = conn.Query(ctx, `SELECT format('SELECT setval(%L, %s, %s);', c.oid::regclass::text,
				coalesce(pg_sequence_last_value(c.oid), sq.seqstart),
				CASE WHEN pg_sequence_last_value(c.oid) IS NULL THEN 'false' ELSE 'true' END)
			FROM pg_class c JOIN pg_sequence sq ON sq.seqrelid = c.oid
			WHERE c.oid IN (SELECT objid FROM pg_depend WHERE classid = 'pg_class'::regclass
				AND refclassid = 'pg_namespace'::regclass AND refobjid = $1::regnamespace)
			ORDER BY 1`, schema)
		if err != nil {
			return err
		}
		setvals, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return err
		}
		s.sequences = strings.Join(setvals, "\n")
		s.pristine, err = fingerprint(ctx, conn, s)
		return err
	})
	if err != nil {
		fail("pgtest: inspect migrated schema %s: %v", schema, err)
	}
	return s
}

// giveBack empties s and returns it to the pool, or drops it when emptying does not bring it back
// to its pristine state.
func (p *pool) giveBack(s *pooled) error {
	// Called from a cleanup, when the test's context is already canceled.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var reusable bool
	err := withAdmin(ctx, func(ctx context.Context, conn *pgx.Conn) error {
		if _, err := conn.Exec(ctx, s.emptyingSQL()); err != nil {
			// A table that the test dropped, or one that a table added since references: the
			// schema is not reused.
			return nil
		}
		now, err := fingerprint(ctx, conn, s)
		if err != nil {
			return nil
		}
		reusable = now == s.pristine
		return nil
	})
	if err == nil && reusable {
		p.mu.Lock()
		p.free = append(p.free, s)
		p.mu.Unlock()
		return nil
	}
	p.forget(s)
	return errors.Join(err, dropSchema(s.schema))
}

// emptyingSQL is the script that empties s's emptied tables and restores its sequences, in one
// round trip; the server runs the statements of one simple query as one transaction, and a failure
// rolls them all back and leaves no transaction open on the admin connection. Deleting the few rows a test leaves is far quicker than TRUNCATE,
// which replaces the files of every table, partition and index.
func (s *pooled) emptyingSQL() string {
	var b strings.Builder
	if s.cyclic {
		names := make([]string, len(s.emptied))
		for i, table := range s.emptied {
			names[i] = pgx.Identifier{s.schema, table}.Sanitize()
		}
		b.WriteString("TRUNCATE " + strings.Join(names, ", ") + ";\n")
	} else {
		for _, table := range s.emptied {
			b.WriteString("DELETE FROM " + pgx.Identifier{s.schema, table}.Sanitize() + ";\n")
		}
	}
	b.WriteString(s.sequences)
	return b.String()
}

// deletionOrder orders tables so that each comes before every table it references, and reports
// whether their foreign keys form a cycle, which no order satisfies.
func deletionOrder(ctx context.Context, conn *pgx.Conn, schema string, tables []string) ([]string, bool, error) {
	rows, err := conn.Query(ctx, `SELECT DISTINCT c.relname, r.relname
		FROM pg_constraint co
		JOIN pg_class c ON c.oid = co.conrelid JOIN pg_class r ON r.oid = co.confrelid
		JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE co.contype = 'f' AND n.nspname = $1 AND NOT c.relispartition AND NOT r.relispartition
			AND c.oid <> r.oid`, schema)
	if err != nil {
		return nil, false, err
	}
	refs := map[string][]string{} // table → tables referencing it
	for rows.Next() {
		var from, to string
		if err := rows.Scan(&from, &to); err != nil {
			return nil, false, err
		}
		refs[to] = append(refs[to], from)
	}
	if err := rows.Err(); err != nil {
		return nil, false, err
	}
	var (
		order []string
		state = map[string]int{} // 1: being visited, 2: done
		cycle bool
		visit func(string)
	)
	// A table is placed after every table that references it has been.
	visit = func(table string) {
		switch state[table] {
		case 1:
			cycle = true
			return
		case 2:
			return
		}
		state[table] = 1
		for _, from := range refs[table] {
			visit(from)
		}
		state[table] = 2
		order = append(order, table)
	}
	for _, table := range tables {
		visit(table)
	}
	// order holds referencing tables first; keep only the tables asked about (a kept table may
	// reference or be referenced, and is not emptied).
	out := make([]string, 0, len(tables))
	for _, table := range order {
		if slices.Contains(tables, table) {
			out = append(out, table)
		}
	}
	return out, cycle, nil
}

func (p *pool) forget(s *pooled) {
	p.mu.Lock()
	delete(p.live, s)
	p.mu.Unlock()
}

// fingerprint describes s's structure (relations and their columns, constraints and triggers,
// functions), the values of its sequences, and the contents of its kept tables: whatever a test
// could leave behind that emptying does not undo. The schema's objects are found through their
// dependencies on it (pg_depend's index on the referenced object) and everything else by relation
// through the catalogs' indexes, never by scanning a catalog: on a server that creates and drops
// many schemas, the catalogs fill with dead rows that every scan reads.
func fingerprint(ctx context.Context, conn *pgx.Conn, s *pooled) (string, error) {
	const q = `WITH ns AS (SELECT oid FROM pg_namespace WHERE nspname = $1),
	deps AS (SELECT classid, objid FROM pg_depend
		WHERE refclassid = 'pg_namespace'::regclass AND refobjid = (SELECT oid FROM ns)),
	tabs AS (SELECT c.oid, c.relname, c.relkind, c.relispartition FROM pg_class c
		WHERE c.oid IN (SELECT objid FROM deps WHERE classid = 'pg_class'::regclass)),
	rels AS (SELECT * FROM tabs
		UNION ALL
		SELECT i.oid, i.relname, i.relkind, i.relispartition FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid
		WHERE x.indrelid IN (SELECT oid FROM tabs))
	SELECT line FROM (
		SELECT 'r ' || r.relname || ':' || r.relkind::text || ':' || r.relispartition::text || ':' ||
			coalesce((SELECT string_agg(a.attname || ' ' || format_type(a.atttypid, a.atttypmod) || ' ' || a.attnotnull::text, ',' ORDER BY a.attnum)
				FROM pg_attribute a WHERE a.attrelid = r.oid AND a.attnum > 0 AND NOT a.attisdropped), '') AS line
		FROM rels r
		UNION ALL
		SELECT 'c ' || r.relname || ' ' || co.conname || ' ' || co.contype::text || ' ' || coalesce(co.conkey::text, '') || ' ' ||
			coalesce(co.confkey::text, '') || ' ' || co.confdeltype::text || co.confupdtype::text || ' ' || md5(coalesce(co.conbin::text, ''))
		FROM tabs r JOIN pg_constraint co ON co.conrelid = r.oid
		UNION ALL
		SELECT 't ' || r.relname || ' ' || tg.tgname FROM tabs r JOIN pg_trigger tg ON tg.tgrelid = r.oid
		UNION ALL
		SELECT 'f ' || p.proname || ' ' || md5(p.prosrc) FROM pg_proc p
		WHERE p.oid IN (SELECT objid FROM deps WHERE classid = 'pg_proc'::regclass)
		UNION ALL
		SELECT 's ' || r.relname || ' ' || coalesce(pg_sequence_last_value(r.oid)::text, '-') FROM tabs r WHERE r.relkind = 'S'
	) lines ORDER BY line`
	rows, err := conn.Query(ctx, q, s.schema)
	if err != nil {
		return "", err
	}
	lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString(strings.Join(lines, "\n"))
	b.WriteString("\n")
	for _, table := range s.kept {
		var sum string
		q := `SELECT md5(coalesce(string_agg(x::text, ',' ORDER BY x::text), '')) FROM ` +
			pgx.Identifier{s.schema, table}.Sanitize() + ` x`
		if err := conn.QueryRow(ctx, q).Scan(&sum); err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "k %s %s\n", table, sum)
	}
	return b.String(), nil
}

// dropPools drops every schema the pools hold.
func dropPools() error {
	pools.mu.Lock()
	defer pools.mu.Unlock()
	var errs []error
	for _, p := range pools.byName {
		p.mu.Lock()
		for s := range p.live {
			errs = append(errs, dropSchema(s.schema))
		}
		p.live, p.free = map[*pooled]bool{}, nil
		p.mu.Unlock()
	}
	return errors.Join(errs...)
}

// withAdmin runs fn on the admin connection, which no other test uses meanwhile.
func withAdmin(ctx context.Context, fn func(context.Context, *pgx.Conn) error) error {
	admin.mu.Lock()
	defer admin.mu.Unlock()
	return fn(ctx, admin.conn)
}
