"""The floor for a question from the shell: a fresh Python that embeds one question.

It does the least any process answering a question must do, and nothing of this
project: ``import onnxruntime`` and ``tokenizers``, load the ONNX export of the model
(made by ``indexer/onnx_export.py``), tokenize the question and run it once. Time it
as a whole process next to a command, in the same run::

    python benchmarks/floor_embed.py --prepare        # make the export if missing (once)
    hyperfine -N 'python benchmarks/floor_embed.py' 'vault-graphrag query "..." --vault V'
    /usr/bin/time -v python benchmarks/floor_embed.py

``--export DIR`` names the export folder; by default the newest export of
all-MiniLM-L6-v2 in ``$XDG_CACHE_HOME/vault-graphrag/onnx`` (else ``~/.cache/...``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

QUESTION = "how do I embed a file"


def default_export() -> Path:
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    found = sorted(
        (base / "vault-graphrag" / "onnx").glob("all-MiniLM-L6-v2-*/export.json"),
        key=lambda p: p.stat().st_mtime,
    )
    if not found:
        sys.exit("no ONNX export found: run `python benchmarks/floor_embed.py --prepare` first")
    return found[-1].parent


def prepare() -> Path:
    """Make (or find) the export the ``onnx`` backend uses, through the project's code."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from indexer.onnx_embed import OnnxEmbedder

    embedder = OnnxEmbedder()
    embedder.load()
    return embedder.folder()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--export", type=Path, help="the export folder")
    parser.add_argument("--prepare", action="store_true", help="make the export, print its folder")
    parser.add_argument("question", nargs="?", default=QUESTION)
    args = parser.parse_args()
    if args.prepare:
        print(prepare())
        return
    folder = args.export or default_export()

    import numpy as np
    import onnxruntime as ort
    from tokenizers import Tokenizer

    meta = json.loads((folder / "export.json").read_text(encoding="utf-8"))
    tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
    tokenizer.no_padding()
    tokenizer.enable_truncation(int(meta["max_seq_length"]))
    session = ort.InferenceSession(str(folder / "model.onnx"), providers=["CPUExecutionProvider"])
    encoding = tokenizer.encode(args.question)
    feeds = {
        "input_ids": np.array([encoding.ids], dtype=np.int64),
        "attention_mask": np.array([encoding.attention_mask], dtype=np.int64),
        "token_type_ids": np.array([encoding.type_ids], dtype=np.int64),
    }
    (vector,) = session.run(None, {i.name: feeds[i.name] for i in session.get_inputs()})
    print(f"{vector.shape[1]} dims, norm {float(np.linalg.norm(vector)):.4f}")


if __name__ == "__main__":
    main()
