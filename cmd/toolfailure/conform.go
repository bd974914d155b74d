package main

import (
	"context"
	"io"

	"github.com/omcp/toolfailure/conformance"
)

func runConform(_ context.Context, args []string, stdout, stderr io.Writer) int {
	return conformance.Main(args, stdout, stderr)
}
