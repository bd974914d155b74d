package bench

import (
	"encoding/json"
	"fmt"
)

// requestMix is the raw-error mix that both targets receive: realistic reports of the shapes that
// the service must understand (HTTP with Retry-After, gRPC, JSON-RPC, errno, exceptions from
// several languages, SQLSTATE, a vendor body awaiting confirmation), with a trace context on some
// and an idempotency key on none, so that every call of the service writes one record.
var requestMix = []string{
	`{"tool":"send_email","server":"mail-mcp","error":{"message":"upstream returned 503 Service Unavailable","httpStatus":503,"retryAfter":"30"},"toolAnnotations":{"idempotentHint":true},"traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}`,
	`{"tool":"read_file","server":"fs-mcp","error":{"message":"ENOENT: no such file or directory, open '/srv/data/report.csv'","type":"ENOENT"}}`,
	`{"tool":"query_orders","server":"db-mcp","error":{"message":"could not serialize access due to concurrent update","attributes":{"db.response.status_code":"40001"}},"toolAnnotations":{"idempotentHint":true,"readOnlyHint":true}}`,
	`{"tool":"create_issue","server":"tracker-mcp","error":{"message":"Bad credentials","httpStatus":401,"details":{"documentation_url":"https://docs.example.com/rest"}}}`,
	`{"tool":"deploy","server":"ops-mcp","error":{"message":"production deploy needs confirmation","details":{"structuredContent":{"reason_code":"explicit_production_confirmation_required"},"execution":{"status":"awaiting_confirmation"}}}}`,
	`{"tool":"search","server":"search-mcp","error":{"message":"rpc error: code = Unavailable desc = connection refused","grpcCode":14},"toolAnnotations":{"idempotentHint":true,"readOnlyHint":true},"traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}`,
	`{"tool":"resize_image","server":"media-mcp","error":{"message":"Traceback (most recent call last):\n  File \"tool.py\", line 42, in resize\nValueError: width must be positive, got -3","type":"ValueError"}}`,
	`{"tool":"fetch_url","server":"web-mcp","error":{"message":"read tcp 10.0.0.5:443: connection reset by peer","type":"ECONNRESET"},"toolAnnotations":{"idempotentHint":true}}`,
	`{"tool":"update_record","server":"crm-mcp","error":{"message":"Invalid params: 'email' is required","jsonrpcCode":-32602}}`,
	`{"tool":"charge_card","server":"billing-mcp","error":{"message":"java.net.SocketTimeoutException: Read timed out (api_key=sk_live_51HxYzABCDEF0123456789)","type":"java.net.SocketTimeoutException"}}`,
	`{"tool":"list_repos","server":"git-mcp","error":{"message":"API rate limit exceeded","httpStatus":429,"retryAfter":"Wed, 21 Oct 2015 07:28:00 GMT"}}`,
	`{"tool":"delete_bucket","server":"cloud-mcp","error":{"message":"AccessDenied: User is not authorized to perform s3:DeleteBucket","httpStatus":403,"type":"AccessDenied"}}`,
}

// checkMix fails when an entry of requestMix is not JSON, so that a typo cannot make one target
// answer errors quickly and look fast.
func checkMix() error {
	for i, body := range requestMix {
		if !json.Valid([]byte(body)) {
			return fmt.Errorf("request mix entry %d is not valid JSON", i)
		}
	}
	return nil
}
