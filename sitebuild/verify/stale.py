"""Whether check results (results.py) still match the checkout: what a page ran against, digested when its run
starts, and held to the checkout when a build renders from the results.

A result is only used while it matches the checkout (current()): the manifest's settings, Python version and
machinery (results.environment) must be this build's; each page's source and requirements.lock must have the
digests it ran with (digests()), and so must every file its run read: the block inputs it read (reads, as the
serve cache keeps them, inputs.Inputs) and the other files of the site root (find/outside.py: mkdocs.yml, another
page, a file of data/, the root's listing, where pytest would find a new conftest.py). A page whose reads are not
known holds to the digests of all the block inputs and of every file of the site root (outside.Outside.tree())
instead. Otherwise the results are refused with an error
naming each page and what changed.

Left out: data/ as a whole, which a build reads afresh (it verifies the stored outputs against it, as it verifies a
run's; a file of data/ that a block read counts as above); a file outside the site root (the standard library, the
venv: what the lock and the Python version pin).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from sitebuild.find import outside
from sitebuild.find.inputs import Inputs
from sitebuild.verify.results import ENVIRONMENT, LOCK, Digests, PageResults, ResultsError, environment, read


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "missing"


def digests(root: Path, docs_dir: Path, src_uri: str, inputs: Inputs, site: str) -> Digests:
    """The digests of a page's source, the block inputs, the lock and the site root as they are now.

    Args:
        root: the site root (mkdocs.yml's folder); docs_dir: the pages' folder; src_uri: the page, e.g. "a.md";
        inputs: the block inputs' digests (inputs.Inputs of the site's block_inputs); site: every other file of
        the site root (outside.Outside.tree(), the same for every page).

    Returns:
        Digests ("missing" for a file that is not there).

    Example: digests(root, root / "docs", "index.md", Inputs(root, ["kit"]), Outside(root, []).tree()).page
    """
    return Digests(page=_sha256(docs_dir / src_uri), inputs=inputs.full, lock=_sha256(root / LOCK),
                   site=site)


def changes(page: PageResults, now: Digests, inputs: Inputs, others: outside.Outside) -> list[str]:
    """What changed since a page's results were made, in words ([] when they still match the checkout).

    Args:
        page: its results; now: its digests now (digests()); inputs: the block inputs now; others: the other files
            of the site root (outside.Outside, with the site and results folders left out).

    Returns:
        e.g. ["the page's source", "kit/evidencedesk/usage.py (read by its blocks)", "mkdocs.yml (read by its
        blocks)", "the site root (read by its blocks)"]; for a page whose reads are not known, "the block inputs
        (...)" or "a file of the site root" when any of them changed.

    Example: changes(page, digests(root, docs, "a.md", inputs, site), inputs, Outside(root, [])) == []
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
            changed.append("a file of the site root (its reads are not known)")
        return changed
    read = inputs.changed(page.reads) + others.changed(page.outside)
    changed += [f"{'the site root' if path == '.' else path} (read by its blocks)" for path in sorted(read)]
    return changed


def current(folder: Path, config_file: Path, docs_dir: Path, inputs: Inputs, timeout: float, memory: int,
            pages: list[str], site_dir: Path) -> dict[str, PageResults]:
    """The results of `pages` in folder, each checked against the checkout.

    Args:
        folder: the results folder; config_file, docs_dir: the site's mkdocs.yml and pages; inputs: the block
            inputs now (their names must be the manifest's); timeout, memory: the site's block_timeout and
            block_memory; pages: the src_uri of each page to render; site_dir: where this build writes the site.

    Returns:
        {src_uri: PageResults} for each page of `pages` that has results (a page without blocks may have none).

    Raises:
        ResultsError: read() fails; the settings, the Python version or the machinery differ from this build's;
            or some pages' results are stale: one line per page, naming it and what changed since the check.

    Example: current(Path("results"), root / "mkdocs.yml", root / "docs", Inputs(root, ["kit"]), 60.0, 4096, [], site)
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
    others = outside.Outside(root, [site_dir, folder])
    unknown = any(found[uri].reads is None or found[uri].outside is None for uri in pages if uri in found)
    stale, site = [], others.tree() if unknown else ""  # walked only for a page whose reads are not known
    for src_uri in pages:
        if src_uri in found and (what := changes(found[src_uri], digests(root, docs_dir, src_uri, inputs, site),
                                                 inputs, others)):
            stale.append(f"{docs_dir.name}/{src_uri}: {'; '.join(what)} changed since the check")
    if stale:
        raise ResultsError(f"the check results in {folder} are stale for {len(stale)} page(s), so they are not "
                           "rendered; run `python -m sitebuild check --results` again:\n" + "\n".join(stale))
    return {uri: found[uri] for uri in pages if uri in found}


