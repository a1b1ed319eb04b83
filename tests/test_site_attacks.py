"""What an attacker of the build's publishing found, pinned: each test is one way past a guard, now closed.

A printed #__config, a builder secret in an exception line or a process name, two pages writing into the
kit under serve, machine values the wrong way round (a login named like a word of the course; a file's
owner), a file a block put into the built site, and dotenv files the download check missed.
"""

from __future__ import annotations

import json
import os
import pwd
import shutil
import subprocess
from pathlib import Path

import pytest

from sitebuild.publish.kit_files import check_secrets, secret_findings, select_kit_files
from tests.conftest import fence, page

pytestmark = pytest.mark.site

SECRET = "Zq8-wT4k-P2x9"  # 13 characters: above leaks.MIN_SECRET, within a process name's 15
MACHINE = "output holds build-machine values that differ on every machine"


def _login(monkeypatch, name: str) -> None:
    """Make the build (this process) see `name` as the builder's login name."""
    real = pwd.getpwuid(os.getuid())
    fake = pwd.struct_passwd((name, *tuple(real)[1:]))
    monkeypatch.setattr(pwd, "getpwuid", lambda uid: fake)


# Case 5: the builder's secrets --------------------------------------------------------------------------


def test_a_secret_in_an_exception_line_does_not_reach_the_log_when_stderr_is_silenced(make_site, monkeypatch):
    # The traceback (captured, redacted) is the only place the check looks; the exception line itself travels
    # in the worker's reply (Result.problem), which nothing redacts.
    monkeypatch.setenv("ATTACK26_API_KEY", SECRET)
    code = f"import os, sys\nsys.stderr = open(os.devnull, 'w')\nprint('working')\nraise ValueError({SECRET!r})"
    site = make_site({"index.md": page(fence(code))})

    built = site.build()

    assert built.code != 0
    assert SECRET not in built.output, built


def test_a_secret_as_a_process_name_does_not_reach_the_log_or_the_cache(make_site, monkeypatch):
    # Names of what the reaper killed (Result.killed) go to an INFO line and into the serve cache unredacted.
    monkeypatch.setenv("ATTACK26_TOKEN", SECRET)
    code = (f'd=$(mktemp -d); ln -s "$(command -v sleep)" "$d/{SECRET}"; "$d/{SECRET}" 100 &\n'
            "sleep 0.2; echo started")
    site = make_site({"index.md": page(fence(code, "bash"))})

    accepted = site.accept()

    assert accepted.code != 0 and "$ATTACK26_TOKEN" in accepted.output, accepted  # a secret in what it ran
    assert SECRET not in accepted.output, accepted
    cached = [p for p in (site.root / ".cache").rglob("*") if p.is_file()]
    assert not [p for p in cached if SECRET.encode() in p.read_bytes()]


# Case 2: serve never rebuilds because of its own runs ---------------------------------------------------


def test_two_pages_writing_into_the_kit_stop_rerunning_under_serve(make_site):
    # Each serve rebuild is started by the write of the one before. One writing page stops after two rebuilds
    # (test_site_writes); with two, each page's stored key is invalidated by the other's write: ping-pong.
    append = "import time\nwith open('kit/data/log.txt', 'a') as f:\n    f.write('{}\\n')\ntime.sleep({})\nprint('ok')"
    site = make_site({"a.md": page(fence(append.format("a", 0.3))), "b.md": page(fence(append.format("b", 1.0)))},
                     files={"kit/data/log.txt": ""})
    log = site.root / "kit" / "data" / "log.txt"
    sizes = []
    for _ in range(6):  # a rebuild each time the kit changed, as `make serve` would start
        site.build(mode="serve")
        sizes.append(log.stat().st_size)
    assert sizes[-1] == sizes[-2] == sizes[-3], f"the kit kept changing, rebuild after rebuild: sizes {sizes}"


# Case 7: no remote load through output="markdown" -----------------------------------------------------


def test_a_markdown_output_cannot_replace_materials_configuration(make_site):
    # Material reads its configuration with querySelector("#__config"): the first element of that id, which a
    # printed <div id="__config"> in the article is. With "base" on another host, a reader's browser fetches
    # https://evil.example/search/search_index.json and /versions.json (seen in Chromium).
    config = {"base": "https://evil.example/", "features": [], "search": "x.js", "translations": {},
              "version": {"provider": "mike"}}
    code = f"print('<div i' + 'd=\"__con' + 'fig\">' + {json.dumps(json.dumps(config))} + '</div>')"
    site = make_site({"index.md": page(fence(code, output="markdown"))})
    site.accept()

    built = site.build()

    assert built.code != 0 or site.html().count('id="__config"') == 1, "a printed #__config reached the page"


def test_an_id_that_only_the_blocks_source_shows_is_no_clash(make_site):
    # id_clashes counts ` id="note"` in the page's HTML, which includes the block's highlighted source code.
    site = make_site({"index.md": page(fence("print('<span id=\"note\">a note</span>')", output="markdown"))})

    accepted = site.accept()

    assert accepted.code == 0, accepted


# Case 4: machine values, both ways --------------------------------------------------------------------------


@pytest.mark.parametrize("login", ["maria", "worker"])
def test_a_login_name_the_course_itself_prints_is_no_leak(login, make_site, monkeypatch):
    # The real site prints by="maria" and "worker": a builder whose login is one of them cannot build it.
    _login(monkeypatch, login)
    site = make_site({"index.md": page(fence(f"print('approved by={login}')"))})

    accepted = site.accept()

    assert accepted.code == 0, accepted


def test_a_tilde_in_python_code_does_not_make_the_word_root_a_login_name(make_site, monkeypatch):
    # SOURCES["login"] matches any "~" (bitwise not, a regex, a Mermaid link); then "root" in prose is flagged.
    _login(monkeypatch, "root")
    site = make_site({"index.md": page(fence("mask = ~0\nprint('the repo root holds mkdocs.yml', mask)"))})

    accepted = site.accept()

    assert accepted.code == 0, accepted


@pytest.mark.parametrize(("code", "language"), [
    ("stat -c '%U' mkdocs.yml", "bash"),
    ("from pathlib import Path\nprint(Path('mkdocs.yml').owner())", "python"),
])
def test_a_file_owner_is_the_login_name(code, language, make_site):
    # Reading a file's owner reads the login name; with a generic login (root, runner) it is approved.
    site = make_site({"index.md": page(fence(code, language))})

    accepted = site.accept()

    assert accepted.code != 0 and "the login name" in accepted.output, accepted


def test_pytest_xdist_auto_prints_the_cpu_count(make_site):
    # `pytest -n auto` prints "created: N/N workers": the CPU count, with no nproc or cpu_count in the code.
    test = "def test_one():\n    assert True\n"
    code = "python -m pytest -n auto tests_here | grep -o '^[0-9]* workers'"
    site = make_site({"index.md": page(fence(code, "bash"))}, files={"tests_here/test_one.py": test})

    accepted = site.accept()

    assert accepted.code != 0 and "the CPU count" in accepted.output, accepted


# Case 2 (neighbour): the built site is a folder the blocks may write into ---------------------------------


def test_a_block_cannot_publish_a_file_into_the_built_site(make_site):
    # MkDocs cleans site_dir before the hook's on_files starts the blocks: a file they write there is published,
    # with no check at all (here the home folder).
    site = make_site()
    out = f"../{site.root.name}-out"
    site.page("index.md", page(fence(f'mkdir -p {out}; echo "$HOME" > {out}/leak.txt; echo done', "bash")))
    site.accept()

    built = site.build()

    assert built.code != 0 or not (site.out / "leak.txt").exists(), "a block's file was published in the site"


# Case 1: the kit download ------------------------------------------------------------------------------------


def _git(root: Path, *args: str) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.org", GIT_COMMITTER_NAME="t",
               GIT_COMMITTER_EMAIL="t@example.org", GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1")
    subprocess.run(["git", "-C", str(root), *args], env=env, capture_output=True, check=True)


def test_a_tracked_link_to_an_untracked_env_file_inside_the_kit_does_not_pack_it(tmp_path):
    root = tmp_path / "repo"
    (root / "kit" / "data").mkdir(parents=True)
    (root / "kit" / "data" / "a.json").write_text("[]\n")
    (root / "kit" / "settings.txt").symlink_to(".env")  # tracked link, inside kit/, to an untracked file
    _git(root, "init", "-q")
    _git(root, "add", "kit")
    _git(root, "commit", "-q", "-m", "kit")
    (root / "kit" / ".env").write_text("DB_PASSWORD=correct-horse-battery-staple\n")

    selection = select_kit_files(root)
    files = {p.as_posix(): (root / p).read_bytes() for p in selection.files}

    assert not any(b"correct-horse" in data for data in files.values()), sorted(files)


@pytest.mark.parametrize("name", ["kit/.envrc", "kit/config/prod.env", "kit/secrets.env"])
def test_other_dotenv_files_are_secret_looking(name):
    assert secret_findings(name, b"export DB_PASSWORD=correct-horse-battery-staple\n")


def test_an_example_dotenv_file_with_a_stage_name_is_not_a_secret():
    check_secrets({"kit/.env.local.example": b"OPENAI_API_KEY=\n"})


def test_links_and_back_dated_files_a_block_puts_into_the_built_site_are_removed_and_fail(make_site, monkeypatch):
    # the stray check, the net where bubblewrap cannot start: in the sandbox site/ is read-only (test_site_sandbox.py)
    monkeypatch.setenv("SITEBUILD_SANDBOX", "0")
    # An attacker's block: a link to a file outside (a .env), a link to a folder, a file and a dot-file dated
    # 2001; the stray check took a link's time as 0 and anything dated before the build as an earlier build's.
    site = make_site(files={"outside.env": "API_KEY=sk-not-published\n"})
    out = f"../{site.root.name}-out"
    code = (f'mkdir -p {out}; ln -s "$PWD/outside.env" {out}/dotenv.txt; ln -s "$PWD" {out}/folder; '
            f'echo x > {out}/old.txt; echo x > {out}/.hidden; touch -h -d 2001-01-01 {out}/old.txt {out}/.hidden '
            f'{out}/dotenv.txt {out}/folder; echo done')
    site.page("index.md", page(fence(code, "bash")))
    site.accept()

    built = site.build()

    assert built.code != 0, built
    for name in ("dotenv.txt", "folder", "old.txt", ".hidden"):
        assert not os.path.lexists(site.out / name), name
        assert f"{name}, a " in built.output, built
    assert "sk-not-published" not in "".join(p.read_text(errors="replace") for p in site.out.rglob("*")
                                             if p.is_file() and not p.is_symlink())


def test_files_and_links_left_in_the_site_folder_before_the_build_are_removed_and_named(make_site):
    # MkDocs' clean skips names starting with a dot and cannot remove a link to a folder: both would be published.
    site = make_site({"index.md": page("No blocks.")})
    site.out.mkdir(parents=True, exist_ok=True)
    (site.out / ".env").write_text("API_KEY=sk-left-behind\n")
    (site.out / "linked").symlink_to(site.root)

    built = site.build()

    assert built.code == 0, built
    assert not os.path.lexists(site.out / ".env") and not os.path.lexists(site.out / "linked")
    assert ".env, a file left in the site folder before the build, was removed" in built.output
    assert "linked, a symbolic link left in the site folder before the build, was removed" in built.output
    assert site.root.is_dir()  # the link went, never what it pointed to


def test_a_folder_a_block_makes_in_the_built_site_is_removed_and_fails(make_site, monkeypatch):
    # the stray check, the net where bubblewrap cannot start: in the sandbox site/ is read-only (test_site_sandbox.py)
    monkeypatch.setenv("SITEBUILD_SANDBOX", "0")
    # a folder holds no file, yet its name is published (here a key's shape); the stray check listed files only
    site = make_site()
    out = f"../{site.root.name}-out"
    site.page("index.md", page(fence(f"mkdir -p {out}/made-here/deeper {out}/.hidden-folder; echo done", "bash")))
    site.accept()
    shutil.rmtree(site.out)  # what accept's run made there (MkDocs' clean would leave the dot-folder)

    built = site.build()

    assert built.code != 0, built
    assert "made-here, a folder, appeared in the built site" in built.output
    assert ".hidden-folder, a folder, appeared in the built site" in built.output
    assert "2 other problem(s)" in built.output  # strays are not counted as pages
    assert not (site.out / "made-here").exists() and not (site.out / ".hidden-folder").exists()
