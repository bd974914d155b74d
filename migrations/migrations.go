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
