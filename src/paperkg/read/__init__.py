"""The read side: open a KG and answer the questions people ask of it.

`questions.Reader` declares every question once; `sparql.SparqlReader` answers them over
any SPARQL store (the embedded Oxigraph store, or a SPARQL server), `memory.MemoryReader`
from in-memory indexes (a server). Nothing here imports `paperkg.build`.
"""
