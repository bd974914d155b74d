package mcpproxy_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	toolfailurev1 "github.com/omcp/toolfailure/gen/toolfailure/v1"
	"github.com/omcp/toolfailure/internal/mcpproxy"
	"github.com/omcp/toolfailure/mcpfailure"
)

// A tool call may run as a task; a failed tool still ends in a completed
// task, and the key rides inside the task's result. The tests below drive
// the two wire forms:
//
//   - 2026-07-28, the tasks extension: the result is inlined in the answer to
//     tasks/get and in notifications/tasks. No SDK available here speaks it
//     (the Go SDK v1.8.0 has no tasks, the TypeScript SDK 1.32.2 has the
//     2025-11-25 form), so the upstream is the raw JSON-RPC peer the other
//     byte-level tests use, which also lets them check bytes.
//   - 2025-11-25, tasks in the core protocol: the answer to tasks/result is
//     the result. The upstream is a real server on the TypeScript SDK's
//     experimental task support (testdata/taskserver.mjs), a child over stdio.

// taskCreated is a 2026-07-28 CreateTaskResult for task id.
func taskCreated(id string) string {
	return `{"resultType":"task","taskId":"` + id + `","status":"working","createdAt":"2026-07-28T10:30:00Z","lastUpdatedAt":"2026-07-28T10:30:00Z","ttlMs":60000,"pollIntervalMs":5}`
}

// completedTask is a 2026-07-28 tasks/get result (or notification params)
// for task id, completed with result.
func completedTask(id, result string) string {
	return `{"resultType":"complete","taskId":"` + id + `","status":"completed","createdAt":"2026-07-28T10:30:00Z","lastUpdatedAt":"2026-07-28T10:31:00Z","ttlMs":60000,"result":` + result + `}`
}

// startTask relays a tools/call of tool that the upstream answers with a
// task handle, and checks that the handle reaches the client unchanged.
func startTask(t *testing.T, client, upstream *rawPeer, callID, tool, taskID string) {
	t.Helper()
	client.send(`{"jsonrpc":"2.0","id":` + callID + `,"method":"tools/call","params":{"name":"` + tool + `","arguments":{},` +
		`"_meta":{"traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}}}`)
	upstream.recv(5 * time.Second)
	upstream.send(`{"jsonrpc":"2.0","id":` + callID + `,"result":` + taskCreated(taskID) + `}`)
	if got := decode(t, client.recv(5*time.Second)); string(got.Result) != taskCreated(taskID) {
		t.Fatalf("the task handle changed:\n got %s\nwant %s", got.Result, taskCreated(taskID))
	}
}

// pollTask relays a tasks/get of taskID that the upstream answers with
// result, and returns the answer the client got.
func pollTask(t *testing.T, client, upstream *rawPeer, id int, taskID, result string) json.RawMessage {
	t.Helper()
	client.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tasks/get","params":{"taskId":%q}}`, id, taskID))
	if m := decode(t, upstream.recv(5*time.Second)); m.Method != "tasks/get" {
		t.Fatalf("upstream got %q, want tasks/get", m.Method)
	}
	upstream.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":%s}`, id, result))
	got := decode(t, client.recv(10*time.Second))
	if string(got.ID) != fmt.Sprint(id) {
		t.Fatalf("answer to %s, want %d", got.ID, id)
	}
	return got.Result
}

// taskResult splits a task object the client got into its members, and
// returns its inlined result.
func taskResult(t *testing.T, task json.RawMessage) (map[string]json.RawMessage, json.RawMessage) {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(task, &m); err != nil {
		t.Fatalf("task %s: %v", task, err)
	}
	return m, m["result"]
}

// TestTaskFailureGetsTheKey: a tool call that runs as a task (2026-07-28)
// and fails gets the key inside the completed task's result, recorded like
// a direct failure (the tool's name, the call's trace, the server's label);
// the task stays completed, every other member keeps its bytes, other
// _meta keys are kept, and each later carrier of the same result (another
// poll, a notification) gets the same correlation ID, not a record of its
// own.
func TestTaskFailureGetsTheKey(t *testing.T) {
	t.Parallel()
	svc := startService(t)
	p := newProxy(t, mcpfailure.NewClassifierClient(nil, svc.url, svc.reportKey), 0)
	client, upstream, _ := relay(t, p)
	handshake(t, client, upstream, "raw-task-upstream")
	listTools(t, client, upstream, `[{"name":"export","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true,"idempotentHint":true}}]`)

	startTask(t, client, upstream, "1", "export", "task-786512e2")
	working := `{"resultType":"complete","taskId":"task-786512e2","status":"working","createdAt":"2026-07-28T10:30:00Z","lastUpdatedAt":"2026-07-28T10:30:00Z","ttlMs":60000}`
	if got := pollTask(t, client, upstream, 2, "task-786512e2", working); string(got) != working {
		t.Errorf("a working task changed:\n got %s\nwant %s", got, working)
	}

	failed := `{"content":[{"type":"text","text":"upstream returned HTTP 503 Service Unavailable; Retry-After: 3"}],"isError":true,"_meta":{"com.example/jobId":"job-\u00e9"}}`
	sent := completedTask("task-786512e2", failed)
	got := pollTask(t, client, upstream, 3, "task-786512e2", sent)
	members, result := taskResult(t, got)
	if string(members["status"]) != `"completed"` {
		t.Errorf("status %s: a tool's failure leaves its task completed", members["status"])
	}
	if keys := orderedKeys(t, got); strings.Join(keys, ",") != strings.Join(orderedKeys(t, json.RawMessage(sent)), ",") {
		t.Errorf("task members %v: order not kept", keys)
	}
	var sentMembers map[string]json.RawMessage
	_ = json.Unmarshal([]byte(sent), &sentMembers)
	for k, v := range sentMembers {
		if k != "result" && string(members[k]) != string(v) {
			t.Errorf("task member %s changed: %s, sent %s", k, members[k], v)
		}
	}
	checkConforms(t, "failed task result", result)
	tf := toolFailure(t, result)
	if tf["class"] != "reliability" || tf["retryable"] != true {
		t.Errorf("a 503 of an idempotent tool: got %v", tf)
	}
	var res struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	_ = json.Unmarshal(result, &res)
	if string(res.Meta["com.example/jobId"]) != `"job-\u00e9"` {
		t.Errorf("other _meta keys changed: %s", result)
	}
	if _, ok := members["resultType"]; !ok || strings.Contains(string(result), "resultType") {
		t.Errorf("resultType belongs to the task's answer, not to the result inside it: %s", got)
	}

	id := tf["correlationId"].(string)
	rec, err := svc.failures().GetFailure(t.Context(), &toolfailurev1.GetFailureRequest{CorrelationId: id})
	if err != nil {
		t.Fatalf("GetFailure(%s): %v", id, err)
	}
	if f := rec.GetFailure(); f.GetTool() != "export" || f.GetServer() != "raw-task-upstream" || f.GetTraceId() != "4bf92f3577b34da6a3ce929d0e0e4736" ||
		!strings.Contains(f.GetError().GetMessage(), "503") {
		t.Errorf("record: tool %q server %q trace %q message %q", f.GetTool(), f.GetServer(), f.GetTraceId(), f.GetError().GetMessage())
	}

	// The same result polled again, and pushed as a notification: the
	// same object, so one failure is one record.
	_, again := taskResult(t, pollTask(t, client, upstream, 4, "task-786512e2", sent))
	if got := toolFailure(t, again)["correlationId"]; got != id {
		t.Errorf("a second poll got correlation ID %v, the first %s", got, id)
	}
	upstream.send(`{"jsonrpc":"2.0","method":"notifications/tasks","params":` + completedTask("task-786512e2", failed) + `}`)
	note := decode(t, client.recv(10*time.Second))
	if note.Method != "notifications/tasks" {
		t.Fatalf("got %s, want notifications/tasks", note.Method)
	}
	nm, nres := taskResult(t, note.Params)
	if got := toolFailure(t, nres)["correlationId"]; got != id || string(nm["status"]) != `"completed"` {
		t.Errorf("the notification's result has correlation ID %v (status %s), the poll's %s", got, nm["status"], id)
	}
	list, err := svc.failures().ListFailures(t.Context(), &toolfailurev1.ListFailuresRequest{Filter: &toolfailurev1.FailureFilter{Tool: "export"}})
	if err != nil {
		t.Fatalf("ListFailures: %v", err)
	}
	if n := len(list.GetFailures()); n != 1 {
		t.Errorf("%d records of the task's failure, want 1", n)
	}
}

// TestTaskFailureInNotificationFirst: the completed task can reach the
// client first as a notification (a client subscribed to the task's
// status); it gets the key there.
func TestTaskFailureInNotificationFirst(t *testing.T) {
	t.Parallel()
	svc := startService(t)
	p := newProxy(t, mcpfailure.NewClassifierClient(nil, svc.url, svc.reportKey), 0)
	client, upstream, _ := relay(t, p)
	handshake(t, client, upstream, "raw-task-upstream")
	listTools(t, client, upstream, `[{"name":"purge","inputSchema":{"type":"object"}}]`)
	startTask(t, client, upstream, "1", "purge", "t-note")

	upstream.send(`{"jsonrpc":"2.0","method":"notifications/tasks","params":` +
		completedTask("t-note", `{"content":[{"type":"text","text":"403 Forbidden: purge needs the admin role"}],"isError":true}`) + `}`)
	note := decode(t, client.recv(10*time.Second))
	_, res := taskResult(t, note.Params)
	tf := toolFailure(t, res)
	if tf["class"] != "governance" {
		t.Errorf("a 403: got %v", tf)
	}
	if _, err := svc.failures().GetFailure(t.Context(), &toolfailurev1.GetFailureRequest{CorrelationId: tf["correlationId"].(string)}); err != nil {
		t.Errorf("GetFailure: %v", err)
	}
}

// TestTaskSuccessUntouched: a task's successful result, in each message
// that carries one, reaches the client byte for byte (apart from the
// whitespace framing removes), and no service is called.
func TestTaskSuccessUntouched(t *testing.T) {
	t.Parallel()
	p := newProxy(t, refusingClassifier{t}, 0)
	client, upstream, _ := relay(t, p)
	handshake(t, client, upstream, "raw-task-upstream")
	startTask(t, client, upstream, "1", "report", "t-ok")

	ok := `{ "zeta":1, "content":[{"type":"text","text":"caf\u00e9 <b>&amp;</b>"}], "structuredContent":{"n":1.50,"exp":1e3}, "isError": false, "_meta":{"com.example/b":true} }`
	task := completedTask("t-ok", ok)
	if got := pollTask(t, client, upstream, 2, "t-ok", task); string(got) != compact(t, task) {
		t.Errorf("tasks/get changed:\n got %s\nwant %s", got, compact(t, task))
	}
	note := `{"jsonrpc":"2.0","method":"notifications/tasks","params":` + task + `}`
	upstream.send(note)
	if got := decode(t, client.recv(5*time.Second)); string(got.Params) != compact(t, task) {
		t.Errorf("notifications/tasks changed:\n got %s\nwant %s", got.Params, compact(t, task))
	}
	// 2025-11-25: tasks/result answers with the result itself.
	startTask(t, client, upstream, "3", "report", "t-ok-2")
	client.send(`{"jsonrpc":"2.0","id":4,"method":"tasks/result","params":{"taskId":"t-ok-2"}}`)
	upstream.recv(5 * time.Second)
	upstream.send(`{"jsonrpc":"2.0","id":4,"result":` + ok + `}`)
	if got := decode(t, client.recv(5*time.Second)); string(got.Result) != compact(t, ok) {
		t.Errorf("tasks/result changed:\n got %s\nwant %s", got.Result, compact(t, ok))
	}
}

// TestUnknownTaskPassesThrough: a failed result of a task the session did
// not see created (another session's, one created before the proxy
// started, or an ID the server made up) has no tool to report it under,
// so it goes out as it came; so does a result that already carries the key.
func TestUnknownTaskPassesThrough(t *testing.T) {
	t.Parallel()
	p := newProxy(t, refusingClassifier{t}, 0)
	client, upstream, _ := relay(t, p)
	handshake(t, client, upstream, "raw-task-upstream")

	failed := completedTask("never-created", `{"content":[{"type":"text","text":"503 Service Unavailable"}],"isError":true}`)
	if got := pollTask(t, client, upstream, 1, "never-created", failed); string(got) != failed {
		t.Errorf("an unknown task's result changed:\n got %s\nwant %s", got, failed)
	}
	upstream.send(`{"jsonrpc":"2.0","method":"notifications/tasks","params":` + failed + `}`)
	if got := decode(t, client.recv(5*time.Second)); string(got.Params) != failed {
		t.Errorf("an unknown task's notification changed:\n got %s\nwant %s", got.Params, failed)
	}
	client.send(`{"jsonrpc":"2.0","id":2,"method":"tasks/result","params":{"taskId":"never-created"}}`)
	upstream.recv(5 * time.Second)
	bare := `{"content":[{"type":"text","text":"503 Service Unavailable"}],"isError":true}`
	upstream.send(`{"jsonrpc":"2.0","id":2,"result":` + bare + `}`)
	if got := decode(t, client.recv(5*time.Second)); string(got.Result) != bare {
		t.Errorf("an unknown task's tasks/result changed:\n got %s\nwant %s", got.Result, bare)
	}

	// A known task whose result the server classified itself.
	startTask(t, client, upstream, "3", "t", "tagged")
	tagged := completedTask("tagged", `{"content":[{"type":"text","text":"busy"}],"isError":true,"_meta":{"io.modelcontextprotocol/toolFailure":{"class":"reliability","code":"retryable_transient_error","retryable":true,"correlationId":"tf_SERVERS_OWN"}}}`)
	if got := pollTask(t, client, upstream, 4, "tagged", tagged); string(got) != tagged {
		t.Errorf("a tagged task result changed:\n got %s\nwant %s", got, tagged)
	}
}

// TestTaskMemoryIsCapped: a session remembers at most Config.MaxTasks
// tasks; past it the oldest is forgotten (its failure then goes out
// without the key, as an unknown task's), and the newest still get it.
func TestTaskMemoryIsCapped(t *testing.T) {
	t.Parallel()
	svc := startService(t)
	p := newProxyConfig(t, mcpproxy.Config{Classifier: mcpfailure.NewClassifierClient(nil, svc.url, svc.reportKey), MaxTasks: 2})
	client, upstream, _ := relay(t, p)
	handshake(t, client, upstream, "raw-task-upstream")
	listTools(t, client, upstream, `[{"name":"t","inputSchema":{"type":"object"}}]`)
	for i := 1; i <= 3; i++ {
		startTask(t, client, upstream, fmt.Sprint(i), "t", fmt.Sprintf("cap-%d", i))
	}
	failed := `{"content":[{"type":"text","text":"404 Not Found: no such export"}],"isError":true}`
	first := completedTask("cap-1", failed)
	if got := pollTask(t, client, upstream, 10, "cap-1", first); string(got) != first {
		t.Errorf("the oldest task, past the cap, got the key:\n got %s\nwant %s", got, first)
	}
	for _, id := range []string{"cap-2", "cap-3"} {
		_, res := taskResult(t, pollTask(t, client, upstream, 11, id, completedTask(id, failed)))
		toolFailure(t, res)
	}
}

// TestTaskFailureFromTypeScriptSDK runs the proxy in front of a real server
// whose tools run as tasks, on the TypeScript SDK's experimental task
// support (protocol 2025-11-25): tools/call with params.task is answered
// with a task handle, which passes unchanged; the failed result that
// tasks/result answers gets the key, recorded under the tool's name and the
// server's, keeping the SDK's related-task _meta; a second tasks/result
// gets the same correlation ID; a successful task's result gets no key.
func TestTaskFailureFromTypeScriptSDK(t *testing.T) {
	t.Parallel()
	node, sdk := nodeWithSDK(t)
	svc := startService(t)
	p := newProxy(t, mcpfailure.NewClassifierClient(nil, svc.url, svc.reportKey), 0)
	script, err := filepath.Abs(filepath.Join("testdata", "taskserver.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	up, err := mcpproxy.Command([]string{node, script, sdk}, testWriter{t})
	if err != nil {
		t.Fatal(err)
	}
	ct, client := rawPipe(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Relay(ctx, ct, up) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("Relay did not return within 10 s of its context being cancelled")
		}
	})

	// next returns the client's next answer, skipping the notifications
	// (notifications/tasks/status) the SDK sends as a task moves on.
	next := func() message {
		t.Helper()
		for {
			m := decode(t, client.recv(30*time.Second))
			if m.Method == "" {
				return m
			}
		}
	}
	client.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"tasks":{}},"clientInfo":{"name":"raw","version":"0"}}}`)
	next()
	client.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	client.send(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	next()

	run := func(id int, tool string) (taskID string, result json.RawMessage) {
		t.Helper()
		client.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":{},"task":{"ttl":60000}}}`, id, tool))
		created := next()
		var handle struct {
			Task struct {
				TaskID string `json:"taskId"`
				Status string `json:"status"`
			} `json:"task"`
		}
		if err := json.Unmarshal(created.Result, &handle); err != nil || handle.Task.TaskID == "" {
			t.Fatalf("%s: no task handle: %s %v", tool, created.Result, err)
		}
		if strings.Contains(string(created.Result), mcpfailure.MetaKey) {
			t.Errorf("%s: the task handle carries the key: %s", tool, created.Result)
		}
		client.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tasks/result","params":{"taskId":%q}}`, id+1, handle.Task.TaskID))
		got := next()
		if got.Error != nil {
			t.Fatalf("%s: tasks/result: %+v", tool, got.Error)
		}
		return handle.Task.TaskID, got.Result
	}

	taskID, result := run(10, "export_report")
	checkConforms(t, "tasks/result", result)
	tf := toolFailure(t, result)
	if tf["class"] != "reliability" {
		t.Errorf("a 503 of an idempotent read-only tool: got %v", tf)
	}
	var res struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	_ = json.Unmarshal(result, &res)
	if string(res.Meta["com.example/jobId"]) != `"job-42"` || !strings.Contains(string(res.Meta["io.modelcontextprotocol/related-task"]), taskID) {
		t.Errorf("other _meta keys lost: %s", result)
	}
	id := tf["correlationId"].(string)
	rec, err := svc.failures().GetFailure(t.Context(), &toolfailurev1.GetFailureRequest{CorrelationId: id})
	if err != nil {
		t.Fatalf("GetFailure(%s): %v", id, err)
	}
	if f := rec.GetFailure(); f.GetTool() != "export_report" || f.GetServer() != "ts-task-upstream" {
		t.Errorf("record: tool %q server %q", f.GetTool(), f.GetServer())
	}
	client.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":20,"method":"tasks/result","params":{"taskId":%q}}`, taskID))
	if again := toolFailure(t, next().Result)["correlationId"]; again != id {
		t.Errorf("a second tasks/result got correlation ID %v, the first %s", again, id)
	}
	// tasks/get of 2025-11-25 carries no result: it passes as it came.
	client.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":21,"method":"tasks/get","params":{"taskId":%q}}`, taskID))
	if got := next(); !strings.Contains(string(got.Result), `"status":"completed"`) || strings.Contains(string(got.Result), mcpfailure.MetaKey) {
		t.Errorf("tasks/get: %s", got.Result)
	}

	_, denied := run(30, "delete_archive")
	if tf := toolFailure(t, denied); tf["class"] != "governance" {
		t.Errorf("a 403: got %v", tf)
	}

	_, ok := run(40, "count_rows")
	if strings.Contains(string(ok), mcpfailure.MetaKey) || !strings.Contains(string(ok), "counted 12 rows") {
		t.Errorf("a successful task's result: %s", ok)
	}
}

// nodeWithSDK returns node and the folder of an installed copy of the
// TypeScript SDK, from one of the repository's npm installs. Without them
// the test is skipped, unless TOOLFAILURE_REQUIRE_NODE is set, as in CI.
func nodeWithSDK(t *testing.T) (node, sdk string) {
	t.Helper()
	skip := func(why string) {
		t.Helper()
		if os.Getenv("TOOLFAILURE_REQUIRE_NODE") != "" {
			t.Fatal("TOOLFAILURE_REQUIRE_NODE is set: " + why)
		}
		t.Skip(why + " (set TOOLFAILURE_REQUIRE_NODE=1 to fail instead)")
	}
	if testing.Short() {
		t.Skip("runs node: not in the -short inner loop")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		skip("no node on PATH")
	}
	for _, dir := range []string{"sdk/typescript", "conformance/sep-3313", "examples/typescript", "examples/conformance-server"} {
		pkg := filepath.Join("..", "..", dir, "node_modules", "@modelcontextprotocol", "sdk")
		if _, err := os.Stat(filepath.Join(pkg, "dist", "esm", "experimental", "tasks", "stores", "in-memory.js")); err == nil {
			abs, err := filepath.Abs(pkg)
			if err != nil {
				t.Fatal(err)
			}
			return node, abs
		}
	}
	skip("the TypeScript SDK is not installed: run npm ci in sdk/typescript")
	return "", ""
}

// TestFailedTaskIsRecorded: a task that failed with a JSON-RPC error
// (status "failed") is recorded as a tools/call answered with that error
// is: the error, in the task's "error" member (2026-07-28) or as the answer
// to tasks/result (2025-11-25), gets data.correlationId, its other members
// and the task's kept; a later poll and a notification of the same task
// carry the same ID, and one failed task is one record.
func TestFailedTaskIsRecorded(t *testing.T) {
	t.Parallel()
	svc := startService(t)
	p := newProxy(t, mcpfailure.NewClassifierClient(nil, svc.url, svc.reportKey), 0)
	client, upstream, _ := relay(t, p)
	handshake(t, client, upstream, "raw-task-upstream")
	listTools(t, client, upstream, `[{"name":"reindex","inputSchema":{"type":"object"}},{"name":"compact","inputSchema":{"type":"object"}}]`)

	startTask(t, client, upstream, "1", "reindex", "t-failed")
	failed := `{"resultType":"complete","taskId":"t-failed","status":"failed","createdAt":"2026-07-28T10:30:00Z","lastUpdatedAt":"2026-07-28T10:31:00Z","ttlMs":60000,` +
		`"error":{"code":-32603,"message":"index shard 3 is unreachable: connection refused","data":{"shard":3}}}`
	got := pollTask(t, client, upstream, 2, "t-failed", failed)
	var task map[string]json.RawMessage
	if err := json.Unmarshal(got, &task); err != nil {
		t.Fatalf("task %s: %v", got, err)
	}
	var sent map[string]json.RawMessage
	_ = json.Unmarshal([]byte(failed), &sent)
	for k, v := range sent {
		if k != "error" && string(task[k]) != string(v) {
			t.Errorf("task member %s changed: %s, sent %s", k, task[k], v)
		}
	}
	if keys := orderedKeys(t, got); strings.Join(keys, ",") != strings.Join(orderedKeys(t, json.RawMessage(failed)), ",") {
		t.Errorf("task members %v: order not kept", keys)
	}
	var werr struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
		Data    struct {
			Shard         int    `json:"shard"`
			CorrelationID string `json:"correlationId"`
		} `json:"data"`
	}
	if err := json.Unmarshal(task["error"], &werr); err != nil {
		t.Fatalf("error %s: %v", task["error"], err)
	}
	if werr.Code != -32603 || werr.Message != "index shard 3 is unreachable: connection refused" || werr.Data.Shard != 3 {
		t.Errorf("the task's error changed: %s", task["error"])
	}
	id := werr.Data.CorrelationID
	if id == "" {
		t.Fatalf("the failed task's error has no correlation ID: %s", got)
	}
	rec, err := svc.failures().GetFailure(t.Context(), &toolfailurev1.GetFailureRequest{CorrelationId: id})
	if err != nil {
		t.Fatalf("GetFailure(%s): %v", id, err)
	}
	if f := rec.GetFailure(); f.GetTool() != "reindex" || f.GetServer() != "raw-task-upstream" || f.GetTraceId() != "4bf92f3577b34da6a3ce929d0e0e4736" ||
		!strings.Contains(f.GetError().GetMessage(), "shard 3") {
		t.Errorf("record: tool %q server %q trace %q message %q", f.GetTool(), f.GetServer(), f.GetTraceId(), f.GetError().GetMessage())
	}
	if strings.Contains(string(got), "toolFailure") {
		t.Errorf("a failed task is a JSON-RPC error, which carries no toolFailure key: %s", got)
	}

	// Polled again and pushed: the same ID, one record.
	if again := pollTask(t, client, upstream, 3, "t-failed", failed); !strings.Contains(string(again), id) {
		t.Errorf("a second poll: %s, want correlation ID %s", again, id)
	}
	upstream.send(`{"jsonrpc":"2.0","method":"notifications/tasks","params":` + failed + `}`)
	if note := decode(t, client.recv(10*time.Second)); note.Method != "notifications/tasks" || !strings.Contains(string(note.Params), id) {
		t.Errorf("the notification: %s %s, want correlation ID %s", note.Method, note.Params, id)
	}
	list, err := svc.failures().ListFailures(t.Context(), &toolfailurev1.ListFailuresRequest{Filter: &toolfailurev1.FailureFilter{Tool: "reindex"}})
	if err != nil {
		t.Fatalf("ListFailures: %v", err)
	}
	if n := len(list.GetFailures()); n != 1 {
		t.Errorf("%d records of the failed task, want 1", n)
	}

	// 2025-11-25: the answer to tasks/result of a failed task is its error.
	startTask(t, client, upstream, "4", "compact", "t-old")
	client.send(`{"jsonrpc":"2.0","id":5,"method":"tasks/result","params":{"taskId":"t-old"}}`)
	if m := decode(t, upstream.recv(5*time.Second)); m.Method != "tasks/result" {
		t.Fatalf("upstream got %q, want tasks/result", m.Method)
	}
	upstream.send(`{"jsonrpc":"2.0","id":5,"error":{"code":-32603,"message":"compaction aborted: disk full"}}`)
	answer := client.recv(10 * time.Second)
	var resp struct {
		Error struct {
			Code int64 `json:"code"`
			Data struct {
				CorrelationID string `json:"correlationId"`
			} `json:"data"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(answer), &resp); err != nil || resp.Error.Code != -32603 || resp.Error.Data.CorrelationID == "" {
		t.Fatalf("tasks/result of a failed task: %s, want the error with a correlation ID", answer)
	}
	rec, err = svc.failures().GetFailure(t.Context(), &toolfailurev1.GetFailureRequest{CorrelationId: resp.Error.Data.CorrelationID})
	if err != nil || rec.GetFailure().GetTool() != "compact" {
		t.Errorf("the record of the failed task: %v %v", rec.GetFailure().GetTool(), err)
	}
}
