"""The build side: records in, a KG directory out.

ingest → text (candidates) → extract (embed, prior, rank) → canon (merge, kinds,
hierarchy) → rdf / graph → pipeline (store, swap). Nothing here imports `paperkg.read`.
"""
