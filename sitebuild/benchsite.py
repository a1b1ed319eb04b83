"""The benchmark's site (bench.py): the home page, the agent page copied six times more, and the human-approval
page, with their approved outputs and drawings, in a temporary folder, with three configs: the site's own
(mkdocs.yml), the same with one page at a time (mkdocs-jobs1.yml), and markdown-exec alone (mkdocs-mx.yml).

Left out: measuring anything (bench.py).
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import yaml

from sitebuild.find.siteconfig import PLUGIN

COPIES = 6
AGENT_PAGE = "advanced/agent-loops-state-memory.md"
APPROVAL_PAGE = "advanced/human-approval-multi-agent-boundaries.md"  # the one page that reads EDITED
EDITED = "kit/evidencedesk/agent/delegation.py"


def make_site(repo: Path, folder: Path, copies: int = COPIES) -> list[str]:
    """Write the benchmark site into folder; return its pages with blocks (paths under docs/).

    Args:
        repo: the repo root (its mkdocs.yml, kit, agent page and approved outputs are copied).
        folder: an empty folder; copies: how many extra copies of the agent page.
    """
    for name in ("kit", "pyproject.toml", "requirements.lock"):
        source = repo / name
        if source.is_dir():
            shutil.copytree(source, folder / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(source, folder / name)
    shutil.copytree(repo / "docs", folder / "docs", ignore=shutil.ignore_patterns("*.md"))
    shutil.copy2(repo / "docs" / "index.md", folder / "docs" / "index.md")
    _copy_drawings(repo, folder, [repo / "docs" / name for name in ("index.md", AGENT_PAGE, APPROVAL_PAGE)]
                   + [(repo / "data" / name).with_suffix(".txt") for name in (AGENT_PAGE, APPROVAL_PAGE)])
    text = (repo / "docs" / AGENT_PAGE).read_text(encoding="utf-8")
    approved = (repo / "data" / AGENT_PAGE).with_suffix(".txt").read_text(encoding="utf-8")
    pages = [AGENT_PAGE] + [f"advanced/agent-copy-{n}.md" for n in range(1, copies + 1)]
    for name in (APPROVAL_PAGE,):
        shutil.copy2(repo / "docs" / name, folder / "docs" / name)
        (folder / "data" / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2((repo / "data" / name).with_suffix(".txt"), (folder / "data" / name).with_suffix(".txt"))
    for page in pages:
        (folder / "docs" / page).parent.mkdir(parents=True, exist_ok=True)
        (folder / "docs" / page).write_text(text, encoding="utf-8")
        (folder / "data" / page).parent.mkdir(parents=True, exist_ok=True)
        (folder / "data" / page).with_suffix(".txt").write_text(approved.replace(AGENT_PAGE, page), encoding="utf-8")
    config = yaml.load((repo / "mkdocs.yml").read_text(encoding="utf-8"), Loader=yaml.Loader)  # noqa: S506 - our own file
    config.pop("nav", None)
    config.pop("watch", None)
    config["strict"] = False  # the copies link to course pages that are not in this site
    config["plugins"] = _with_options(config.get("plugins", []), downloads=False)  # no kit download, no notebooks
    if "theme" in config and isinstance(config["theme"], dict) and config["theme"].get("custom_dir"):
        config["theme"]["custom_dir"] = str(repo / config["theme"]["custom_dir"])
    _write_yaml(folder / "mkdocs.yml", config)
    _write_yaml(folder / "mkdocs-jobs1.yml", {**config, "plugins": _with_options(config["plugins"], block_jobs=1)})
    _markdown_exec_alone(folder, config, pages)
    return pages + [APPROVAL_PAGE]


def _with_options(plugins: list, **options) -> list:
    """mkdocs.yml's plugins with these options of the site's plugin (verified-blocks) set; an option given as
    False is dropped (its default applies).

    Example: _with_options([{"verified-blocks": {"downloads": True}}], downloads=False) == [{"verified-blocks": {}}]
    """
    changed = []
    for entry in plugins:
        name = next(iter(entry)) if isinstance(entry, dict) else entry
        if name == PLUGIN:
            ours = dict(entry[name] or {}) if isinstance(entry, dict) else {}
            ours.update(options)
            entry = {name: {k: v for k, v in ours.items() if v is not False}}
        changed.append(entry)
    return changed


def _copy_drawings(repo: Path, folder: Path, pages: list[Path]) -> None:
    """Copy into folder/data/diagrams the approved drawings (diagrams.py) of the diagrams in these files.

    Args:
        repo: the repo root; folder: the benchmark site; pages: the pages and their approved outputs (a block
            may print a diagram), whose text, whitespace aside, holds each diagram's source.
    """
    texts = [" ".join(page.read_text(encoding="utf-8").split()) for page in pages]  # a fence may be indented
    (folder / "data" / "diagrams").mkdir(parents=True, exist_ok=True)
    for source in sorted((repo / "data" / "diagrams").glob("*.mmd")):
        if any(" ".join(source.read_text(encoding="utf-8").split()) in text for text in texts):
            for path in (source, source.with_suffix(".svg")):
                shutil.copy2(path, folder / "data" / "diagrams" / path.name)


def _write_yaml(path: Path, config: dict) -> None:
    path.write_text(yaml.dump(config, sort_keys=False), encoding="utf-8")


def _markdown_exec_alone(folder: Path, config: dict, pages: list[str]) -> None:
    """The same pages for markdown-exec without the site's plugin: docs-mx/, mkdocs-mx.yml."""
    shutil.copytree(folder / "docs", folder / "docs-mx")
    for n, page in enumerate(pages, start=1):
        path = folder / "docs-mx" / page
        text = re.sub(r'(```python exec="on")', rf'\1 session="page-{n}"', path.read_text(encoding="utf-8"))
        path.write_text(text, encoding="utf-8")
    alone = {**config, "docs_dir": "docs-mx", "site_dir": "site-mx"}
    alone["plugins"] = [p for p in config["plugins"] if (next(iter(p)) if isinstance(p, dict) else p) != PLUGIN]
    _write_yaml(folder / "mkdocs-mx.yml", alone)
