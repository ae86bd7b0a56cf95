"""Keeping a served index current: one update at a time, on request or on file changes.

``VaultRAG.index`` already commits a new generation and then swaps the snapshot
atomically, so readers keep answering from the previous one while an update
runs. This module adds what a long-running server needs on top: a lock so only
one update runs at a time (a second caller waits, or gets ``IndexBusyError``),
a record of the last update for ``/status``, and a background thread that
watches the vault with watchfiles and re-indexes after a burst of changes.

The watcher must never go quiet: watchfiles gives up on some paths (a folder whose
name is not UTF-8 raises "Unable to decode path") and then stops for good. So
``_run`` supervises it: any error is logged, recorded for ``/status``
(``watcher``), and the watch restarts after a short, growing pause, followed by one
update that catches whatever changed while it was down. A watch that keeps failing
gives way to polling: every ``POLL_S`` the index is compared with the vault by
sizes and mtimes (``indexer.fresh``), and an update runs when they differ.
"""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path
from typing import Any

from graphrag.api import VaultRAG
from graphrag.errors import IndexBusyError, VaultError, VaultRAGError
from graphrag.serve import memory
from graphrag.snapshot.snapshot import Snapshot
from indexer import IndexStats
from indexer.store import read_manifest

log = logging.getLogger(__name__)

# watchfiles waits this long (ms) for more changes before yielding a batch.
QUIET_STEP_MS = 50
# How often (ms) the watcher wakes without changes, to retry a deferred update.
IDLE_TICK_MS = 1000
# Pause before restarting a failed watcher: doubles per failure in a row, up to the max.
RESTART_FIRST_S = 0.25
RESTART_MAX_S = 30.0
# A watch that ran this long before failing starts the pauses over.
RESTART_RESET_S = 60.0
# After this many failures in a row, poll the vault instead of watching it.
POLL_AFTER_FAILURES = 2
POLL_S = 2.0


class LiveIndex:
    """Index updates for a served vault: serialised, recorded, optionally watched."""

    def __init__(self, rag: VaultRAG, debounce_ms: int = 300) -> None:
        self.rag = rag
        self.debounce_ms = debounce_ms
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.updates = 0
        self.last_update: dict[str, Any] | None = None
        self.watch_restarts = 0
        self.watch_error: dict[str, Any] | None = None  # the last failure of the watcher
        self._watch_state = "off"
        # While an update runs: its phase and how far it is (/status "progress").
        self.progress: dict[str, Any] | None = None

    # -- updates ------------------------------------------------------------------------
    @property
    def updating(self) -> bool:
        return self._lock.locked()

    @property
    def watching(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def watcher_status(self) -> dict[str, Any]:
        """For ``/status``: ``state`` is off | watching | polling (watchfiles failed; the
        vault is compared with the index every few seconds) | restarting | stopped (it
        died: see ``last_error`` and the log), with the restarts so far and the last error."""
        state = self._watch_state
        if state in ("watching", "polling", "restarting") and not self.watching:
            state = "stopped"
        return {"state": state, "restarts": self.watch_restarts, "last_error": self.watch_error}

    def update(self, full: bool = False, wait: bool = True, reason: str = "request") -> IndexStats:
        """Run one incremental (or ``full``) update; ``wait=False`` raises IndexBusyError if one runs."""
        if not self._lock.acquire(blocking=wait):
            raise IndexBusyError(str(self.rag.index_dir))
        started = time.time()
        replaced = self.rag.loaded_snapshot  # what queries used so far
        self._progress("starting", 0, 0)
        try:
            # Its embedding's tensors and temporaries mapped on their own, not left in the
            # heap around what the new snapshot keeps (memory.UPDATE_MMAP_BYTES).
            with memory.mapped_medium_blocks():
                stats = self.rag.index(full=full, progress=self._progress)
                self._follow_manifest()
                self._progress("loading", 0, 0)  # the new snapshot's arrays and BM25 index
                self.warm(replaced=replaced)
        except VaultRAGError as exc:
            self._record(started, reason, error=str(exc))
            raise
        except Exception as exc:
            self._record(started, reason, error=f"{type(exc).__name__}: {exc}")
            raise
        else:
            self._record(started, reason, stats=stats)
            return stats
        finally:
            self.progress = None
            self._lock.release()
            # An update's parse, embedding and new snapshot leave freed memory (and the
            # model file's pages) resident until the next trim: give them back now. The
            # replaced snapshot goes first: still referenced here, it would survive the
            # collection and be frozen with the heap until the next update.
            replaced = None
            try:
                memory.trim(thaw=True)  # the replaced snapshot may be in the frozen heap
            except Exception:  # never fail an update for this
                log.debug("trimming after an update failed", exc_info=True)

    def _progress(self, phase: str, done: int, total: int) -> None:
        """The indexer's ``progress(phase, done, total)``, kept for ``/status``: one
        assignment of a new dict, so a reader sees one consistent state."""
        self.progress = {"phase": phase, "done": done, "total": total}

    def _follow_manifest(self) -> None:
        """Serve the committed generation even if another process made it.

        ``VaultRAG.index`` reloads only when it changed something itself; after a
        ``vault-graphrag index`` run elsewhere it finds the index up to date and
        would keep serving the older snapshot.
        """
        committed = (read_manifest(self.rag.index_dir) or {}).get("generation")
        if committed != self.rag.snapshot.index.manifest.get("generation"):
            self.rag.reload()

    def warm(self, counts: bool = False, replaced: Snapshot | None = None) -> None:
        """Load the current generation's vectors and name index now, not on the first request that needs them.

        With ``counts`` (the server's start-up warm-up), also build the query arrays and
        the BM25 index (``_warm_search``), and count every note's (truncated) details
        once: focus mode estimates each candidate by that count, and the tokenizer
        caches it, so the first requests after start-up are as fast as later ones.

        ``replaced``: the snapshot an update just replaced. If queries (or the start-up
        warm-up) had built its query arrays and BM25 index, the new snapshot's are built
        now, in the updating thread, so the first query after an edit does not wait for
        them; the BM25 index starts from the replaced one's and tokenizes only the new
        and changed notes.
        """
        snapshot = self.rag.snapshot
        snapshot.warm()  # the vectors, and notes by title and alias for requests by name
        if counts:
            self._warm_search(snapshot, lexical=self.rag.settings.query.lexical_enabled)
            from graphrag.details.text import note_text

            graph, limit, count = (
                snapshot.graph,
                self.rag.settings.focus.truncate_length,
                self.rag.tokenizer.count,
            )
            text = note_text(snapshot, self.rag.settings.details)  # kept for focus mode
            for note in graph.notes():
                count(text.details(note.uri, limit)[0])
        elif (
            replaced is not None
            and replaced is not snapshot
            and replaced.built_corpus() is not None
        ):
            language = self.rag.settings.query.stemmer_language
            self._warm_search(snapshot, lexical=replaced.lexical_built(language))

    def _warm_search(self, snapshot: Snapshot, lexical: bool) -> None:
        """Build ``snapshot``'s query arrays (and BM25 index); a failure is only logged:
        the first query that needs them reports it."""
        from graphrag.query.entry import warm_titles
        from graphrag.query.warm import warm_hubs

        language = self.rag.settings.query.stemmer_language
        try:
            snapshot.warm(search=True, language=language if lexical else None)
            warm_titles(snapshot.corpus, snapshot.graph, language if lexical else None)
            warm_hubs(snapshot.corpus, snapshot.graph, snapshot.index)
        except Exception:
            log.warning(
                "building the query arrays of %s failed", snapshot.index.generation, exc_info=True
            )

    def _record(
        self, started: float, reason: str, stats: IndexStats | None = None, error: str | None = None
    ) -> None:
        self.updates += 1
        entry: dict[str, Any] = {
            "reason": reason,
            "started": round(started, 3),
            "seconds": round(time.time() - started, 3),
        }
        if stats is not None:
            entry.update(
                up_to_date=stats.up_to_date,
                added=stats.added,
                changed=stats.changed,
                removed=stats.removed,
                notes=stats.notes,
            )
        if error is not None:
            entry["error"] = error
        self.last_update = entry

    # -- watching -----------------------------------------------------------------------
    def start(self) -> None:
        """Watch the vault in a daemon thread until ``stop``."""
        if self.rag.vault is None:
            raise VaultError(str(self.rag.index_dir), "this index does not know its vault")
        if self.watching:
            return
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="vault-graphrag-watch", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 10.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None

    def relevant(self, path: str) -> bool:
        """Vault files only: not the index folder, not dot-folders (.obsidian, .git, .trash)."""
        vault = self.rag.vault
        assert vault is not None
        p = Path(path)
        try:
            p.relative_to(self.rag.index_dir)
            return False
        except ValueError:
            pass
        try:
            rel = p.relative_to(vault)
        except ValueError:
            return False
        return not any(part.startswith(".") for part in rel.parts)

    def _run(self) -> None:
        """Watch until ``stop``. A failed watch is restarted; after ``POLL_AFTER_FAILURES``
        failures in a row the vault is polled instead (watchfiles cannot watch a tree that
        holds a folder whose name is not UTF-8 at all: it fails as it starts)."""
        failures = 0
        try:
            while not self._stop.is_set():
                polling = failures >= POLL_AFTER_FAILURES
                self._watch_state = "polling" if polling else "watching"
                began = time.monotonic()
                try:
                    self._poll() if polling else self._watch()
                    break
                except Exception as exc:
                    failures = 1 if time.monotonic() - began > RESTART_RESET_S else failures + 1
                    self.watch_restarts += 1
                    self.watch_error = {
                        "error": f"{type(exc).__name__}: {exc}",
                        "at": round(time.time(), 3),
                    }
                    pause = min(RESTART_MAX_S, RESTART_FIRST_S * 2 ** (failures - 1))
                    then = "polling" if failures >= POLL_AFTER_FAILURES else "watching"
                    log.error(
                        "watching %s failed (%s: %s); restarting in %.2f s, %s",
                        self.rag.vault,
                        type(exc).__name__,
                        exc,
                        pause,
                        then,
                    )
                    self._watch_state = "restarting"
                    self._stop.wait(pause)
        finally:
            if self._stop.is_set():
                self._watch_state = "off"
            else:  # not a stop we asked for: say so where someone will look
                log.critical("the file watcher of %s stopped; live updates are off", self.rag.vault)
                self._watch_state = "stopped"

    def _catch_up(self, reason: str) -> bool:
        """One update for changes seen; False if it must be tried again (the lock was taken)."""
        try:
            self.update(reason=reason)
        except IndexBusyError:
            log.info("index busy (another indexer holds the lock); retrying")
            return False
        except Exception:  # keep watching: the next change may fix it
            log.exception("re-indexing %s after a change failed", self.rag.vault)
        return True

    def _poll(self) -> None:
        """Ask every ``POLL_S`` whether the index is still current (sizes and mtimes)."""
        from indexer.fresh import index_is_current

        vault = self.rag.vault
        assert vault is not None
        pending = True
        while not self._stop.is_set():
            pending = pending or not index_is_current(
                vault, self.rag.index_dir, self.rag.settings.index_config, self.rag.embedder
            )
            if pending:
                pending = not self._catch_up("poll")
            self._stop.wait(POLL_S)

    def _watch(self) -> None:
        import watchfiles

        vault = self.rag.vault
        assert vault is not None
        # Changes made before the watcher is armed (or while a failed one restarted) are
        # caught by one update on the first tick.
        pending = True
        for changes in watchfiles.watch(
            vault,
            watch_filter=lambda _change, path: self.relevant(path),
            debounce=self.debounce_ms,
            step=QUIET_STEP_MS,
            stop_event=self._stop,
            rust_timeout=IDLE_TICK_MS,
            yield_on_timeout=True,
            raise_interrupt=False,
        ):
            pending = pending or bool(changes)
            if pending and not self._stop.is_set():
                pending = not self._catch_up("watch")
