"""The real site: a strict build passes, marks every approved block verified, and builds the same bytes twice."""

from __future__ import annotations

from pathlib import Path

import pytest

from sitebuild.find import siteconfig
from sitebuild.run.cache import REUSE_ENV
from sitebuild.verify import marks
from tests.conftest import in_process

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.site
def test_strict_build_of_the_real_site_passes(real_site: Path) -> None:
    assert (real_site / "index.html").is_file()
    assert (real_site / "advanced" / "agent-loops-state-memory" / "index.html").is_file()


@pytest.mark.site
def test_every_page_with_blocks_has_its_approved_outputs_committed(real_site: Path) -> None:
    pages = [p for p in (ROOT / "docs").rglob("*.md") if 'exec="on"' in p.read_text(encoding="utf-8")]
    assert pages, "the site has pages with executed blocks"
    for page in pages:
        approved = ROOT / "data" / page.relative_to(ROOT / "docs").with_suffix(".txt")
        assert approved.is_file(), f"{page.relative_to(ROOT)} has no approved outputs at {approved.relative_to(ROOT)}"


@pytest.mark.site
def test_every_approved_block_of_the_real_site_is_marked_verified(real_site: Path) -> None:
    assert marks.unverified(siteconfig.load(ROOT / "mkdocs.yml"), real_site) == []  # what `make site` checks


@pytest.mark.site
def test_rendered_pages_hold_no_build_machine_paths(real_site: Path) -> None:
    for page in real_site.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        assert str(ROOT) not in text, f"{page.relative_to(real_site)} holds the build machine's repo path"


@pytest.mark.site
def test_the_same_commit_builds_the_same_site(real_site: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A second strict build gives the same bytes. Its blocks are not run again: every block output was
    already held against its approved output by the first build, and `make accept` refuses an output that
    changes between two runs; what this second build checks is everything else (rendering, search, zip)."""
    again = tmp_path / "again"
    monkeypatch.setenv(REUSE_ENV, "1")
    built = in_process("build", ROOT / "mkdocs.yml", again, strict=True)
    assert built.code == 0, built
    pages = len([p for p in (ROOT / "docs").rglob("*.md") if 'exec="on"' in p.read_text(encoding="utf-8")])
    assert f"blocks: 0 page(s) ran, {pages} reused" in built.output, built
    first = sorted(p.relative_to(real_site) for p in real_site.rglob("*") if p.is_file())
    second = sorted(p.relative_to(again) for p in again.rglob("*") if p.is_file())
    assert first == second
    differing = [str(p) for p in first if (real_site / p).read_bytes() != (again / p).read_bytes()]
    assert differing == [], f"files that differ between two builds of one commit: {differing}"
    assert (real_site / "downloads" / "evidencedesk-kit.zip").is_file()
