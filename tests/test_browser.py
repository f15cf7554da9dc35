"""The views in a real browser: Debian's Chromium driven by Playwright against the real
server over the demo KG. Every request the pages make is recorded; none may leave this
machine. Screenshots go to test-artifacts/ (gitignored)."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

import pytest
from playwright.sync_api import Browser, Dialog, Page, Request, sync_playwright

from paperkg.cli import main
from paperkg.read.kg import open_kg

from .browsers import browser_gate
from .conftest import ARTIFACTS
from .serving import base, dpc

__all__ = ["base", "dpc"]  # fixtures

GATE = browser_gate(os.environ)
if GATE.path is None:  # one line in the summary (-rs); a collection error when required
    if GATE.required:
        pytest.fail(GATE.message, pytrace=False)
    pytest.skip(GATE.message, allow_module_level=True)

ARGS = ["--no-sandbox", "--disable-background-networking", "--disable-component-update",
        "--no-first-run"]
EVIL = "<img src=x onerror=window.__pwned=1><script>window.__pwned=2</script>"
LOCAL = {"127.0.0.1", "localhost"}


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Chromium from Debian, found by the gate above."""
    assert GATE.path is not None
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=str(GATE.path), args=ARGS)
        yield b
        b.close()


class Visit:
    """A page with every request and console error recorded."""

    def __init__(self, browser: Browser) -> None:
        self.page: Page = browser.new_page(viewport={"width": 1200, "height": 800})
        self.requests: list[str] = []
        self.errors: list[str] = []
        self.dialogs: list[str] = []
        self.page.on("request", lambda r: self.requests.append(_url(r)))
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error"
                     else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("dialog", self._dialog)

    def _dialog(self, dialog: Dialog) -> None:
        self.dialogs.append(dialog.message)
        dialog.dismiss()

    def view(self, url: str) -> dict[str, int]:
        """Load a view and wait until its layout has settled and physics stopped."""
        self.page.goto(url)
        self.page.wait_for_selector("body[data-ready='1']", state="attached", timeout=15_000)
        counts: dict[str, int] = self.page.evaluate(
            "({nodes: paperkgView.network.body.data.nodes.length,"
            " edges: paperkgView.network.body.data.edges.length,"
            " physics: paperkgView.network.physics.physicsEnabled ? 1 : 0})")
        return counts

    def node_point(self, node: str) -> tuple[float, float]:
        """Where a node is on screen (page coordinates)."""
        xy = self.page.evaluate(
            "id => paperkgView.network.canvasToDOM(paperkgView.network.getPosition(id))",
            node)
        box = self.page.locator("#graph").bounding_box()
        assert box is not None
        return box["x"] + xy["x"], box["y"] + xy["y"]

    def node_at(self, x: float, y: float) -> dict[str, Any]:
        """The node drawn at page point (x, y)."""
        box = self.page.locator("#graph").bounding_box()
        assert box is not None
        node: dict[str, Any] = self.page.evaluate(
            "p => paperkgView.nodes.get(paperkgView.network.getNodeAt(p))",
            {"x": x - box["x"], "y": y - box["y"]})
        assert node, f"no node at {x}, {y}"
        return node

    def off_host(self) -> list[str]:
        return [u for u in self.requests
                if urlsplit(u).scheme not in ("data", "file", "about", "blob")
                and urlsplit(u).hostname not in LOCAL]

    def shot(self, name: str) -> None:
        ARTIFACTS.mkdir(exist_ok=True)
        self.page.screenshot(path=str(ARTIFACTS / f"{name}.png"))

    def close(self) -> None:
        self.page.close()


def _url(request: Request) -> str:
    return request.url


@pytest.fixture
def visit(browser: Browser) -> Iterator[Visit]:
    v = Visit(browser)
    yield v
    v.close()


def test_paper_view_renders_and_a_click_opens_the_node(visit: Visit, base: str,
                                                       dpc: str) -> None:
    counts = visit.view(f"{base}/view/node/paper:{dpc}?depth=2&limit=60")
    assert counts["nodes"] > 5 and counts["edges"] >= counts["nodes"] - 1
    assert counts["physics"] == 0  # stabilised, then stopped
    visit.shot("paper-view")
    assert visit.page.locator("#legend").inner_text().count("\n") >= 5
    # click a concept of the paper: its page opens
    concept = visit.page.evaluate(
        "paperkgView.nodes.get().filter(n => n.kind === 'concept')[0]")
    x, y = visit.node_point(concept["id"])
    hit = visit.node_at(x, y)  # the node on top there (labels may overlap)
    with visit.page.expect_navigation():
        visit.page.mouse.click(x, y)
    assert visit.page.url == base + hit["page"]
    assert visit.page.locator("h1").inner_text() == hit["tip"][0]
    visit.shot("concept-page-from-view")
    assert visit.off_host() == [] and not visit.errors, (visit.off_host(), visit.errors)


def test_shift_click_expands_an_author_or_concept(visit: Visit, base: str, dpc: str) -> None:
    visit.view(f"{base}/view/node/paper:{dpc}?depth=1")
    before = visit.page.evaluate("paperkgView.nodes.length")
    concept = visit.page.evaluate(
        "paperkgView.nodes.get().filter(n => n.kind === 'concept')"
        ".sort((a, b) => b.size - a.size)[0].id")
    x, y = visit.node_point(concept)
    visit.page.keyboard.down("Shift")
    visit.page.mouse.click(x, y)
    visit.page.keyboard.up("Shift")
    visit.page.wait_for_selector("#status:has-text('around')", timeout=10_000)
    assert visit.page.evaluate("paperkgView.nodes.length") > before
    assert visit.page.url.startswith(f"{base}/view/node/")  # expanded, not navigated
    assert visit.off_host() == [] and not visit.errors


def test_walk_from_search_to_paper_to_concept_to_papers(visit: Visit, base: str,
                                                        dpc: str) -> None:
    page = visit.page
    page.goto(base + "/")
    page.fill("input[name=q]", "prompt corruption")
    page.press("input[name=q]", "Enter")
    page.wait_for_url(re.compile(r".*/search\?q=.*"))
    with page.expect_navigation():
        page.locator("ol li a[href^='/papers/']").first.click()
    assert "/papers/" in page.url
    with page.expect_navigation():
        page.locator("table a[href^='/concepts/']").first.click()
    assert "/concepts/" in page.url
    concept_url = page.url
    with page.expect_navigation():
        page.locator("table a[href^='/papers/']").first.click()
    assert "/papers/" in page.url
    page.goto(concept_url)
    with page.expect_navigation():
        page.locator("p.views a").first.click()
    page.wait_for_selector("body[data-ready='1']", state="attached", timeout=15_000)
    assert page.evaluate("paperkgView.nodes.length") >= 2
    visit.shot("concept-view-from-page")
    assert visit.off_host() == [] and not visit.errors


def test_hostile_label_renders_as_text(visit: Visit, base: str, dpc: str) -> None:
    query = (f'CONSTRUCT {{ ?p pkg:mentions ?c ; rdfs:label "{EVIL}" }} '
             f'WHERE {{ ?p dcterms:identifier "{dpc}" ; pkg:mentions ?c }}')
    counts = visit.view(f"{base}/view/sparql?query={quote(query)}")
    assert counts["nodes"] >= 2
    x, y = visit.node_point(f"paper:{dpc}")
    visit.page.mouse.move(x, y)
    tip = visit.page.locator("div.vis-tooltip")
    tip.wait_for(state="visible", timeout=5_000)
    assert tip.inner_text().splitlines()[0] == EVIL  # shown as the text it is
    assert tip.locator("img, script").count() == 0
    assert visit.page.locator("img").count() == 0
    assert visit.page.evaluate("window.__pwned === undefined")
    assert visit.dialogs == []
    visit.shot("hostile-label-tooltip")
    assert visit.off_host() == []


def test_cli_file_works_offline(visit: Visit, demo_kg: Path, dpc: str,
                                tmp_path: Path) -> None:
    other = open_kg(demo_kg).reader().related(dpc, 1, blend=0.0)[0].paper_id
    out = tmp_path / "connect.html"
    assert main(["view", "--connect", dpc, other, "--kg", str(demo_kg), "-o", str(out)]) == 0
    counts = visit.view(out.as_uri())
    assert counts["nodes"] >= 3 and counts["edges"] >= 2
    visit.shot("connect-standalone")
    assert visit.requests == [out.as_uri()]  # everything was inside the file
    assert not visit.errors
