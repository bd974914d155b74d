package redact_test

import (
	"encoding/json"
	"fmt"

	"github.com/omcp/toolfailure/internal/redact"
)

func ExampleString() {
	fmt.Println(redact.String("dial postgres://app:hunter2@db:5432/app: connection refused"))
	fmt.Println(redact.String("max_tokens=4096 rejected; Authorization: Bearer abc.def.ghi"))
	// Output:
	// dial postgres://app:[REDACTED:url_password]@db:5432/app: connection refused
	// max_tokens=4096 rejected; Authorization: Bearer [REDACTED:authorization]
}

func ExampleValue() {
	var body any
	_ = json.Unmarshal([]byte(`{"model":"gpt-4o","max_tokens":4096,"api_key":"k-123","headers":{"Cookie":"sid=1"}}`), &body)
	out, _ := json.Marshal(redact.Value(body))
	fmt.Println(string(out))
	// Output: {"api_key":"[REDACTED:secret_field]","headers":{"Cookie":"[REDACTED:secret_field]"},"max_tokens":4096,"model":"gpt-4o"}
}
