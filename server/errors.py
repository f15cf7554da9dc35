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

from paperkg.errors import UnknownNode

__all__ = ["ApiError", "error_response", "install_handlers"]

log = logging.getLogger("paperkg.server")

_CODES = {400: "bad_request", 403: "forbidden", 404: "not_found", 405: "method_not_allowed",
          406: "not_acceptable", 413: "too_large", 415: "unsupported_media_type",
          500: "internal_error", 503: "unavailable"}


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
    return Response(json.dumps(body, ensure_ascii=False), status_code=status,
                    media_type="application/json", headers=headers)


def install_handlers(app: FastAPI) -> None:
    """Route every failure (ours, the framework's, and bugs) through `error_response`."""

    @app.exception_handler(ApiError)
    async def _api(_: Request, err: ApiError) -> Response:
        return error_response(err.status, err.message, err.code, **err.details)

    @app.exception_handler(UnknownNode)
    async def _unknown(_: Request, err: UnknownNode) -> Response:
        return error_response(404, str(err))

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
