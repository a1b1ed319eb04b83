"""The site's settings as the hook reads them, from mkdocs.yml without MkDocs, for `python -m sitebuild check`.

- block_settings(): the verified-blocks plugin's options (block_timeout, block_jobs, block_inputs, block_memory,
  results), checked by check_option, which the plugin's own config options call too
  (sitebuild/mkdocs_adapter/plugin.py), so MkDocs and `check` refuse the same settings with the same message;
- load(): the pages of the nav (in nav order), the docs and data folders, the folders `make serve` watches, and
  a factory of Markdown instances configured as a build configures the pages' Markdown: MkDocs' built-in
  extensions (toc, tables, fenced_code) first, then mkdocs.yml's, with markdown-exec's fences (as its on_config
  adds them) and this site's (fences.install);
- page_markdown(): a page's Markdown without its front matter, as MkDocs' meta.get_data strips it.

Left out: MkDocs itself (nothing here imports it, nor markdown_exec, whose package imports its MkDocs plugin):
markdown-exec's own md, tree and pyodide fences are read as fences but drawn as plain text (fences.stand_in), so
an executed fence nested in an executed md fence is not found, where a build would run it; INHERIT (a mkdocs.yml
that extends another); YAML tags other than !!python/name and !ENV (read as None); and what other plugins would
change in the Markdown settings (the site's, search and verified-blocks, change none).
tests/test_site_check.py holds these readings to MkDocs' own.
"""

from __future__ import annotations

import importlib
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import yaml

try:
    from yaml import CSafeLoader as FastSafeLoader  # MkDocs' choice for front matter
except ImportError:  # pragma: no cover
    from yaml import SafeLoader as FastSafeLoader

from sitebuild.find import fences
from sitebuild.find.blocks import Block, BlockError, front_matter_lines, page_blocks
from sitebuild.find.inputs import DEFAULT_INPUTS

DEFAULT_MEMORY = 4096  # MB of address space a process of a page may take (the plugin's block_memory)
PLUGIN = "verified-blocks"  # the site's MkDocs plugin (mkdocs_adapter/plugin.py), as mkdocs.yml's plugins name it
OPTIONS = ("block_timeout", "block_jobs", "block_inputs", "block_memory", "results", "downloads",
           "enabled")  # its options
BUILTIN_EXTENSIONS = ["toc", "tables", "fenced_code"]  # MkDocs puts these before mkdocs.yml's markdown_extensions
MARKDOWN_EXEC = "markdown-exec"
# markdown-exec's languages (markdown_exec.formatters), the default of its `languages` setting; importing
# markdown_exec would try to import MkDocs (its plugin)
MARKDOWN_EXEC_LANGUAGES = ["bash", "console", "md", "markdown", "py", "python", "pycon", "pyodide", "sh", "tree"]


class SettingError(ValueError):
    """A setting of mkdocs.yml the site cannot use, or a mkdocs.yml it cannot read; the message names it."""


@dataclass(frozen=True)
class BlockSettings:
    """How a build runs the blocks (the verified-blocks plugin's options in mkdocs.yml).

    Attributes:
        timeout: seconds a block may run unless it sets its own; jobs: pages run at once;
        inputs: what serve's cache key reads besides the pages; memory: MB per process of a page (0: no limit);
        results: a folder of check results to render from, relative to mkdocs.yml ("" when none: run the blocks).
    """

    timeout: float
    jobs: int
    inputs: list[str]
    memory: int
    results: str = ""


def _whole(value, low: int, high: int) -> bool:
    return not isinstance(value, bool) and isinstance(value, int) and low <= value <= high


def check_option(name: str, value):
    """Check one option of the verified-blocks plugin as mkdocs.yml sets it (None: unset, the default applies).

    Args:
        name: one of OPTIONS; value: as YAML read it.

    Returns:
        The value, unchanged.

    Raises:
        SettingError: an unknown option, or a value out of its range; the message says what is expected, e.g.
            "expected a number of seconds from 1 to 3600, got 0.5".

    Example: check_option("block_jobs", 2) == 2
    """
    if name not in OPTIONS:
        raise SettingError(f"Unrecognised configuration name: {name}")
    if value is None:
        return value
    if name == "block_timeout" and (isinstance(value, bool) or not isinstance(value, int | float)
                                    or not 1 <= value <= 3600):
        raise SettingError(f"expected a number of seconds from 1 to 3600, got {value!r}")
    if name == "block_jobs" and not _whole(value, 1, 256):
        raise SettingError(f"expected a whole number from 1 to 256, got {value!r}")
    if name == "block_memory" and not _whole(value, 0, 1 << 20):
        raise SettingError(f"expected a whole number from 0 to {1 << 20}, got {value!r}")
    if name == "block_inputs" and (not isinstance(value, list)
                                   or not all(isinstance(i, str) and i and not i.startswith("/") for i in value)):
        raise SettingError(f"expected a list of paths relative to mkdocs.yml, got {value!r}")
    if name == "downloads" and not isinstance(value, bool):
        raise SettingError(f"expected true or false, got {value!r}")
    if name == "enabled" and value is not True:  # MkDocs' generic `enabled: false` would skip it without a word
        raise SettingError(f"expected true or no setting, got {value!r}: a site built without this plugin is not "
                           "verified, and `make site`'s marks check fails it")
    if name == "results" and (not isinstance(value, str) or not value):
        raise SettingError(f"expected a folder of check results (python -m sitebuild check --results), got {value!r}")
    return value


def block_settings(options) -> BlockSettings:
    """Read and check the verified-blocks plugin's options: block_timeout, block_jobs, block_inputs, block_memory,
    results.

    Args:
        options: the plugin's options as mkdocs.yml sets them (a mapping; an option unset or None takes its default).

    Returns:
        The BlockSettings, defaults filled in (timeout 60 s, one job per CPU, inputs.DEFAULT_INPUTS, 4096 MB, no
        results).

    Raises:
        SettingError: the first unknown option or option out of its range, named as MkDocs names it.

    Example: block_settings({"block_jobs": 2}).jobs == 2
    """
    for name, value in options.items():
        try:
            check_option(name, value)
        except SettingError as error:
            raise SettingError(f"Plugin '{PLUGIN}' option '{name}': {error}") from None

    def get(name: str, default):
        value = options.get(name)
        return default if value is None else value

    return BlockSettings(float(get("block_timeout", 60)), get("block_jobs", os.cpu_count() or 1),
                         list(get("block_inputs", list(DEFAULT_INPUTS))), get("block_memory", DEFAULT_MEMORY),
                         get("results", ""))


def plugin_options(conf: dict) -> dict:
    """The verified-blocks plugin's options in mkdocs.yml as read ({} when it is listed without any, or not at all).

    Example: plugin_options({"plugins": [{"verified-blocks": {"block_jobs": 2}}]}) == {"block_jobs": 2}
    """
    return dict(dict(_entries(conf.get("plugins", []))).get(PLUGIN, {}))


# MkDocs' utils/meta.py (BSD licence, Copyright (c) 2015, Waylan Limberg): how a page's front matter is split off.
YAML_RE = re.compile(r"^-{3}[ \t]*\n(.*?\n)(?:\.{3}|-{3})[ \t]*\n", re.UNICODE | re.DOTALL)
META_RE = re.compile(r"^[ ]{0,3}(?P<key>[A-Za-z0-9_-]+):\s*(?P<value>.*)")
META_MORE_RE = re.compile(r"^([ ]{4}|\t)(\s*)(?P<value>.*)")


def page_markdown(source: str) -> str:
    """A page's Markdown after its front matter (YAML between --- lines, or MultiMarkdown key: value lines), as
    MkDocs' mkdocs.utils.meta.get_data returns it.

    Args:
        source: the page file's text.

    Returns:
        The Markdown MkDocs hands to the page's plugins (blocks.front_matter_lines counts the lines before it).

    Example: page_markdown("---\\ntitle: A\\n---\\n# A\\n") == "# A\\n"
    """
    if m := YAML_RE.match(source):
        try:
            data = yaml.load(m.group(1), FastSafeLoader)  # noqa: S506 - a safe loader, as MkDocs
        except Exception:  # noqa: BLE001 - MkDocs keeps the page as it is
            return source
        return source[m.end():].lstrip("\n") if isinstance(data, dict) else source
    lines = source.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    key = None
    while lines:
        line = lines.pop(0)
        if line.strip() == "":
            break
        if m1 := META_RE.match(line):
            key = m1.group("key")
        elif not (META_MORE_RE.match(line) and key):
            lines.insert(0, line)
            break
    return "\n".join(lines).lstrip("\n")


class _Loader(yaml.SafeLoader):
    """mkdocs.yml's YAML: !!python/name:module.attr is imported (as MkDocs does), !ENV read, other tags None."""


def _python_name(loader: _Loader, suffix: str, node: yaml.Node):
    if not suffix.startswith("name:"):
        return None
    module, _, name = suffix[len("name:"):].rpartition(".")
    try:
        return getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError, ValueError) as error:
        raise SettingError(f"mkdocs.yml: !!python/{suffix}: {error}") from None


def _env(loader: _Loader, node: yaml.Node):
    """!ENV NAME or !ENV [NAME, OTHER, default]: the first variable set, else the default (else None)."""
    if isinstance(node, yaml.ScalarNode):
        names, default = [loader.construct_scalar(node)], None
    else:
        items = loader.construct_sequence(node)
        names, default = (items[:-1], items[-1]) if len(items) > 1 else (items, None)
    for name in names:
        if isinstance(name, str) and name in os.environ:
            return yaml.load(os.environ[name], yaml.SafeLoader) if os.environ[name] else ""  # noqa: S506
    return default


_Loader.add_multi_constructor("tag:yaml.org,2002:python/", _python_name)
_Loader.add_constructor("!ENV", _env)
_Loader.add_multi_constructor("!", lambda loader, suffix, node: None)


@dataclass(frozen=True)
class Site:
    """A site as mkdocs.yml describes it, for `python -m sitebuild check`.

    Attributes:
        config_file: mkdocs.yml; root: its folder; docs_dir: the pages; data_dir: the approved outputs;
        site_dir: where a build writes the site (mkdocs.yml's site_dir, default site);
        pages: each page of the nav (src_uri, e.g. "beginner/x.md"), in nav order, once; with no nav, every
            Markdown file under docs_dir, sorted, as MkDocs' own nav lists them;
        watch: the folders and files `make serve` watches (mkdocs.yml's watch), absolute;
        settings: the verified-blocks plugin's options;
        make_markdown: a factory of Markdown instances configured as the build's.
    """

    config_file: Path
    root: Path
    docs_dir: Path
    data_dir: Path
    site_dir: Path
    pages: list[str]
    watch: list[Path]
    settings: BlockSettings
    make_markdown: Callable


def _nav_pages(nav) -> list[str]:
    """The Markdown files a nav names, in order, once each (links to other sites and folders left out)."""
    found: list[str] = []
    items = nav if isinstance(nav, list) else [nav]
    for item in items:
        if isinstance(item, dict):
            for value in item.values():
                found += _nav_pages(value)
        elif isinstance(item, list):
            found += _nav_pages(item)
        elif isinstance(item, str) and item.endswith(".md") and "://" not in item and not item.startswith("/"):
            found.append(item.removeprefix("./"))
    return list(dict.fromkeys(found))


def _entries(value) -> list[tuple[str, dict]]:
    """(name, its config or {}) of each entry of a list such as markdown_extensions or plugins, in order."""
    if isinstance(value, dict):
        return [(str(name), cfg if isinstance(cfg, dict) else {}) for name, cfg in value.items()]
    entries = []
    for item in value or []:
        if isinstance(item, dict) and len(item) == 1:
            (name, cfg), = item.items()
            entries.append((str(name), cfg if isinstance(cfg, dict) else {}))
        elif isinstance(item, str):
            entries.append((item, {}))
        else:
            raise SettingError(f"mkdocs.yml: {item!r} is not an entry of a list of names (with their settings)")
    return entries


def markdown_factory(conf: dict) -> Callable:
    """A factory of Markdown instances configured as a build configures its pages' (fences.site_markdown).

    Args:
        conf: mkdocs.yml as read (its markdown_extensions and plugins).

    Returns:
        What fences.site_markdown returns for MkDocs' config.markdown_extensions and config.mdx_configs once
        every plugin's on_config ran: markdown-exec's fences added (its `languages`, default all of its
        languages; each as fences.stand_in draws it), the site's installed over them (fences.install).

    Example: markdown_factory({"markdown_extensions": ["admonition"]})().convert("# A")
    """
    extensions, configs = [], {}
    for name, cfg in _entries(conf.get("markdown_extensions")):
        extensions.append(name)
        if cfg:
            configs[name] = cfg
    extensions = list(dict.fromkeys(BUILTIN_EXTENSIONS + extensions))
    plugins = dict(_entries(conf.get("plugins", ["search"])))
    if MARKDOWN_EXEC in plugins:  # its fences, as its on_config adds them, but drawn by fences.stand_in
        custom = configs.setdefault("pymdownx.superfences", {}).setdefault("custom_fences", [])
        custom += [fences.stand_in(name) for name in plugins[MARKDOWN_EXEC].get("languages", MARKDOWN_EXEC_LANGUAGES)]
    fences.install(configs)
    return fences.site_markdown(extensions, configs)


def load(config_file: str | Path) -> Site:
    """Read a site's mkdocs.yml as the hook sees it (module docstring).

    Args:
        config_file: the site's mkdocs.yml.

    Returns:
        The Site: its nav's pages, folders, block settings and Markdown factory.

    Raises:
        SettingError: mkdocs.yml cannot be read or parsed, is not a mapping, or a block setting is out of range.

    Example: "index.md" in load("mkdocs.yml").pages
    """
    path = Path(config_file).resolve()
    try:
        conf = yaml.load(path.read_text(encoding="utf-8-sig"), Loader=_Loader)  # noqa: S506 - a SafeLoader
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as error:
        raise SettingError(f"{config_file}: cannot be read: {error}") from None
    if not isinstance(conf, dict):
        raise SettingError(f"{config_file}: not a mapping of settings")
    root = path.parent
    docs_dir = (root / conf.get("docs_dir", "docs")).resolve()
    if "nav" in conf and conf["nav"] is not None:
        pages = _nav_pages(conf["nav"])
    else:
        pages = sorted((p.relative_to(docs_dir).as_posix() for p in docs_dir.rglob("*.md")),
                       key=lambda uri: (uri.count("/"), uri != "index.md", uri))
    try:
        settings = block_settings(plugin_options(conf))
    except SettingError as error:
        raise SettingError(f"{config_file}: {error}") from None
    watch = [(root / str(w)).resolve() for w in conf.get("watch") or []]
    site_dir = (root / str(conf.get("site_dir") or "site")).resolve()
    return Site(path, root, docs_dir, root / "data", site_dir, pages, watch, settings, markdown_factory(conf))


def read_page(site: Site, src_uri: str) -> tuple[list[Block], list[str]]:
    """A page's executed blocks as a build finds them, or why they cannot be read.

    Args:
        site: the site (load()); src_uri: the page under its docs folder, e.g. "beginner/x.md".

    Returns:
        (its blocks, []) or ([], [why]): the file cannot be read, or a block's fence or options are wrong
        (blocks.BlockError's message).

    Example: read_page(load("mkdocs.yml"), "index.md") == ([], [])
    """
    try:
        source = (site.docs_dir / src_uri).read_text(encoding="utf-8-sig")  # as MkDocs reads a page
    except (OSError, UnicodeDecodeError) as error:
        return [], [f"cannot be read: {error}"]
    markdown = page_markdown(source)
    try:
        return page_blocks(markdown, site.make_markdown, front_matter_lines(source, markdown)), []
    except BlockError as error:
        return [], [str(error)]
