"""all-MiniLM-L6-v2 through ONNX Runtime: the same vectors as sentence-transformers, faster.

On first use the transformer is exported from the offline model files to ONNX (torch's
TorchScript exporter), its attention, GELU and layer norms are fused by ONNX Runtime's
BERT optimizer, and by default its weights are quantized to int8 (dynamic, per channel).
The result (about 23 MB int8, 90 MB fp32) is kept under `cache_dir/models/<name>` and
reused by every later process. Encoding needs only `onnxruntime`, `tokenizers` and numpy;
exporting also needs torch, transformers and `onnx`.

fp32 reproduces sentence-transformers to float rounding. int8 agrees to cosine ~0.99 and
quantizes activations per batch, so its vectors shift slightly with a text's batch-mates;
without AVX-VNNI/AVX512-VNNI (e.g. AVX2-only EPYCs) int8 GEMMs are no faster than fp32.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from paperkg.build.models import Progress, load_once, model_path, normalise, quiet_load_report

__all__ = ["OnnxMiniLMEmbedder", "export_onnx"]

DIM = 384
_INPUTS = ("input_ids", "attention_mask", "token_type_ids")


def _export_fp32(src: str, out: Path) -> None:
    """Export the BERT encoder (last hidden state) with dynamic batch and sequence axes."""
    import torch
    from transformers import AutoModel


    quiet_load_report()
    model = AutoModel.from_pretrained(src, attn_implementation="eager").eval()

    class Encoder(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.bert = model

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            return self.bert(input_ids=input_ids, attention_mask=attention_mask,
                             token_type_ids=token_type_ids).last_hidden_state

    dummy = tuple(torch.ones(2, 8, dtype=torch.long) for _ in _INPUTS)
    axes = {k: {0: "batch", 1: "seq"} for k in (*_INPUTS, "last_hidden_state")}
    with torch.no_grad():
        torch.onnx.export(Encoder(), dummy, str(out), input_names=list(_INPUTS),
                          output_names=["last_hidden_state"], dynamic_axes=axes,
                          opset_version=17, dynamo=False)


def export_onnx(target: Path, quantize: bool = True, reduce_range: bool = False) -> float:
    """Build the ONNX model in `target/model.onnx` atomically; returns the seconds it took."""
    from onnxruntime.quantization import QuantType, quantize_dynamic
    from onnxruntime.transformers.optimizer import optimize_model

    start = time.perf_counter()
    src = model_path()
    config = json.loads((Path(src) / "config.json").read_text())
    tmp = target.with_name(f"{target.name}.tmp-{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    (tmp / "work").mkdir(parents=True)
    try:
        raw, fused = tmp / "work" / "raw.onnx", tmp / "work" / "fused.onnx"
        _export_fp32(src, raw)
        optimize_model(str(raw), model_type="bert", num_heads=config["num_attention_heads"],
                       hidden_size=config["hidden_size"]).save_model_to_file(str(fused))
        if quantize:
            quantize_dynamic(fused, tmp / "model.onnx", weight_type=QuantType.QInt8,
                             per_channel=True, reduce_range=reduce_range,
                             extra_options={"DefaultTensorType": 1})  # 1 = FLOAT
        else:
            fused.replace(tmp / "model.onnx")
        shutil.rmtree(tmp / "work")
        for name in ("tokenizer.json", "sentence_bert_config.json"):
            shutil.copyfile(Path(src) / name, tmp / name)
        try:
            tmp.replace(target)
        except OSError:  # another process got there first: keep its copy
            if not (target / "model.onnx").is_file():
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return time.perf_counter() - start


class OnnxMiniLMEmbedder:
    """all-MiniLM-L6-v2 (mean pooling, L2 norm) on ONNX Runtime, int8 by default.

    Texts of equal token count share a batch, under a token budget: short phrases go in
    large batches and abstracts in small ones, with no padding at all.
    """

    def __init__(self, cache_dir: Path, quantize: bool = True, reduce_range: bool = False,
                 max_tokens: int = 512, max_batch: int = 256, threads: int | None = None
                 ) -> None:
        self.cache_dir = Path(cache_dir)
        self.quantize, self.reduce_range = quantize, reduce_range
        self.max_tokens, self.max_batch = max_tokens, max_batch
        # a Dask worker process gets one core (OMP_NUM_THREADS=1); ORT does not read it
        self.threads = threads or _omp_threads() or os.cpu_count() or 1
        suffix = ("int8" + ("r" if reduce_range else "")) if quantize else "fp32"
        self.name = f"all-MiniLM-L6-v2-onnx-{suffix}"
        self.export_seconds: float | None = None

    @property
    def target(self) -> Path:
        return self.cache_dir / "models" / self.name

    def _model(self) -> tuple[Any, Any]:
        def load() -> tuple[Any, Any]:
            import onnxruntime as ort
            from tokenizers import Tokenizer

            if not (self.target / "model.onnx").is_file():
                print(f"exporting MiniLM to ONNX into {self.target} (once, ~10 s)",
                      file=sys.stderr)
                self.export_seconds = export_onnx(self.target, self.quantize, self.reduce_range)
            options = ort.SessionOptions()
            options.intra_op_num_threads = self.threads
            options.inter_op_num_threads = 1
            session = ort.InferenceSession(str(self.target / "model.onnx"), options,
                                           providers=["CPUExecutionProvider"])
            st_config = json.loads((self.target / "sentence_bert_config.json").read_text())
            tokenizer = Tokenizer.from_file(str(self.target / "tokenizer.json"))
            tokenizer.enable_truncation(int(st_config["max_seq_length"]))
            tokenizer.no_padding()
            return session, tokenizer

        return load_once(f"onnx:{self.target}:{self.threads}", load)

    def _run(self, session: Any, rows: list[list[int]]) -> np.ndarray:
        width = max(len(r) for r in rows)
        ids = np.zeros((len(rows), width), dtype=np.int64)
        mask = np.zeros((len(rows), width), dtype=np.int64)
        for i, r in enumerate(rows):
            ids[i, : len(r)] = r
            mask[i, : len(r)] = 1
        feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        hidden = session.run(None, feeds)[0]
        weights = mask.astype(np.float32)
        return np.einsum("btd,bt->bd", hidden, weights) / weights.sum(1, keepdims=True)

    def encode(self, texts: Sequence[str], progress: Progress | None = None) -> np.ndarray:
        """Batches hold texts of one token count only (as `embed.MiniLMEmbedder`): with no
        padding, a text's vector cannot depend on its batch-mates, whatever the kernels do
        with padded rows, so any split of the work (cache misses, Dask batches) gives the
        same vectors. fp32 only: int8 quantizes each batch's activations together."""
        out = np.zeros((len(texts), DIM), dtype=np.float32)
        if not texts:
            return out
        session, tokenizer = self._model()
        ids: list[list[int]] = []
        for start in range(0, len(texts), 4096):
            ids += [e.ids for e in tokenizer.encode_batch(list(texts[start:start + 4096]))]
        by_length: dict[int, list[int]] = {}
        for i, row in enumerate(ids):
            by_length.setdefault(len(row), []).append(i)
        for width in sorted(by_length, reverse=True):
            group = by_length[width]
            take = min(self.max_batch, max(1, self.max_tokens // width))
            for start in range(0, len(group), take):
                batch = group[start:start + take]
                out[batch] = self._run(session, [ids[k] for k in batch])
                if progress:
                    progress(len(batch))
        return normalise(out)


def _omp_threads() -> int | None:
    """OMP_NUM_THREADS, when set to a number."""
    value = os.environ.get("OMP_NUM_THREADS", "")
    return int(value) if value.isdigit() and int(value) > 0 else None
