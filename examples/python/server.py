#!/usr/bin/env python3
"""A minimal MCP server over stdio, with the Python standard library only.

Its tools fail the way real ones do: a reset connection, a missing
repository, a send that waits for a person's confirmation, a rate limit
answered as a JSON-RPC error. When TOOLFAILURE_KEY is set, failed results
get the toolFailure key through the helper in toolfailure.py (three lines in
call_tool below). When it is not, the server knows nothing about toolFailure,
and "toolfailure proxy -- python3 server.py" adds the key instead.

The protocol is newline-delimited JSON-RPC 2.0 on stdin and stdout; logs go
to stderr, never stdout. Tool calls run on threads so that a slow tool does
not hold up pings, cancellations or the answers to the server's own
requests (elicitation, here).
"""

from __future__ import annotations

import itertools
import json
import os
import sys
import threading
import time
from typing import Any, Callable, Optional

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import toolfailure  # noqa: E402 - the helper lives next to this file

PROTOCOL_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]
SERVER_INFO = {"name": "python-example", "version": "1.0.0"}


class ToolError(Exception):
    """A tool failure with the facts an upstream API gave."""

    def __init__(self, message: str, *, status: Optional[int] = None, retry_after: Optional[str] = None,
                 structured: Any = None, meta: Optional[dict] = None):
        super().__init__(message)
        self.status = status
        self.headers = {"Retry-After": retry_after} if retry_after else None
        self.structured = structured
        self.meta = meta


class ProtocolError(Exception):
    """Answered as a JSON-RPC error instead of a tool result."""

    def __init__(self, code: int, message: str, data: Any = None):
        super().__init__(message)
        self.code, self.message, self.data = code, message, data


class Server:
    def __init__(self, classify: bool):
        self.classify = classify
        self.out_lock = threading.Lock()
        self.ids = itertools.count(1)
        self.waiting: dict[Any, dict] = {}  # our requests to the client, by ID
        self.running: dict[Any, threading.Event] = {}  # client calls, by ID, to cancel
        self.lock = threading.Lock()
        self.cancelled = 0
        self.tools: dict[str, tuple[dict, Callable[..., dict]]] = {}
        self._register()

    # -- transport ---------------------------------------------------------

    def send(self, msg: dict) -> None:
        line = json.dumps(msg, ensure_ascii=False, separators=(",", ":"))
        with self.out_lock:
            sys.stdout.write(line + "\n")
            sys.stdout.flush()

    def request_client(self, method: str, params: dict, timeout: float = 30) -> dict:
        """Send a request to the client and wait for its answer."""
        rid = f"py-{next(self.ids)}"
        slot = {"event": threading.Event()}
        with self.lock:
            self.waiting[rid] = slot
        self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        if not slot["event"].wait(timeout):
            raise ToolError(f"the client did not answer {method} within {timeout:.0f} s")
        if "error" in slot:
            raise ToolError(f"the client refused {method}: {slot['error'].get('message')}")
        return slot["result"]

    def serve(self) -> None:
        mode = "classifying failed results through the toolfailure service" if self.classify \
            else "not classifying (no TOOLFAILURE_KEY)"
        print(f"python-example MCP server: {mode}", file=sys.stderr, flush=True)
        for line in sys.stdin:
            line = line.strip()
            if not line:
                continue
            try:
                msg = json.loads(line)
            except ValueError:
                self.send({"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "parse error"}})
                continue
            self.dispatch(msg)

    def dispatch(self, msg: dict) -> None:
        if "method" not in msg:  # an answer to one of our requests
            with self.lock:
                slot = self.waiting.pop(msg.get("id"), None)
            if slot is not None:
                slot.update({k: msg[k] for k in ("result", "error") if k in msg})
                slot["event"].set()
            return
        method, params, rid = msg["method"], msg.get("params") or {}, msg.get("id")
        if "id" not in msg:
            self.notification(method, params)
            return
        if method == "tools/call":
            cancel = threading.Event()
            with self.lock:
                self.running[rid] = cancel
            threading.Thread(target=self.call_tool, args=(rid, params, cancel), daemon=True).start()
            return
        try:
            self.send({"jsonrpc": "2.0", "id": rid, "result": self.handle(method, params)})
        except ProtocolError as e:
            self.send_error(rid, e)

    def send_error(self, rid: Any, e: ProtocolError) -> None:
        err: dict[str, Any] = {"code": e.code, "message": e.message}
        if e.data is not None:
            err["data"] = e.data
        self.send({"jsonrpc": "2.0", "id": rid, "error": err})

    def notification(self, method: str, params: dict) -> None:
        if method == "notifications/cancelled":
            with self.lock:
                ev = self.running.get(params.get("requestId"))
            if ev is not None:
                ev.set()

    def handle(self, method: str, params: dict) -> dict:
        if method == "initialize":
            asked = params.get("protocolVersion")
            return {
                "protocolVersion": asked if asked in PROTOCOL_VERSIONS else PROTOCOL_VERSIONS[0],
                "capabilities": {"tools": {"listChanged": False}},
                "serverInfo": SERVER_INFO,
            }
        if method == "ping":
            return {}
        if method == "tools/list":
            return {"tools": [spec for spec, _ in self.tools.values()]}
        # server/discover (the stateless protocol) lands here too: a client
        # that gets "method not found" falls back to initialize.
        raise ProtocolError(-32601, f"Method not found: {method}")

    def call_tool(self, rid: Any, params: dict, cancel: threading.Event) -> None:
        name = params.get("name", "")
        try:
            if name not in self.tools:
                raise ProtocolError(-32602, f"Unknown tool: {name}")
            spec, fn = self.tools[name]
            try:
                result = fn(params.get("arguments") or {}, params.get("_meta") or {}, cancel)
            except ToolError as e:
                result = {"content": [{"type": "text", "text": str(e)}], "isError": True}
                if e.structured is not None:
                    result["structuredContent"] = e.structured
                if e.meta:
                    result["_meta"] = e.meta
                if self.classify:
                    result = toolfailure.attach_tool_failure(
                        result, tool=name, exception=e, annotations=spec.get("annotations"),
                        request_meta=params.get("_meta"), server=SERVER_INFO["name"])
            except ConnectionError as e:
                result = {"content": [{"type": "text", "text": f"{name}: {e}"}], "isError": True}
                if self.classify:
                    result = toolfailure.attach_tool_failure(
                        result, tool=name, exception=e, annotations=spec.get("annotations"),
                        request_meta=params.get("_meta"), server=SERVER_INFO["name"])
            if cancel.is_set():
                return  # the client gave up on it: no answer, as the specification asks
            self.send({"jsonrpc": "2.0", "id": rid, "result": result})
        except ProtocolError as e:
            self.send_error(rid, e)
        finally:
            with self.lock:
                self.running.pop(rid, None)

    # -- tools -------------------------------------------------------------

    def tool(self, name: str, description: str, properties: Optional[dict] = None,
             annotations: Optional[dict] = None) -> Callable:
        def register(fn: Callable[..., dict]) -> Callable[..., dict]:
            spec: dict[str, Any] = {
                "name": name,
                "description": description,
                "inputSchema": {"type": "object", "properties": properties or {}},
            }
            if annotations:
                spec["annotations"] = annotations
            self.tools[name] = (spec, fn)
            return fn
        return register

    def _register(self) -> None:
        @self.tool("get_weather", "Current weather for a city (always succeeds).",
                   {"city": {"type": "string"}}, {"readOnlyHint": True, "idempotentHint": True})
        def get_weather(args, meta, cancel):
            city = args.get("city", "Zürich")
            return {
                "content": [{"type": "text", "text": f"{city}: 21 °C, <sunny> & calm"}],
                "structuredContent": {"city": city, "celsius": 21, "sky": "sunny", "ratio": 0.1},
                "_meta": {"com.example/source": "station-7", "com.example/cached": False},
            }

        @self.tool("send_email", "Send an email (the SMTP relay resets the connection).",
                   {"to": {"type": "string"}}, {"idempotentHint": False})
        def send_email(args, meta, cancel):
            raise ConnectionResetError(104, "Connection reset by peer")

        @self.tool("get_repo", "Fetch a repository (it does not exist).",
                   {"name": {"type": "string"}}, {"readOnlyHint": True, "idempotentHint": True})
        def get_repo(args, meta, cancel):
            raise ToolError(f"404 Not Found: no repository {args.get('name', 'acme/nope')}", status=404)

        @self.tool("search", "Search (the backend is overloaded).",
                   {"q": {"type": "string"}}, {"readOnlyHint": True, "idempotentHint": True})
        def search(args, meta, cancel):
            raise ToolError("503 Service Unavailable: search backend overloaded", status=503, retry_after="2")

        @self.tool("deploy", "Deploy to production (needs a person's confirmation).")
        def deploy(args, meta, cancel):
            raise ToolError(
                "The deploy needs explicit confirmation for production.",
                structured={"reason_code": "explicit_production_confirmation_required",
                            "execution": {"status": "awaiting_confirmation"}},
                meta={"com.example/requestId": "req-42", "com.example/region": "eu-west-1"},
            )

        @self.tool("rate_limited", "Refused at the protocol level with a rate limit.")
        def rate_limited(args, meta, cancel):
            raise ProtocolError(-32001, "rate limited", {"code": "rate_limited", "retryAfter": 30})

        @self.tool("count", "Count to n, reporting progress.", {"n": {"type": "integer"}})
        def count(args, meta, cancel):
            n = int(args.get("n", 3))
            token = meta.get("progressToken")
            for i in range(1, n + 1):
                if token is not None:
                    self.send({"jsonrpc": "2.0", "method": "notifications/progress",
                               "params": {"progressToken": token, "progress": i, "total": n}})
                time.sleep(0.01)
            return {"content": [{"type": "text", "text": f"counted to {n}"}]}

        @self.tool("ask_user", "Ask the user a question through the client (elicitation).")
        def ask_user(args, meta, cancel):
            answer = self.request_client("elicitation/create", {
                "message": "Which color?",
                "requestedSchema": {"type": "object", "properties": {"color": {"type": "string"}}},
            })
            return {"content": [{"type": "text", "text": json.dumps(answer, sort_keys=True)}]}

        @self.tool("wait", "Wait until cancelled (or 30 s).")
        def wait(args, meta, cancel):
            if cancel.wait(30):
                with self.lock:
                    self.cancelled += 1
            return {"content": [{"type": "text", "text": "waited"}]}

        @self.tool("stats", "What the server saw.")
        def stats(args, meta, cancel):
            with self.lock:
                seen = {"cancelled": self.cancelled}
            return {"content": [{"type": "text", "text": json.dumps(seen)}], "structuredContent": seen}

        @self.tool("crash", "Exit the process in the middle of the call.")
        def crash(args, meta, cancel):
            print("python-example MCP server: crashing on purpose", file=sys.stderr, flush=True)
            os._exit(3)


def main() -> None:
    # Line buffering is not enough: flush after every message (Server.send).
    Server(classify=bool(os.environ.get("TOOLFAILURE_KEY"))).serve()


if __name__ == "__main__":
    main()
