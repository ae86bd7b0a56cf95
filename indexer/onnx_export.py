"""Export a local sentence-transformers model to ONNX, once, and check the export.

The whole sentence-transformers pipeline is traced (transformer, pooling and
normalisation as the model's ``modules.json`` says), so the ONNX graph returns the
sentence embedding itself and the runtime needs no pooling code of its own. The
export runs torch and sentence-transformers once per model (about 10 s); the query
and indexing paths then load only ONNX Runtime (``indexer/onnx_embed.py``).

An export folder holds ``model.onnx`` (the graph), ``model.onnx.data`` (the weights,
kept apart so ONNX Runtime maps them instead of copying), ``tokenizer.json`` (the
model's own, copied) and ``export.json`` (what was exported, from which folder, the
tokenizer limits, each file's size, and the agreement measured against
sentence-transformers). It is written in a temporary folder and renamed into place
only after the ONNX vectors matched the torch ones, so a crash or a failed check
never leaves a half-written export where the runtime looks (docs/architecture.md,
embedding).
"""

from __future__ import annotations

import json
import shutil
import tempfile
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .errors import ModelFileError
from .onnx_model import EXPORT_FORMAT, GRAPH, INPUTS, META, OUTPUT, TOKENIZER, WEIGHTS, OnnxModel

# An export whose vectors differ more than this from sentence-transformers' is refused;
# a faithful float32 export of MiniLM measured 2e-7.
MAX_ABS_DIFF = 1e-5

# Texts the export is checked on: padding inside a batch, truncation at max_seq_length,
# accents and case (the tokenizer normalises both), whitespace only, the empty string.
PROBES = (
    "How do I embed a file in a note?",
    "Ünïcödé façade, CAFÉ and naïve résumé",
    "Tabs\tand\nnew lines  and   runs of spaces ",
    "A much longer passage: " + "the cellar keeps the cheese cool while it ages. " * 60,
    "",
    "   ",
    "x",
)


def export_model(
    model_dir: Path, dest: Path, fingerprint: str, log: Callable[[str], None] | None = None
) -> dict[str, Any]:
    """Export the model in ``model_dir`` to the folder ``dest`` and return its metadata.

    Args:
        model_dir: a sentence-transformers model folder (the bundled all-MiniLM-L6-v2).
        dest: the export folder to create; if another process created it meanwhile,
            that export is kept and ours dropped.
        fingerprint: identifies ``model_dir``'s files; stored so a changed model is
            exported again rather than read stale.
        log: told what is happening (the export takes seconds).

    Raises:
        ModelFileError: torch, sentence-transformers or onnx is missing, the model
            cannot be traced, or its ONNX vectors disagree with sentence-transformers'.
    """
    say = log or (lambda _msg: None)
    try:
        import onnx
        import torch
    except ImportError as exc:
        raise ModelFileError(
            dest / GRAPH,
            f"missing, and exporting it needs torch and onnx ({exc}); "
            'install them or set embedding.backend = "torch"',
        ) from exc
    from .st_embed import SentenceTransformerEmbedder

    say(f"exporting the embedding model to ONNX, once: {dest}")
    st = SentenceTransformerEmbedder(str(model_dir), dtype="float32", device="cpu")
    model = st.load().eval()
    dest.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{dest.name}-", dir=dest.parent))
    try:
        prepare = getattr(model, "preprocess", None) or model.tokenize
        features = prepare(list(PROBES[:2]))
        names = [n for n in INPUTS if n in features]
        unknown = sorted(k for k, v in features.items() if k not in INPUTS and hasattr(v, "shape"))
        if "input_ids" not in names or unknown:
            raise ModelFileError(
                dest / GRAPH, f"cannot export: the tokenizer gives {sorted(features)}"
            )

        class Pipeline(torch.nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.model = model

            def forward(self, *tensors: torch.Tensor) -> torch.Tensor:
                return self.model(dict(zip(names, tensors, strict=True)))[OUTPUT]

        axes = {n: {0: "batch", 1: "tokens"} for n in names}
        axes[OUTPUT] = {0: "batch"}
        single = work / "single.onnx"
        # The tracer warns about shapes it freezes; the check below is what tells.
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(
                Pipeline().eval(),
                tuple(features[n] for n in names),
                str(single),
                input_names=names,
                output_names=[OUTPUT],
                dynamic_axes=axes,
                opset_version=17,
                do_constant_folding=True,
                dynamo=False,
            )
        graph = onnx.load(str(single))
        onnx.save_model(
            graph,
            str(work / GRAPH),
            save_as_external_data=True,
            all_tensors_to_one_file=True,
            location=WEIGHTS,
            size_threshold=1024,
        )
        single.unlink()
        del graph
        shutil.copyfile(model_dir / TOKENIZER, work / TOKENIZER)
        meta: dict[str, Any] = {
            "format": EXPORT_FORMAT,
            "source": str(model_dir),
            "fingerprint": fingerprint,
            "inputs": names,
            "output": OUTPUT,
            "dim": int(st.dim),
            "max_seq_length": int(model.max_seq_length),
            "versions": {"torch": torch.__version__, "onnx": onnx.__version__},
        }
        # The check runs the same code the queries will run, on the finished files.
        diff = _max_abs_diff(OnnxModel(work, meta), model)
        if diff > MAX_ABS_DIFF:
            raise ModelFileError(
                dest / GRAPH,
                f"the ONNX export disagrees with sentence-transformers by {diff:.2e} "
                f'(allowed {MAX_ABS_DIFF:.0e}); use embedding.backend = "torch"',
            )
        meta["max_abs_diff"] = diff
        meta["files"] = {n: (work / n).stat().st_size for n in (GRAPH, WEIGHTS, TOKENIZER)}
        (work / META).write_text(json.dumps(meta, indent=1), encoding="utf-8")
        # mkdtemp and onnx make private files; the export is a cache anyone may read.
        work.chmod(0o755)
        for name in (GRAPH, WEIGHTS, TOKENIZER, META):
            (work / name).chmod(0o644)
        try:
            work.rename(dest)
        except OSError:
            if not (dest / META).is_file():  # not a concurrent export that won: a real error
                raise
    finally:
        shutil.rmtree(work, ignore_errors=True)
    say(f"exported: ONNX vectors within {diff:.1e} of sentence-transformers")
    return meta


def _max_abs_diff(onnx_model: Any, model: Any) -> float:
    import numpy as np

    texts = list(PROBES)
    reference = model.encode(texts, batch_size=len(texts), convert_to_numpy=True)
    together = onnx_model.run(texts)
    alone = np.concatenate([onnx_model.run([t]) for t in texts])
    return float(max(np.abs(together - reference).max(), np.abs(alone - reference).max()))
