package journal

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/omcp/toolfailure/store"
)

// The file format. A journal is a directory of segment files named seg-<16 hex digits>.tfj, in
// the order of their numbers. A segment starts with an 8-byte magic and holds records, each
//
//	length uint32 (big endian) | crc uint32 (CRC-32C of the payload) | payload (length bytes, JSON)
//
// Appends are the only writes. A crash can leave at most the last record of the last segment half
// written (the process died before its fsync, so that record was never acknowledged); reading stops
// there and the tail is cut off. The checksum tells a torn tail from a record, whatever bytes the
// file system left behind.
const (
	segmentMagic  = "TFJRNL01"
	segmentPrefix = "seg-"
	segmentSuffix = ".tfj"
	headerLen     = 8 // length and CRC of a record
	// maxRecordLen refuses a length that no record can have, which a torn header may show.
	maxRecordLen = 64 << 20
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// record is a failure as the journal keeps it: every field of store.Failure, with stable names, so
// that a journal written by one version of the service can be drained by the next.
type record struct {
	TenantID        int64           `json:"tenantId"`
	ID              string          `json:"id"` // 32 hex digits
	Tool            string          `json:"tool"`
	Server          string          `json:"server,omitempty"`
	Class           string          `json:"class"`
	Code            string          `json:"code"`
	Retryable       bool            `json:"retryable,omitempty"`
	RetryNotBefore  *time.Time      `json:"retryNotBefore,omitempty"`
	AgentGuidance   string          `json:"agentGuidance,omitempty"`
	RuleID          string          `json:"ruleId,omitempty"`
	RuleVersion     int64           `json:"ruleVersion,omitempty"`
	Shadow          json.RawMessage `json:"shadow,omitempty"`
	Error           json.RawMessage `json:"error"`
	ToolAnnotations json.RawMessage `json:"toolAnnotations,omitempty"`
	TraceID         string          `json:"traceId,omitempty"`
	SpanID          string          `json:"spanId,omitempty"`
	IdempotencyKey  string          `json:"idempotencyKey,omitempty"`
	SameCallAs      string          `json:"sameCallAs,omitempty"` // 32 hex digits; absent = no link
	CreatedAt       time.Time       `json:"createdAt"`
	OccurredAt      time.Time       `json:"occurredAt"`
}

func encodeRecord(f store.Failure) ([]byte, error) {
	r := record{
		TenantID: f.TenantID, ID: hex.EncodeToString(f.ID[:]), Tool: f.Tool, Server: f.Server,
		Class: f.Class, Code: f.Code, Retryable: f.Retryable, AgentGuidance: f.AgentGuidance,
		RuleID: f.RuleID, RuleVersion: f.RuleVersion, Shadow: f.Shadow, Error: f.Error,
		ToolAnnotations: f.ToolAnnotations, TraceID: f.TraceID, SpanID: f.SpanID,
		IdempotencyKey: f.IdempotencyKey, CreatedAt: f.CreatedAt, OccurredAt: f.OccurredAt,
	}
	if !f.RetryNotBefore.IsZero() {
		t := f.RetryNotBefore
		r.RetryNotBefore = &t
	}
	if f.SameCallAs != ([16]byte{}) {
		r.SameCallAs = hex.EncodeToString(f.SameCallAs[:])
	}
	payload, err := json.Marshal(r)
	if err != nil {
		return nil, fmt.Errorf("encode journal record: %w", err)
	}
	buf := make([]byte, headerLen+len(payload))
	binary.BigEndian.PutUint32(buf[0:4], uint32(len(payload)))
	binary.BigEndian.PutUint32(buf[4:8], crc32.Checksum(payload, castagnoli))
	copy(buf[headerLen:], payload)
	return buf, nil
}

func decodeRecord(payload []byte) (store.Failure, error) {
	var r record
	if err := json.Unmarshal(payload, &r); err != nil {
		return store.Failure{}, fmt.Errorf("decode journal record: %w", err)
	}
	var f store.Failure
	id, err := hex.DecodeString(r.ID)
	if err != nil || len(id) != 16 {
		return store.Failure{}, fmt.Errorf("decode journal record: bad ID %q", r.ID)
	}
	copy(f.ID[:], id)
	f.TenantID, f.Tool, f.Server, f.Class, f.Code = r.TenantID, r.Tool, r.Server, r.Class, r.Code
	f.Retryable, f.AgentGuidance, f.RuleID, f.RuleVersion = r.Retryable, r.AgentGuidance, r.RuleID, r.RuleVersion
	f.Shadow, f.Error, f.ToolAnnotations = r.Shadow, r.Error, r.ToolAnnotations
	f.TraceID, f.SpanID, f.IdempotencyKey = r.TraceID, r.SpanID, r.IdempotencyKey
	f.CreatedAt, f.OccurredAt = r.CreatedAt.UTC(), r.OccurredAt.UTC()
	if r.RetryNotBefore != nil {
		f.RetryNotBefore = r.RetryNotBefore.UTC()
	}
	if r.SameCallAs != "" {
		same, err := hex.DecodeString(r.SameCallAs)
		if err != nil || len(same) != 16 {
			return store.Failure{}, fmt.Errorf("decode journal record: bad sameCallAs %q", r.SameCallAs)
		}
		f.SameCallAs = [16]byte(same)
	}
	return f, nil
}

func segmentName(seq uint64) string {
	return fmt.Sprintf("%s%016x%s", segmentPrefix, seq, segmentSuffix)
}

// listSegments returns the sequence numbers of the directory's segments, in order.
func listSegments(dir string) ([]uint64, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("list journal segments: %w", err)
	}
	var seqs []uint64
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, segmentPrefix) || !strings.HasSuffix(name, segmentSuffix) {
			continue
		}
		seq, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimPrefix(name, segmentPrefix), segmentSuffix), 16, 64)
		if err != nil {
			continue
		}
		seqs = append(seqs, seq)
	}
	slices.Sort(seqs)
	return seqs, nil
}

// errTorn marks the end of the readable part of a segment.
var errTorn = errors.New("torn or corrupt record")

// readSegment reads every whole record of a segment. good is the offset after the last whole
// record; when it is less than the file's size, the rest is a torn tail (or damage) and err
// wraps errTorn.
func readSegment(path string, fn func(f store.Failure, size int64)) (good int64, err error) {
	file, err := os.Open(path)
	if err != nil {
		return 0, fmt.Errorf("open journal segment: %w", err)
	}
	defer file.Close()
	r := bufio.NewReaderSize(file, 1<<16)
	magic := make([]byte, len(segmentMagic))
	if _, err := io.ReadFull(r, magic); err != nil {
		return 0, fmt.Errorf("%w: segment header: %v", errTorn, err)
	}
	if string(magic) != segmentMagic {
		return 0, fmt.Errorf("%w: not a journal segment", errTorn)
	}
	good = int64(len(segmentMagic))
	header := make([]byte, headerLen)
	for {
		if _, err := io.ReadFull(r, header); err != nil {
			if errors.Is(err, io.EOF) {
				return good, nil
			}
			return good, fmt.Errorf("%w at offset %d: %v", errTorn, good, err)
		}
		n := binary.BigEndian.Uint32(header[0:4])
		if n == 0 || n > maxRecordLen {
			return good, fmt.Errorf("%w at offset %d: length %d", errTorn, good, n)
		}
		payload := make([]byte, n)
		if _, err := io.ReadFull(r, payload); err != nil {
			return good, fmt.Errorf("%w at offset %d: %v", errTorn, good, err)
		}
		if crc32.Checksum(payload, castagnoli) != binary.BigEndian.Uint32(header[4:8]) {
			return good, fmt.Errorf("%w at offset %d: checksum mismatch", errTorn, good)
		}
		f, err := decodeRecord(payload)
		if err != nil {
			return good, fmt.Errorf("%w at offset %d: %v", errTorn, good, err)
		}
		size := int64(headerLen) + int64(n)
		fn(f, size)
		good += size
	}
}

// createSegment creates a new, empty segment, durably: the file with its magic is synced, and so
// is the directory that names it.
func createSegment(dir string, seq uint64) (*os.File, error) {
	path := filepath.Join(dir, segmentName(seq))
	file, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, fmt.Errorf("create journal segment: %w", err)
	}
	if _, err := file.Write([]byte(segmentMagic)); err != nil {
		_ = file.Close()
		return nil, fmt.Errorf("create journal segment: %w", err)
	}
	if err := file.Sync(); err != nil {
		_ = file.Close()
		return nil, fmt.Errorf("create journal segment: %w", err)
	}
	if err := syncDir(dir); err != nil {
		_ = file.Close()
		return nil, err
	}
	return file, nil
}

// syncDir makes a change of the directory's entries (a created or removed file) durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync journal directory: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync journal directory: %w", err)
	}
	return nil
}
