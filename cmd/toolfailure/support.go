package main

import (
	"net/url"
	"strconv"
	"strings"

	v1 "github.com/omcp/toolfailure/gen/toolfailure/v1"
)

// supportRows are the rows of the lookup summary that lead on from the
// record: the trace in the operator's trace viewer, the same failure in the
// web UI (where the nearby failures and the rule are one click away), and
// the tool's annotations, which decide whether a client may retry. Each is
// a (label, value) pair; empty values are left out by the caller's row().
func supportRows(f *v1.Failure, serverURL string) [][2]string {
	rows := [][2]string{{"Trace link", f.GetTraceUrl()}}
	if base := strings.TrimRight(serverURL, "/"); base != "" && f.GetCorrelationId() != "" {
		rows = append(rows, [2]string{"Web page", base + "/ui/failures/" + url.PathEscape(f.GetCorrelationId())})
	}
	rows = append(rows, [2]string{"Annotations", annotationsText(f.GetToolAnnotations())})
	return rows
}

// annotationsText renders the hints that were sent, in the MCP
// specification's order; unset hints are omitted rather than shown with
// their defaults, so the reader sees what the server declared.
func annotationsText(a *v1.ToolAnnotations) string {
	if a == nil {
		return ""
	}
	var parts []string
	add := func(name string, v *bool) {
		if v != nil {
			parts = append(parts, name+"="+strconv.FormatBool(*v))
		}
	}
	add("readOnlyHint", a.ReadOnlyHint)
	add("destructiveHint", a.DestructiveHint)
	add("idempotentHint", a.IdempotentHint)
	add("openWorldHint", a.OpenWorldHint)
	return strings.Join(parts, " ")
}
