"""How fast a large view becomes interactive in headless Chromium (Debian's /usr/bin/chromium).

Starts `paperkg serve --kg KG_DIR` on a free loopback port, opens
/view/node/NODE?depth=2&limit=N in a fresh page several times and reports, per run and as
medians: the time from navigation start until the layout has stabilised and physics is
off (`paperkgView.readyAt`, the moment the view stands still and takes clicks), the part of
it spent in the layout itself (`readyMs`), and the server's time to answer the page:

    python bench/bench_views.py --kg kg-iclr2025 [--node concept:SLUG] [--limit 300] [--runs 5]
    python bench/bench_views.py --kg kg --limit 60 --screenshot docs/concept-view.png

NODE defaults to the concept most papers mention. Not a test: the target (300 nodes
interactive within 3 s on this project's 2-core machine) is reported, not asserted.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import IO
from urllib.parse import quote

import httpx

ARGS = ["--no-sandbox", "--disable-background-networking", "--disable-component-update",
        "--no-first-run"]


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _serve(kg: Path, log: IO[bytes]) -> tuple[subprocess.Popen[bytes], str]:
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "paperkg.cli", "serve", "--kg", str(kg),
                             "--port", str(port), "--query-workers", "1"],
                            stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    end = time.monotonic() + 300
    while time.monotonic() < end:
        if proc.poll() is not None:
            log.seek(0)
            raise SystemExit(f"server exited: {log.read().decode(errors='replace')}")
        try:
            if httpx.get(base + "/healthz", timeout=2).status_code == 200:
                return proc, base
        except httpx.TransportError:
            time.sleep(0.3)
    proc.kill()
    raise SystemExit("server did not start within 300 s")


def _top_concept(base: str) -> str:
    rows = httpx.get(base + "/sparql", params={"query": (
        "SELECT ?c WHERE { ?c a skos:Concept ; pkg:paperCount ?n } ORDER BY DESC(?n) LIMIT 1"
    ), "format": "json"}, timeout=60).json()["results"]["bindings"]
    return "concept:" + rows[0]["c"]["value"].rsplit("/", 1)[1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kg", type=Path, default=Path("kg"), help="KG directory to serve")
    ap.add_argument("--node", help="node key to centre on (default: the top concept)")
    ap.add_argument("--depth", type=int, default=2, choices=(1, 2, 3))
    ap.add_argument("--limit", type=int, default=300, help="nodes in the view")
    ap.add_argument("--runs", type=int, default=5, help="page loads to time")
    ap.add_argument("--screenshot", type=Path, help="save the last run's page here (PNG)")
    ap.add_argument("--chromium", default="/usr/bin/chromium")
    args = ap.parse_args()

    with tempfile.TemporaryFile() as log:
        proc, base = _serve(args.kg, log)
        try:
            _run(args, base)
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()


def _run(args: argparse.Namespace, base: str) -> None:
    from playwright.sync_api import sync_playwright

    node = args.node or _top_concept(base)
    url = f"{base}/view/node/{quote(node)}?depth={args.depth}&limit={args.limit}"
    t = time.perf_counter()
    size = len(httpx.get(url, timeout=60).content)
    print(f"{url}\n  page: {size:,} bytes, first answer {time.perf_counter() - t:.3f} s")
    rows = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=args.chromium, args=ARGS)
        for run in range(1, args.runs + 1):
            page = browser.new_page(viewport={"width": 1200, "height": 800})
            page.goto(url)
            page.wait_for_selector("body[data-ready='1']", state="attached",
                                   timeout=60_000)
            got = page.evaluate(
                "({at: paperkgView.readyAt, layout: paperkgView.readyMs,"
                " nodes: paperkgView.nodes.length, edges: paperkgView.edges.length,"
                " server: performance.getEntriesByType('navigation')[0].responseEnd})")
            rows.append(got)
            print(f"  run {run}: {got['nodes']} nodes, {got['edges']} edges; interactive "
                  f"at {got['at'] / 1000:.2f} s (layout {got['layout'] / 1000:.2f} s, "
                  f"page received at {got['server'] / 1000:.2f} s)")
            if run == args.runs and args.screenshot:
                args.screenshot.parent.mkdir(parents=True, exist_ok=True)
                page.screenshot(path=str(args.screenshot))
                print(f"  screenshot: {args.screenshot}")
            page.close()
        browser.close()
    med = {k: statistics.median(r[k] for r in rows) / 1000 for k in ("at", "layout",
                                                                      "server")}
    print(f"median of {len(rows)}: interactive at {med['at']:.2f} s after navigation "
          f"(layout {med['layout']:.2f} s, page received {med['server']:.2f} s); "
          f"target < 3 s: {'met' if med['at'] < 3 else 'NOT met'}")


if __name__ == "__main__":
    main()
