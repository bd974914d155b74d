package mcpproxy

import (
	"bytes"
	"container/list"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/omcp/toolfailure/mcpfailure"
)

// A tool call may run as a task: the server answers tools/call with a task
// handle and the CallToolResult comes later, in another message. A tool that
// fails still ends in a completed task (only a JSON-RPC error makes a task
// failed), and the key rides inside the task's result. The messages that
// carry that result:
//
//   - 2025-11-25 (tasks in the core protocol): tools/call with params.task
//     is answered {"task": {"taskId": …}}; the answer to tasks/result is the
//     CallToolResult itself. tasks/get and notifications/tasks/status carry
//     the task without its result.
//   - 2026-07-28 (the io.modelcontextprotocol/tasks extension): tools/call
//     is answered {"resultType": "task", "taskId": …}; a completed task's
//     result is inlined in the answer to tasks/get and in
//     notifications/tasks, as its "result" member.
//
// A task that failed (status "failed": the call ended in a JSON-RPC error)
// is recorded as a tools/call answered with that error is, and the error
// carries the correlation ID in its data: in 2025-11-25 it is the answer to
// tasks/result, in 2026-07-28 the task's "error" member.
//
// The service needs the tool's name (and the call's _meta, for the trace),
// which none of those messages has, so the session remembers, for each task
// a tools/call created, the call it came from. Task IDs are the server's,
// and a server may create any number of tasks: the memory is bounded by a
// cap (the oldest task is forgotten first) and by an age.

// DefaultMaxTasks bounds the tasks a session remembers when
// Config.MaxTasks is zero.
const DefaultMaxTasks = 1000

// DefaultTaskExpiry is how long a session remembers a task when
// Config.TaskExpiry is zero: longer than a tool call runs, short enough that
// tasks a client never came back for do not stay forever.
const DefaultTaskExpiry = 24 * time.Hour

// taskTable remembers the tool calls that became tasks in one session.
type taskTable struct {
	max    int
	expiry time.Duration

	mu    sync.Mutex
	byID  map[string]*list.Element // of *taskEntry
	order *list.List               // oldest first; also expiry order, as every entry lives as long
}

// taskEntry is one task a tools/call created.
type taskEntry struct {
	id      string
	tool    string
	meta    map[string]any // the call's trace context and per-request protocol keys
	created time.Time

	// mu is held while the task's failure is classified, so that the carriers
	// of one result (polls, a notification) share one record and one
	// correlation ID rather than each making its own.
	mu      sync.Mutex
	obj     json.RawMessage // the toolFailure object, once the service gave one
	failure *mcpfailure.ToolFailure
	errID   string // the correlation ID of the task's JSON-RPC error, once recorded
}

func newTaskTable(max int, expiry time.Duration) *taskTable {
	return &taskTable{max: max, expiry: expiry, byID: map[string]*list.Element{}, order: list.New()}
}

// add remembers task id as created by c now, forgetting the expired tasks
// and, past the cap, the oldest. It returns how many were forgotten for
// the cap.
func (t *taskTable) add(id string, c *call, now time.Time) (evicted int) {
	e := &taskEntry{id: id, tool: c.tool, meta: taskMeta(c.meta), created: now}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.expire(now)
	if el, ok := t.byID[id]; ok {
		// A server that reuses an ID: the newer call is the one its
		// result belongs to.
		t.order.Remove(el)
		delete(t.byID, id)
	}
	for t.order.Len() >= t.max {
		old := t.order.Remove(t.order.Front()).(*taskEntry)
		delete(t.byID, old.id)
		evicted++
	}
	t.byID[id] = t.order.PushBack(e)
	return evicted
}

// get returns the task id, nil when it is unknown or expired.
func (t *taskTable) get(id string, now time.Time) *taskEntry {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.expire(now)
	if el, ok := t.byID[id]; ok {
		return el.Value.(*taskEntry)
	}
	return nil
}

// forget drops task id: its result was a success, and nothing about it is
// needed any more.
func (t *taskTable) forget(id string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if el, ok := t.byID[id]; ok {
		t.order.Remove(el)
		delete(t.byID, id)
	}
}

// len is the number of tasks remembered.
func (t *taskTable) len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.byID)
}

func (t *taskTable) expire(now time.Time) {
	for el := t.order.Front(); el != nil; el = t.order.Front() {
		e := el.Value.(*taskEntry)
		if now.Sub(e.created) < t.expiry {
			return
		}
		t.order.Remove(el)
		delete(t.byID, e.id)
	}
}

// taskMeta keeps of a tools/call's _meta what a later classification of its
// task reads: the trace context, and the per-request protocol keys the
// proxy's own tools/list sends. The rest (a progress token, a client's own
// keys) is not needed, and may be large.
func taskMeta(meta map[string]any) map[string]any {
	out := map[string]any{}
	for _, k := range []string{"traceparent", "tracestate", mcp.MetaKeyProtocolVersion, mcp.MetaKeyClientInfo, mcp.MetaKeyClientCapabilities} {
		if v, ok := meta[k]; ok {
			out[k] = v
		}
	}
	return out
}

// call is the tools/call the task came from, as annotate reads it. Its
// version is empty: the result it annotates is inside another message,
// which keeps its own resultType, so none is added to it.
func (e *taskEntry) call() *call {
	return &call{method: "tools/call", tool: e.tool, meta: e.meta, start: e.created}
}

// createdTask reads the task ID of a CreateTaskResult (either shape); ""
// when result is not one.
func createdTask(result json.RawMessage) string {
	members, err := objectMembers(result)
	if err != nil {
		return ""
	}
	// 2026-07-28: the task's members are the result's, marked resultType "task".
	if rt, ok := lookup(members, "resultType"); ok {
		if s, _ := decodeString(rt); s == "task" {
			return stringMember(members, "taskId")
		}
	}
	// 2025-11-25: the task is the result's "task" member.
	if task, ok := lookup(members, "task"); ok {
		if tm, err := objectMembers(task); err == nil {
			return stringMember(tm, "taskId")
		}
	}
	return ""
}

func stringMember(members []member, name string) string {
	v, ok := lookup(members, name)
	if !ok {
		return ""
	}
	s, _ := decodeString(v)
	return s
}

// rememberTask notes the task a tools/call answer created, if it is one.
func (s *session) rememberTask(c *call, result json.RawMessage) {
	// Without a service there is nothing to classify later; a result
	// without the word is no task handle and is not decoded.
	if c.tool == "" || s.p.cfg.Classifier == nil || !bytes.Contains(result, []byte("taskId")) {
		return
	}
	id := createdTask(result)
	if id == "" {
		return
	}
	if n := s.tasks.add(id, c, time.Now()); n > 0 {
		s.log.Warn("toolfailure proxy: too many tasks in one session; the oldest are forgotten, and their failures will not get the key",
			slog.Int("forgotten", n), slog.Int("max", s.tasks.max))
	}
}

// taskParams reads params.taskId of a tasks/get or tasks/result request.
func taskParams(params json.RawMessage) string {
	members, err := objectMembers(params)
	if err != nil {
		return ""
	}
	return stringMember(members, "taskId")
}

// taskState reads a task object (a tasks/get result, the params of a task
// notification; 2026-07-28): its members, ID and inlined result. ok is
// false when it is not an object.
func taskState(raw json.RawMessage) (members []member, id string, result json.RawMessage, ok bool) {
	members, err := objectMembers(raw)
	if err != nil {
		return nil, "", nil, false
	}
	result, _ = lookup(members, "result")
	return members, stringMember(members, "taskId"), result, true
}

// taskAnswer handles the answer to a tasks/result (2025-11-25) or tasks/get
// (2026-07-28) the client sent. It reports false when the answer is not a
// failed result of a remembered task, to be sent as it came.
func (s *session) taskAnswer(ctx context.Context, c *call, m *jsonrpc.Response) bool {
	if s.p.cfg.Classifier == nil {
		return false
	}
	if m.Error != nil {
		// 2025-11-25: the answer to tasks/result of a failed task is its
		// JSON-RPC error.
		if c.method != "tasks/result" || !recordsProtocolError(m.Error) {
			return false
		}
		e := s.tasks.get(c.taskID, time.Now())
		if e == nil {
			return false
		}
		s.later(ctx, func() jsonrpc.Message {
			var werr *jsonrpc.Error
			if errors.As(m.Error, &werr) {
				if id := s.recordTaskError(ctx, e, werr); id != "" {
					if data, ok := mcpfailure.WithCorrelationID(werr.Data, id); ok {
						return &jsonrpc.Response{ID: m.ID, Error: &jsonrpc.Error{Code: werr.Code, Message: werr.Message, Data: data}}
					}
				}
			}
			return m
		})
		return true
	}
	switch c.method {
	case "tasks/result":
		if !isErrorResult(m.Result) {
			// tasks/result answers once the task is terminal: a success
			// leaves nothing to annotate later.
			s.tasks.forget(c.taskID)
			return false
		}
		e := s.tasks.get(c.taskID, time.Now())
		if e == nil {
			return false
		}
		s.later(ctx, func() jsonrpc.Message {
			if result, ok := s.annotateTask(ctx, e, m.Result); ok {
				return &jsonrpc.Response{ID: m.ID, Result: result}
			}
			return m
		})
		return true
	case "tasks/get":
		e, members, result, taskErr := s.failedTaskResult(m.Result, c.taskID)
		if e == nil {
			return false
		}
		s.later(ctx, func() jsonrpc.Message {
			if task, ok := s.annotateInTask(ctx, e, members, result, taskErr); ok {
				return &jsonrpc.Response{ID: m.ID, Result: task}
			}
			return m
		})
		return true
	}
	return false
}

// recordTaskError records the JSON-RPC error task e failed with, once per
// task, and returns its correlation ID ("" when it was not recorded).
func (s *session) recordTaskError(ctx context.Context, e *taskEntry, werr *jsonrpc.Error) string {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.errID == "" {
		_, e.errID = s.classifyProtocolError(ctx, e.call(), &jsonrpc.Response{Error: werr})
	}
	return e.errID
}

// failedTaskResult returns the remembered task whose object raw is, when
// it carries a failed result, with the object's members and that result;
// nil otherwise. A task that carries a successful result is forgotten. The
// status is not read: a failed result is the tool's whatever status the
// server gave the task (2025-11-25 asked for failed, 2026-07-28 requires
// completed), and the proxy passes the status on as it came.
// fallbackID is the taskId of the request raw answers, for an object
// without one.
//
// A task whose status is "failed" (2026-07-28) is returned with its "error"
// member, the JSON-RPC error it failed with, instead of a result.
func (s *session) failedTaskResult(raw json.RawMessage, fallbackID string) (e *taskEntry, members []member, result, taskErr json.RawMessage) {
	if !bytes.Contains(raw, []byte("taskId")) && fallbackID == "" {
		return nil, nil, nil, nil
	}
	members, id, result, ok := taskState(raw)
	if !ok {
		return nil, nil, nil, nil
	}
	if id == "" {
		id = fallbackID
	}
	if stringMember(members, "status") == "failed" {
		if taskErr, ok := lookup(members, "error"); ok {
			return s.tasks.get(id, time.Now()), members, nil, taskErr
		}
	}
	switch {
	case result == nil:
	case isErrorResult(result):
		return s.tasks.get(id, time.Now()), members, result, nil
	default:
		// A success: nothing about the task is needed any more.
		s.tasks.forget(id)
	}
	return nil, nil, nil, nil
}

// taskNotification handles a task status notification from the upstream.
// It reports false when it is not one that carries a failed result of a
// remembered task, to be sent as it came.
func (s *session) taskNotification(ctx context.Context, req *jsonrpc.Request) bool {
	if req.IsCall() || s.p.cfg.Classifier == nil {
		return false
	}
	if req.Method != "notifications/tasks" && req.Method != "notifications/tasks/status" {
		return false
	}
	e, members, result, taskErr := s.failedTaskResult(req.Params, "")
	if e == nil {
		return false
	}
	s.later(ctx, func() jsonrpc.Message {
		if params, ok := s.annotateInTask(ctx, e, members, result, taskErr); ok {
			return &jsonrpc.Request{Method: req.Method, Params: params}
		}
		return req
	})
	return true
}

// annotateInTask adds the key to the result inlined in a task object and
// returns the task with every other member as it came (its status stays
// completed: a tool's failure is not the task's). For a failed task
// (taskErr), it records the error and adds the correlation ID to its data
// instead.
func (s *session) annotateInTask(ctx context.Context, e *taskEntry, task []member, result, taskErr json.RawMessage) (json.RawMessage, bool) {
	name, annotated, ok := "result", json.RawMessage(nil), false
	if taskErr != nil {
		name = "error"
		annotated, ok = s.annotateTaskError(ctx, e, taskErr)
	} else {
		annotated, ok = s.annotateTask(ctx, e, result)
	}
	if !ok {
		return nil, false
	}
	out, err := setMember(task, name, annotated)
	if err != nil {
		return nil, false
	}
	b, err := encodeObject(out)
	if err != nil {
		return nil, false
	}
	return b, true
}

// annotateTask adds the key to a failed result of task e, classifying the
// failure the first time and reusing that object for every later carrier
// of the same result, so that a task polled ten times is one record with
// one correlation ID.
func (s *session) annotateTask(ctx context.Context, e *taskEntry, raw json.RawMessage) (json.RawMessage, bool) {
	// The answer is owed even when the session is ending.
	ctx = context.WithoutCancel(ctx)
	e.mu.Lock()
	defer e.mu.Unlock()
	c := e.call()
	if e.obj == nil {
		members, obj, failure, ok := s.classifyResult(ctx, c, raw)
		if !ok {
			return nil, false
		}
		e.obj, e.failure = obj, failure
		out, err := withMetaKey(members, s.p.cfg.MetaKey, obj)
		if err != nil {
			s.log.Error("toolfailure proxy: cannot add the toolFailure key", slog.Any("error", err))
			return nil, false
		}
		if f := failure; f != nil {
			s.log.Info("toolfailure proxy: a tool call run as a task failed; recorded",
				slog.String("tool", c.tool),
				slog.String("taskId", e.id),
				slog.String("class", string(f.Class)),
				slog.String("failureCode", f.Code),
				slog.String("correlationId", f.CorrelationID),
				callDuration(c))
		}
		return out, true
	}
	members, err := objectMembers(raw)
	if err != nil || metaHasKey(members, s.p.cfg.MetaKey) {
		return nil, false
	}
	out, err := withMetaKey(members, s.p.cfg.MetaKey, e.obj)
	if err != nil {
		return nil, false
	}
	return out, true
}

// annotateTaskError records the JSON-RPC error object of a failed task and
// returns it with data.correlationId added, its other members as they came
// (as recordAndSendError does for an error answer).
func (s *session) annotateTaskError(ctx context.Context, e *taskEntry, raw json.RawMessage) (json.RawMessage, bool) {
	members, err := objectMembers(raw)
	if err != nil {
		return nil, false
	}
	var werr jsonrpc.Error
	if json.Unmarshal(raw, &werr) != nil || !recordsProtocolError(&werr) {
		return nil, false
	}
	id := s.recordTaskError(context.WithoutCancel(ctx), e, &werr)
	if id == "" {
		return nil, false
	}
	data, ok := mcpfailure.WithCorrelationID(werr.Data, id)
	if !ok {
		return nil, false
	}
	out, err := setMember(members, "data", data)
	if err != nil {
		return nil, false
	}
	b, err := encodeObject(out)
	return b, err == nil
}

// later sends the message build returns, which takes a detour through the
// service, from a goroutine of its own, so that the session goes on
// meanwhile.
func (s *session) later(ctx context.Context, build func() jsonrpc.Message) {
	s.work.Add(1)
	go func() {
		defer s.work.Done()
		s.sendLater(ctx, build())
	}()
}

// sendLater writes a message that took the detour through the service.
func (s *session) sendLater(ctx context.Context, msg jsonrpc.Message) {
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), writeTimeout)
	defer cancel()
	s.toClient(wctx, msg)
}
