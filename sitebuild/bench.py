"""The build's benchmark: `python -m sitebuild bench --compare`. It prints figures; it asserts nothing.

It makes a site in a temporary folder: the home page, the agent page copied six times more, and the
human-approval page (eight pages with blocks), with the kit beside them. On that site it measures, from one run on
this machine:

- the cold build: `mkdocs build` from a fresh interpreter, as `make site` runs it;
- the warm serve rebuild after a prose edit: ours (serve mode, with its output cache) against
  markdown-exec alone on the same pages (a config without the site's plugin, python blocks given
  one `session=` per page), each rebuilt in one long-lived process as `mkdocs serve` does, a
  sentence appended to one page before each rebuild; the median of several rebuilds;
- the cold build with the plugin's `block_jobs: 1` against the default (one page per CPU);
- the serve rebuild after a one-line edit (a comment appended) of a kit module that one page of the site
  reads (EDITED, read by the human-approval page alone), against the full serve rebuild that runs every
  page, with the pages each re-ran, that page's own run (as serve runs it, recording its reads), and the
  rebuild after undoing the edit;
- the CPU-seconds (user + system, the build's and its blocks') of the cold build recording what each page read
  (audit.py) against the same build with SITEBUILD_TRACE=0, which records nothing;
- the CPU-seconds of the cold build with each page in the sandbox (sandbox.py) against SITEBUILD_SANDBOX=0;
- `make test`'s CPU-seconds per course page: user + system seconds of `make test` and every process it
  waited for (as `/usr/bin/time` counts, the measure its target was set in), and of every process it started,
  Chromium's included (as a child subreaper, see test_cpu_per_page), each divided by the course pages
  of the real nav. Run in
  the repo itself, once (about two minutes); `--compare --no-test` leaves it out.

Each cold build is the median of three, the two configs taking turns, so that a slow spell of a shared
machine falls on both of them and not on one figure of the ratio.

The figures are wall-clock seconds from time.perf_counter, and CPU-seconds from resource.getrusage: this is
one of the two places the site reads a clock (the other: the seconds of each page in `check --results`, results.py),
and no page or test depends on it.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

from sitebuild.benchsite import AGENT_PAGE, APPROVAL_PAGE, EDITED, make_site
from sitebuild.run.reaper import become_subreaper, descendants

QUIET = {"NO_MKDOCS_2_WARNING": "1", "DISABLE_MKDOCS_2_WARNING": "true"}


def cold_build(folder: Path, config: str, env: dict[str, str] | None = None) -> float:
    """Seconds of `python -m mkdocs build` with config, from a fresh interpreter (env: variables added)."""
    return _build(folder, config, env)[0]


def _build(folder: Path, config: str, env: dict[str, str] | None = None) -> tuple[float, float]:
    """Wall-clock seconds and CPU-seconds (user + system of the build and every process it waited for: its blocks,
    under their launchers) of `python -m mkdocs build` with config, from a fresh interpreter."""
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "-q", "-f", config], cwd=folder,
                          env={**os.environ, **QUIET, **(env or {})}, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode:
        raise SystemExit(f"bench: the build with {config} failed:\n{done.stdout}{done.stderr}")
    return seconds, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def without_cpu(folder: Path, env: dict[str, str], builds: int = 3) -> tuple[float, float]:
    """CPU-seconds of a cold build (as `make site` runs it) as it is, and of one with env set (which turns
    something off): the median of builds each, taking turns.

    Example: without_cpu(folder, {"SITEBUILD_TRACE": "0"})  # (41.2, 38.9): with reads recorded, without
    """
    default, changed = [], []
    for _ in range(builds):
        default.append(_build(folder, "mkdocs.yml")[1])
        changed.append(_build(folder, "mkdocs.yml", env)[1])
    return statistics.median(default), statistics.median(changed)


def reads_cpu(folder: Path, builds: int = 3) -> tuple[float, float]:
    """CPU-seconds of a cold build that records what each page read (audit.py, the default) and of one that
    does not (SITEBUILD_TRACE=0): the median of builds each, taking turns.

    Example: reads_cpu(folder)  # (41.2, 38.9)
    """
    return without_cpu(folder, {"SITEBUILD_TRACE": "0"}, builds)


def sandbox_cpu(folder: Path, builds: int = 3) -> tuple[float, float]:
    """CPU-seconds of a cold build whose pages run in the sandbox (sandbox.py, the default where bubblewrap
    works) and of one without it (SITEBUILD_SANDBOX=0): the median of builds each, taking turns. Where no
    sandbox can start, both are the same build.

    Example: sandbox_cpu(folder)  # (40.1, 39.0)
    """
    return without_cpu(folder, {"SITEBUILD_SANDBOX": "0"}, builds)


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


KIT_EDIT_SCRIPT = """
import json, logging, re, sys, tempfile, time
from pathlib import Path
from mkdocs.commands.build import build
from mkdocs.config import load_config
config_file, edited, page = sys.argv[1], Path(sys.argv[2]), sys.argv[3]
counts = []
class Count(logging.Handler):
    def emit(self, record):
        found = re.search(r"blocks: (\\d+) page\\(s\\) ran", record.getMessage())
        if found:
            counts.append(int(found[1]))
logging.getLogger("mkdocs").setLevel(logging.INFO)
logging.getLogger("mkdocs").addHandler(Count())
logging.getLogger("mkdocs").propagate = False
def rebuild():
    config = load_config(config_file)
    config.plugins.on_startup(command="serve", dirty=False)
    start = time.perf_counter()
    build(config, serve_url="http://127.0.0.1:8000/")
    return time.perf_counter() - start
full = rebuild()  # a cold cache: every page runs
before = edited.read_text(encoding="utf-8")
edited.write_text(before + "# one more line\\n", encoding="utf-8")
edit = rebuild()
edited.write_text(before, encoding="utf-8")
undo = rebuild()
sys.path.insert(0, str(Path(sys.argv[4])))
from sitebuild import audit
from sitebuild.find.blocks import page_blocks
from sitebuild.verify.outputs import run_blocks
blocks = page_blocks(Path("docs", page).read_text(encoding="utf-8"))
with tempfile.TemporaryDirectory() as records:
    start = time.perf_counter()
    run_blocks(blocks, Path(".").resolve(), "docs/" + page, 600, trace=(audit.AUDIT, Path(records)))
    own = time.perf_counter() - start
print(json.dumps({"full": full, "edit": edit, "undo": undo, "own": own, "counts": counts}))
"""


def kit_edit(folder: Path, repo: Path) -> dict:
    """Serve rebuilds of the benchmark site in one process: cold, after a one-line edit of EDITED, after undoing it.

    Returns:
        {"full", "edit", "undo", "own" (seconds: the rebuilds and APPROVAL_PAGE's own run), "counts" (pages
        run by each rebuild)}.
    """
    shutil.rmtree(folder / ".cache", ignore_errors=True)  # the earlier figures' builds stored runs keyed on every input
    done = subprocess.run([sys.executable, "-c", KIT_EDIT_SCRIPT, "mkdocs.yml", str(folder / EDITED), APPROVAL_PAGE,
                           str(repo)], cwd=folder, env={**os.environ, **QUIET, "SITEBUILD_MODE": "serve"},
                          capture_output=True, text=True, check=False)
    if done.returncode:
        raise SystemExit(f"bench: the kit edit rebuilds failed:\n{done.stdout}{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_cpu_per_page(repo: Path) -> tuple[float, float, int]:
    """`make test` in repo, once: its CPU-seconds (user + system) of every process it started, the same of the
    processes it waited for (what `/usr/bin/time make test` reports, the measure of CONTRIBUTING.md's target of
    about 40), and the number of course pages in the nav (pages inside a chapter of Beginner or Advanced).

    Every process counts, those whose parent did not wait for them too (Chromium's, whose launcher leaves
    them to be reaped by whoever adopts them): this process becomes a child subreaper for the run
    (reaper.become_subreaper), so orphans below it are reparented to it, and it reaps them all before it
    reads resource.getrusage(RUSAGE_CHILDREN). Without prctl (not Linux) orphans go to init and are not
    counted; the figure then says so.

    Raises:
        SystemExit: make test failed (its last lines are in the message).

    Example: test_cpu_per_page(Path("."))  # (331.0, 186.6, 18)
    """
    import resource

    whole = become_subreaper()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with tempfile.TemporaryFile() as log:
        make = subprocess.Popen(["make", "test"], cwd=repo, stdout=log, stderr=subprocess.STDOUT)
        _, status, waited = os.wait4(make.pid, 0)  # make's own usage holds every process it waited for
        make.returncode = os.waitstatus_to_exitcode(status)
        _reap_orphans()
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if make.returncode:
            log.seek(0)
            raise SystemExit(f"bench: make test failed:\n{log.read().decode(errors='replace')[-3000:]}")
    if not whole:
        print("bench: not a child subreaper here: processes that make test's children left unwaited are not counted")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    waited_cpu = waited.ru_utime + waited.ru_stime
    nav = yaml.load((repo / "mkdocs.yml").read_text(encoding="utf-8"), Loader=yaml.Loader)["nav"]  # noqa: S506
    pages = sum(1 for section in nav if isinstance(section, dict) for top, chapters in section.items()
                if top in ("Beginner", "Advanced") for chapter in chapters for _ in next(iter(chapter.values())))
    return cpu, waited_cpu, pages


def _reap_orphans(patience: int = 100) -> None:
    """Wait for every child this process was given as a subreaper; those still running after patience tries
    of 0.1 s each are named and left (make test should leave none)."""
    for _ in range(patience):
        try:
            while os.waitpid(-1, os.WNOHANG)[0]:
                pass
        except ChildProcessError:
            return
        time.sleep(0.1)
    print("bench: still running after make test: " + ", ".join(name for _, _, name in descendants(os.getpid())))


def serve_rebuilds(folder: Path, config: str, page: Path, rebuilds: int, env: dict[str, str]) -> list[float]:
    """Seconds of each warm rebuild after a prose edit of page, in one long-lived process as `mkdocs serve`."""
    done = subprocess.run([sys.executable, "-c", SERVE_SCRIPT, config, str(page), str(rebuilds)], cwd=folder,
                          env={**os.environ, **QUIET, **env}, capture_output=True, text=True, check=False)
    if done.returncode:
        raise SystemExit(f"bench: serve rebuilds with {config} failed:\n{done.stdout}{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def compare(repo: Path, rebuilds: int = 5, cold_builds: int = 3, test: bool = True) -> dict[str, float]:
    """Run the whole comparison and print it; return the figures (seconds and ratios).

    Args:
        repo: the repo root (mkdocs.yml, docs/, kit/), copied into a temporary folder.
        rebuilds: warm serve rebuilds on each side; their median is the figure.
        cold_builds: cold builds of each config, taking turns; their median is the figure.
        test: also run `make test` once in repo for its CPU-seconds per course page.

    Returns:
        {"cold_build_s", "serve_rebuild_ours_s", "serve_rebuild_markdown_exec_s", "build_jobs_1_s" (seconds),
        "serve_ratio", "jobs_ratio", "kit_edit_s", "kit_full_s", "kit_page_own_s", "kit_edit_ratio" (the edit's
        rebuild over the page's own run), "kit_edit_pages", "kit_undo_pages", "site_cpu_reads_s",
        "site_cpu_no_reads_s" (CPU-seconds), "reads_cpu_ratio", "site_cpu_sandbox_s", "site_cpu_no_sandbox_s",
        "sandbox_cpu_ratio", and with
        test "test_cpu_per_page_s"}.

    Raises:
        SystemExit: a build or a serve rebuild failed (its output is in the message).

    Example: compare(Path("."))["jobs_ratio"]  # e.g. 0.62
    """
    with tempfile.TemporaryDirectory(prefix="sitebuild-bench-") as temporary:
        folder = Path(temporary)
        pages = make_site(repo, folder)
        print(f"site: the home page, the agent page x{len(pages) - 1} and the human-approval page "
              f"({len(pages)} pages with blocks), "
              f"{os.cpu_count()} CPUs, Python {sys.version.split()[0]}")
        colds, one_jobs = [], []
        for _ in range(cold_builds):  # taking turns: see the module's docstring
            colds.append(cold_build(folder, "mkdocs.yml"))
            one_jobs.append(cold_build(folder, "mkdocs-jobs1.yml"))
        cold, one_job = statistics.median(colds), statistics.median(one_jobs)
        ours = serve_rebuilds(folder, "mkdocs.yml", folder / "docs" / AGENT_PAGE, rebuilds, {"SITEBUILD_MODE": "serve"})
        alone = serve_rebuilds(folder, "mkdocs-mx.yml", folder / "docs-mx" / AGENT_PAGE, rebuilds, {})
        edit = kit_edit(folder, repo)
        recorded, unrecorded = reads_cpu(folder, cold_builds)
        boxed, unboxed = sandbox_cpu(folder, cold_builds)
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
    figures.update(kit_edit_s=edit["edit"], kit_full_s=edit["full"], kit_page_own_s=edit["own"],
                   kit_edit_ratio=edit["edit"] / edit["own"], kit_edit_pages=edit["counts"][1],
                   kit_undo_pages=edit["counts"][2])
    print(f"serve rebuild after a one-line edit of {EDITED} (read by one page):")
    print(f"  rebuild: {edit['edit']:6.2f} s, {edit['counts'][1]} of {len(pages)} page(s) re-run; full rebuild "
          f"{edit['full']:6.2f} s ({edit['counts'][0]} pages); undoing it: {edit['undo']:6.2f} s, "
          f"{edit['counts'][2]} re-run")
    print(f"  that page's own run: {edit['own']:6.2f} s; ratio rebuild / own run: "
          f"{figures['kit_edit_ratio']:6.2f}   (target <= 1.3)")
    figures.update(site_cpu_reads_s=recorded, site_cpu_no_reads_s=unrecorded, reads_cpu_ratio=recorded / unrecorded)
    print(f"cold build CPU, recording what each page read: {recorded:6.2f} CPU-s; without (SITEBUILD_TRACE=0): "
          f"{unrecorded:6.2f} CPU-s (medians of {cold_builds})")
    print(f"  ratio recorded / not recorded:             {figures['reads_cpu_ratio']:6.2f}   (target <= 1.15)")
    figures.update(site_cpu_sandbox_s=boxed, site_cpu_no_sandbox_s=unboxed, sandbox_cpu_ratio=boxed / unboxed)
    print(f"cold build CPU, pages in the sandbox: {boxed:6.2f} CPU-s; without (SITEBUILD_SANDBOX=0): "
          f"{unboxed:6.2f} CPU-s (medians of {cold_builds})")
    print(f"  ratio sandbox / no sandbox:                {figures['sandbox_cpu_ratio']:6.2f}   (target <= 1.10)")
    if test:
        cpu, waited_cpu, course_pages = test_cpu_per_page(repo)
        figures["test_cpu_per_page_s"] = cpu / course_pages
        figures["test_cpu_per_page_waited_s"] = waited_cpu / course_pages
        print(f"make test: {waited_cpu:7.1f} CPU-s in the processes it waited for, {course_pages} course pages = "
              f"{figures['test_cpu_per_page_waited_s']:5.1f} CPU-s per course page   (target <= 40)")
        print(f"  with Chromium's unwaited processes: {cpu:7.1f} CPU-s = {figures['test_cpu_per_page_s']:5.1f} "
              "per course page")
    return figures
