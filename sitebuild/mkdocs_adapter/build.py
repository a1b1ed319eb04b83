"""Build a site with MkDocs inside this Python process, in one of the hook's modes.

`python -m sitebuild accept` and the benchmark build this way, and so do the site's own tests, which
would otherwise pay a new interpreter and a fresh import of MkDocs and Material for every fixture
site. Blocks still run in fresh interpreters of their own (runner.py), so nothing of a page's code
stays in this process between builds.

Left out: `mkdocs serve`. Serving stays the CLI's job (`make serve`).
"""

from __future__ import annotations

import os
from pathlib import Path

MODE_ENV = "SITEBUILD_MODE"
QUIET_ENV = {"NO_MKDOCS_2_WARNING": "1", "DISABLE_MKDOCS_2_WARNING": "true"}  # banners Material prints


def build_site(config_file: str | Path, site_dir: str | Path | None = None, *, mode: str = "build",
               strict: bool | None = None) -> int:
    """Run `mkdocs build` in this process.

    Args:
        config_file: the site's mkdocs.yml.
        site_dir: where to write the site (None: mkdocs.yml's site_dir).
        mode: the hook's mode: build, serve or accept (SITEBUILD_MODE while the build runs).
        strict: override mkdocs.yml's strict setting (None: keep it).

    Returns:
        0 when the build passed, 1 when MkDocs aborted it (the reasons are logged on the "mkdocs" logger),
        128 + N when signal N (SIGINT, SIGTERM) stopped it (the hook killed its blocks and logged a line).

    Raises:
        Whatever MkDocs itself does not turn into an abort (a bug, not a failing page).

    Example: build_site("mkdocs.yml", "/tmp/site") == 0
    """
    from mkdocs.commands.build import build
    from mkdocs.config import load_config
    from mkdocs.exceptions import Abort, ConfigurationError

    saved = {name: os.environ.get(name) for name in (MODE_ENV, *QUIET_ENV)}
    os.environ.update(QUIET_ENV, **{MODE_ENV: mode})
    try:
        overrides = {"site_dir": str(site_dir)} if site_dir is not None else {}
        config = load_config(str(config_file), strict=strict, **overrides)
        config.plugins.on_startup(command="build", dirty=False)
        try:
            build(config)
        finally:
            config.plugins.on_shutdown()
        return 0
    except (Abort, ConfigurationError) as error:
        from mkdocs.commands.build import log

        log.error(str(error))
        return 1
    except SystemExit as stopped:  # the hook's on_shutdown after an interrupt
        if isinstance(stopped.__context__, KeyboardInterrupt) and isinstance(stopped.code, int):
            return stopped.code
        raise
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
