"""A VoID description of the served dataset, with a SPARQL 1.1 service description."""

from __future__ import annotations

from paperkg import __version__
from paperkg.results import QueryResult, Term
from paperkg.vocab import BASE, PREFIXES
from paperkg_server.context import Context

__all__ = ["void_graph"]

VOID = "http://rdfs.org/ns/void#"
SD = "http://www.w3.org/ns/sparql-service-description#"
DCT = PREFIXES["dcterms"]
RDF_TYPE = PREFIXES["rdf"] + "type"
XSD = PREFIXES["xsd"]
_FORMATS = ("SPARQL_Results_JSON", "SPARQL_Results_XML", "SPARQL_Results_CSV",
            "SPARQL_Results_TSV", "Turtle", "N-Triples", "JSON-LD")


def _iri(value: str) -> Term:
    return Term(value, "iri")


def _lit(value: object, datatype: str | None = None) -> Term:
    return Term(str(value), "literal", datatype)


def void_graph(ctx: Context, base_url: str) -> QueryResult:
    """Triples saying what the dataset holds and where its SPARQL endpoint is."""
    counts = ctx.kg.manifest.get("counts", {})
    n_papers, n_concepts = ctx.reader.counts()["papers"], ctx.reader.counts()["concepts"]
    dataset = _iri(f"{base_url}/.well-known/void#dataset")
    service = _iri(f"{base_url}/sparql")
    integer = XSD + "integer"
    t: list[tuple[Term, Term, Term]] = [
        (dataset, _iri(RDF_TYPE), _iri(VOID + "Dataset")),
        (dataset, _iri(DCT + "title"), _lit("paperkg: research papers and their concepts")),
        (dataset, _iri(DCT + "description"), _lit(
            "Papers, the concepts extracted from their abstracts (SKOS), and scored "
            "paper-concept links with provenance.")),
        (dataset, _iri(DCT + "created"), _lit(ctx.kg.manifest.get("built_at", ""),
                                              XSD + "dateTime")),
        (dataset, _iri(DCT + "publisher"), _lit(f"paperkg {__version__}")),
        (dataset, _iri(VOID + "sparqlEndpoint"), service),
        (dataset, _iri(VOID + "uriSpace"), _lit(BASE)),
        (dataset, _iri(VOID + "triples"), _lit(counts.get("triples", 0), integer)),
        (dataset, _iri(VOID + "entities"),
         _lit(n_papers + n_concepts, integer)),
        (dataset, _iri(VOID + "exampleResource"),
         _iri(f"{BASE}paper/{next(iter(ctx.reader.data.papers), '')}")),
    ]
    for prefix in ("pkg", "skos", "dcterms", "prov", "schema", "foaf"):
        t.append((dataset, _iri(VOID + "vocabulary"), _iri(PREFIXES[prefix])))
    for i, (cls, n) in enumerate(((PREFIXES["pkg"] + "Paper", n_papers),
                                  (PREFIXES["skos"] + "Concept", n_concepts))):
        part = Term(f"partition{i}", "bnode")
        t += [(dataset, _iri(VOID + "classPartition"), part),
              (part, _iri(VOID + "class"), _iri(cls)),
              (part, _iri(VOID + "entities"), _lit(n, integer))]
    t += [
        (service, _iri(RDF_TYPE), _iri(SD + "Service")),
        (service, _iri(SD + "endpoint"), service),
        (service, _iri(SD + "supportedLanguage"), _iri(SD + "SPARQL11Query")),
        (service, _iri(SD + "feature"), _iri(SD + "UnionDefaultGraph")),
        (service, _iri(SD + "defaultDataset"), dataset),
    ]
    t += [(service, _iri(SD + "resultFormat"), _iri(f"http://www.w3.org/ns/formats/{f}"))
          for f in _FORMATS]
    return QueryResult("graph", triples=t)
