"""How long a running server takes to serve an update, and the memory it takes to switch.

    python bench/bench_reload.py --kg KG_DIR --add NEW.jsonl [--work DIR]

Copies KG_DIR to WORK/kg, serves it (`paperkg serve`, one HTTP process, --reload-interval
1), runs `paperkg add --kg WORK/kg NEW.jsonl`, and reports: the startup time, the add's
time, the time from the add's end until the server says it serves the new version, and
the HTTP process's memory (peak with both versions loaded, and once the old one is gone).
Use the settings the KG was built with (PAPERKG_EMBEDDER, PAPERKG_CACHE_DIR).
"""

from __future__ import annotations

import argparse
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _mem_mb(pid: int, field: str) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no {field} for process {pid}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kg", type=Path, required=True)
    ap.add_argument("--add", type=Path, required=True)
    ap.add_argument("--work", type=Path, default=None)
    args = ap.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="bench-reload-"))
    kg = work / "kg"
    shutil.rmtree(kg, ignore_errors=True)
    shutil.copytree(args.kg, kg)
    port = _free_port()
    log = (work / "serve.log").open("w+")
    began = time.monotonic()
    server = subprocess.Popen(["paperkg", "serve", "--kg", str(kg), "--port", str(port),
                               "--http-workers", "1", "--reload-interval", "1"],
                              stdout=log, stderr=subprocess.STDOUT)
    try:
        while True:
            if server.poll() is not None:
                sys.exit(f"the server stopped: {(work / 'serve.log').read_text()}")
            try:
                httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2).raise_for_status()
                break
            except httpx.TransportError:
                time.sleep(0.2)
        print(f"startup {time.monotonic() - began:.1f} s, "
              f"{_mem_mb(server.pid, 'VmRSS'):.0f} MB", flush=True)
        began = time.monotonic()
        subprocess.run(["paperkg", "add", "--kg", str(kg), str(args.add)], check=True,
                       stdout=subprocess.DEVNULL)
        added = time.monotonic()
        print(f"add {added - began:.1f} s", flush=True)
        while "now serving the new version" not in (work / "serve.log").read_text():
            time.sleep(0.1)
        print(f"served {time.monotonic() - added:.1f} s after the add ended; peak "
              f"{_mem_mb(server.pid, 'VmHWM'):.0f} MB", flush=True)
        time.sleep(15)  # the old version goes after the deadline (10 s) + 2 s
        print(f"after the old version went: {_mem_mb(server.pid, 'VmRSS'):.0f} MB; "
              f"{httpx.get(f'http://127.0.0.1:{port}/healthz').json()}")
    finally:
        server.terminate()
        server.wait(30)


if __name__ == "__main__":
    main()
