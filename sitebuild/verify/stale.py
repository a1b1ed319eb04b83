"""Whether check results (results.py) still match the checkout: what a page ran against, digested when its run
starts, and held to the checkout when a build renders from the results.

A result is only used while it matches the checkout (current()): the manifest's settings, Python version and
machinery (results.environment) must be this build's; each page's source and requirements.lock must have the
digests it ran with (digests()), and so must every file its run read: the block inputs it read (reads, as the
serve cache keeps them, inputs.Inputs) and the other files of the site root (outside_reads(): mkdocs.yml, another
page, a file of data/). A page whose reads are not known holds to the digests of all the block inputs and of the
site (site_digest(): mkdocs.yml and the docs folder) instead. Otherwise the results are refused with an error
naming each page and what changed.

Left out: data/, which a build reads afresh (it verifies the stored outputs against it, as it verifies a run's);
a file outside the site root (the standard library, the venv: what the lock and the Python version pin).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from sitebuild.find.inputs import CACHE_DIRS, MACHINERY, MISSING, SKIPPED, Inputs, tree_digest
from sitebuild.verify.results import ENVIRONMENT, LOCK, Digests, PageResults, ResultsError, environment, read

EDITABLE_HOOK = "__editable__."  # setuptools' "__editable__.<project>.finder.__path_hook__", a sys.path entry


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "missing"


def site_digest(config_file: Path, docs_dir: Path) -> str:
    """The digest of mkdocs.yml and the docs folder (tree_digest).

    Example: site_digest(root / "mkdocs.yml", root / "docs")  # 64 hex digits
    """
    digest, root = hashlib.sha256(), config_file.parent
    for top in (config_file, docs_dir):
        digest.update(f"\0{top.name}\0{tree_digest(top, root)}".encode())
    return digest.hexdigest()


def digests(root: Path, docs_dir: Path, src_uri: str, inputs: Inputs, site: str) -> Digests:
    """The digests of a page's source, the block inputs, the lock and the site as they are now.

    Args:
        root: the site root (mkdocs.yml's folder); docs_dir: the pages' folder; src_uri: the page, e.g. "a.md";
        inputs: the block inputs' digests (inputs.Inputs of the site's block_inputs); site: site_digest() (the
        same for every page).

    Returns:
        Digests ("missing" for a file that is not there).

    Example: digests(root, root / "docs", "index.md", Inputs(root, ["kit"]), site_digest(...)).page  # 64 hex
    """
    return Digests(page=_sha256(docs_dir / src_uri), inputs=inputs.full, lock=_sha256(root / LOCK),
                   site=site)


def _outside_digest(path: Path, content: bool) -> str:
    """A file or folder outside the block inputs as outside_reads keeps it: "c:" and the SHA-256 of a file's bytes
    or of a folder's sorted entry names when its content was read, else "m:" and what it is; or "missing"."""
    if path.is_symlink() or not path.exists():
        return MISSING if not path.is_symlink() else "c:" + hashlib.sha256(os.readlink(path).encode()).hexdigest()
    kind = "folder" if path.is_dir() else "file" if path.is_file() else "other"
    if not content or kind == "other":
        return f"m:{kind}"
    try:
        if kind == "folder":
            return "c:" + hashlib.sha256("\0".join(sorted(os.listdir(path))).encode()).hexdigest()
        return "c:" + _sha256(path)
    except OSError:
        return MISSING


def outside_reads(root: Path, paths: dict[str, bool], inputs: Inputs, leave_out: list[Path]) -> dict[str, str]:
    """The files of the site root a run read that no other digest covers, each with its digest now.

    A block's output may depend on a file outside the block inputs (a bash block that greps mkdocs.yml's nav, a
    test that reads another page): current() holds the results to these too. Left out: what is not under root,
    the block inputs (reads), the machinery (the manifest's digest), caches and .venv/.git (inputs.SKIPPED,
    CACHE_DIRS, *.egg-info, *.pyc), the folders of leave_out (the site folder, the results folder), and the
    sys.path entry of an editable install's import hook (EDITABLE_HOOK), which names no file. A path that is not
    there counts as "missing": creating it changes what the run would find.

    Args:
        root: the site root; paths: {absolute path: whether its content was read} (audit.paths); inputs: the
            block inputs; leave_out: absolute folders whose files never count.

    Returns:
        {path relative to root: "c:<sha256>" (content read), "m:file"/"m:folder" (only looked at) or "missing"}.

    Example: outside_reads(root, {str(root / "mkdocs.yml"): True}, inputs, []) == {"mkdocs.yml": "c:5e..."}
    """
    base, found = os.path.realpath(root), {}
    skip = [os.path.realpath(MACHINERY), *(os.path.realpath(p) for p in leave_out)]
    for path, content in paths.items():
        real = os.path.normpath(path)
        if not real.startswith(base + os.sep) or inputs.relative(path) is not None:
            continue
        if any(real == s or real.startswith(s + os.sep) for s in skip):
            continue
        relative = Path(os.path.relpath(real, base))
        if any(part in SKIPPED or part in CACHE_DIRS or part.endswith(".egg-info") for part in relative.parts) \
                or relative.suffix in (".pyc", ".pyo") or relative.parts[0].startswith(EDITABLE_HOOK):
            continue
        found[relative.as_posix()] = found.get(relative.as_posix(), False) or content
    return {relative: _outside_digest(root / relative, content) for relative, content in sorted(found.items())}


def changes(page: PageResults, now: Digests, inputs: Inputs, root: Path) -> list[str]:
    """What changed since a page's results were made, in words ([] when they still match the checkout).

    Args:
        page: its results; now: its digests now (digests()); inputs: the block inputs now; root: the site root.

    Returns:
        e.g. ["the page's source", "kit/evidencedesk/usage.py (read by its blocks)", "mkdocs.yml (read by its
        blocks)"]; for a page whose reads are not known, "the block inputs (...)" or "mkdocs.yml or the docs
        folder" when any of them changed.

    Example: changes(page, digests(root, docs, "a.md", inputs), inputs, root) == []
    """
    changed = []
    if page.digests.page != now.page:
        changed.append("the page's source")
    if page.digests.lock != now.lock:
        changed.append(LOCK)
    if page.reads is None or page.outside is None:  # what it read is not known: everything it could have read
        if page.digests.inputs != now.inputs:
            changed.append(f"the block inputs ({', '.join(inputs.names)}; its reads are not known)")
        if page.digests.site != now.site:
            changed.append("mkdocs.yml or the docs folder (its reads are not known)")
        return changed
    read = [path for path, digest in page.reads.items() if inputs.digest(path, not digest.startswith("m:")) != digest]
    read += [path for path, digest in page.outside.items()
             if _outside_digest(root / path, not digest.startswith("m:")) != digest]
    changed += [f"{path} (read by its blocks)" for path in sorted(read)]
    return changed


def current(folder: Path, config_file: Path, docs_dir: Path, inputs: Inputs, timeout: float, memory: int,
            pages: list[str]) -> dict[str, PageResults]:
    """The results of `pages` in folder, each checked against the checkout.

    Args:
        folder: the results folder; config_file, docs_dir: the site's mkdocs.yml and pages; inputs: the block
            inputs now (their names must be the manifest's); timeout, memory: the site's block_timeout and
            block_memory; pages: the src_uri of each page to render.

    Returns:
        {src_uri: PageResults} for each page of `pages` that has results (a page without blocks may have none).

    Raises:
        ResultsError: read() fails; the settings, the Python version or the machinery differ from this build's;
            or some pages' results are stale: one line per page, naming it and what changed since the check.

    Example: current(Path("results"), root / "mkdocs.yml", root / "docs", Inputs(root, ["kit"]), 60.0, 4096, [])
    """
    manifest, found = read(folder)
    then = {name: getattr(manifest, name) for name in ENVIRONMENT}
    now = environment(timeout, inputs.names, memory)
    if differ := [name for name in then if then[name] != now[name]]:
        said = {"python": "Python", "machinery": "the machinery's digest (sitebuild/)"}
        raise ResultsError(f"{folder}: the check ran with " + ", ".join(
            f"{said.get(name, name)} {then[name]}" for name in differ) + "; this build has " + ", ".join(
            f"{now[name]}" for name in differ) + ": run `python -m sitebuild check --results` again")
    root = config_file.resolve().parent
    stale, site = [], site_digest(config_file, docs_dir)
    for src_uri in pages:
        if src_uri in found and (what := changes(found[src_uri], digests(root, docs_dir, src_uri, inputs, site),
                                                 inputs, root)):
            stale.append(f"{docs_dir.name}/{src_uri}: {'; '.join(what)} changed since the check")
    if stale:
        raise ResultsError(f"the check results in {folder} are stale for {len(stale)} page(s), so they are not "
                           "rendered; run `python -m sitebuild check --results` again:\n" + "\n".join(stale))
    return {uri: found[uri] for uri in pages if uri in found}


