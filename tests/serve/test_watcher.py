"""The file watcher survives any path, restarts when it fails, and says so (issue 13, item 1)."""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path

import pytest

from graphrag import VaultRAG
from graphrag.config import load_settings
from graphrag.serve import live as live_module
from graphrag.serve.live import LiveIndex
from tests.support.fakes import HashEmbedder
from tests.support.files import write
from tests.support.polling import wait_until


def open_rag(vault: Path) -> VaultRAG:
    return VaultRAG.open(vault, settings=load_settings(env={}), embedder=HashEmbedder())


@pytest.mark.skipif(
    sys.platform != "linux", reason="needs a file system that takes any bytes as a name"
)
def test_a_folder_whose_name_is_not_utf8_does_not_stop_live_updates(sample_vault: Path) -> None:
    rag = open_rag(sample_vault)
    live = LiveIndex(rag, debounce_ms=50)
    live.start()
    try:
        wait_until(lambda: live.updates >= 1)  # the catch-up update on the first tick
        bad = os.path.join(os.fsencode(sample_vault), b"Ordner \xfc")
        os.mkdir(bad)
        with open(os.path.join(bad, b"inside.md"), "wb") as fh:
            fh.write(b"In a folder whose name is Latin-1.\n")

        def failed_once() -> bool:
            """watchfiles gave up on the path and the watcher was restarted"""
            return live.watch_restarts >= 1

        wait_until(failed_once)
        assert "decode" in live.watch_error["error"]  # type: ignore[index]
        write(sample_vault, "Home.md", "# Home\n\nstill watched after the bad folder\n")

        def edited() -> bool:
            """the edit made after the failure is indexed"""
            return "still watched" in rag.focus("Home").focus_note.details

        wait_until(edited, timeout=15)
        assert live.watching
        # watchfiles cannot even start on this tree, so the vault is polled instead.
        assert live.watcher_status()["state"] == "polling"
        (sample_vault / "People/Lena Fux.md").unlink()

        def deleted() -> bool:
            """later changes are picked up too"""
            return "People/Lena Fux" not in rag.snapshot.graph

        wait_until(deleted, timeout=15)
    finally:
        live.stop()
    assert live.watcher_status()["state"] == "off"


def test_a_watcher_that_keeps_failing_gives_way_to_polling_and_says_so(
    sample_vault: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    import watchfiles

    def broken(*args: object, **kwargs: object) -> object:
        raise RuntimeError("inotify watch limit reached")

    monkeypatch.setattr(watchfiles, "watch", broken)
    monkeypatch.setattr(live_module, "RESTART_FIRST_S", 0.01)
    monkeypatch.setattr(live_module, "RESTART_MAX_S", 0.05)
    live = LiveIndex(open_rag(sample_vault), debounce_ms=50)
    with caplog.at_level(logging.ERROR, logger=live_module.__name__):
        live.start()
        try:
            wait_until(lambda: live.watcher_status()["state"] == "polling")
            status = live.watcher_status()
            assert status["restarts"] == live_module.POLL_AFTER_FAILURES
            assert status["last_error"]["error"] == "RuntimeError: inotify watch limit reached"
            assert live.watching  # the thread is alive, polling
            write(sample_vault, "Home.md", "# Home\n\nseen by polling\n")
            wait_until(lambda: "seen by polling" in live.rag.focus("Home").focus_note.details)
        finally:
            live.stop()
    assert any(
        "inotify watch limit reached" in r.getMessage() and "restarting" in r.getMessage()
        for r in caplog.records
    )


@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")
def test_a_watcher_thread_that_dies_is_reported_as_stopped(
    sample_vault: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    live = LiveIndex(open_rag(sample_vault), debounce_ms=50)

    def dies() -> None:
        raise SystemExit("the thread ends")  # not an Exception: the supervisor lets it go

    monkeypatch.setattr(live, "_watch", dies)
    with caplog.at_level(logging.CRITICAL, logger=live_module.__name__):
        live.start()
        wait_until(lambda: not live.watching)
    assert live.watcher_status()["state"] == "stopped"
    assert any("live updates are off" in r.getMessage() for r in caplog.records)
