// Package classwire converts a failure's class between its wire form, the
// enum v1.Class of the API (CLASS_GOVERNANCE), and the proposal's word
// that classify, the stores and the toolFailure object use (governance, package class):
// the one place where the two meet, so that no caller trims prefixes of
// its own.
package classwire

import (
	"strings"

	v1 "github.com/omcp/toolfailure/gen/toolfailure/v1"
	"github.com/omcp/toolfailure/internal/class"
)

const prefix = "CLASS_"

// ToProto returns the enum value of a class; CLASS_UNSPECIFIED for anything
// that is not one of the three.
func ToProto(c class.Class) v1.Class {
	switch c {
	case class.Capability:
		return v1.Class_CLASS_CAPABILITY
	case class.Reliability:
		return v1.Class_CLASS_RELIABILITY
	case class.Governance:
		return v1.Class_CLASS_GOVERNANCE
	}
	return v1.Class_CLASS_UNSPECIFIED
}

// FromProto returns the proposal's word for an enum value, "" for
// CLASS_UNSPECIFIED or a value this build does not know.
func FromProto(c v1.Class) class.Class {
	switch c {
	case v1.Class_CLASS_CAPABILITY:
		return class.Capability
	case v1.Class_CLASS_RELIABILITY:
		return class.Reliability
	case v1.Class_CLASS_GOVERNANCE:
		return class.Governance
	}
	return ""
}

// Name reads a class as people and the API's string fields write it
// (governance, Governance, CLASS_GOVERNANCE) and returns the proposal's
// word. Text that names no class comes back lower-cased, so that a filter
// on it matches nothing rather than everything.
func Name(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	return strings.TrimPrefix(s, strings.ToLower(prefix))
}

// Word is FromProto as a string, "unknown" for a value with no word, for
// text meant for people.
func Word(c v1.Class) string {
	if w := FromProto(c); w != "" {
		return string(w)
	}
	return "unknown"
}
