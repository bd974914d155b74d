package store

import (
	"encoding/json"
	"testing"

	segjson "github.com/segmentio/encoding/json"
)

var validSeeds = []string{`{"a":"\xff"}`, `{"a":"\ud800"}`, "{\"a\":\"\x01\"}", `{"a":1e999}`, `{"a":[[[[[[[[[]]]]]]]]]}`,
	`{} `, ` {}`, `{}x`, `{"a":-0}`, `{"a":01}`, `{"a":1.}`, `{"a" : true }`, `{"\u0000":null}`, `[1,2,]`, `{"a":1,}`,
	`{"message":"upstream returned 503","httpStatus":503,"details":{"k":[true,false,null,"x\"y"]}}`}

// The store's JSON check accepts exactly what encoding/json accepts.
func FuzzValidAgrees(f *testing.F) {
	for _, s := range validSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if std, seg := json.Valid(b), segjson.Valid(b); std != seg {
			t.Fatalf("%q: encoding/json says %v, segmentio %v", b, std, seg)
		}
	})
}

// BenchmarkValid prices the JSON check of every record with either library.
func BenchmarkValid(b *testing.B) {
	doc := []byte(`{"message":"Traceback (most recent call last):\n  File \"tool.py\", line 42, in resize\nValueError: width must be positive, got -3","type":"ValueError","httpStatus":503,"details":{"documentation_url":"https://docs.example.com/rest"}}`)
	b.Run("encoding-json", func(b *testing.B) {
		for b.Loop() {
			json.Valid(doc)
		}
	})
	b.Run("segmentio", func(b *testing.B) {
		for b.Loop() {
			segjson.Valid(doc)
		}
	})
}
