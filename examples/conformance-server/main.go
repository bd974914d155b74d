// Command conformance-server is an MCP server on the official Go SDK, with
// the toolFailure middleware installed, that implements the server scenarios
// of the official MCP conformance suite (npm @modelcontextprotocol/conformance):
// the tools, resources, prompts, completion and logging that the suite calls,
// each answering exactly as the suite's scenario describes.
//
// It exists to show that the middleware, and the proxy in front of a server,
// are invisible to a client that does not know the proposal: the suite's
// verdicts are the same directly and through "toolfailure proxy". It also
// has the fixture tools of the proposal's own scenario (conformance/sep-3313),
// whose failed results the middleware classifies.
//
//	conformance-server                         # MCP over stdio
//	conformance-server --listen 127.0.0.1:0    # streamable HTTP at http://ADDR/mcp
//	conformance-server --plain                 # without the middleware
//
// With TOOLFAILURE_KEY set (and TOOLFAILURE_SERVER, default
// http://127.0.0.1:8080), the failing tool's result gains the toolFailure
// key from the service; without a key the server runs without the
// middleware and says so on stderr.
package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"regexp"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/omcp/toolfailure/mcpfailure"
)

func main() {
	listen := flag.String("listen", "", "serve streamable HTTP at http://ADDR/mcp instead of stdio")
	plain := flag.Bool("plain", false, "run without the toolFailure middleware, as a server that knows nothing of the proposal")
	budget := flag.Duration("budget", mcpfailure.DefaultBudget, "how long a failed result may wait for the service before it goes out without the toolFailure key")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, *listen, *plain, *budget); err != nil {
		fmt.Fprintln(os.Stderr, "conformance-server:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, listen string, plain bool, budget time.Duration) error {
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	server := newServer()
	if key := os.Getenv("TOOLFAILURE_KEY"); plain {
		// Nothing to install.
	} else if key != "" {
		url := os.Getenv("TOOLFAILURE_SERVER")
		if url == "" {
			url = "http://127.0.0.1:8080"
		}
		a, err := mcpfailure.NewAnnotator(mcpfailure.AnnotatorConfig{
			Classifier: mcpfailure.NewClassifierClient(nil, url, key),
			Server:     "conformance-server",
			Logger:     logger,
			Budget:     budget,
		})
		if err != nil {
			return err
		}
		server.AddReceivingMiddleware(a.Middleware)
	} else {
		logger.Warn("conformance-server: no TOOLFAILURE_KEY; failed tool results go out without the toolFailure key")
	}
	go updateWatched(ctx, server)

	if listen == "" {
		return server.Run(ctx, &mcp.StdioTransport{})
	}
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(os.Stderr, "conformance-server: serving MCP at http://%s/mcp\n", ln.Addr())
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

const watchedURI = "test://watched-resource"

// updateWatched reports a change of the watched resource every few seconds,
// for the subscription scenarios.
func updateWatched(ctx context.Context, server *mcp.Server) {
	tick := time.NewTicker(3 * time.Second)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			_ = server.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: watchedURI})
		}
	}
}

func newServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "toolfailure-conformance-server", Version: "1.0.0"}, &mcp.ServerOptions{
		CompletionHandler: func(context.Context, *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
			return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{}}}, nil
		},
		// The SDK keeps the subscriptions; accepting them is all there is to do.
		SubscribeHandler:   func(context.Context, *mcp.SubscribeRequest) error { return nil },
		UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error { return nil },
		Capabilities: &mcp.ServerCapabilities{
			Logging:   &mcp.LoggingCapabilities{},
			Tools:     &mcp.ToolCapabilities{ListChanged: true},
			Resources: &mcp.ResourceCapabilities{Subscribe: true, ListChanged: true},
			Prompts:   &mcp.PromptCapabilities{ListChanged: true},
		},
	})
	addTools(s)
	addResources(s)
	addPrompts(s)
	return s
}

func text(s string) []mcp.Content { return []mcp.Content{&mcp.TextContent{Text: s}} }

type none struct{}

func addTools(s *mcp.Server) {
	simple := func(name, desc string, content func() []mcp.Content) {
		mcp.AddTool(s, &mcp.Tool{Name: name, Description: desc}, func(context.Context, *mcp.CallToolRequest, none) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: content()}, nil, nil
		})
	}
	simple("test_simple_text", "Returns one text block", func() []mcp.Content {
		return text("This is a simple text response for testing.")
	})
	simple("test_image_content", "Returns one image block", func() []mcp.Content {
		return []mcp.Content{&mcp.ImageContent{Data: pngPixel, MIMEType: "image/png"}}
	})
	simple("test_audio_content", "Returns one audio block", func() []mcp.Content {
		return []mcp.Content{&mcp.AudioContent{Data: wavSilence, MIMEType: "audio/wav"}}
	})
	simple("test_embedded_resource", "Returns one embedded resource", func() []mcp.Content {
		return []mcp.Content{&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{
			URI: "test://embedded-resource", MIMEType: "text/plain", Text: "This is an embedded resource content.",
		}}}
	})
	simple("test_multiple_content_types", "Returns text, an image and a resource", func() []mcp.Content {
		return []mcp.Content{
			&mcp.TextContent{Text: "Multiple content types test:"},
			&mcp.ImageContent{Data: pngPixel, MIMEType: "image/png"},
			&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{
				URI: "test://mixed-content-resource", MIMEType: "application/json", Text: `{"test":"data","value":123}`,
			}},
		}
	})

	mcp.AddTool(s, &mcp.Tool{Name: "test_tool_with_logging", Description: "Sends three log messages while it runs"},
		func(ctx context.Context, req *mcp.CallToolRequest, _ none) (*mcp.CallToolResult, any, error) {
			for i, msg := range []string{"Tool execution started", "Tool processing data", "Tool execution completed"} {
				if i > 0 {
					pause(ctx, 50*time.Millisecond) // the scenario asks for spaced messages
				}
				if err := req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Data: msg}); err != nil {
					return nil, nil, err
				}
			}
			return &mcp.CallToolResult{Content: text("Tool with logging executed successfully")}, nil, nil
		})

	mcp.AddTool(s, &mcp.Tool{Name: "test_tool_with_progress", Description: "Reports progress 0, 50 and 100 of 100"},
		func(ctx context.Context, req *mcp.CallToolRequest, _ none) (*mcp.CallToolResult, any, error) {
			tok := req.Params.GetProgressToken()
			for i, p := range []float64{0, 50, 100} {
				if i > 0 {
					pause(ctx, 50*time.Millisecond)
				}
				if tok != nil {
					if err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: p, Total: 100}); err != nil {
						return nil, nil, err
					}
				}
			}
			return &mcp.CallToolResult{Content: text("Tool with progress executed successfully")}, nil, nil
		})

	// The failure the middleware classifies: the SDK turns the Go error of a
	// typed handler into an isError result with the error's text.
	mcp.AddTool(s, &mcp.Tool{Name: "test_error_handling", Description: "Always fails"},
		func(context.Context, *mcp.CallToolRequest, none) (*mcp.CallToolResult, any, error) {
			return nil, nil, errors.New("This tool intentionally returns an error for testing")
		})

	addToolFailureFixtures(s)

	type samplingArgs struct {
		Prompt string `json:"prompt" jsonschema:"the prompt to send to the LLM"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "test_sampling", Description: "Asks the client's LLM"},
		func(ctx context.Context, req *mcp.CallToolRequest, args samplingArgs) (*mcp.CallToolResult, any, error) {
			res, err := req.Session.CreateMessage(ctx, &mcp.CreateMessageParams{
				MaxTokens: 100,
				Messages:  []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: args.Prompt}}},
			})
			if err != nil {
				return nil, nil, fmt.Errorf("sampling: %w", err)
			}
			answer := ""
			if t, ok := res.Content.(*mcp.TextContent); ok {
				answer = t.Text
			}
			return &mcp.CallToolResult{Content: text("LLM response: " + answer)}, nil, nil
		})

	type elicitArgs struct {
		Message string `json:"message" jsonschema:"the message to show the user"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "test_elicitation", Description: "Asks the user"},
		func(ctx context.Context, req *mcp.CallToolRequest, args elicitArgs) (*mcp.CallToolResult, any, error) {
			return elicit(ctx, req, args.Message, json.RawMessage(`{"type":"object","properties":{
				"username":{"type":"string","description":"User's response"},
				"email":{"type":"string","description":"User's email address"}},
				"required":["username","email"]}`), "User response: ")
		})
	mcp.AddTool(s, &mcp.Tool{Name: "test_elicitation_sep1034_defaults", Description: "Asks the user, with defaults"},
		func(ctx context.Context, req *mcp.CallToolRequest, _ none) (*mcp.CallToolResult, any, error) {
			return elicit(ctx, req, "Please review and update the form fields with defaults", json.RawMessage(`{"type":"object","properties":{
				"name":{"type":"string","description":"User name","default":"John Doe"},
				"age":{"type":"integer","description":"User age","default":30},
				"score":{"type":"number","description":"User score","default":95.5},
				"status":{"type":"string","description":"User status","enum":["active","inactive","pending"],"default":"active"},
				"verified":{"type":"boolean","description":"Verification status","default":true}}}`), "Elicitation completed: ")
		})
	mcp.AddTool(s, &mcp.Tool{Name: "test_elicitation_sep1330_enums", Description: "Asks the user, with every kind of enum"},
		func(ctx context.Context, req *mcp.CallToolRequest, _ none) (*mcp.CallToolResult, any, error) {
			return elicit(ctx, req, "Please select options from the enum fields", json.RawMessage(`{"type":"object","properties":{
				"untitledSingle":{"type":"string","description":"Select one option","enum":["option1","option2","option3"]},
				"titledSingle":{"type":"string","description":"Select one option with titles","oneOf":[
					{"const":"value1","title":"First Option"},{"const":"value2","title":"Second Option"},{"const":"value3","title":"Third Option"}]},
				"legacyEnum":{"type":"string","description":"Select one option (legacy)","enum":["opt1","opt2","opt3"],"enumNames":["Option One","Option Two","Option Three"]},
				"untitledMulti":{"type":"array","description":"Select multiple options","items":{"type":"string","enum":["option1","option2","option3"]}},
				"titledMulti":{"type":"array","description":"Select multiple options with titles","items":{"anyOf":[
					{"const":"value1","title":"First Choice"},{"const":"value2","title":"Second Choice"},{"const":"value3","title":"Third Choice"}]}}}}`), "Elicitation completed: ")
		})

	s.AddTool(&mcp.Tool{
		Name:        "json_schema_2020_12_tool",
		Description: "Tool with JSON Schema 2020-12 features",
		InputSchema: json.RawMessage(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object",
			"$defs":{"address":{"type":"object","properties":{"street":{"type":"string"},"city":{"type":"string"}}}},
			"properties":{"name":{"type":"string"},"address":{"$ref":"#/$defs/address"}},
			"additionalProperties":false}`),
	}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: text("JSON Schema 2020-12 tool called with: " + string(req.Params.Arguments))}, nil
	})
}

// addToolFailureFixtures adds the fixture tools of the SEP-3313 scenario
// (conformance/sep-3313): failures the middleware classifies into each
// class, one whose result carries another _meta key, and one whose result
// already carries a toolFailure object, as a result from an upstream that
// classified its own failure would.
func addToolFailureFixtures(s *mcp.Server) {
	fail := func(name, desc string, annotations *mcp.ToolAnnotations, err *mcpfailure.ToolError) {
		mcp.AddTool(s, &mcp.Tool{Name: name, Description: desc, Annotations: annotations},
			func(context.Context, *mcp.CallToolRequest, none) (*mcp.CallToolResult, any, error) {
				return nil, nil, err
			})
	}
	fail("test_tool_failure_capability", "Fails: the invoice it names does not exist", nil,
		&mcpfailure.ToolError{Message: "Invoice INV-0 does not exist.", HTTPStatus: http.StatusNotFound})
	fail("test_tool_failure_reliability", "Fails: its backend is unavailable for 30 s",
		&mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true},
		&mcpfailure.ToolError{Message: "Backend unavailable (HTTP 503).", HTTPStatus: http.StatusServiceUnavailable, RetryAfter: "30"})
	fail("test_tool_failure_governance", "Fails: the caller lacks a permission", nil,
		&mcpfailure.ToolError{Message: "Permission denied: reports.read is required.", HTTPStatus: http.StatusForbidden})

	type otherMetaArgs struct {
		RequestID string `json:"requestId" jsonschema:"echoed in the result's _meta"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "test_tool_failure_other_meta", Description: "Fails, with another _meta key on its result"},
		func(_ context.Context, _ *mcp.CallToolRequest, args otherMetaArgs) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{
				IsError: true,
				Content: text("Invalid arguments: 'due' must be a date."),
				Meta:    mcp.Meta{"com.example.conformance/requestId": args.RequestID},
			}, nil, nil
		})

	type preclassifiedArgs struct {
		ToolFailure map[string]any `json:"toolFailure" jsonschema:"the toolFailure object to return as is"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "test_tool_failure_preclassified", Description: "Fails, with a toolFailure object already on its result"},
		func(_ context.Context, _ *mcp.CallToolRequest, args preclassifiedArgs) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{
				IsError: true,
				Content: text("Not sent: the production list needs explicit confirmation."),
				Meta:    mcp.Meta{mcpfailure.MetaKey: args.ToolFailure},
			}, nil, nil
		})
}

func elicit(ctx context.Context, req *mcp.CallToolRequest, message string, schema json.RawMessage, prefix string) (*mcp.CallToolResult, any, error) {
	var requested any
	if err := json.Unmarshal(schema, &requested); err != nil {
		return nil, nil, err
	}
	res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: message, RequestedSchema: requested})
	if err != nil {
		return nil, nil, fmt.Errorf("elicitation: %w", err)
	}
	content, _ := json.Marshal(res.Content)
	return &mcp.CallToolResult{Content: text(fmt.Sprintf("%saction=%s, content=%s", prefix, res.Action, content))}, nil, nil
}

// pause waits d, or less when the call is cancelled.
func pause(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

var templateURI = regexp.MustCompile(`^test://template/([^/]+)/data$`)

func addResources(s *mcp.Server) {
	s.AddResource(&mcp.Resource{URI: "test://static-text", Name: "static-text", Description: "A static text resource", MIMEType: "text/plain"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: "This is the content of the static text resource."}}}, nil
		})
	s.AddResource(&mcp.Resource{URI: "test://static-binary", Name: "static-binary", Description: "A static binary resource", MIMEType: "image/png"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			blob, _ := base64.StdEncoding.DecodeString(string(pngPixel))
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "image/png", Blob: blob}}}, nil
		})
	s.AddResource(&mcp.Resource{URI: watchedURI, Name: "watched-resource", Description: "A resource that changes every few seconds", MIMEType: "text/plain"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: "Watched resource content"}}}, nil
		})
	s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "test://template/{id}/data", Name: "template", Description: "A resource template with an id", MIMEType: "application/json"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			m := templateURI.FindStringSubmatch(req.Params.URI)
			if m == nil {
				return nil, mcp.ResourceNotFoundError(req.Params.URI)
			}
			body, _ := json.Marshal(map[string]any{"id": m[1], "templateTest": true, "data": "Data for ID: " + m[1]})
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "application/json", Text: string(body)}}}, nil
		})
}

func addPrompts(s *mcp.Server) {
	user := func(c mcp.Content) *mcp.PromptMessage { return &mcp.PromptMessage{Role: "user", Content: c} }
	s.AddPrompt(&mcp.Prompt{Name: "test_simple_prompt", Description: "A prompt without arguments"},
		func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{user(&mcp.TextContent{Text: "This is a simple prompt for testing."})}}, nil
		})
	s.AddPrompt(&mcp.Prompt{Name: "test_prompt_with_arguments", Description: "A prompt with two arguments", Arguments: []*mcp.PromptArgument{
		{Name: "arg1", Description: "First test argument", Required: true},
		{Name: "arg2", Description: "Second test argument", Required: true},
	}}, func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		a := req.Params.Arguments
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{user(&mcp.TextContent{
			Text: fmt.Sprintf("Prompt with arguments: arg1='%s', arg2='%s'", a["arg1"], a["arg2"]),
		})}}, nil
	})
	s.AddPrompt(&mcp.Prompt{Name: "test_prompt_with_embedded_resource", Description: "A prompt that embeds a resource", Arguments: []*mcp.PromptArgument{
		{Name: "resourceUri", Description: "URI of the resource to embed", Required: true},
	}}, func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{
			user(&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: req.Params.Arguments["resourceUri"], MIMEType: "text/plain", Text: "Embedded resource content for testing."}}),
			user(&mcp.TextContent{Text: "Please process the embedded resource above."}),
		}}, nil
	})
	s.AddPrompt(&mcp.Prompt{Name: "test_prompt_with_image", Description: "A prompt with an image"},
		func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{
				user(&mcp.ImageContent{Data: pngPixel, MIMEType: "image/png"}),
				user(&mcp.TextContent{Text: "Please analyze the image above."}),
			}}, nil
		})
}

// pngPixel and wavSilence are the smallest media the scenarios accept: a
// 1×1 red PNG and a short silent WAV, made here rather than pasted as
// opaque base64. The SDK's content types take the base64 text.
var (
	pngPixel   = []byte(base64.StdEncoding.EncodeToString(makePNG()))
	wavSilence = []byte(base64.StdEncoding.EncodeToString(makeWAV()))
)

func makePNG() []byte {
	img := image.NewRGBA(image.Rect(0, 0, 1, 1))
	img.Set(0, 0, color.RGBA{R: 255, A: 255})
	var b bytes.Buffer
	_ = png.Encode(&b, img)
	return b.Bytes()
}

// makeWAV returns a RIFF/WAVE file: 8 kHz, 8-bit mono, 80 samples of silence.
func makeWAV() []byte {
	const rate, samples = 8000, 80
	var b bytes.Buffer
	w := func(v any) { _ = binary.Write(&b, binary.LittleEndian, v) }
	b.WriteString("RIFF")
	w(uint32(36 + samples))
	b.WriteString("WAVEfmt ")
	w(uint32(16))   // fmt chunk size
	w(uint16(1))    // PCM
	w(uint16(1))    // mono
	w(uint32(rate)) // sample rate
	w(uint32(rate)) // byte rate
	w(uint16(1))    // block align
	w(uint16(8))    // bits per sample
	b.WriteString("data")
	w(uint32(samples))
	b.Write(bytes.Repeat([]byte{128}, samples)) // 8-bit PCM silence is 128
	return b.Bytes()
}
