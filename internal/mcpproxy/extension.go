package mcpproxy

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	segjson "github.com/segmentio/encoding/json"

	"github.com/omcp/toolfailure/mcpfailure"
)

// advertise adds the toolFailure extension to the capabilities of an
// initialize result (before 2026-07-28) or a server/discover result (from
// it on): capabilities.extensions[key] = {"version": …}, as SEP-2133 has
// an extension advertised, so that a client can tell a proxied server whose
// failures carry the key on purpose from one whose _meta happens to hold
// it. The upstream's own capabilities and extensions keep their bytes; an
// upstream that advertises the key itself (a server with the middleware)
// is left as it is. A result the proxy cannot read goes out unchanged.
func (s *session) advertise(c *call, resp *jsonrpc.Response) *jsonrpc.Response {
	out, err := withExtension(resp.Result, s.p.cfg.MetaKey, c.method, c.version)
	if err != nil {
		s.log.Warn("toolfailure proxy: cannot advertise the extension; result passed on unchanged",
			slog.String("method", c.method), slog.Any("error", err))
		return resp
	}
	return &jsonrpc.Response{ID: resp.ID, Result: out, Extra: resp.Extra}
}

// withExtension returns result with the extension added; see advertise.
// version is the protocol version the request named (server/discover):
// from 2026-07-28 on the result the proxy writes carries resultType.
func withExtension(result json.RawMessage, key, method, version string) (json.RawMessage, error) {
	members, err := objectMembers(result)
	if err != nil {
		return nil, err
	}
	if method == "initialize" {
		if raw, ok := lookup(members, "protocolVersion"); ok {
			_ = json.Unmarshal(raw, &version)
		}
	}
	caps, err := membersOf(members, "capabilities")
	if err != nil {
		return nil, fmt.Errorf("capabilities: %w", err)
	}
	exts, err := membersOf(caps, "extensions")
	if err != nil {
		return nil, fmt.Errorf("capabilities.extensions: %w", err)
	}
	if _, ok := lookup(exts, key); ok {
		return result, nil
	}
	settings, err := marshalJSON(map[string]string{"version": mcpfailure.ExtensionVersion})
	if err != nil {
		return nil, err
	}
	if exts, err = setMember(exts, key, settings); err != nil {
		return nil, err
	}
	if caps, err = setMember(caps, "extensions", mustEncode(exts)); err != nil {
		return nil, err
	}
	if members, err = setMember(members, "capabilities", mustEncode(caps)); err != nil {
		return nil, err
	}
	if mcpfailure.NeedsResultType(version) {
		if _, ok := lookup(members, "resultType"); !ok {
			members = append(members, member{"resultType", json.RawMessage(`"complete"`)})
		}
	}
	return encodeObject(members)
}

// membersOf returns the members of the object under name; none when it is
// absent or null.
func membersOf(members []member, name string) ([]member, error) {
	raw, ok := lookup(members, name)
	if !ok || isNull(raw) {
		return nil, nil
	}
	return objectMembers(raw)
}

// setMember sets name to value: in place, keeping the order, when the
// object has it, else at the end.
func setMember(members []member, name string, value json.RawMessage) ([]member, error) {
	if value == nil {
		return nil, fmt.Errorf("no value for %s", name)
	}
	out := append([]member(nil), members...)
	for i := range out {
		if out[i].name == name {
			out[i].value = value
			return out, nil
		}
	}
	return append(out, member{name, value}), nil
}

// mustEncode encodes members as an object; nil on error, which setMember
// refuses.
func mustEncode(members []member) json.RawMessage {
	b, err := encodeObject(members)
	if err != nil {
		return nil
	}
	return b
}

// requestHeaders are the standard headers of a streamable HTTP request
// that the relay reads (Mcp-Name, Mcp-Protocol-Version), carried on the
// request as jsonrpc.Request.Extra, which never goes on the wire.
type requestHeaders struct {
	name            string
	protocolVersion string
}

// headersOf reads the standard headers of a POST that carried one call.
// Mcp-Name names the tool of a tools/call (MCP 2026-07-28), so the relay
// need not decode the body for it; a value the client had to encode (not
// plain ASCII) comes as =?base64?…?=.
func headersOf(h http.Header, method string) *requestHeaders {
	rh := &requestHeaders{protocolVersion: h.Get(headerProtocolVersion)}
	if m := h.Get(headerMethod); m == "" || m == method {
		rh.name = decodeHeaderValue(h.Get(headerName))
	}
	if rh.name == "" && rh.protocolVersion == "" {
		return nil
	}
	return rh
}

func decodeHeaderValue(v string) string {
	inner, ok := strings.CutPrefix(v, "=?base64?")
	if !ok {
		return v
	}
	inner, ok = strings.CutSuffix(inner, "?=")
	if !ok {
		return ""
	}
	b, err := base64.StdEncoding.DecodeString(inner)
	if err != nil {
		return ""
	}
	return string(b)
}

// toolCallMeta reads params._meta of a tools/call whose name is known from
// its Mcp-Name header: only that member is decoded.
func toolCallMeta(params json.RawMessage) (meta map[string]any) {
	i := skipSpace(params, 0)
	if i == len(params) || params[i] != '{' || !segjson.Valid(params) {
		return nil
	}
	_ = eachMember(params[i:], func(k, v []byte) {
		if string(k) == "_meta" {
			meta = nil
			_ = json.Unmarshal(v, &meta)
		}
	})
	return meta
}
