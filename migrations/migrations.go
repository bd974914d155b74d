// Package migrations holds the schema of every storage backend as plain SQL files in goose format,
// compiled into the binary so that `toolfailure migrate` and `toolfailure serve` need nothing on disk.
//
// Each backend has its own directory because the dialects differ in ways that matter here (uuid and
// jsonb versus blobs and text, identity columns versus rowids, regular expressions versus GLOB), and a
// single lowest-common-denominator schema would throw away what PostgreSQL checks for free. The two
// schemas describe the same records, and the store/storetest suite holds both backends to the same
// behaviour, so drift shows up as a failing test rather than as a subtle difference in production.
//
// Files are numbered, never renamed and never edited once released: goose records applied versions
// in a table, and a changed file would silently not run again. A change to the schema is a new file
// with the next number, in both directories when both backends are affected.
package migrations

import (
	"embed"
	"io/fs"
)

//go:embed postgres/*.sql
var postgresFiles embed.FS

//go:embed sqlite/*.sql
var sqliteFiles embed.FS

// Postgres is the PostgreSQL schema, rooted so that the migration files sit at its top level, as
// goose.NewProvider expects.
var Postgres fs.FS = sub(postgresFiles, "postgres")

// SQLite is the schema of the embedded single-file store, rooted like Postgres.
var SQLite fs.FS = sub(sqliteFiles, "sqlite")

// sub panics rather than returning an error because the directories are fixed at compile time by the
// embed directives above: a failure here is a build mistake that no caller could handle.
func sub(fsys fs.FS, dir string) fs.FS {
	s, err := fs.Sub(fsys, dir)
	if err != nil {
		panic("migrations: " + err.Error())
	}
	return s
}
