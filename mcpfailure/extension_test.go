package mcpfailure_test

import (
	"log/slog"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/omcp/toolfailure/mcpfailure"
)

// The middleware advertises the extension in the server's capabilities
// (SEP-2133), over each transport, and keeps what the server advertised
// itself.
func TestMiddlewareAdvertisesTheExtension(t *testing.T) {
	t.Parallel()
	a, err := mcpfailure.NewAnnotator(mcpfailure.AnnotatorConfig{Classifier: refusing{}, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	for _, transport := range []string{"memory", "http"} {
		caps := &mcp.ServerCapabilities{}
		caps.AddExtension("io.example/other", map[string]any{"on": true})
		s := mcp.NewServer(&mcp.Implementation{Name: "ext", Version: "1"}, &mcp.ServerOptions{Capabilities: caps})
		s.AddReceivingMiddleware(a.Middleware)
		cs := connect(t, s, transport)
		got := cs.InitializeResult().Capabilities.Extensions
		ext, ok := got[mcpfailure.MetaKey].(map[string]any)
		if !ok || ext["version"] != mcpfailure.ExtensionVersion {
			t.Errorf("%s: capabilities.extensions = %v, want %s with version %s", transport, got, mcpfailure.MetaKey, mcpfailure.ExtensionVersion)
		}
		if _, ok := got["io.example/other"]; !ok {
			t.Errorf("%s: the server's own extension is gone: %v", transport, got)
		}
		if _, ok := caps.Extensions[mcpfailure.MetaKey]; ok {
			t.Errorf("%s: the server's own capabilities were modified", transport)
		}
	}
}
