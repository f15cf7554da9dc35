"""One JSON shape for every error the service answers, and the handlers that produce it.

    {"error": {"status": 404, "code": "not_found", "message": "...", ...details}}
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from paperkg.errors import UnknownNode, UserError

__all__ = ["ERROR_SCHEMA", "ApiError", "error_response", "install_handlers", "responses"]

log = logging.getLogger("paperkg.server")

_CODES = {400: "bad_request", 403: "forbidden", 404: "not_found", 405: "method_not_allowed",
          406: "not_acceptable", 413: "too_large", 415: "unsupported_media_type",
          422: "unprocessable", 500: "internal_error", 503: "unavailable",
          507: "insufficient_storage"}
_MEANING = {400: "bad parameter or malformed query", 403: "refused (an update, SERVICE)",
            404: "no such thing", 405: "method not allowed here",
            406: "no acceptable format", 413: "request too large",
            415: "unsupported request content type", 422: "answer over the row cap",
            500: "internal error", 503: "busy (Retry-After) or past the deadline",
            507: "query over its memory ceiling"}
#: The JSON schema of the one error shape, for the OpenAPI document.
ERROR_SCHEMA: dict[str, Any] = {
    "type": "object", "required": ["error"],
    "properties": {"error": {
        "type": "object", "required": ["status", "code", "message"],
        "properties": {"status": {"type": "integer"}, "code": {"type": "string"},
                       "message": {"type": "string"}},
        "additionalProperties": True}},
}


def responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI `responses` entries for these error statuses (all the one JSON shape)."""
    return {status: {"description": _MEANING.get(status, "error"),
                     "content": {"application/json": {"schema": ERROR_SCHEMA}}}
            for status in statuses}


class ApiError(Exception):
    """An error a client caused or must be told about, with its HTTP status and code."""

    def __init__(self, status: int, message: str, code: str | None = None,
                 **details: Any) -> None:
        super().__init__(message)
        self.status = status
        self.code = code or _CODES.get(status, "error")
        self.message = message
        self.details = details


def error_response(status: int, message: str, code: str | None = None,
                   headers: Mapping[str, str] | None = None, **details: Any) -> Response:
    body = {"error": {"status": status, "code": code or _CODES.get(status, "error"),
                      "message": message, **details}}
    # nosniff: a message may echo the client's input; it must never be read as HTML
    return Response(json.dumps(body, ensure_ascii=False), status_code=status,
                    media_type="application/json",
                    headers={**(headers or {}), "X-Content-Type-Options": "nosniff"})


def install_handlers(app: FastAPI) -> None:
    """Route every failure (ours, the framework's, and bugs) through `error_response`."""

    @app.exception_handler(ApiError)
    async def _api(_: Request, err: ApiError) -> Response:
        return error_response(err.status, err.message, err.code, **err.details)

    @app.exception_handler(UnknownNode)
    async def _unknown(_: Request, err: UnknownNode) -> Response:
        return error_response(404, str(err))

    @app.exception_handler(UserError)
    async def _user(_: Request, err: UserError) -> Response:
        return error_response(400, str(err))

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, err: StarletteHTTPException) -> Response:
        message = str(err.detail)
        if err.status_code == 404 and message == "Not Found":
            message = f"nothing at {request.url.path}; see /docs for the endpoints"
        return error_response(err.status_code, message, headers=err.headers)

    @app.exception_handler(RequestValidationError)
    async def _invalid(_: Request, err: RequestValidationError) -> Response:
        problems = [f"{'.'.join(str(x) for x in e['loc'][1:])}: {e['msg']}"
                    for e in err.errors()]
        return error_response(400, "invalid parameter(s): " + "; ".join(problems))

    @app.exception_handler(Exception)
    async def _bug(request: Request, err: Exception) -> Response:
        log.error("unhandled error on %s", request.url.path, exc_info=err)
        return error_response(500, f"internal error ({type(err).__name__}); see server log")
