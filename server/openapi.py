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
#: routes that run SPARQL in the worker pool answer its errors too
_QUERYING = {"/view/sparql": (403, 406, 413, 422, 503, 507)}


def document_errors(app: FastAPI) -> None:
    """Replace `app.openapi` with one that documents the shared error answers."""

    def openapi() -> dict[str, Any]:
        if app.openapi_schema:
            return app.openapi_schema
        doc = get_openapi(title=app.title, version=app.version, description=app.description,
                          routes=app.routes)
        for route, path in doc.get("paths", {}).items():
            for operation in path.values():
                answers: dict[str, Any] = operation.setdefault("responses", {})
                validation = answers.get("422", {}).get("content", {})
                if "HTTPValidationError" in str(validation):
                    del answers["422"]  # validation errors are answered 400
                for status, entry in responses(*_SHARED, *_QUERYING.get(route, ())).items():
                    answers.setdefault(str(status), entry)
                # a request line or header uvicorn cannot parse (too long) gets its own
                # plain-text 400 before any route runs
                answers["400"].setdefault("content", {}).setdefault(
                    "text/plain", {"schema": {"type": "string"}})
        schemas = doc.get("components", {}).get("schemas", {})
        for unused in ("HTTPValidationError", "ValidationError"):
            schemas.pop(unused, None)
        app.openapi_schema = doc
        return doc

    app.openapi = openapi  # type: ignore[method-assign]
