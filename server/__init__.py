"""The paperkg HTTP service: a SPARQL 1.1 endpoint, a JSON API and HTML pages over one KG.

Installed as `paperkg_server` (the repository keeps it in `server/`). A thin porch over
`paperkg`: importing this package is cheap (FastAPI loads in `paperkg_server.app`), so the
SPARQL worker processes, which import `paperkg_server.pool`, never load the web stack.
"""
