"""A logger whose warnings MkDocs shows but does not count: for what must be said but must not fail a strict build.

In strict mode MkDocs counts every WARNING on its "mkdocs" logger and aborts the build over them. Some
warnings of this site are advice, not failures: a serve-cache entry that could not be stored (the cache
only saves time), or a kit download made without git (a copy of the repo with no .git still builds).
They go to a logger outside "mkdocs", whose handler passes each record to MkDocs' own handlers (the
terminal, a test's capture) except the counter.

Left out: anything that should fail a build; that goes to MkDocs' loggers as usual.
"""

from __future__ import annotations

import logging


class UncountedHandler(logging.Handler):
    """Passes a record to the "mkdocs" logger's handlers, but not to the counter MkDocs adds in strict mode."""

    def emit(self, record: logging.LogRecord) -> None:
        mkdocs_log = logging.getLogger("mkdocs")
        if not mkdocs_log.isEnabledFor(record.levelno):
            return
        for handler in mkdocs_log.handlers:
            if type(handler).__name__ != "CountHandler" and record.levelno >= handler.level:
                handler.handle(record)


def uncounted(name: str) -> logging.Logger:
    """The logger `name` (outside "mkdocs"), shown through MkDocs' handlers and never counted as a failure.

    Args:
        name: a logger name that does not start with "mkdocs", e.g. "sitebuild.cache".

    Returns:
        The logger, with one UncountedHandler however often this is called (serve imports it anew after an edit).

    Raises:
        ValueError: name is under "mkdocs", whose warnings MkDocs counts anyway.

    Example: uncounted("sitebuild.cache").warning("serve cache: could not store ...")
    """
    if name == "mkdocs" or name.startswith("mkdocs."):
        raise ValueError(f"logger name {name!r}: expected one outside 'mkdocs', whose warnings strict mode counts")
    log = logging.getLogger(name)
    if not any(type(h).__name__ == "UncountedHandler" for h in log.handlers):
        log.addHandler(UncountedHandler())
    return log
