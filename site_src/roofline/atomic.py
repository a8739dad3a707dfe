"""Build into a staging folder and swap it in only when the build succeeded, so a failed
`mkdocs build` (a data error, a bad fence, a strict-mode warning) leaves the existing site intact.

MkDocs empties `site_dir` before building, so without this a broken catalog would leave a reader's
half-built site behind. Used by the `roofline` plugin for `mkdocs build` only: `mkdocs serve`
builds into its own temporary folder.
"""

from __future__ import annotations

import logging
import os
import shutil
from pathlib import Path

log = logging.getLogger("mkdocs.plugins.roofline")


class _Counter(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        self.count += 1


class StagedBuild:
    """on_config: redirect site_dir; on_post_build: swap; on_build_error: discard."""

    def __init__(self) -> None:
        self.target: Path | None = None
        self.staging: Path | None = None
        self.strict = False
        self._counter = _Counter()

    def start(self, config) -> None:
        self.target = Path(config["site_dir"]).resolve()
        self.staging = self.target.with_name(f".{self.target.name}.staging-{os.getpid()}")
        shutil.rmtree(self.staging, ignore_errors=True)
        self.strict = bool(config.get("strict"))
        self._counter.count = 0
        logging.getLogger("mkdocs").addHandler(self._counter)
        config["site_dir"] = str(self.staging)

    def finish(self) -> None:
        if self.staging is None or self.target is None:
            return
        logging.getLogger("mkdocs").removeHandler(self._counter)
        if self.strict and self._counter.count:
            # MkDocs will abort in strict mode right after post_build: keep the old site.
            log.warning("strict build failed: %s left unchanged", self.target)
            self.discard()
            return
        old = self.target.with_name(f".{self.target.name}.old-{os.getpid()}")
        if self.target.exists():
            self.target.rename(old)
        self.staging.rename(self.target)
        shutil.rmtree(old, ignore_errors=True)
        self.staging = None

    def discard(self) -> None:
        logging.getLogger("mkdocs").removeHandler(self._counter)
        if self.staging is not None:
            shutil.rmtree(self.staging, ignore_errors=True)
            self.staging = None
