"""The site's MkDocs plugin, `verified-blocks`: a thin adapter from MkDocs' events to the build machinery.

Installed with the project (pyproject.toml's entry point under "mkdocs.plugins") and listed under mkdocs.yml's
`plugins:`, it owns everything MkDocs does for this site: the blocks run and verified (or rendered from a folder
of check results, `results:`), the course chrome, the kit download and each course page's notebook and script.
Remove it from mkdocs.yml and none of that happens; `make site`'s marks check (marks.py) then fails the build.

Its options are a mkdocs.config.base.Config, so MkDocs validates them: each value goes through
siteconfig.check_option (the same check `python -m sitebuild check` makes without MkDocs), and an unknown option
(a typo such as `block_timout`) is an error, in `mkdocs build` and `mkdocs serve` alike, with MkDocs' own message.

Each event goes to sitebuild.mkdocs_adapter.hook (the blocks) or sitebuild.course.chrome (the chrome). In `make
serve`, MkDocs keeps this plugin's instance between rebuilds and never imports an installed plugin again, so a
rebuild after an edit to any file of sitebuild/ (machinery_stamp) drops the machinery's modules (all of sitebuild
but this one) and imports them anew: the edit shows on that rebuild, as it did when the machinery was a hook loaded
by path.

Left out: any logic of its own; keep it here in the modules it calls, which do not need this file.
"""

from __future__ import annotations

import importlib
import os
import sys

from mkdocs.config import base
from mkdocs.config import config_options as c
from mkdocs.plugins import BasePlugin, event_priority

from sitebuild.find import siteconfig
from sitebuild.find.inputs import MACHINERY, tree_files

MODE_ENV = "SITEBUILD_MODE"  # hook.MODE_ENV: "serve" once on_startup saw `mkdocs serve`


class _Check(c.BaseConfigOption):
    """The check of one option of the plugin, siteconfig.check_option (wrapped in c.Optional: unset is allowed)."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name

    def run_validation(self, value):
        try:
            return siteconfig.check_option(self.name, value)
        except siteconfig.SettingError as error:
            raise c.ValidationError(str(error)) from None


def _Option(name: str) -> c.Optional:  # noqa: N802 - reads as the option types it stands beside
    """An option the plugin may be given or not (None: its default applies), checked by siteconfig.check_option."""
    return c.Optional(_Check(name))


class VerifiedBlocksConfig(base.Config):
    """The plugin's options (siteconfig.OPTIONS); an unknown one is an error, not MkDocs' usual warning.

    Example: mkdocs.yml's `- verified-blocks: {block_timeout: 60, downloads: true}`
    """

    block_timeout = _Option("block_timeout")  # seconds a block may run (default 60); a block may set timeout="120"
    block_jobs = _Option("block_jobs")  # pages whose blocks run at once (default: one per CPU)
    block_inputs = _Option("block_inputs")  # what serve's cache key reads besides the pages
    block_memory = _Option("block_memory")  # MB of address space per process of a page (default 4096; 0: no limit)
    results = _Option("results")  # a folder of `python -m sitebuild check --results`: render from it, run nothing
    downloads = _Option("downloads")  # true: the kit download and each course page's notebook and script
    enabled = _Option("enabled")  # declared so that MkDocs' generic `enabled: false` is refused, never obeyed

    def validate(self):
        """MkDocs' validation, with each "Unrecognised configuration name" warning made an error.

        Returns:
            (errors, warnings) as mkdocs.config.base.Config.validate returns them.
        """
        failed, warnings = super().validate()
        unknown = [(key, message) for key, message in warnings if str(message).startswith("Unrecognised config")]
        return ([*failed, *((key, c.ValidationError(message)) for key, message in unknown)],
                [w for w in warnings if w not in unknown])


def machinery_stamp() -> tuple:
    """What the machinery's files are now: (path, mtime in ns, size) of each file of sitebuild/ (caches left out).

    Example: machinery_stamp()[0][0] == "__init__.py"
    """
    return tuple((p.relative_to(MACHINERY).as_posix(), p.stat().st_mtime_ns, p.stat().st_size)
                 for p in tree_files(MACHINERY) if p.is_file())


def _machinery(fresh: bool):
    """sitebuild.mkdocs_adapter.hook, imported anew (with every sitebuild module but this one) when fresh."""
    if fresh:
        for name in [m for m in sys.modules if (m == "sitebuild" or m.startswith("sitebuild.")) and m != __name__]:
            del sys.modules[name]
    return importlib.import_module("sitebuild.mkdocs_adapter.hook")


class VerifiedBlocksPlugin(BasePlugin[VerifiedBlocksConfig]):
    """Runs and verifies every page's blocks, draws the course chrome and the downloads (module docstring).

    Example: mkdocs.yml's `plugins: [search, markdown-exec, {verified-blocks: {block_timeout: 60}}]`
    """

    def __init__(self) -> None:
        self._hook = None
        self._stamp: tuple | None = None  # the machinery's files when it was imported (serve only)

    def on_startup(self, *, command, dirty):
        self._hook = self._hook or _machinery(False)
        self._hook.on_startup(command, dirty)

    def on_config(self, config):
        if os.environ.get(MODE_ENV) == "serve":  # a rebuild after an edit to the machinery imports it anew
            stamp = machinery_stamp()
            if self._hook is None or (self._stamp is not None and stamp != self._stamp):
                self._hook = _machinery(fresh=self._hook is not None)
            self._stamp = stamp
        elif self._hook is None:
            self._hook = _machinery(False)
        return self._hook.on_config(config, self.config)

    def on_files(self, files, *, config):
        return self._hook.on_files(files, config)

    def on_page_markdown(self, markdown, *, page, config, files):
        return self._hook.on_page_markdown(markdown, page, config, files)

    def on_page_content(self, html, *, page, config, files):
        return self._hook.on_page_content(html, page, config, files)

    @event_priority(-100)  # after every other plugin's: the page as MkDocs writes it
    def on_post_page(self, output, *, page, config):
        return self._hook.on_post_page(output, page)

    def on_env(self, env, *, config, files):
        return self._hook.chrome.on_env(env, config, files)

    def on_page_context(self, context, *, page, config, nav):
        return self._hook.chrome.on_page_context(context, page, config, nav)

    @event_priority(100)  # before the plugins' own post_build (search's index), so what is in the site is the build's
    def on_post_build(self, *, config):
        self._hook.on_post_build(config)

    def on_build_error(self, *, error):
        if self._hook is not None:
            self._hook.on_build_error(error)

    def on_shutdown(self):
        if self._hook is not None:
            self._hook.on_shutdown()
