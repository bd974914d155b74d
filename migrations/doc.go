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
