package classify

import (
	"regexp"
	"strings"
)

// An unhandled programming error in the tool's own code is capability /
// internal_error (docs/classification.md, "Bugs in the tool's own code"):
// the same call fails the same way, and neither the arguments nor a person
// can fix it. It needs evidence of a defect: a runtime's type that only a
// bug raises, a panic, or a stack trace that names one. A remote service's
// bare 500 or a bare JSON-RPC -32603 says nothing of the kind and stays
// reliability.

// defectTypes are exception types, as written, that only a bug raises.
var defectTypes = map[string]bool{
	// Python.
	"ZeroDivisionError": true, "KeyError": true, "AttributeError": true, "IndexError": true,
	"NameError": true, "UnboundLocalError": true, "RecursionError": true, "AssertionError": true,
	// JavaScript.
	"ReferenceError": true,
	// JVM.
	"NullPointerException": true, "ClassCastException": true, "ArrayIndexOutOfBoundsException": true,
	"StringIndexOutOfBoundsException": true, "IndexOutOfBoundsException": true,
	"ConcurrentModificationException": true, "ArithmeticException": true, "StackOverflowError": true,
	"NoSuchMethodError": true, "NoSuchFieldError": true, "KotlinNullPointerException": true,
	"UninitializedPropertyAccessException": true,
	// Hibernate's, when code reads a lazy collection after its session
	// closed: a mistake in the code, not a state that passes.
	"LazyInitializationException": true,
	// .NET.
	"NullReferenceException": true, "InvalidCastException": true, "IndexOutOfRangeException": true,
	"DivideByZeroException": true, "StackOverflowException": true, "KeyNotFoundException": true,
	// Ruby, Go, Julia.
	"NoMethodError": true, "ZeroDivisionError:": true, "runtime.Error": true, "BoundsError": true,
	"UndefVarError": true, "MethodError": true,
}

// defectText finds the same evidence in a message or a stack trace: a
// defect type at the start of a line (the last line of a Python or Node
// trace, a Java trace's first), a runtime's own wording of a bug, a panic.
// A type may follow white space, a colon, a quote, an opening bracket
// ("System error (NullPointerException)"), a CJK full stop or comma
// ("システムエラーが発生しました。NullPointerException") or an HL7 field or
// component separator (| and ^), which is how an interface engine's
// acknowledgement carries the exception of its own code.
var defectText = regexp.MustCompile(`(?m)(?:^|\b(?:Uncaught |Unhandled |Exception in thread "[^"]*" )|[\s:"'：|^(。、，]|\\n)(?:` +
	`(?:builtins\.)?(?:ZeroDivisionError|KeyError|AttributeError|IndexError|NameError|UnboundLocalError|RecursionError|NoMethodError): ` +
	// A tool that reports only the type's name at the end of its words
	// ("An unexpected error occurred: ZeroDivisionError").
	`|(?:builtins\.)?(?:ZeroDivisionError|KeyError|AttributeError|IndexError|NameError|UnboundLocalError|RecursionError)$` +
	`|DivisionByZeroError: Division by zero\b` +
	`|(?:java\.lang\.|kotlin\.)?(?:(?:Kotlin)?NullPointerException|ClassCastException|ArrayIndexOutOfBoundsException|StringIndexOutOfBoundsException|ArithmeticException|UninitializedPropertyAccessException)\b` +
	`|java\.util\.ConcurrentModificationException\b` +
	`|org\.hibernate\.LazyInitializationException\b` +
	// A servlet that redirects after it has written its response.
	`|Cannot call sendRedirect\(\) after the response has been committed` +
	`|java\.lang\.AssertionError\b` +
	`|(?:System\.)?(?:NullReferenceException|InvalidCastException|IndexOutOfRangeException|DivideByZeroException|Collections\.Generic\.KeyNotFoundException)\b` +
	`|ReferenceError: [\w$.]+ is not defined` +
	`)` +
	`|Cannot read propert(?:y|ies) (?:'[^']*' |"[^"]*" )?(?:of|from) (?:undefined|null)` +
	`|Cannot destructure property` +
	`|TypeError: [\w$.\[\]()]+ is not a function` +
	`|TypeError: (?:unsupported operand type|'NoneType' object|'\w+' object is not (?:subscriptable|callable|iterable)|can only concatenate)` +
	`|Object reference not set to an instance of an object` +
	// .NET's own message for an index past an array's end.
	`|Index was outside the bounds of the array` +
	// An ASP.NET error page names the unhandled exception in brackets
	// above its stack trace.
	`|\[(?:System\.)?(?:FormatException|NullReferenceException|InvalidCastException|IndexOutOfRangeException|ArgumentOutOfRangeException|ArgumentNullException|KeyNotFoundException|InvalidOperationException|OverflowException|DivideByZeroException): ` +
	// .NET's own message for an index past a list's end
	// (ArgumentOutOfRangeException from List<T>).
	`|Index was out of range\. Must be non-negative and less than the size of the collection` +
	// R's own words for arithmetic on a value of the wrong type.
	`|non-numeric argument to (?:binary operator|mathematical function)` +
	// The JVM's own messages for an index past the end and a bad cast,
	// which frameworks send without the exception's name.
	`|Index -?\d+ out of bounds for length \d+` +
	`|class [\w.$]+ cannot be cast to class [\w.$]+` +
	// .NET's own message for a null reference, as localized runtimes
	// print it.
	`|Der Objektverweis wurde nicht auf eine Objektinstanz festgelegt` +
	`|La référence d'objet n'est pas définie à une instance d'un objet` +
	`|Referencia a objeto no establecida como instancia de un objeto` +
	`|Riferimento a un oggetto non impostato su un'istanza di oggetto` +
	`|Referência de objeto não definida para uma instância de um objeto` +
	`|Ссылка на объект не указывает на экземпляр объекта` +
	`|Посилання на об'єкт не вказує на екземпляр об'єкта` +
	`|未将对象引用设置到对象的实例` +
	`|並未將物件參考設定為物件的執行個體` +
	`|オブジェクト参照がオブジェクト インスタンスに設定されていません` +
	`|개체 참조가 개체의 인스턴스로 설정되지 않았습니다` +
	`|Odwołanie do obiektu nie zostało ustawione na wystąpienie obiektu` +
	`|Nesne başvurusu bir nesnenin örneğine ayarlanmadı` +
	`|[Oo]bjectverwijzing is niet op een exemplaar` +
	`|Odkaz na objekt nebyl nastaven na instanci` +
	`|Objektreferensen har inte angetts till en instans` +
	`|Tham chiếu đối tượng không được đặt thành` +
	// A process that the operating system stopped for touching memory
	// it does not own, or that dumped its core: a crash, not a refusal.
	`|Segmentation fault|segmentation violation|\bSIGSEGV\b|signal 11 \(SEGV\)|\(core dumped\)` +
	// The same signal as glibc and the shells name it in other languages.
	`|Speicherzugriffsfehler|Erreur de segmentation|Violación de segmento|Errore di segmentazione|Falha de segmentação` +
	`|Ошибка сегментирования|セグメンテーション違反|段错误|세그멘테이션 오류|Naruszenie ochrony pamięci|Segmentatiefout|Segmenteringsfel` +
	`|Zugriffsverletzung bei Adresse|Violation d'accès à l'adresse` +
	`|EXCEPTION_ACCESS_VIOLATION|[Aa]ccess violation (?:\(0xc0000005\)|at (?:address )?0x|reading (?:from )?(?:address|location) 0x)` +
	// A process that died with Windows' access-violation status as its
	// exit code.
	`|exit code 0x[Cc]0000005\b` +
	// Delphi's and C++Builder's runtime word it without the 0x.
	`|[Aa]ccess violation at address (?:[0-9A-Fa-f]{8}|[0-9A-Fa-f]{16}) in module` +
	// Visual Basic's and VBA's own error 9, an index past an array's end.
	`|Run-time error '9': Subscript out of range` +
	`|unexpected null pointer` +
	// Python's own words for using None as a value, whatever type wraps them.
	`|'NoneType' object (?:is not (?:subscriptable|callable|iterable)|has no attribute)` +
	// Runtimes and tools that name a programming error in their own
	// language.
	`|Erreur de programmation|Programmierfehler|[Ee]rror de programación` +
	`|panic: runtime error:` +
	`|invalid memory address or nil pointer dereference` +
	`|panicked at .{0,200}(?:unwrap\(\)` + "`" + ` on an? ` + "`" + `(?:None|Err)|index out of bounds|attempt to (?:divide by zero|subtract with overflow|add with overflow|multiply with overflow))` +
	`|called ` + "`" + `(?:Option|Result)::unwrap\(\)` + "`" + ` on an? ` + "`" + `(?:None|Err)` +
	`|Unexpectedly found nil while (?:implicitly )?unwrapping` +
	`|undefined method ` + "[`']" + `(?:\w+[?!=]?|\[\]=?|[-+*/<>=!%&|^~]{1,3})' for nil` +
	`|Call to a member function \w+\(\) on (?:null|bool|array|string|int)` +
	`|Call to undefined (?:function|method)` +
	// Ruby's NameError for a class or module the code names and never
	// loaded.
	`|uninitialized constant [A-Z]\w*` +
	`|maximum recursion depth exceeded` +
	`|Maximum call stack size exceeded` +
	// PHP's warnings for a key, index or variable that is not there, which
	// frameworks turn into exceptions.
	`|(?:Warning|Notice): Undefined (?:array key|index|offset|variable|property)` +
	// The same warning quoted without its level, with the file and line.
	`|Undefined (?:array key|index|offset|variable|property): \$?\w+ in [\w./-]+\.php on line \d+` +
	// Elixir's report of an exception that only a bug raises.
	`|\*\* \((?:KeyError|FunctionClauseError|MatchError|CaseClauseError|CondClauseError|WithClauseError|UndefinedFunctionError|ArithmeticError|BadMapError|BadArityError|BadFunctionError|BadBooleanError)\)` +
	// A Python exception printed by its repr rather than its str:
	// "KeyError('site')", "KeyError ('site')".
	`|\b(?:KeyError|IndexError|AttributeError|ZeroDivisionError) ?\('` +
	// A KeyError logged as its type and the quoted key without a colon
	// ("Interner Fehler: KeyError 'hall_id'"): a key the code expected.
	`|\bKeyError ['"][A-Za-z_]\w{0,60}['"]` +
	// The kernel's line for a process that a segmentation fault killed,
	// and Visual Basic's run-time error 91 (a null object reference), in
	// English, Spanish, French, German and Italian.
	`|segfault at [0-9a-f]+ ip [0-9a-f]+` +
	`|Object variable or With block variable not set|Variable de objeto o bloque With no establecid[ao]` +
	`|variable de bloc With non définie|With-Blockvariable nicht festgelegt|variabile del blocco With non impostata` +
	// A classic ASP page's database error for a malformed command
	// (80040e14) at a line of the page: the page built the query wrong.
	// A timeout there (80004005) is not a defect.
	`|error '80040e14'(?:[^\n]*\n){1,3}\s*/[\w/.\-]+\.asp, line \d+` +
	// An internal error that names a division by zero as its cause
	// ("interner Fehler (Ausnahme: Division durch Null)"); a query's own
	// division by zero, which a database reports without the words
	// "internal error", is not read as a defect here.
	`|(?i:interner Fehler|internal error|erreur interne|error interno|errore interno)[^\n]{0,40}[Dd](?:ivision durch [Nn]ull|ivision by zero|ivision par zéro|ivisión por cero|ivisione per zero)` +
	// 1C:Enterprise's report of an index out of range.
	`|Индекс находится за границами диапазона` +
	// Home Assistant's update coordinator logs an exception it did not
	// expect by its str(), which for a KeyError is the quoted key alone:
	// "Unexpected error fetching opennem data: 'fuel_tech'".
	`|Unexpected error fetching [^\n]{1,80} data: '[A-Za-z_]\w{0,60}'\s*$` +
	// Code the author asserted could never run, or a condition asserted
	// true, found otherwise: Rust's unreachable!() and assert!, C's assert,
	// Zig's unreachable.
	`|(?:entered|reached) unreachable code` +
	// A compiler that crashed on valid input says so, or stops at a source
	// position with an internal error and its own code for the check that
	// failed (Free Pascal's "Internal error 200611031", Delphi's "F2084
	// Internal Error: URW1147").
	`|[Ii]nternal [Cc]ompiler [Ee]rror|[Ii]nterner Compiler-Fehler` +
	`|\(\d+(?:,\d+)?\)[^\n]{0,40}Internal [Ee]rror:? [A-Z]{0,4}\d{3,}` +
	// An internal error that names the tool's own source file and line.
	`|(?:Internal [Ee]rror\b|内部エラー|内部错误|内部錯誤)[^\n]{0,160}\b[\w-]+\.(?:c|cc|cpp|cxx|h|hpp|rs|go|java|py|f90|F90)(?::\d+|,? [Ll]ine:? \d+)` +
	`|Internal fault: \[0x` +
	// An assertion in the tool's source that did not hold, with the file
	// and line that asserted it.
	"|Assert `[^`']{1,200}' failed" +
	`|Assert(?:ion)? failed(?: in)?:? /?[\w./-]+\.(?:c|cc|cpp|cxx|h|hpp|rs|go|java|py|m)(?::\d+|,? line \d+)` +
	// Qt's Q_ASSERT and Q_ASSERT_X, which name the file and line too.
	`|ASSERT(?: failure in [^"\n]{1,120})?: "[^"\n]{1,200}",? (?:in )?file [\w./-]+\.(?:c|cc|cpp|cxx|h|hpp), line \d+` +
	// PHP's fatal errors that only a bug raises.
	`|Fatal error: +Uncaught (?:TypeError|DivisionByZeroError|ArgumentCountError|ArithmeticError)\b` +
	// PHP's own TypeError for a null the code passed where a function
	// declared an object or a type: the caller gave no null.
	`|TypeError: (?:Argument \d+ passed to [\w\\:]+\(\)|[\w\\:]+\(\): Argument #\d+ \(\$\w+\)) must (?:be an instance of|implement interface|be of (?:the )?type) [\w\\|?]+, null given` +
	// A tool that asks for a bug report says it met a bug.
	`|(?i:please) (?:submit|file|send|open) (?:a |an )?(?:full )?bug report` +
	`|[Pp]lease report (?:this|the) (?:bug|issue) with (?:the )?above output` +
	`|(?i:please) report (?:this|it) as a bug` +
	// Or asks for what it needs to reproduce its own crash.
	`|(?i:please),? send us (?:the |a )?(?:crash (?:report|dump|log)|core dump|(?:pre-?processed|reproducing) (?:file|code))` +
	`|[Пп]ожалуйста, отправьте нам (?:файл|отч[её]т|дамп)` +
	// A tool that says what it met is probably its own bug (not "if you
	// think this is a bug", which every tool prints).
	`|[Tt]his is (?:probably|likely|most likely) an? (?:[\w-]+ ){0,2}bug\b` +
	`|[Tt]his is an internal (?:issue|error|bug)\b` +
	`|[Aa]n unexpected error (?:has )?occurred[^\n]{0,80}[Pp]lease report (?:this|the) (?:issue|error|problem)\b` +
	// A checker's broken invariant, a proof assistant's anomaly, and an
	// OCaml exception that only a bug leaves uncaught.
	`|Invariant check failed` +
	`|Error: Anomaly\b` +
	`|Fatal error: exception (?:Not_found|Invalid_argument|Assert_failure|Match_failure|Division_by_zero|Stack_overflow)\b` +
	// Java's own words for a null dereference since JDK 14, which name no
	// exception when the server returns only its message; and Windows'
	// access violation by its exception code.
	`|Cannot (?:invoke|read field|assign field|load from [a-z]+ array|store to [a-z]+ array|read the array length)\b[^\n]{0,240}\bbecause\b[^\n]{0,240}\bis null\b` +
	`|[Ee]xception code:? 0x[cC]0000005\b` +
	// A GraphQL server whose resolver returned null for a field its own
	// schema declares non-null: the schema and the code disagree.
	`|Cannot return null for non-nullable field` +
	`|(?i:please report (?:this |it )?to the (?:devs?|developers?|maintainers?|authors?))\b` +
	// .NET's LINQ on a sequence the code assumed non-empty or single.
	`|Sequence contains (?:no (?:matching )?elements?|more than one (?:matching )?element)` +
	`|シーケンスに要素が含まれていません|Die Sequenz enthält keine Elemente|La séquence ne contient aucun élément` +
	`|La secuencia no contiene elementos|序列不包含任何元素|Последовательность не содержит элементов` +
	`|[Aa]ssertion failed: ` +
	`|Assertion failed in file ` +
	"|Assertion `[^`']{1,200}' failed" +
	// Nim raises a Defect only for a bug; its runtime names it in brackets.
	`|unhandled exception: .{0,200}\[(?:Index|NilAccess|DivByZero|Overflow|Range|Field|ObjectConversion|Assertion|AccessViolation|FloatDivByZero|FloatOverflow|FloatInvalidOp)Defect\]`)

// defectWords are literals, one of which every alternative of defectText
// contains: the pattern (Go's regexp has no DFA) runs only on a text that
// holds one, so that a long message costs one scan.
var defectWords = words("Unexpected error fetching ", "segfault at ", "error '80040e14'", "ivision durch Null", "ivision durch null", "ivision by zero", "ivision par zéro", "ivisión por cero", "ivisione per zero", "With block variable not set", "bloque With no establecid", "variable de bloc With non définie", "With-Blockvariable nicht festgelegt", "variabile del blocco With non impostata", "Индекс находится за границами диапазона", "ZeroDivisionError", "KeyError", "AttributeError", "IndexError", "NameError",
	"UnboundLocalError", "RecursionError", "NoMethodError", "NullPointerException", "ClassCastException",
	"OutOfBoundsException", "ArithmeticException", "UninitializedPropertyAccessException",
	"NullReferenceException", "InvalidCastException", "IndexOutOfRangeException", "DivideByZeroException",
	"ReferenceError: ", "Cannot read propert", "Cannot destructure property", "TypeError: ",
	"Object reference not set", "panic: runtime error:", "nil pointer dereference", "panicked at",
	"::unwrap()", "Unexpectedly found nil", "undefined method ", "Call to a member function",
	"Call to undefined", "uninitialized constant ", "maximum recursion depth", "Maximum call stack", "Defect]", "unreachable code",
	"ssertion failed: ", "Assertion failed in file ", "Assertion `", ": Undefined ", ".php on line ", "** (", "nternal compiler error",
	"Internal Error", "Internal error", "Uncaught ", "bug report", "above output", "AssertionError",
	"ConcurrentModificationException", "LazyInitializationException", "after the response has been committed", "out of bounds for length", "cannot be cast to class",
	"as a bug", "report to the ", "report it to the ", "report this to the ", "Report to the ", "Report it to the ",
	"Report this to the ", "REPORT TO THE ", "Sequence contains ", "Посилання на об", "ACCESS_VIOLATION", "ccess violation", "null pointer",
	"'NoneType' object", "内部エラー", "内部错误", "内部錯誤", "Internal fault: [0x", "Assert `", "ssert failed",
	"Objektverweis", "référence d'objet", "Referencia a objeto", "Riferimento a un oggetto", "Referência de objeto",
	"Ссылка на объект", "未将对象引用", "並未將物件參考", "オブジェクト参照", "개체 참조", "Odwołanie do obiektu",
	"Nesne başvurusu", "Segmentation fault", "segmentation violation", "SIGSEGV", "(SEGV)", "(core dumped)",
	"Erreur de programmation", "Programmierfehler", "rror de programación", "bjectverwijzing", "Odkaz na objekt",
	"Objektreferensen", "Tham chiếu đối tượng", "Speicherzugriffsfehler", "Erreur de segmentation", "Violación de segmento",
	"Errore di segmentazione", "Falha de segmentação", "Ошибка сегментирования", "セグメンテーション違反", "段错误",
	"세그멘테이션 오류", "Naruszenie ochrony pamięci", "Segmentatiefout", "Segmenteringsfel", "Zugriffsverletzung",
	"Violation d'accès", "nterner Compiler-Fehler", "his is probably a", "his is likely a", "his is most likely a",
	"KeyNotFoundException", "シーケンスに要素", "Die Sequenz enthält", "La séquence ne contient", "La secuencia no contiene",
	"序列不包含", "Последовательность не содержит", "nternal Compiler Error", "nternal compiler Error", "nternal Compiler error",
	"non-numeric argument to ", "Index was outside the bounds", "Index was out of range. Must be non-negative",
	"[FormatException: ", "[System.FormatException: ", "[NullReferenceException: ", "[System.NullReferenceException: ",
	"[InvalidCastException: ", "[System.InvalidCastException: ", "[IndexOutOfRangeException: ", "[System.IndexOutOfRangeException: ",
	"[ArgumentOutOfRangeException: ", "[System.ArgumentOutOfRangeException: ", "[ArgumentNullException: ", "[System.ArgumentNullException: ",
	"[KeyNotFoundException: ", "[System.KeyNotFoundException: ", "[InvalidOperationException: ", "[System.InvalidOperationException: ",
	"[OverflowException: ", "[System.OverflowException: ", "[DivideByZeroException: ", "[System.DivideByZeroException: ",
	"send us ", "отправьте нам ",
	"his is an internal ", "n unexpected error ", "Invariant check failed", "Error: Anomaly", "Fatal error: exception ",
	"Cannot return null for non-nullable field", "Cannot invoke ", "Cannot read field ", "Cannot assign field ",
	"Cannot load from ", "Cannot store to ", "Cannot read the array length", "xception code: 0x", "xception code 0x",
	"exit code 0xC0000005", "exit code 0xc0000005", "Run-time error '9'", "ASSERT failure in ", "ASSERT: \"")

// isDefectText is defectText.MatchString behind its literal prefilter.
func isDefectText(t string) bool {
	return defectWords.Contains(t) && defectText.MatchString(t)
}

// ruleDefect reports a programming error in the tool's own code, or in
// the service behind it when its 500 names the defect. Any other status
// from a remote protocol (HTTP, gRPC) means the failure came from
// elsewhere; of JSON-RPC codes, only an internal or server error can carry
// a defect's trace.
func ruleDefect(s *signals) (kind, bool) {
	// A 500 that names a defect is one: the same request meets the same
	// bug. So is a 2xx body that names one, since such a status says
	// nothing of the failure. Any other status says where it came from.
	if s.hasHTTP && s.http != 500 && (s.http < 200 || s.http > 299) || s.hasGRPC {
		return kNone, false
	}
	if s.hasJSONRPC && s.jsonrpc != -32603 && (s.jsonrpc > -32000 || s.jsonrpc < -32099) {
		return kNone, false
	}
	e := &s.in.Error
	typ := e.Type
	if i := strings.LastIndexAny(typ, ".:"); i >= 0 && i+1 < len(typ) && !strings.HasPrefix(typ, "runtime.") {
		typ = typ[i+1:]
	}
	if defectTypes[typ] || defectTypes[e.Type] {
		return kDefect, true
	}
	if e.Type == "TypeError" && isDefectText("TypeError: "+e.Message) {
		return kDefect, true
	}
	if isDefectText(e.Message) {
		return kDefect, true
	}
	for _, t := range s.detailTexts {
		if isDefectText(t) {
			return kDefect, true
		}
	}
	// A JSON-RPC error's data, or an error body, that carries the trace
	// under a key of its own.
	if m, ok := e.Details.(map[string]any); ok {
		for _, body := range []map[string]any{m, mapField(m, "data"), mapField(m, "error")} {
			for _, key := range traceKeys {
				if t, ok := stringField(body, key); ok && isDefectText(t) {
					return kDefect, true
				}
			}
		}
	}
	return kNone, false
}

// traceKeys are the keys under which error bodies carry a stack trace.
var traceKeys = []string{"stack", "stackTrace", "stacktrace", "stack_trace", "traceback", "trace", "exception"}

// OutranksPacks reports whether the error is an answer that speaks for
// itself, which the baseline packs must not read (ruleset.Set.Classify):
//
//   - a firewall's, a bot manager's or a virus scanner's own page
//     (baseline/firewall), which quotes the request it stopped and says
//     "access denied" or "illegal parameters" of it, in words the packs
//     read as the service's own refusal or bad input;
//   - a runtime's report of a bug (baseline/programming-error), whose
//     trace quotes the code and data it ran on, in words the packs read
//     as a missing version, an unsupported operation or a limit.
//
// Either is stronger evidence than the words it quotes.
func OutranksPacks(in *Input) bool {
	s := signals{in: in}
	if _, ok := ruleFirewall(&s); ok {
		return true
	}
	s.setStatuses()
	if in.Error.Details != nil {
		w := walker{budget: maxWalk}
		w.walk(in.Error.Details, 0, "")
		s.detailTexts = w.texts
	}
	_, ok := ruleDefect(&s)
	return ok
}
