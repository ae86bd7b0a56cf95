"""``vault-graphrag serve`` for the TypeScript tests, with test models registered in ``llm``.

``python tests/js/serve_for_js.py serve VAULT ...`` runs the CLI exactly as ``vault-graphrag``
does, after registering the models of ``tests.support.llm_fakes`` (``test-stream`` answers in
three pieces with a citation) and ``js-slow`` (a piece every 100 ms for up to a minute; when
the stream is closed early, as the server does when the client goes away, it writes the file
named by ``VGR_SLOW_CLOSED``). llm-echo (``echo``) comes from the dev extra as usual.
"""

from __future__ import annotations

import os
import runpy
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import llm

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.support import llm_fakes

PIECES = 600
PIECE_SECONDS = 0.1


class SlowModel(llm.Model):
    model_id = "js-slow"
    can_stream = True

    def execute(self, prompt: Any, stream: bool, response: Any, conversation: Any) -> Iterator[str]:
        sent = 0
        try:
            for sent in range(PIECES):
                yield f"word{sent} "
                time.sleep(PIECE_SECONDS)
        finally:
            # GeneratorExit (closed early) lands here with sent < PIECES - 1.
            marker = os.environ.get("VGR_SLOW_CLOSED")
            if marker and sent < PIECES - 1:
                Path(marker).write_text(str(sent))


class _Plugin:
    @llm.hookimpl
    def register_models(self, register: Callable[..., None]) -> None:
        register(SlowModel())


def main() -> None:
    llm.plugins.pm.register(llm_fakes._Plugin(), name=llm_fakes.PLUGIN_NAME)
    llm.plugins.pm.register(_Plugin(), name="vault-graphrag-js-models")
    sys.argv = ["vault-graphrag", *sys.argv[1:]]
    runpy.run_module("graphrag", run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
