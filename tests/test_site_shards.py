"""Sharded checks and their merge: `check --shard I/N --results DIR` and `merge DIR... --into DIR`.

The partition puts every page in exactly one shard, the same way every time, and with the durations recorded in
data/durations.json the real nav's three shards are balanced; bad --shard input is bad usage (exit 2) naming it;
merge refuses results that do not fit together (a page in two shards, a page in none, different inputs) and
carries a failing shard's failures to a non-zero exit; a real two-shard check of a small site merges.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sitebuild.__main__ import main
from sitebuild.find import siteconfig
from sitebuild.shard import shardio, shards
from sitebuild.shard.merge import merge
from sitebuild.verify import results
from tests.conftest import REPO_ROOT, fence, page

PAGE_NAMES = st.lists(st.from_regex(r"[a-z]{1,8}/[a-z]{1,8}\.md", fullmatch=True), unique=True, max_size=40)


@given(PAGE_NAMES, st.data(), st.integers(min_value=1, max_value=8))
def test_every_page_is_in_exactly_one_shard_and_the_split_is_deterministic(pages, data, count):
    durations = data.draw(st.dictionaries(st.sampled_from(pages), st.integers(0, 500)) if pages else st.just({}))

    split = shards.partition(pages, durations, count)

    assert len(split) == count
    assert sorted(p for shard in split for p in shard) == sorted(pages)
    assert split == shards.partition(list(pages), dict(reversed(list(durations.items()))), count)
    for shard in split:  # nav order kept within a shard
        assert shard == [p for p in pages if p in shard]


def test_longest_first_to_the_least_loaded_shard_ties_by_index_and_unrecorded_pages_weigh_the_median():
    durations = {"a.md": 5, "b.md": 3, "c.md": 2, "d.md": 2}
    assert shards.partition(["a.md", "b.md", "c.md", "d.md"], durations, 2) == [["a.md", "d.md"], ["b.md", "c.md"]]
    assert shards.weights(["a.md", "b.md", "new.md"], {"a.md": 2, "b.md": 6})["new.md"] == 4
    assert shards.partition(["x.md", "y.md"], {}, 3) == [["x.md"], ["y.md"], []]


def test_the_recorded_durations_balance_the_real_navs_three_shards():
    site = siteconfig.load(REPO_ROOT / "mkdocs.yml")
    durations = shards.read_durations(REPO_ROOT / shards.DURATIONS_FILE)
    assert set(site.pages) <= set(durations), "record them: python -m sitebuild check --record-durations"

    loads = shards.shard_loads(site.pages, durations, 3)

    mean = sum(loads) / 3
    assert max(loads) <= 1.5 * mean, (loads, mean)


def test_write_durations_rounds_keeps_records_within_the_noise_and_drops_pages_gone(tmp_path):
    path = tmp_path / "durations.json"
    path.write_text(json.dumps({"kept.md": 7, "gone.md": 9, "noisy.md": 20, "slower.md": 20}))

    written = shards.write_durations(path, {"new.md": 2.6, "tiny.md": 0.1, "noisy.md": 24.4, "slower.md": 26},
                                     ["kept.md", "new.md", "tiny.md", "noisy.md", "slower.md"])

    assert written == {"kept.md": 7, "new.md": 3, "noisy.md": 20, "slower.md": 26, "tiny.md": 1}
    assert json.loads(path.read_text()) == written
    assert path.read_text().endswith("}\n")


@pytest.mark.site
def test_record_durations_writes_every_checked_page_and_touches_no_approved_output(make_site, capsys):
    site = make_site({"index.md": page(fence("print('home')")), "guide.md": page(fence("echo guide", "bash"),
                                                                                   title="Guide")})
    assert site.accept().code == 0
    approved = {p: p.read_bytes() for p in site.data.rglob("*.txt")}

    code = main(["check", "-f", str(site.config), "--record-durations"])

    output = capsys.readouterr().out
    assert code == 0, output
    recorded = json.loads((site.data / "durations.json").read_text(encoding="utf-8"))
    assert sorted(recorded) == ["guide.md", "index.md"]
    assert all(isinstance(v, int) and v >= 1 for v in recorded.values())
    assert "check: recorded the durations of 2 page(s) in data/durations.json" in output
    assert {p: p.read_bytes() for p in site.data.rglob("*.txt")} == approved


@pytest.mark.parametrize(("given", "says"), [("0/3", "shard 0 of 3 does not exist"),
                                             ("4/3", "shard 4 of 3 does not exist"),
                                             ("x", "not of the form I/N"), ("1/0", "shard 1 of 0 does not exist")])
def test_bad_shard_input_is_bad_usage_naming_it_and_what_was_expected(make_site, capsys, given, says):
    site = make_site({"index.md": page(fence("print(1)"))})

    code = main(["check", "-f", str(site.config), "--shard", given])

    output = capsys.readouterr().out
    assert code == 2, output
    assert f"--shard {given!r}: {says}; expected I/N with whole numbers 1 <= I <= N" in output
    assert "sandbox:" not in output  # nothing ran


DIGESTS = {"kit": "a" * 64, "sitebuild": "b" * 64, "python": "3.11.9"}  # shard.json's
NAV = ["index.md", "one.md", "two.md"]
LOCK = "c" * 64


def page_results(uri: str, failing: list[str], lock: str = LOCK) -> results.PageResults:
    """A page's results as check writes them: one block that passed, then one per outcome in failing."""
    def block(n: int, outcome: str) -> results.BlockResult:
        return results.BlockResult(key=f"python-{n:08x}", label=f"block {n} (python, line {2 * n + 3})", output="ok\n",
                                   problem="", exit_code=0, killed=[], undecodable="", outcome=outcome)

    blocks = [block(1, results.PASSED)] + [block(n, outcome) for n, outcome in enumerate(failing, 2)]
    return results.PageResults(page=uri, digests=results.Digests(page="d" * 64, inputs="e" * 64, lock=lock,
                                                                       site="f" * 64),
                               blocks=blocks, problems=[], reads=None, outside=None, seconds=1.0)


def shard_folder(folder: Path, label: str, pages: dict[str, list[str]], digests: dict | None = None,
                 problems: list[str] | None = None, lock: str = LOCK) -> Path:
    """A results folder as `check --shard LABEL --results folder` writes it: pages -> their failing outcomes."""
    results.write(folder, results.environment(60.0, ["kit"], 4096),
                  [page_results(uri, failing, lock) for uri, failing in pages.items()])
    shardio.write_shard(folder, label, digests or DIGESTS, problems or [])
    return folder


def run_merge(capsys, folders: list[Path], into: Path) -> tuple[int, str]:
    code = merge(folders, into, NAV)
    return code, capsys.readouterr().out


def test_results_that_fit_merge_into_one_results_folder_with_every_page(tmp_path, capsys):
    first = shard_folder(tmp_path / "r1", "1/2", {"index.md": [], "two.md": []})
    second = shard_folder(tmp_path / "r2", "2/2", {"one.md": []})

    code, output = run_merge(capsys, [first, second], tmp_path / "merged")

    assert code == 0, output
    assert "merge: merged 3 page(s) from 2 shard(s)" in output
    manifest, pages = results.read(tmp_path / "merged")  # what the plugin's results: option reads
    assert sorted(manifest.pages) == sorted(NAV) and pages["one.md"] == page_results("one.md", [])
    merged = shardio.read_folder(tmp_path / "merged")
    assert merged.shard is None and DIGESTS.items() <= merged.digests.items() and not merged.failed


def test_merge_refuses_a_page_two_shards_hold_naming_page_and_shards(tmp_path, capsys):
    first = shard_folder(tmp_path / "r1", "1/2", {"index.md": [], "one.md": []})
    second = shard_folder(tmp_path / "r2", "2/2", {"one.md": [], "two.md": []})

    code, output = run_merge(capsys, [first, second], tmp_path / "merged")

    assert code == 1, output
    assert f"page held twice: one.md is in {first} (shard 1/2) and {second} (shard 2/2)" in output
    assert not (tmp_path / "merged").exists()


def test_merge_refuses_a_page_of_the_nav_no_shard_holds(tmp_path, capsys):
    first = shard_folder(tmp_path / "r1", "1/3", {"index.md": []})
    third = shard_folder(tmp_path / "r3", "3/3", {"two.md": []})

    code, output = run_merge(capsys, [first, third], tmp_path / "merged")

    assert code == 1, output
    assert "pages no shard holds (1): one.md" in output
    assert not (tmp_path / "merged").exists()


def test_merge_refuses_shards_that_ran_against_different_inputs(tmp_path, capsys):
    first = shard_folder(tmp_path / "r1", "1/2", {"index.md": [], "two.md": []})
    second = shard_folder(tmp_path / "r2", "2/2", {"one.md": []}, {**DIGESTS, "kit": "f" * 64}, lock="0" * 64)

    code, output = run_merge(capsys, [first, second], tmp_path / "merged")

    assert code == 1, output
    assert (f"different inputs: kit differs between the shards ({first} (shard 1/2): aaaaaaaaaaaa; "
            f"{second} (shard 2/2): ffffffffffff)") in output
    assert (f"different inputs: requirements.lock differs between the shards ({first} (shard 1/2): cccccccccccc; "
            f"{second} (shard 2/2): 000000000000)") in output
    assert not (tmp_path / "merged").exists()


def test_a_failing_shards_failures_are_carried_into_the_merge_and_its_exit_code(tmp_path, capsys):
    first = shard_folder(tmp_path / "r1", "1/2", {"index.md": [], "two.md": []})
    second = shard_folder(tmp_path / "r2", "2/2", {"one.md": ["output differs from the approved output"]})

    code, output = run_merge(capsys, [first, second], tmp_path / "merged")

    assert code == 1, output
    message = "docs/one.md, block 2 (python, line 7), key python-00000002: output differs from the approved output"
    assert f"{message}  [{second} (shard 2/2)]" in output
    assert "with 1 failure(s) on 1 page(s)" in output
    merged = shardio.read_folder(tmp_path / "merged")
    assert merged.failed == {"one.md": 1}
    assert shardio.failures(merged.pages["one.md"]) == [message]


def test_a_site_wide_problem_every_shard_saw_is_carried_once_and_fails_the_merge(tmp_path, capsys):
    orphan = "data/gone.txt holds approved outputs of a page that does not exist; run `make accept` to remove it"
    first = shard_folder(tmp_path / "r1", "1/2", {"index.md": [], "two.md": []}, problems=[orphan])
    second = shard_folder(tmp_path / "r2", "2/2", {"one.md": []}, problems=[orphan])

    code, output = run_merge(capsys, [first, second], tmp_path / "merged")

    assert code == 1, output
    assert output.count(orphan) == 1
    assert shardio.read_folder(tmp_path / "merged").problems == [orphan]


def test_merge_into_a_folder_that_holds_results_or_into_a_shard_is_bad_usage(tmp_path, capsys):
    first = shard_folder(tmp_path / "r1", "1/2", {"index.md": [], "two.md": []})
    second = shard_folder(tmp_path / "r2", "2/2", {"one.md": []})
    assert run_merge(capsys, [first, second], tmp_path / "merged")[0] == 0

    code, output = run_merge(capsys, [first, second], tmp_path / "merged")
    assert code == 2 and "already holds results (manifest.json); give an empty folder" in output, output
    code, output = run_merge(capsys, [first, second], first)
    assert code == 2, output


def test_merge_of_a_folder_that_holds_no_results_is_bad_usage(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    code, output = run_merge(capsys, [tmp_path / "empty"], tmp_path / "merged")
    assert code == 2 and f"{tmp_path / 'empty'}/manifest.json cannot be read as check results" in output, output


@pytest.mark.site
def test_a_real_two_shard_check_merges_renders_and_a_changed_output_fails_the_merge(make_site, capsys, tmp_path):
    site = make_site({"index.md": page(fence("print('home')")),
                      "guide.md": page(fence("print('guide')"), title="Guide"),
                      "more.md": page(fence("echo more", "bash"), title="More")})
    assert site.accept().code == 0
    folders = [tmp_path / "r1", tmp_path / "r2"]

    for index, folder in enumerate(folders, 1):
        code = main(["check", "-f", str(site.config), "--shard", f"{index}/2", "--results", str(folder)])
        output = capsys.readouterr().out
        assert code == 0, output
        assert f"check: shard {index}/2: " in output and "s recorded (the shards: " in output
    merge_args = ["-f", str(site.config), "--into"]
    assert main(["merge", *map(str, folders), *merge_args, str(tmp_path / "merged")]) == 0, capsys.readouterr().out
    merged = shardio.read_folder(tmp_path / "merged")
    assert sorted(merged.pages) == ["guide.md", "index.md", "more.md"]
    assert not (site.data / "durations.json").exists()  # a plain check records nothing
    site.options(results=str(tmp_path / "merged"))
    rendered = site.build()
    assert rendered.code == 0, rendered
    assert "blocks: none ran; 3 page(s) rendered from the check results in" in rendered.output

    site.approved_file("guide.md").write_text(site.approved_file("guide.md").read_text().replace("guide", "old"))
    again = [tmp_path / "s1", tmp_path / "s2"]
    codes = [main(["check", "-f", str(site.config), "--shard", f"{i}/2", "--results", str(f)])
             for i, f in enumerate(again, 1)]
    capsys.readouterr()
    assert sorted(codes) == [0, 1]
    code = main(["merge", *map(str, again), *merge_args, str(tmp_path / "merged-again")])
    output = capsys.readouterr().out
    assert code == 1, output
    assert "output differs from the approved output" in output and "docs/guide.md" in output
    assert list(shardio.read_folder(tmp_path / "merged-again").failed) == ["guide.md"]
