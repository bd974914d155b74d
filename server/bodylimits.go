package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"buf.build/gen/go/bufbuild/protovalidate/protocolbuffers/go/buf/validate"

	"connectrpc.com/connect/v2/connectproto"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/structpb"

	v1 "github.com/omcp/toolfailure/gen/toolfailure/v1"
)

// Limits enforced while a Classify or Explain request is read, before it is decoded.
//
// error.details is free-form JSON, and decoding it builds a google.protobuf.Value per JSON value:
// a 1 MiB body of [{},{},…] is 350,000 of them, 100 MB and a second of CPU with protojson, all to
// be refused by checkDetails afterwards for exceeding 256 KiB. error.attributes is a map whose
// 64-pair limit protovalidate checks after decoding as many pairs as the body holds. So the codecs
// look at the body first, without decoding it (no allocation), and refuse what is certainly over
// a limit, for a small fraction of what decoding it costs:
//
//   - JSON: one pass over the bytes measures error.details: its nesting depth, and a lower bound
//     of its size once re-encoded compactly (what checkDetails measures: structural characters
//     and literals exactly, a string or a number at least as long as it decodes to). Details that
//     are certainly too deep or too large are not decoded: the body is decoded with null in their
//     place, and the request then refused by checkDetails with the error it gives decoded details
//     (detailsTooDeep, detailsTooLarge); attributes beyond the first 65 pairs are cut off, and
//     protovalidate refuses the 65 as it would all of them. A body that the pass cannot follow is
//     decoded as it is (protojson reports what is wrong with it), except that details already over
//     a limit before the point where it went wrong are refused straight away.
//   - Binary: one walk over the wire format counts the google.protobuf.Value messages of
//     error.details and their nesting, and the entries of error.attributes, as encoded; over
//     MaxDetailsBytes/2 values (JSON needs at least two bytes a value: "0,"), deeper than
//     MaxDetailsDepth or over 64 entries, the request is refused before it is decoded.
//
// Nothing accepted before is refused by the JSON pass: it refuses only what checkDetails or
// protovalidate would refuse once decoded, or a body protojson cannot decode. A binary encoding
// that repeats a field (protobuf merges the copies) is counted as encoded.

// detailsTooDeep and detailsTooLarge stand, in a decoded request, for error.details that the codec
// refused to decode; checkDetails answers them as it answers decoded details over the limits.
var (
	detailsTooDeep  = structpb.NewNullValue()
	detailsTooLarge = structpb.NewNullValue()
)

// bodyLimits are the limits the codecs enforce while reading.
type bodyLimits struct {
	detailsBytes, detailsDepth, attrPairs int
}

func newBodyLimits(l Limits) bodyLimits {
	return bodyLimits{detailsBytes: l.MaxDetailsBytes, detailsDepth: l.MaxDetailsDepth, attrPairs: attributePairs}
}

// attributePairs is the most entries error.attributes may have, read from the .proto's own
// buf.validate rule rather than written twice; a rule that is not there panics at start.
var attributePairs = func() int {
	f := (&v1.RawError{}).ProtoReflect().Descriptor().Fields().ByName("attributes")
	r, _ := proto.GetExtension(f.Options(), validate.E_Field).(*validate.FieldRules)
	if r.GetMap() == nil || r.GetMap().GetMaxPairs() == 0 {
		panic("bodylimits: RawError.attributes has no buf.validate map.max_pairs rule")
	}
	return int(r.GetMap().GetMaxPairs())
}()

func (l bodyLimits) tooDeep() string {
	return fmt.Sprintf("invalid request: error.details: nesting deeper than %d levels", l.detailsDepth)
}

func (l bodyLimits) tooLarge() string {
	return fmt.Sprintf("invalid request: error.details: larger than %d bytes", l.detailsBytes)
}

func (l bodyLimits) tooManyAttributes() string {
	return fmt.Sprintf("invalid request: error.attributes: more than %d entries", l.attrPairs)
}

// classifyMessage is a ClassifyRequest or an ExplainRequest: the messages whose bodies are
// scanned.
type classifyMessage interface {
	proto.Message
	GetError() *v1.RawError
}

func scanned(msg any) (classifyMessage, bool) {
	switch m := msg.(type) {
	case *v1.ClassifyRequest:
		return m, true
	case *v1.ExplainRequest:
		return m, true
	}
	return nil, false
}

// The field numbers the binary walk follows, read from the descriptors: ClassifyRequest and
// ExplainRequest share them (TestBodyLimitsFieldNumbers).
var (
	errorField      = fieldNumber((&v1.ClassifyRequest{}).ProtoReflect().Descriptor(), "error")
	detailsField    = fieldNumber((&v1.RawError{}).ProtoReflect().Descriptor(), "details")
	attributesField = fieldNumber((&v1.RawError{}).ProtoReflect().Descriptor(), "attributes")
	structField     = fieldNumber((&structpb.Value{}).ProtoReflect().Descriptor(), "struct_value")
	listField       = fieldNumber((&structpb.Value{}).ProtoReflect().Descriptor(), "list_value")
	structFields    = fieldNumber((&structpb.Struct{}).ProtoReflect().Descriptor(), "fields")
	listValues      = fieldNumber((&structpb.ListValue{}).ProtoReflect().Descriptor(), "values")
)

// mapValueField is the value's field number in a map entry.
const mapValueField protowire.Number = 2

func fieldNumber(d protoreflect.MessageDescriptor, name string) protowire.Number {
	f := d.Fields().ByName(protoreflect.Name(name))
	if f == nil {
		panic("bodylimits: no field " + name + " in " + string(d.FullName()))
	}
	return f.Number()
}

// limitedJSONCodec is the service's JSON codec with the read-time limits.
type limitedJSONCodec struct {
	*connectproto.JSONCodec
	lim bodyLimits
}

func (c limitedJSONCodec) UnmarshalRead(ctx context.Context, src io.Reader, msg any) error {
	m, ok := scanned(msg)
	if !ok {
		return c.JSONCodec.UnmarshalRead(ctx, src, msg)
	}
	data, done, err := readBody(src)
	if err != nil {
		return err
	}
	defer done()
	if len(data) == 0 {
		return errors.New("zero-length payload is not a valid JSON object")
	}
	data, refused, err := limitJSON(data, c.lim)
	if err != nil {
		return err
	}
	if err := c.UnmarshalOptions.Unmarshal(data, m); err != nil {
		return err
	}
	if refused != nil {
		if e := m.GetError(); e != nil {
			e.Details = refused
		}
	}
	return nil
}

// limitedBinaryCodec is the binary protobuf codec with the read-time limits.
type limitedBinaryCodec struct {
	*connectproto.BinaryCodec
	lim bodyLimits
}

func (c limitedBinaryCodec) UnmarshalRead(ctx context.Context, src io.Reader, msg any) error {
	m, ok := scanned(msg)
	if !ok {
		return c.BinaryCodec.UnmarshalRead(ctx, src, msg)
	}
	data, done, err := readBody(src)
	if err != nil {
		return err
	}
	defer done()
	if err := limitBinary(data, c.lim); err != nil {
		return err
	}
	return c.UnmarshalOptions.Unmarshal(data, m)
}

var bodyPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// readBody returns the whole payload: the transport's own buffer when it hands one over (the
// connect transports do), else a pooled copy. done releases it.
func readBody(src io.Reader) (data []byte, done func(), err error) {
	if b, ok := src.(*bytes.Buffer); ok {
		data = b.Bytes()
		return data, func() { b.Next(len(data)) }, nil
	}
	buf := bodyPool.Get().(*bytes.Buffer)
	buf.Reset()
	if _, err := buf.ReadFrom(src); err != nil {
		bodyPool.Put(buf)
		return nil, nil, err
	}
	return buf.Bytes(), func() {
		if buf.Cap() <= 8<<20 {
			bodyPool.Put(buf)
		}
	}, nil
}

// limitJSON applies the limits to a Classify or Explain request's JSON body. It returns the body
// to decode (body itself when nothing is refused) and, when error.details were refused, what
// stands for them; or an error when details or attributes already over a limit are followed by
// something the pass cannot follow.
func limitJSON(body []byte, lim bodyLimits) (out []byte, refused *structpb.Value, err error) {
	s := jsonScan{b: body}
	var (
		dStart, dEnd = -1, -1 // the refused details' value
		aCut, aEnd   = -1, -1 // the attributes' pairs after the first attrPairs+1
		fail         error
	)
	s.ws()
	if s.peek() != '{' {
		return body, nil, nil
	}
	s.object(func(key []byte) {
		if !keyIs(key, "error") || s.peek() != '{' {
			s.value()
			return
		}
		s.object(func(key []byte) {
			switch {
			case keyIs(key, "details"):
				start := s.i
				least, depth := s.value()
				switch {
				case depth > lim.detailsDepth:
					refused, fail = detailsTooDeep, errors.New(lim.tooDeep())
				case least > lim.detailsBytes:
					refused, fail = detailsTooLarge, errors.New(lim.tooLarge())
				default:
					return
				}
				if s.bad {
					s.fatal = fail
					return
				}
				dStart, dEnd = start, s.i
			case keyIs(key, "attributes") && s.peek() == '{':
				n := 0
				s.object(func([]byte) {
					s.value()
					if n++; n == lim.attrPairs+1 {
						aCut = s.i
					}
				})
				if n > lim.attrPairs {
					if s.bad {
						s.fatal = errors.New(lim.tooManyAttributes())
						return
					}
					aEnd = s.i - 1 // the closing brace stays
				}
			default:
				s.value()
			}
		})
	})
	switch {
	case s.fatal != nil:
		return nil, nil, s.fatal
	case s.bad && dStart >= 0:
		// The body is not JSON that protojson takes (the pass follows all of that), so it is
		// refused whatever happens; decoding the details first would cost what this spares.
		return nil, nil, fail
	case s.bad && aEnd >= 0:
		return nil, nil, errors.New(lim.tooManyAttributes())
	case s.bad || dStart < 0 && aEnd < 0:
		return body, nil, nil
	}
	type edit struct {
		from, to int
		with     string
	}
	var edits []edit
	size := len(body)
	if dStart >= 0 {
		edits = append(edits, edit{dStart, dEnd, "null"})
		size += 4 - (dEnd - dStart)
	}
	if aEnd >= 0 {
		edits = append(edits, edit{aCut, aEnd, ""})
		size -= aEnd - aCut
	}
	if len(edits) == 2 && edits[1].from < edits[0].from {
		edits[0], edits[1] = edits[1], edits[0]
	}
	out = make([]byte, 0, size)
	at := 0
	for _, e := range edits {
		out = append(out, body[at:e.from]...)
		out = append(out, e.with...)
		at = e.to
	}
	out = append(out, body[at:]...)
	if dStart < 0 {
		refused = nil
	}
	return out, refused, nil
}

// jsonScan follows JSON text without decoding it. bad records that it met something it cannot
// follow (which protojson refuses too); fatal, that it had found a limit crossed before that.
type jsonScan struct {
	b     []byte
	i     int
	bad   bool
	fatal error
}

func (s *jsonScan) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *jsonScan) peek() byte {
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

// object follows the object at s.i, calling each with every key, positioned at its value, which
// each must consume.
func (s *jsonScan) object(each func(key []byte)) {
	s.i++ // {
	s.ws()
	if s.peek() == '}' {
		s.i++
		return
	}
	for !s.bad && s.fatal == nil {
		s.ws()
		if s.peek() != '"' {
			s.bad = true
			return
		}
		key, _ := s.str()
		s.ws()
		if s.bad || s.peek() != ':' {
			s.bad = true
			return
		}
		s.i++
		s.ws()
		each(key)
		if s.bad || s.fatal != nil {
			return
		}
		s.ws()
		switch s.peek() {
		case ',':
			s.i++
		case '}':
			s.i++
			return
		default:
			s.bad = true
			return
		}
	}
}

// str follows the string at s.i and returns its raw content and the least number of bytes it
// re-encodes to: its quotes, and a byte for each byte or escape sequence.
func (s *jsonScan) str() (raw []byte, least int) {
	start := s.i + 1
	least = 2
	for j := start; j < len(s.b); {
		switch c := s.b[j]; {
		case c == '"':
			s.i = j + 1
			return s.b[start:j], least
		case c == '\\':
			if j+1 < len(s.b) && s.b[j+1] == 'u' {
				j += 6
			} else {
				j += 2
			}
		case c < 0x20:
			s.bad = true
			return nil, 0
		default:
			j++
		}
		least++
	}
	s.bad = true
	return nil, 0
}

// value follows one JSON value at s.i and returns the least number of bytes of its compact
// re-encoding and its nesting depth, counted as checkDetails counts it (a value inside n
// containers is at depth n), both of what it followed when it stops early, with s.bad set,
// where it cannot follow. It keeps no stack: 20,000 levels cost it nothing more than 20.
func (s *jsonScan) value() (least, depth int) {
	b, i, level := s.b, s.i, 0
	for i < len(b) {
		c := b[i]
		switch c {
		case ' ', '\t', '\n', '\r':
			i++
			continue
		case '{', '[':
			depth = max(depth, level)
			level++
			least++
			i++
			continue
		case '}', ']':
			level--
			least++
			i++
			if level < 0 {
				s.i, s.bad = i, true
				return least, depth
			}
		case ',', ':':
			if level == 0 {
				s.i, s.bad = i, true
				return least, depth
			}
			least++
			i++
			continue
		case '"':
			depth = max(depth, level)
			s.i = i
			_, n := s.str()
			if i = s.i; s.bad {
				return least, depth
			}
			least += n
		case 't', 'f', 'n':
			depth = max(depth, level)
			lit := "null"
			switch c {
			case 't':
				lit = "true"
			case 'f':
				lit = "false"
			}
			if !bytes.HasPrefix(b[i:], []byte(lit)) {
				s.i, s.bad = i, true
				return least, depth
			}
			i += len(lit)
			least += len(lit)
		default:
			if c != '-' && (c < '0' || c > '9') {
				s.i, s.bad = i, true
				return least, depth
			}
			depth = max(depth, level)
			i++
			for i < len(b) && isNumberByte(b[i]) {
				i++
			}
			least++ // a number re-encodes to one byte at least
		}
		if level == 0 {
			s.i = i
			return least, depth
		}
	}
	s.i, s.bad = i, true
	return least, depth
}

func isNumberByte(c byte) bool {
	return '0' <= c && c <= '9' || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-'
}

// keyIs reports whether a raw JSON key (between its quotes) is name, escapes decoded.
func keyIs(raw []byte, name string) bool {
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw) == name
	}
	var k string
	q := make([]byte, 0, len(raw)+2)
	q = append(append(append(q, '"'), raw...), '"')
	return json.Unmarshal(q, &k) == nil && k == name
}

// limitBinary applies the limits to a Classify or Explain request in the binary encoding,
// counting as encoded. Wire data it cannot follow is left to proto.Unmarshal, unless a limit was
// crossed before it.
func limitBinary(body []byte, lim bodyLimits) error {
	w := wireWalk{lim: lim, maxValues: lim.detailsBytes / 2}
	w.fields(body, func(num protowire.Number, typ protowire.Type, v []byte) {
		if num != errorField || typ != protowire.BytesType {
			return
		}
		w.fields(v, func(num protowire.Number, typ protowire.Type, v []byte) {
			switch {
			case typ != protowire.BytesType:
			case num == detailsField:
				w.value(v, 0)
			case num == attributesField:
				w.attributes++
			}
		})
	})
	switch {
	case w.deepest > lim.detailsDepth:
		return errors.New(lim.tooDeep())
	case w.values > w.maxValues:
		return errors.New(lim.tooLarge() + fmt.Sprintf(" (more than %d values)", w.maxValues))
	case w.attributes > lim.attrPairs:
		return errors.New(lim.tooManyAttributes())
	}
	return nil
}

// wireWalk counts the values of error.details and the entries of error.attributes in wire data.
type wireWalk struct {
	lim        bodyLimits
	maxValues  int
	values     int
	deepest    int
	attributes int
	bad        bool
}

// over reports whether a limit is already crossed, after which nothing more need be read.
func (w *wireWalk) over() bool {
	return w.deepest > w.lim.detailsDepth || w.values > w.maxValues || w.attributes > w.lim.attrPairs
}

// fields calls each with every field of the message in b, until the data ends, cannot be
// followed, or a limit is crossed.
func (w *wireWalk) fields(b []byte, each func(protowire.Number, protowire.Type, []byte)) {
	for len(b) > 0 && !w.bad && !w.over() {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			w.bad = true
			return
		}
		b = b[n:]
		var v []byte
		if typ == protowire.BytesType {
			v, n = protowire.ConsumeBytes(b)
		} else {
			n = protowire.ConsumeFieldValue(num, typ, b)
		}
		if n < 0 {
			w.bad = true
			return
		}
		b = b[n:]
		each(num, typ, v)
	}
}

// value counts the google.protobuf.Value in b, at depth d, and those inside it; it goes no
// deeper than one level past the depth limit.
func (w *wireWalk) value(b []byte, d int) {
	w.values++
	w.deepest = max(w.deepest, d)
	if d > w.lim.detailsDepth {
		return
	}
	w.fields(b, func(num protowire.Number, typ protowire.Type, v []byte) {
		if typ != protowire.BytesType {
			return
		}
		switch num {
		case structField:
			w.fields(v, func(num protowire.Number, typ protowire.Type, entry []byte) {
				if num != structFields || typ != protowire.BytesType {
					return
				}
				w.fields(entry, func(num protowire.Number, typ protowire.Type, v []byte) {
					if num == mapValueField && typ == protowire.BytesType {
						w.value(v, d+1)
					}
				})
			})
		case listField:
			w.fields(v, func(num protowire.Number, typ protowire.Type, v []byte) {
				if num == listValues && typ == protowire.BytesType {
					w.value(v, d+1)
				}
			})
		}
	})
}
