package classify

import (
	"regexp"
	"strconv"
	"strings"
)

// Database errors carry standard codes that are more reliable than their
// messages: SQLSTATE (PostgreSQL, and the SQL standard that MySQL, DB2 and
// others follow), MySQL and SQL Server error numbers, Oracle ORA- codes.

var (
	sqlstateMsgRe = regexp.MustCompile(`\bSQLSTATE[\s=:\[]*([0-9A-Z]{5})\b`)
	mysqlMsgRe    = regexp.MustCompile(`\bError (\d{4,5}) \(([0-9A-Z]{5})\)`)
	mysqlTupleRe  = regexp.MustCompile(`^\((\d{4}), ["']`)
	oracleMsgRe   = regexp.MustCompile(`\bORA-(\d{5})\b`)
)

// sqlstateOf finds a SQLSTATE: the OpenTelemetry attribute (for
// PostgreSQL and when the system is unknown), a code field in Details, or
// "SQLSTATE 40001" / "Error 1213 (40001)" in the message.
func (s *signals) sqlstateOf() string {
	e := &s.in.Error
	sys := strings.ToLower(e.Attributes["db.system.name"] + e.Attributes["db.system"])
	for _, k := range []string{"db.response.status_code", "db.sqlstate", "db.sql.state", "sqlstate"} {
		if v := strings.TrimSpace(e.Attributes[k]); isSQLState(v) && !onlyDigitsFor(sys, v) {
			return v
		}
	}
	if s.sqlstate != "" {
		return s.sqlstate
	}
	// The patterns are case-sensitive; each runs only on a message that
	// has its literal.
	msg := clip(e.Message)
	if strings.Contains(msg, "SQLSTATE") {
		if m := sqlstateMsgRe.FindStringSubmatch(msg); m != nil {
			return m[1]
		}
	}
	if strings.Contains(msg, "Error ") {
		if m := mysqlMsgRe.FindStringSubmatch(msg); m != nil {
			return m[2]
		}
	}
	return ""
}

// onlyDigitsFor reports a code that is a vendor error number rather than a
// SQLSTATE: MySQL and SQL Server report numbers in db.response.status_code.
func onlyDigitsFor(sys, v string) bool {
	if !strings.Contains(sys, "mysql") && !strings.Contains(sys, "mariadb") && !strings.Contains(sys, "mssql") && !strings.Contains(sys, "sql_server") && !strings.Contains(sys, "sqlserver") && !strings.Contains(sys, "oracle") {
		return false
	}
	_, ok := atoi(v)
	return ok
}

// sqlstateKind maps a SQLSTATE to a kind by its class (first two
// characters) and a few specific codes.
func sqlstateKind(code string) (kind, bool) {
	switch code {
	case "40001", "40P01", "55P03", "55006", "25P02", "72000":
		return kContention, true
	case "57014": // query_canceled, usually statement_timeout
		return kTimeout, true
	case "53300", "53400":
		return kOverloaded, true
	case "53100": // disk_full
		return kStorageFull, true
	case "42501":
		return kPermission, true
	case "42P01", "42883", "42703", "42704", "42P02", "3D000", "3F000", "42S02", "42S22":
		return kNotFound, true
	case "23505":
		return kExists, true
	case "0A000":
		return kUnsupported, true
	case "25006": // read_only_sql_transaction: the connection cannot write
		return kUnsupported, true
	case "54000", "54001", "54011", "54023":
		return kTooLarge, true
	}
	switch code[:2] {
	case "08":
		if code == "08001" || code == "08004" { // could not connect, or the server refused
			return kRefused, true
		}
		return kNetwork, true
	case "40", "57", "58", "53", "HV":
		return kUnavailable, true
	case "XX":
		// internal_error and corruption: the core raises XX000 for states
		// that should not happen, and extensions (PostGIS) for their own
		// validation errors; neither says that trying again will work, so
		// the code decides nothing and the text is read instead.
		return kNone, false
	case "22", "23", "42", "2B", "2D", "2F", "34", "38", "39", "3B", "44", "25", "55", "54", "21", "26", "27", "0L", "0P", "0Z", "20", "24":
		return kInvalid, true
	case "28":
		return kAuth, true
	case "0A":
		return kUnsupported, true
	}
	return kNone, false
}

// mysqlKinds maps MySQL and MariaDB server and client error numbers.
var mysqlKinds = map[int]kind{
	1205: kContention, 1213: kContention, 1180: kContention, 1637: kContention,
	1040: kOverloaded, 1203: kOverloaded, 1226: kRateLimit,
	2002: kRefused, 2003: kRefused, 2005: kDNS, 2006: kNetwork, 2013: kNetwork, 2055: kNetwork,
	1053: kUnavailable, 1152: kNetwork, 1158: kNetwork, 1159: kTimeout, 1160: kNetwork, 1161: kTimeout,
	1317: kTimeout, 3024: kTimeout, 1969: kTimeout,
	1045: kAuth, 1251: kAuth, 1820: kAuth, 1862: kAuth,
	1044: kPermission, 1142: kPermission, 1143: kPermission, 1227: kPermission, 1370: kPermission,
	1146: kNotFound, 1049: kNotFound, 1054: kNotFound, 1051: kNotFound, 1305: kNotFound, 1091: kNotFound,
	1062: kExists, 1050: kExists, 1007: kExists, 1586: kExists,
	1451: kInvalid, 1452: kInvalid, 1048: kInvalid, 1064: kInvalid, 1366: kInvalid, 1292: kInvalid,
	1265: kInvalid, 1364: kInvalid, 1136: kInvalid, 1110: kInvalid,
	1406: kTooLarge, 1153: kTooLarge, 1118: kTooLarge,
	1290: kUnsupported, 1792: kUnsupported, 1235: kUnsupported, 1178: kUnsupported,
	1021: kStorageFull, 1114: kStorageFull,
}

// mssqlKinds maps SQL Server and Azure SQL error numbers.
var mssqlKinds = map[int]kind{
	1205: kContention, 1222: kContention, 3960: kContention, 41302: kContention, 41305: kContention,
	-2: kTimeout, 40613: kUnavailable, 40197: kUnavailable, 40501: kOverloaded, 49918: kOverloaded,
	49919: kOverloaded, 49920: kOverloaded, 10928: kOverloaded, 10929: kOverloaded, 4060: kNotFound,
	10053: kNetwork, 10054: kNetwork, 10060: kTimeout, 233: kNetwork, 64: kNetwork, 4221: kUnavailable,
	18456: kAuth, 18452: kAuth, 18487: kAuth, 18488: kAuth,
	229: kPermission, 230: kPermission, 262: kPermission, 297: kPermission, 300: kPermission,
	208: kNotFound, 207: kNotFound, 2812: kNotFound, 15151: kNotFound,
	2627: kExists, 2601: kExists, 547: kInvalid, 515: kInvalid, 8152: kTooLarge, 2628: kTooLarge,
	245: kInvalid, 102: kInvalid, 8114: kInvalid, 3906: kUnsupported, 1105: kStorageFull, 9002: kStorageFull,
}

// oracleKinds maps Oracle ORA- numbers.
var oracleKinds = map[int]kind{
	60: kContention, 54: kContention, 8177: kContention, 30006: kContention,
	1013: kTimeout, 12170: kTimeout, 12541: kRefused, 12514: kUnavailable, 12528: kUnavailable,
	12537: kNetwork, 3113: kNetwork, 3114: kNetwork, 3135: kNetwork, 12545: kDNS, 12154: kNotFound,
	18: kOverloaded, 20: kOverloaded, 1017: kAuth, 28000: kAuth, 28001: kAuth, 1045: kAuth,
	1031: kPermission, 1950: kPermission, 942: kNotFound, 904: kNotFound, 4043: kNotFound,
	1: kExists, 1400: kInvalid, 1722: kInvalid, 1840: kInvalid, 1843: kInvalid, 2291: kInvalid,
	2292: kInvalid, 12899: kTooLarge, 1653: kStorageFull, 1654: kStorageFull, 1536: kStorageFull,
	900: kInvalid, 933: kInvalid, 936: kInvalid,
}

// vendorDBKind reads MySQL, SQL Server and Oracle error numbers from the
// attributes (with db.system.name saying which) or from the message.
func (s *signals) vendorDBKind() (kind, bool) {
	e := &s.in.Error
	sys := strings.ToLower(e.Attributes["db.system.name"] + e.Attributes["db.system"])
	code := strings.TrimSpace(e.Attributes["db.response.status_code"])
	if n, ok := atoi(strings.TrimPrefix(code, "ORA-")); ok {
		switch {
		case strings.Contains(sys, "mysql"), strings.Contains(sys, "mariadb"):
			k, ok := mysqlKinds[n]
			return k, ok
		case strings.Contains(sys, "mssql"), strings.Contains(sys, "sql_server"), strings.Contains(sys, "sqlserver"):
			k, ok := mssqlKinds[n]
			return k, ok
		case strings.Contains(sys, "oracle"), strings.HasPrefix(code, "ORA-"):
			k, ok := oracleKinds[n]
			return k, ok
		}
	}
	msg := clip(e.Message)
	if strings.Contains(msg, "ORA-") {
		if m := oracleMsgRe.FindStringSubmatch(msg); m != nil {
			n, _ := strconv.Atoi(m[1])
			if k, ok := oracleKinds[n]; ok {
				return k, true
			}
		}
	}
	if strings.HasPrefix(msg, "(") {
		if m := mysqlTupleRe.FindStringSubmatch(msg); m != nil {
			n, _ := strconv.Atoi(m[1])
			if k, ok := mysqlKinds[n]; ok {
				return k, true
			}
		}
	}
	if !strings.Contains(msg, "Error ") {
		return kNone, false
	}
	if m := mysqlMsgRe.FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[1])
		if k, ok := mysqlKinds[n]; ok {
			return k, true
		}
	}
	return kNone, false
}

// redisKinds maps the error prefixes of Redis replies ("NOAUTH
// Authentication required.", "LOADING Redis is loading the dataset").
// OOM (used memory above maxmemory) and MISCONF (snapshots cannot be
// written to disk) last until someone frees memory or disk or changes the
// configuration: storage full, not a transient overload.
var redisKinds = map[string]kind{
	"LOADING": kUnavailable, "BUSY": kOverloaded, "TRYAGAIN": kContention, "CLUSTERDOWN": kUnavailable,
	"MASTERDOWN": kUnavailable, "READONLY": kUnavailable, "MOVED": kUnavailable, "ASK": kUnavailable,
	"NOREPLICAS": kUnavailable, "MISCONF": kStorageFull, "OOM": kStorageFull,
	"NOAUTH": kAuth, "WRONGPASS": kAuth, "NOPERM": kPermission,
	"WRONGTYPE": kInvalid, "EXECABORT": kInvalid, "NOSCRIPT": kNotFound, "NOGROUP": kNotFound,
	"BUSYGROUP": kExists, "UNBLOCKED": kNetwork,
}

func redisKind(msg string) (kind, bool) {
	msg = strings.TrimSpace(msg)
	for _, p := range []string{"ReplyError: ", "ResponseError: ", "redis: ", "Redis error: "} {
		msg = strings.TrimPrefix(msg, p)
	}
	word, rest, _ := strings.Cut(msg, " ")
	if k, ok := redisKinds[word]; ok && rest != "" {
		return k, true
	}
	if word == "ERR" {
		low := strings.ToLower(rest)
		switch {
		case strings.HasPrefix(low, "unknown command"):
			return kUnsupported, true
		case strings.HasPrefix(low, "max number of clients"):
			return kOverloaded, true
		case strings.HasPrefix(low, "wrong number of arguments"), strings.HasPrefix(low, "syntax error"),
			strings.HasPrefix(low, "value is not"), strings.HasPrefix(low, "invalid"):
			return kInvalid, true
		}
	}
	return kNone, false
}
