"""Tests of the Python helper and server, with the machine's python3:

    python3 -m unittest discover -s examples/python -v

The tests that call the service need TOOLFAILURE_SERVER and TOOLFAILURE_KEY
(report scope), and TOOLFAILURE_LOOKUP_KEY (lookup scope) to look the IDs
up; the Go test in examples/ starts a service and sets them. Without them
those tests are skipped, and the rest still run.
"""

from __future__ import annotations

import http.server
import json
import os
import re
import subprocess
import sys
import threading
import time
import unittest
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import toolfailure  # noqa: E402

SERVICE = os.environ.get("TOOLFAILURE_SERVER", "")
KEY = os.environ.get("TOOLFAILURE_KEY", "")
LOOKUP_KEY = os.environ.get("TOOLFAILURE_LOOKUP_KEY", "")
CORRELATION_ID = re.compile(r"^tf_[0-9A-HJKMNP-TV-Z]{26}[0-9A-HJKMNP-TV-Z*~$=U]$")
needs_service = unittest.skipUnless(SERVICE and KEY, "set TOOLFAILURE_SERVER and TOOLFAILURE_KEY to a running service")


def lookup(correlation_id: str) -> dict:
    req = urllib.request.Request(
        SERVICE.rstrip("/") + "/toolfailure.v1.FailureService/GetFailure",
        data=json.dumps({"correlationId": correlation_id}).encode(),
        headers={"Content-Type": "application/json", "Authorization": "Bearer " + LOOKUP_KEY},
    )
    with urllib.request.urlopen(req, timeout=10) as resp:
        return json.load(resp)["failure"]


class StdioSession:
    """A hand-driven MCP client session with server.py over stdio."""

    def __init__(self, env: dict):
        self.proc = subprocess.Popen(
            [sys.executable, os.path.join(HERE, "server.py")],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            env=env, text=True, encoding="utf-8",
        )
        self.next_id = 0

    def send(self, msg: dict) -> None:
        self.proc.stdin.write(json.dumps(msg) + "\n")
        self.proc.stdin.flush()

    def recv(self) -> dict:
        line = self.proc.stdout.readline()
        if not line:
            raise EOFError("server closed stdout: " + self.proc.stderr.read())
        return json.loads(line)

    def call(self, method: str, params: dict, on_request=None) -> dict:
        self.next_id += 1
        rid = self.next_id
        self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        while True:
            msg = self.recv()
            if msg.get("id") == rid and "method" not in msg:
                return msg
            if "method" in msg and "id" in msg and on_request is not None:
                self.send({"jsonrpc": "2.0", "id": msg["id"], "result": on_request(msg)})

    def initialize(self) -> dict:
        res = self.call("initialize", {"protocolVersion": "2025-06-18", "capabilities": {"elicitation": {}},
                                       "clientInfo": {"name": "unittest", "version": "1"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return res

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait(timeout=10)
        self.proc.stdout.close()
        self.proc.stderr.close()


@needs_service
class HelperTest(unittest.TestCase):
    def test_reset_connection(self):
        exc = ConnectionResetError(104, "Connection reset by peer")
        result = {"content": [{"type": "text", "text": str(exc)}], "isError": True, "_meta": {"com.example/x": 1}}
        out = toolfailure.attach_tool_failure(result, tool="send_email", exception=exc,
                                              annotations={"idempotentHint": False}, server="py-helper-test")
        tf = out["_meta"][toolfailure.META_KEY]
        self.assertEqual(tf["class"], "reliability")
        self.assertNotEqual(tf.get("retryable"), True, "a non-idempotent tool's failure is not retryable")
        self.assertRegex(tf["correlationId"], CORRELATION_ID)
        self.assertEqual(out["_meta"]["com.example/x"], 1, "other _meta keys survive")
        self.assertNotIn(toolfailure.META_KEY, result["_meta"], "the input is not modified")
        if LOOKUP_KEY:
            rec = lookup(tf["correlationId"])
            self.assertEqual(rec["tool"], "send_email")
            self.assertEqual(rec["server"], "py-helper-test")
            self.assertEqual(rec["error"]["type"], "ECONNRESET")

    def test_retry_time_is_an_integer(self):
        class Unavailable(Exception):
            status = 503
            headers = {"Retry-After": "2"}

        result = {"content": [{"type": "text", "text": "503 Service Unavailable"}], "isError": True}
        out = toolfailure.attach_tool_failure(result, tool="search", exception=Unavailable("503"),
                                              annotations={"idempotentHint": True, "readOnlyHint": True})
        tf = out["_meta"][toolfailure.META_KEY]
        self.assertEqual(tf["class"], "reliability")
        self.assertIs(tf["retryable"], True)
        self.assertIsInstance(tf["retryNotBefore"], int)
        self.assertIn('"retryNotBefore": %d' % tf["retryNotBefore"], json.dumps(tf))

    def test_untouched(self):
        ok = {"content": [{"type": "text", "text": "fine"}]}
        self.assertIs(toolfailure.attach_tool_failure(ok, tool="t"), ok)
        tagged = {"content": [], "isError": True,
                  "_meta": {toolfailure.META_KEY: {"class": "capability", "code": "invalid_input", "correlationId": "tf_X"}}}
        self.assertIs(toolfailure.attach_tool_failure(tagged, tool="t"), tagged)


class HelperWithoutServiceTest(unittest.TestCase):
    def test_service_that_never_answers(self):
        stop = threading.Event()

        class Hang(http.server.BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 - the stdlib's name
                stop.wait(10)

            def log_message(self, *args):
                pass

        srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Hang)
        threading.Thread(target=srv.serve_forever, daemon=True).start()
        try:
            result = {"content": [{"type": "text", "text": "boom"}], "isError": True}
            start = time.monotonic()
            with self.assertLogs("toolfailure", "WARNING"):
                out = toolfailure.attach_tool_failure(
                    result, tool="t", base_url="http://127.0.0.1:%d" % srv.server_address[1],
                    api_key="tfk_unused", budget=0.2)
            self.assertIs(out, result)
            self.assertLess(time.monotonic() - start, 2)
        finally:
            stop.set()
            srv.shutdown()
            srv.server_close()

    def test_raw_error(self):
        raw = toolfailure.raw_error(
            {"content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}], "structuredContent": {"k": 1}},
            ConnectionRefusedError(111, "refused"))
        self.assertEqual(raw["message"], "a\nb")
        self.assertEqual(raw["type"], "ECONNREFUSED")
        self.assertEqual(raw["details"], {"structuredContent": {"k": 1}})


class ServerTest(unittest.TestCase):
    """server.py over stdio, as any MCP client drives it."""

    def session(self, with_key: bool) -> StdioSession:
        env = dict(os.environ)
        if not with_key:
            env.pop("TOOLFAILURE_KEY", None)
        s = StdioSession(env)
        self.addCleanup(s.close)
        res = s.initialize()
        self.assertEqual(res["result"]["serverInfo"]["name"], "python-example")
        return s

    def test_plain(self):
        s = self.session(with_key=False)
        tools = {t["name"]: t for t in s.call("tools/list", {})["result"]["tools"]}
        self.assertIn("send_email", tools)
        failed = s.call("tools/call", {"name": "deploy", "arguments": {}})["result"]
        self.assertTrue(failed["isError"])
        self.assertNotIn(toolfailure.META_KEY, failed["_meta"])
        err = s.call("tools/call", {"name": "rate_limited", "arguments": {}})["error"]
        self.assertEqual(err["code"], -32001)
        self.assertEqual(s.call("tools/call", {"name": "nope", "arguments": {}})["error"]["code"], -32602)
        self.assertEqual(s.call("server/discover", {})["error"]["code"], -32601)
        answer = s.call("tools/call", {"name": "ask_user", "arguments": {}},
                        on_request=lambda req: {"action": "accept", "content": {"color": "teal"}})
        self.assertIn("teal", answer["result"]["content"][0]["text"])

    @needs_service
    def test_with_helper(self):
        s = self.session(with_key=True)
        for tool, cls in [("send_email", "reliability"), ("get_repo", "capability"),
                          ("search", "reliability"), ("deploy", "governance")]:
            res = s.call("tools/call", {"name": tool, "arguments": {}})["result"]
            tf = res["_meta"][toolfailure.META_KEY]
            self.assertEqual(tf["class"], cls, f"{tool}: {tf}")
            self.assertRegex(tf["correlationId"], CORRELATION_ID)
            if tool == "deploy":
                self.assertEqual(tf["code"], "user_action_required")
                self.assertEqual(res["_meta"]["com.example/requestId"], "req-42")
        ok = s.call("tools/call", {"name": "get_weather", "arguments": {"city": "Oslo"}})["result"]
        self.assertNotIn(toolfailure.META_KEY, ok["_meta"])


if __name__ == "__main__":
    unittest.main()
