package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

// Each bench command owns one section of the report: a run replaces its own section, leaves
// the others as they were, and never prints a flag that can hold a secret.
func TestReportFileSections(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "benchmarks.md")
	run := func(section, printed string, args ...string) {
		t.Helper()
		fs := pflag.NewFlagSet(section, pflag.ContinueOnError)
		r := addReportFlag(fs, section)
		fs.String("database-url", "", "")
		fs.String("key", "", "")
		fs.Int("rounds", 3, "")
		if err := fs.Parse(append([]string{"--report", path}, args...)); err != nil {
			t.Fatal(err)
		}
		if _, err := r.out(&strings.Builder{}).Write([]byte(printed)); err != nil {
			t.Fatal(err)
		}
		if err := r.write(fs, time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)); err != nil {
			t.Fatal(err)
		}
	}
	run("bench", "service 195 µs\n", "--rounds", "1", "--database-url", "postgres://u:hunter2@db/x")
	run("bench proxy", "proxy p50 3 µs\n", "--key", "tfk_secret")
	run("bench", "service 180 µs\n", "--rounds", "2")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got := string(b)
	for _, want := range []string{"# Benchmarks", "## `toolfailure bench --rounds=2`", "service 180 µs",
		"## `toolfailure bench proxy`", "proxy p50 3 µs", "Measured on 2026-12-02 10:00 (UTC)"} {
		if !strings.Contains(got, want) {
			t.Errorf("report lacks %q:\n%s", want, got)
		}
	}
	for _, gone := range []string{"service 195 µs", "hunter2", "tfk_secret", "--report="} {
		if strings.Contains(got, gone) {
			t.Errorf("report holds %q:\n%s", gone, got)
		}
	}
	if n := strings.Count(got, "<!-- bench -->"); n != 1 {
		t.Errorf("the bench section appears %d times:\n%s", n, got)
	}
	if strings.Index(got, "<!-- bench -->") > strings.Index(got, "<!-- bench proxy -->") {
		t.Errorf("a rerun moved its section:\n%s", got)
	}
}
