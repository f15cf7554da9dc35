"""The OpenAPI document says what the service really answers.

FastAPI documents 200 and a 422 validation error per route; this service answers bad
parameters with 400 in its one JSON error shape (`paperkg_server.errors`), unknown ids
with 404, and any route may fail with 500. Routes document their own extra statuses and
content types (see `paperkg_server.sparql`); this adds the shared ones to every operation.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi

from paperkg_server.errors import responses

__all__ = ["document_errors"]

_SHARED = (400, 404, 500)


def document_errors(app: FastAPI) -> None:
    """Replace `app.openapi` with one that documents the shared error answers."""

    def openapi() -> dict[str, Any]:
        if app.openapi_schema:
            return app.openapi_schema
        doc = get_openapi(title=app.title, version=app.version, description=app.description,
                          routes=app.routes)
        for path in doc.get("paths", {}).values():
            for operation in path.values():
                answers: dict[str, Any] = operation.setdefault("responses", {})
                validation = answers.get("422", {}).get("content", {})
                if "HTTPValidationError" in str(validation):
                    del answers["422"]  # validation errors are answered 400
                for status, entry in responses(*_SHARED).items():
                    answers.setdefault(str(status), entry)
        schemas = doc.get("components", {}).get("schemas", {})
        for unused in ("HTTPValidationError", "ValidationError"):
            schemas.pop(unused, None)
        app.openapi_schema = doc
        return doc

    app.openapi = openapi  # type: ignore[method-assign]
