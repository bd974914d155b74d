package main

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// cliDoc is the command-line reference. Its first part (the tour and the
// conventions) is written by hand; everything from cliDocHead on is
// generated from the command tree by cliReference.
const cliDoc = "../../docs/cli.md"

// cliDocHead is the line that the generated part of docs/cli.md begins with.
const cliDocHead = "<!-- Generated from the commands' help: edit the commands, then run\n" +
	"     TOOLFAILURE_UPDATE_CLI_DOC=1 go test ./cmd/toolfailure/ -run TestCLIDocIsCurrent -->\n"

// cliReference writes the reference of every command an operator sees, in
// the order of the tree: a table of contents, then each command's --help as
// it prints it. It is a few lines over cobra's own tree rather than
// cobra/doc, which would bring a man-page renderer and a Markdown parser
// into the module for one page.
func cliReference(root *cobra.Command) string {
	var cmds []*cobra.Command
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Hidden || c.Name() == "help" {
			return
		}
		cmds = append(cmds, c)
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)

	var b strings.Builder
	b.WriteString(cliDocHead)
	b.WriteString("\n## Every command\n\n| command | what it does |\n|---|---|\n")
	for _, c := range cmds {
		fmt.Fprintf(&b, "| [%s](#%s) | %s |\n", c.CommandPath(), anchor(c.CommandPath()), strings.ReplaceAll(c.Short, "|", `\|`))
	}
	for _, c := range cmds {
		var help bytes.Buffer
		c.InitDefaultHelpFlag() // as running the command does
		c.SetOut(&help)
		c.SetErr(&help)
		if err := c.Help(); err != nil {
			fmt.Fprintf(&help, "(no help: %v)", err)
		}
		fmt.Fprintf(&b, "\n### %s\n\n```text\n%s\n```\n", c.CommandPath(), strings.TrimRight(help.String(), "\n"))
	}
	return b.String()
}

// anchor is the fragment that GitHub gives a heading of plain words.
func anchor(heading string) string {
	return strings.ReplaceAll(strings.ToLower(heading), " ", "-")
}

// TestCLIDocIsCurrent: docs/cli.md's reference is what the commands' help
// says now, so that a changed flag or example comes with the regenerated
// page. TOOLFAILURE_UPDATE_CLI_DOC=1 rewrites it.
func TestCLIDocIsCurrent(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(cliDoc)
	if err != nil {
		t.Fatal(err)
	}
	committed := string(b)
	got := cliReference(fullTree())
	at := strings.Index(committed, cliDocHead)
	if at >= 0 && committed[at:] == got {
		return
	}
	if os.Getenv("TOOLFAILURE_UPDATE_CLI_DOC") == "1" {
		if at < 0 {
			at = len(committed)
		}
		if err := os.WriteFile(cliDoc, []byte(committed[:at]+got), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("rewrote %s", cliDoc)
		return
	}
	if at < 0 {
		t.Fatalf("%s lacks the line its generated part begins with:\n%s", cliDoc, cliDocHead)
	}
	gl, wl := strings.Split(got, "\n"), strings.Split(committed[at:], "\n")
	for i := 0; i < len(gl) || i < len(wl); i++ {
		var g, w string
		if i < len(gl) {
			g = gl[i]
		}
		if i < len(wl) {
			w = wl[i]
		}
		if g != w {
			t.Fatalf("%s is not what the commands' help says now; first difference at line %d of the generated part:\n committed: %s\n generated: %s\n"+
				"regenerate it: TOOLFAILURE_UPDATE_CLI_DOC=1 go test ./cmd/toolfailure/ -run TestCLIDocIsCurrent", cliDoc, i+1, w, g)
		}
	}
}
