"""The build's benchmark: `python -m sitebuild bench --compare`. It prints figures; it asserts nothing.

It makes a site in a temporary folder: the home page and the agent page, copied six times more
(seven pages with blocks), with the kit beside them. On that site it measures, from one run on
this machine:

- the cold build: `mkdocs build` from a fresh interpreter, as `make site` runs it;
- the warm serve rebuild after a prose edit: ours (serve mode, with its output cache) against
  markdown-exec alone on the same pages (a config without the site's hook, python blocks given
  one `session=` per page), each rebuilt in one long-lived process as `mkdocs serve` does, a
  sentence appended to one page before each rebuild; the median of several rebuilds;
- the cold build with `extra.block_jobs: 1` against the default (one page per CPU).

Each cold build is the median of three, the two configs taking turns, so that a slow spell of a shared
machine falls on both of them and not on one figure of the ratio.

The figures are wall-clock seconds from time.perf_counter: this is the one place the site reads a
clock, and no page or test depends on it.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

COPIES = 6
AGENT_PAGE = "advanced/agent-loops-state-memory.md"
QUIET = {"NO_MKDOCS_2_WARNING": "1", "DISABLE_MKDOCS_2_WARNING": "true"}


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
    text = (repo / "docs" / AGENT_PAGE).read_text(encoding="utf-8")
    approved = (repo / "data" / AGENT_PAGE).with_suffix(".txt").read_text(encoding="utf-8")
    pages = [AGENT_PAGE] + [f"advanced/agent-copy-{n}.md" for n in range(1, copies + 1)]
    for page in pages:
        (folder / "docs" / page).parent.mkdir(parents=True, exist_ok=True)
        (folder / "docs" / page).write_text(text, encoding="utf-8")
        (folder / "data" / page).parent.mkdir(parents=True, exist_ok=True)
        (folder / "data" / page).with_suffix(".txt").write_text(approved.replace(AGENT_PAGE, page), encoding="utf-8")
    config = yaml.load((repo / "mkdocs.yml").read_text(encoding="utf-8"), Loader=yaml.Loader)  # noqa: S506 - our own file
    config.pop("nav", None)
    config.pop("watch", None)
    config["strict"] = False  # the copies link to course pages that are not in this site
    config["hooks"] = [str(repo / "sitebuild" / "hook.py")]
    config["plugins"] = [p for p in config.get("plugins", []) if not (isinstance(p, dict) and "gen-files" in p)]
    if "theme" in config and isinstance(config["theme"], dict) and config["theme"].get("custom_dir"):
        config["theme"]["custom_dir"] = str(repo / config["theme"]["custom_dir"])
    _write_yaml(folder / "mkdocs.yml", config)
    _write_yaml(folder / "mkdocs-jobs1.yml", {**config, "extra": {**config.get("extra", {}), "block_jobs": 1}})
    _markdown_exec_alone(folder, config, pages)
    return pages


def _write_yaml(path: Path, config: dict) -> None:
    path.write_text(yaml.dump(config, sort_keys=False), encoding="utf-8")


def _markdown_exec_alone(folder: Path, config: dict, pages: list[str]) -> None:
    """The same pages for markdown-exec without the site's hook: docs-mx/, mkdocs-mx.yml."""
    shutil.copytree(folder / "docs", folder / "docs-mx")
    for n, page in enumerate(pages, start=1):
        path = folder / "docs-mx" / page
        text = re.sub(r'(```python exec="on")', rf'\1 session="page-{n}"', path.read_text(encoding="utf-8"))
        path.write_text(text, encoding="utf-8")
    alone = {**config, "docs_dir": "docs-mx", "site_dir": "site-mx"}
    alone.pop("hooks", None)
    _write_yaml(folder / "mkdocs-mx.yml", alone)


def cold_build(folder: Path, config: str) -> float:
    """Seconds of `python -m mkdocs build` with config, from a fresh interpreter."""
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "-q", "-f", config], cwd=folder,
                          env={**os.environ, **QUIET}, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - start
    if done.returncode:
        raise SystemExit(f"bench: the build with {config} failed:\n{done.stdout}{done.stderr}")
    return seconds


SERVE_SCRIPT = """
import json, logging, os, sys, time
from pathlib import Path
from mkdocs.commands.build import build
from mkdocs.config import load_config
logging.getLogger("mkdocs").setLevel(logging.ERROR)
config_file, page, rebuilds = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3])
def rebuild():
    config = load_config(config_file)  # as mkdocs serve does on every change
    config.plugins.on_startup(command="serve", dirty=False)
    build(config, serve_url="http://127.0.0.1:8000/")
rebuild()  # the first build of a serve session: every block runs
seconds = []
for n in range(rebuilds):
    prose = f"\\nOne more sentence of prose, number {n}.\\n"
    page.write_text(page.read_text(encoding="utf-8") + prose, encoding="utf-8")
    start = time.perf_counter()
    rebuild()
    seconds.append(time.perf_counter() - start)
print(json.dumps(seconds))
"""


def serve_rebuilds(folder: Path, config: str, page: Path, rebuilds: int, env: dict[str, str]) -> list[float]:
    """Seconds of each warm rebuild after a prose edit of page, in one long-lived process as `mkdocs serve`."""
    done = subprocess.run([sys.executable, "-c", SERVE_SCRIPT, config, str(page), str(rebuilds)], cwd=folder,
                          env={**os.environ, **QUIET, **env}, capture_output=True, text=True, check=False)
    if done.returncode:
        raise SystemExit(f"bench: serve rebuilds with {config} failed:\n{done.stdout}{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def compare(repo: Path, rebuilds: int = 5, cold_builds: int = 3) -> dict[str, float]:
    """Run the whole comparison and print it; return the figures (seconds and ratios).

    Args:
        repo: the repo root (mkdocs.yml, docs/, kit/), copied into a temporary folder.
        rebuilds: warm serve rebuilds on each side; their median is the figure.
        cold_builds: cold builds of each config, taking turns; their median is the figure.

    Returns:
        {"cold_build_s", "serve_rebuild_ours_s", "serve_rebuild_markdown_exec_s", "build_jobs_1_s" (seconds),
        "serve_ratio", "jobs_ratio"}.

    Raises:
        SystemExit: a build or a serve rebuild failed (its output is in the message).

    Example: compare(Path("."))["jobs_ratio"]  # e.g. 0.62
    """
    with tempfile.TemporaryDirectory(prefix="sitebuild-bench-") as temporary:
        folder = Path(temporary)
        pages = make_site(repo, folder)
        print(f"site: the home page and the agent page x{len(pages)} ({len(pages)} pages with blocks), "
              f"{os.cpu_count()} CPUs, Python {sys.version.split()[0]}")
        colds, one_jobs = [], []
        for _ in range(cold_builds):  # taking turns: see the module's docstring
            colds.append(cold_build(folder, "mkdocs.yml"))
            one_jobs.append(cold_build(folder, "mkdocs-jobs1.yml"))
        cold, one_job = statistics.median(colds), statistics.median(one_jobs)
        ours = serve_rebuilds(folder, "mkdocs.yml", folder / "docs" / AGENT_PAGE, rebuilds, {"SITEBUILD_MODE": "serve"})
        alone = serve_rebuilds(folder, "mkdocs-mx.yml", folder / "docs-mx" / AGENT_PAGE, rebuilds, {})
    figures = {
        "cold_build_s": cold,
        "serve_rebuild_ours_s": statistics.median(ours),
        "serve_rebuild_markdown_exec_s": statistics.median(alone),
        "build_jobs_1_s": one_job,
    }
    figures["serve_ratio"] = figures["serve_rebuild_ours_s"] / figures["serve_rebuild_markdown_exec_s"]
    figures["jobs_ratio"] = cold / one_job
    print(f"cold build (default block_jobs={os.cpu_count()}):      {cold:6.2f} s (median of {cold_builds})")
    print(f"serve rebuild after a prose edit, ours:      {figures['serve_rebuild_ours_s']:6.2f} s "
          f"(median of {rebuilds})")
    print(f"serve rebuild, markdown-exec alone:          {figures['serve_rebuild_markdown_exec_s']:6.2f} s "
          f"(median of {rebuilds})")
    print(f"  ratio ours / markdown-exec alone:          {figures['serve_ratio']:6.2f}   (target <= 0.20)")
    print(f"cold build with block_jobs=1:                {one_job:6.2f} s (median of {cold_builds})")
    print(f"  ratio default / block_jobs=1:              {figures['jobs_ratio']:6.2f}   (target <= 0.65)")
    return figures
