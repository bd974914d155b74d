"""Attach the toolFailure key to a failed MCP tool result.

Copy this file into an MCP server written in Python. It needs nothing but
the standard library: the toolfailure service speaks Connect, whose JSON
protocol is a plain HTTP POST of a JSON body, so one urllib request is the
whole client.

    from toolfailure import attach_tool_failure

    result = {"content": [{"type": "text", "text": str(exc)}], "isError": True}
    result = attach_tool_failure(result, tool="send_email", exception=exc,
                                 annotations={"idempotentHint": False})

The service decides class and code (with the tenant's rules), stores the
record, and returns the exact object to merge into the result's _meta. The
helper never makes a failure worse: when the service is slow, unreachable or
refuses the call, the result comes back unchanged after about the budget
(a quarter of a second by default) and the miss is logged. A locally invented
classification was rejected on purpose: its correlation ID would be one that
support cannot look up.

Configuration comes from the arguments or the environment:
TOOLFAILURE_SERVER (default http://127.0.0.1:8080), TOOLFAILURE_KEY (a
key with the "report" scope) and TOOLFAILURE_BUDGET_MS (the budget in
milliseconds, default 250).
"""

from __future__ import annotations

import copy
import errno
import json
import logging
import os
import re
import time
import urllib.error
import urllib.request
from typing import Any, Mapping, Optional

META_KEY = "io.modelcontextprotocol/toolFailure"
DEFAULT_BUDGET = 0.25  # seconds

_log = logging.getLogger("toolfailure")
_TRACEPARENT = re.compile(r"^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$")


def default_budget() -> float:
    """The budget in seconds: TOOLFAILURE_BUDGET_MS, else DEFAULT_BUDGET."""
    try:
        ms = int(os.environ.get("TOOLFAILURE_BUDGET_MS", ""))
    except ValueError:
        return DEFAULT_BUDGET
    return ms / 1000 if ms > 0 else DEFAULT_BUDGET


class ToolFailureError(Exception):
    """The service refused or could not answer a Classify call."""


def classify(
    tool: str,
    error: Mapping[str, Any],
    *,
    server: str = "",
    annotations: Optional[Mapping[str, Any]] = None,
    traceparent: str = "",
    idempotency_key: str = "",
    base_url: Optional[str] = None,
    api_key: Optional[str] = None,
    budget: Optional[float] = None,
) -> dict:
    """Call ClassifierService.Classify and return its JSON response.

    error is a RawError in its JSON form: message, type, httpStatus,
    grpcCode, jsonrpcCode, retryAfter, details, attributes (all optional,
    at least one present). Raises ToolFailureError on any failure.
    """
    if budget is None:
        budget = default_budget()
    base_url = (base_url or os.environ.get("TOOLFAILURE_SERVER") or "http://127.0.0.1:8080").rstrip("/")
    api_key = api_key or os.environ.get("TOOLFAILURE_KEY", "")
    if not api_key:
        raise ToolFailureError("no API key: pass api_key or set TOOLFAILURE_KEY")
    request: dict[str, Any] = {"tool": tool, "error": dict(error)}
    if server:
        request["server"] = server
    if annotations:
        request["toolAnnotations"] = {
            k: bool(v)
            for k, v in annotations.items()
            if k in ("idempotentHint", "readOnlyHint", "destructiveHint", "openWorldHint")
        }
    if traceparent and _TRACEPARENT.match(traceparent):
        request["traceparent"] = traceparent
    if idempotency_key:
        request["idempotencyKey"] = idempotency_key
    req = urllib.request.Request(
        base_url + "/toolfailure.v1.ClassifierService/Classify",
        data=json.dumps(request).encode("utf-8"),
        method="POST",
        headers={
            "Content-Type": "application/json",
            "Authorization": "Bearer " + api_key,
            # Connect's deadline header: the service gives up when we do.
            "Connect-Timeout-Ms": str(max(1, int(budget * 1000))),
        },
    )
    try:
        with urllib.request.urlopen(req, timeout=budget) as resp:
            return json.load(resp)
    except urllib.error.HTTPError as e:
        # Connect puts {"code": "...", "message": "..."} in the body.
        try:
            body = json.load(e)
            detail = f"{body.get('code')}: {body.get('message')}"
        except Exception:  # noqa: BLE001 - any body at all is only a detail
            detail = f"HTTP {e.code}"
        raise ToolFailureError(f"Classify refused: {detail}") from e
    except (OSError, ValueError) as e:  # URLError, timeouts, a broken body
        raise ToolFailureError(f"Classify failed: {e}") from e


def attach_tool_failure(
    result: dict,
    *,
    tool: str,
    exception: Optional[BaseException] = None,
    error: Optional[Mapping[str, Any]] = None,
    annotations: Optional[Mapping[str, Any]] = None,
    request_meta: Optional[Mapping[str, Any]] = None,
    server: str = "",
    base_url: Optional[str] = None,
    api_key: Optional[str] = None,
    budget: Optional[float] = None,
) -> dict:
    """Return result with the toolFailure key merged into its _meta.

    result is a CallToolResult as a dict. Results that are not errors, and
    results that already carry the key, are returned as they are. The error
    sent to the service is built from exception (its type, errno, HTTP
    status and Retry-After when it has them), the result's text content and
    its structuredContent; error adds or overrides fields. request_meta is
    the tools/call request's _meta, read for the W3C traceparent. The result
    passed in is never modified; a copy is returned when the key is added.
    """
    if not result.get("isError") or META_KEY in (result.get("_meta") or {}):
        return result
    raw = raw_error(result, exception)
    if error:
        raw.update(error)
    start = time.monotonic()
    try:
        response = classify(
            tool,
            raw,
            server=server,
            annotations=annotations,
            traceparent=str((request_meta or {}).get("traceparent", "")),
            base_url=base_url,
            api_key=api_key,
            budget=budget,
        )
        failure = (response.get("meta") or {})[META_KEY]
        if not isinstance(failure, dict) or not failure.get("correlationId"):
            raise ToolFailureError("the response has no toolFailure object")
    except (ToolFailureError, KeyError, TypeError) as e:
        _log.warning(
            "toolfailure: failed tool result sent without classification: tool=%s elapsed=%.0fms error=%s",
            tool, (time.monotonic() - start) * 1000, e,
        )
        return result
    # protobuf's Struct carries numbers as doubles; the proposal wants epoch
    # milliseconds as a JSON integer.
    for k, v in list(failure.items()):
        if isinstance(v, float) and v.is_integer():
            failure[k] = int(v)
    out = copy.copy(result)
    out["_meta"] = dict(result.get("_meta") or {})
    out["_meta"][META_KEY] = failure
    return out


def raw_error(result: Mapping[str, Any], exception: Optional[BaseException] = None) -> dict:
    """Build the RawError JSON the service classifies from."""
    raw: dict[str, Any] = {}
    texts = [c.get("text", "") for c in result.get("content") or [] if c.get("type") == "text"]
    message = "\n".join(t for t in texts if t)
    if exception is not None:
        message = message or str(exception)
        raw["type"] = _error_type(exception)
        status = getattr(exception, "status", None) or getattr(exception, "code", None)
        if isinstance(status, int) and 100 <= status <= 599:
            raw["httpStatus"] = status
        headers = getattr(exception, "headers", None)
        retry_after = headers.get("Retry-After") if headers is not None else None
        if retry_after:
            raw["retryAfter"] = str(retry_after)[:128]
    if message:
        raw["message"] = message[:16384]
    if result.get("structuredContent") is not None:
        raw["details"] = {"structuredContent": result["structuredContent"]}
    if not raw:
        raw["message"] = "tool reported an error without a message"
    return raw


def _error_type(exc: BaseException) -> str:
    """An errno by name (ECONNRESET), else the exception's qualified type."""
    code = getattr(exc, "errno", None)
    if isinstance(code, int) and code in errno.errorcode:
        return errno.errorcode[code]
    t = type(exc)
    return t.__qualname__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__qualname__}"
