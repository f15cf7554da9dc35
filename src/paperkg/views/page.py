"""A view as one HTML page that requests nothing from another host.

PyVis's own template loads vis-network, Bootstrap and Tom Select from CDNs whatever
`cdn_resources` says, so pages use this module's template instead, with the vis-network
build that ships inside the pyvis package: inlined (a standalone file that works
offline, what `paperkg view` writes) or served by the service under /static/vis/.
The graph goes in as JSON in a `<script type="application/json">` block with `<`, `>`
and `&` escaped, so no label can close the block or become markup; a Content Security
Policy allows only this page's own (nonce-tagged) scripts and same-host requests.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Mapping
from functools import lru_cache
from importlib.resources import files
from pathlib import Path
from typing import TYPE_CHECKING, Any

from paperkg.views.draw import EDGE_STYLES, NODE_STYLES, View, vis_data

if TYPE_CHECKING:
    from jinja2 import Template

__all__ = ["ASSETS", "asset", "render_page"]

VIS_VERSION = "9.1.2"
#: file name → media type of the assets a page needs (all from the pyvis package)
ASSETS = {"vis-network.min.js": "text/javascript; charset=utf-8",
          "vis-network.css": "text/css; charset=utf-8"}
_TEMPLATES = Path(__file__).parent / "templates"
_JSON_ESCAPES = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026",
                               "\u2028": "\\u2028", "\u2029": "\\u2029"})


@lru_cache(maxsize=len(ASSETS))
def asset(name: str) -> bytes:
    """The bytes of one vendored asset (vis-network as shipped inside pyvis)."""
    if name not in ASSETS:
        raise FileNotFoundError(f"no asset {name!r}; assets: {', '.join(ASSETS)}")
    path = files("pyvis") / "lib" / f"vis-{VIS_VERSION}" / name
    if not path.is_file():
        raise FileNotFoundError(f"{name} is missing from the installed pyvis package; "
                                f"reinstall it: pip install 'pyvis==0.3.2'")
    return path.read_bytes()


@lru_cache(maxsize=1)
def _template() -> Template:
    """The page template, compiled once per process (Jinja loads lazily: not at import)."""
    from jinja2 import Environment, FileSystemLoader, select_autoescape

    env = Environment(loader=FileSystemLoader(_TEMPLATES),
                      autoescape=select_autoescape(default=True, default_for_string=True))
    return env.get_template("view.html")


def script_json(value: object) -> str:
    """JSON that is safe inside a <script> element whatever strings it holds."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).translate(
        _JSON_ESCAPES)


def render_page(view: View, assets: str | None = None, pages: str | None = None,
                expand: str | None = None, links: Mapping[str, str] | None = None) -> str:
    """The HTML of a view.

    `assets`: URL prefix the vis-network files are served from (e.g. "/static/vis/");
    None inlines them (a standalone file). `pages`: base URL of node pages ("" = this
    host), None for no links. `expand`: URL prefix answering a node's 1-hop view as JSON
    (shift-click, or click on a node without a page). `links`: text → URL for the header.
    """
    template = _template()
    data = vis_data(view, pages)
    config = {"expand": expand, "centers": list(view.centers)}
    inline = None if assets is not None else {
        "js": asset("vis-network.min.js").decode("utf-8"),
        "css": asset("vis-network.css").decode("utf-8"),
    }
    hint = ["hover: details", "drag: move", "scroll: zoom"]
    if pages is not None:
        hint.append("click: open its page")
    if expand is not None:
        hint.append("shift-click: expand")
    return template.render(
        view=view, data=script_json(data), config=script_json(config), inline=inline,
        assets=assets, nonce=secrets.token_urlsafe(16), links=dict(links or {}),
        node_styles=_legend_nodes(view), edge_styles=_legend_edges(data), hint=" · ".join(hint),
        nodes=len(data["nodes"]), edges=len(data["edges"]),
    )


def _legend_nodes(view: View) -> list[tuple[str, str, str]]:
    """(glyph, colour, name) for the node types in the legend: the core ones always."""
    from paperkg.views.draw import style_of

    present = {style_of(d)[1].name for _, d in view.graph.nodes(data=True)}
    core = {"paper", "concept", "method", "dataset", "task", "author"}
    return [(s.glyph, s.colour, s.name) for s in NODE_STYLES.values()
            if s.name in core or s.name in present]


def _legend_edges(data: Mapping[str, Any]) -> list[tuple[str, bool, str]]:
    colours = {e["color"] for e in data["edges"]}
    return [style for style in EDGE_STYLES.values() if style[0] in colours]
