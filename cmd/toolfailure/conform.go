package main

import (
	"github.com/spf13/cobra"

	"github.com/omcp/toolfailure/conformance"
)

func newConformCmd() *cobra.Command {
	var (
		strict  bool
		now     string
		version string
	)
	cmd := &cobra.Command{
		Use:   "conform [flags] FILE…",
		Short: "Check CallToolResult files against the toolFailure proposal and the MCP schema",
		Long: `Check each file (a CallToolResult, or a whole JSON-RPC response that holds one) against the
proposal's rules and the official MCP schema, and print each violation. Exits 0 when every
file conforms and 1 otherwise.`,
		Example: `  toolfailure conform toolfailure-demo/*.json
  toolfailure conform result.json --strict
  toolfailure conform result.json --protocol-version 2026-07-28`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageErrorf("no files given (usage: %s)", cmd.UseLine())
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, files []string) error {
			// The checker's own entry point, with the flags cobra parsed and
			// the files after "--", so that a file named like a flag is a file.
			args := []string{}
			if strict {
				args = append(args, "--strict")
			}
			if now != "" {
				args = append(args, "--now", now)
			}
			if version != "" {
				args = append(args, "--protocol-version", version)
			}
			args = append(append(args, "--"), files...)
			if code := conformance.Main(args, cmd.OutOrStdout(), cmd.ErrOrStderr()); code != 0 {
				return exitSilently(code)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&strict, "strict", false, "fail on SHOULD findings too")
	cmd.Flags().StringVar(&now, "now", "", "judge retryNotBefore as of this time")
	cmd.Flags().StringVar(&version, "protocol-version", "", "MCP protocol version the results were sent under (from 2026-07-28 on, resultType is required)")
	return cmd
}
