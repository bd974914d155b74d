package main

import (
	"regexp"
	"testing"

	"github.com/spf13/cobra"

	"github.com/omcp/toolfailure/correlation"
)

// Every correlation ID that a command's help shows is a valid one: a
// support engineer who copies an example gets a "not found", not "the
// check character does not match".
func TestHelpExampleIDsAreValid(t *testing.T) {
	t.Parallel()
	idRe := regexp.MustCompile(`tf_[0-9A-Za-z]{26,27}\b`)
	n := 0
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, text := range []string{c.Example, c.Long, c.Short} {
			for _, id := range idRe.FindAllString(text, -1) {
				n++
				if _, err := correlation.Parse(id); err != nil {
					t.Errorf("%s: the help shows %s, which is not a valid ID: %v", c.CommandPath(), id, err)
				}
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRootCmd(defaultDeps()))
	if n == 0 {
		t.Fatal("no example ID found in any help text")
	}
}
