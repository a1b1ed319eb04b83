"""What the kit download packs (sitebuild/publish/kit_files.py through gen_downloads): exactly the files git tracks
under kit/, the rest named in an INFO line, and never a file that looks like a secret.

Each test builds a small repo in a temporary folder (git init, commit the kit's files) and packs it with
kit_archive, the function the build calls; none installs anything.
"""

from __future__ import annotations

import io
import logging
import os
import subprocess
import zipfile
from pathlib import Path

import pytest
from mkdocs.exceptions import PluginError

from sitebuild.publish.gen_downloads import FOLDER, kit_archive, kit_download, kit_readme
from tests.learner import CONFIG, ROOT

KIT = {
    "kit/evidencedesk/__init__.py": '"""The kit."""\n',
    "kit/evidencedesk/greet.py": '"""Says hello."""\n\ndef greet():\n    return "hello"\n',
    "kit/data/names.json": '["Ada"]\n',
    "kit/tests/test_greet.py": "from evidencedesk.greet import greet\n\ndef test_greet():\n    assert greet()\n",
}
# Real-looking secrets, made at run time so that this file itself holds none.
GITHUB = "ghp_" + "Zr8Qm2Lp5Xw9Tk3Vb7Nc1Hd4Jf6Gs0Ay2Ue8"
OPENAI = "sk-proj-" + "Q7v2Lx9Mp4Rt8Wz1Kb6Nc3Hd5Jf0Gs2Ay7Ue4Ri9Oq1Tl6Xm3Vp8Zn5Bk2Cw7Dh4Ej0Fg9" * 2
AWS = "AKIA" + "Q7V2LX4MP4RT6WZ3"
SLACK = "xoxb-" + "1234567890123-9876543210987-Zr8Qm2Lp5Xw9Tk3Vb7Nc1Hd4"
STRIPE = "sk_live_" + "51Hq8Zr8Qm2Lp5Xw9Tk3Vb7Nc1Hd4Jf6Gs0Ay2Ue8R"
ANTHROPIC = "sk-ant-api03-" + "Zr8Qm2Lp5Xw9Tk3Vb7Nc1Hd4Jf6Gs0Ay2Ue8R_Q7v2Lx9Mp4Rt8Wz1Kb6Nc3Hd5Jf0Gs2Ay7Ue4R" + "AA"
PRIVATE_KEY = ("-----BEGIN " + "OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAAB\n"
               "-----END OPENSSH PRIVATE KEY-----\n")


def git(root: Path, *args: str) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.org", GIT_COMMITTER_NAME="t",
               GIT_COMMITTER_EMAIL="t@example.org", GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1")
    done = subprocess.run(["git", "-C", str(root), *args], env=env, capture_output=True, text=True, check=True)
    return done.stdout


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")


@pytest.fixture
def repo(tmp_path) -> Path:
    """A repo holding KIT, committed."""
    root = tmp_path / "repo"
    write(root, KIT)
    git(root, "init", "-q")
    git(root, "add", "kit")
    git(root, "commit", "-q", "-m", "kit")
    return root


@pytest.fixture
def logged(caplog):
    """What the kit download logs, as (level name, message) pairs."""
    caplog.set_level(logging.INFO, logger="mkdocs.plugins.kit-download")
    caplog.set_level(logging.INFO, logger="sitebuild.kit-download")  # the no-git warning, which fails no build
    names = ("mkdocs.plugins.kit-download", "sitebuild.kit-download")
    return lambda: [(r.levelname, r.getMessage()) for r in caplog.records if r.name in names]


def packed(archive: bytes) -> dict[str, bytes]:
    """The archive's files by their path in the kit's folder."""
    with zipfile.ZipFile(io.BytesIO(archive)) as z:
        return {name.removeprefix(f"{FOLDER}/"): z.read(name) for name in z.namelist()}


# Exactly the tracked files --------------------------------------------------------------------------------


def test_the_download_holds_exactly_the_tracked_files_and_names_the_rest(repo, logged):
    write(repo, {"kit/data/staged.json": "[]\n"})
    git(repo, "add", "kit/data/staged.json")  # staged, not committed: in git's index, so in the download
    write(repo, {
        "kit/.env": f"OPENAI_API_KEY={OPENAI}\n",  # untracked: left out and named, not a failure (not published)
        "kit/.hypothesis/examples/ab/cd": "db\n",
        "kit/evidencedesk/.greet.py.swp": "swap\n",
        "kit/data/out.txt": "a block wrote this\n",
        "kit/evidencedesk/__pycache__/greet.cpython-311.pyc": "bytes\n",
    })
    (repo / "kit/tests/test_greet.py").unlink()  # tracked, deleted in the working tree: skipped

    files = packed(kit_archive(repo))

    assert sorted(files) == ["kit/data/names.json", "kit/data/staged.json", "kit/evidencedesk/__init__.py",
                             "kit/evidencedesk/greet.py"]
    infos = [message for level, message in logged() if level == "INFO"]
    assert infos[0] == ("kit download: left out 5 file(s) or folder(s) under kit/ that git does not track: "
                        "kit/.env, kit/.hypothesis/, kit/data/out.txt, kit/evidencedesk/.greet.py.swp, "
                        "kit/evidencedesk/__pycache__/")
    assert infos[1] == "kit download: left out 1 tracked file(s) missing from the working tree: kit/tests/test_greet.py"
    assert OPENAI not in str(logged())


def test_an_edited_tracked_file_goes_in_as_it_is_now(repo):
    write(repo, {"kit/data/names.json": '["Ada", "Grace"]\n'})

    assert packed(kit_archive(repo))["kit/data/names.json"] == b'["Ada", "Grace"]\n'


def test_the_readme_describes_no_untracked_module(repo):
    write(repo, {"kit/evidencedesk/scratch.py": '"""My notes, not for learners."""\n'})

    readme = kit_readme(repo, [], {}, "")

    assert "kit/evidencedesk/greet.py" in readme and "scratch" not in readme


def test_a_tracked_link_to_a_file_outside_the_kit_fails_the_build(repo, tmp_path):
    outside = tmp_path / "home" / ".aws-notes.txt"
    write(outside.parent, {outside.name: "the builder's own file\n"})
    (repo / "kit/data/rates.txt").symlink_to(outside)
    git(repo, "add", "kit/data/rates.txt")

    with pytest.raises(PluginError) as failure:
        kit_archive(repo)

    assert "kit/data/rates.txt" in str(failure.value) and "outside kit/" in str(failure.value)
    assert "builder's own file" not in str(failure.value)


@pytest.mark.parametrize("how", ["no checkout", "git missing", "inside another checkout"])
def test_without_a_git_checkout_of_its_own_a_warning_and_caches_hidden_and_swap_files_left_out(how, tmp_path,
                                                                                                 monkeypatch, logged):
    root = tmp_path / "outer" / "repo" if how == "inside another checkout" else tmp_path / "repo"
    write(root, {**KIT, "kit/.hypothesis/x": "db\n", "kit/evidencedesk/.greet.py.swp": "swap\n",
                 "kit/data/names.json~": "backup\n", "kit/.env": "KEY=x\n",
                 "kit/evidencedesk/__pycache__/greet.cpython-311.pyc": "bytes\n"})
    if how == "inside another checkout":
        git(tmp_path / "outer", "init", "-q")  # the unpacked tarball sits in some other repo, untracked there
    if how == "git missing":
        git(root, "init", "-q")
        git(root, "add", "kit")
        monkeypatch.setenv("PATH", str(tmp_path / "no-bin"))

    files = packed(kit_archive(root))

    assert sorted(files) == sorted(KIT)
    [(level, warning)] = [entry for entry in logged() if entry[0] == "WARNING"]
    assert warning.startswith("kit download: ") and "cannot be checked against git" in warning
    assert {"no checkout": "not a git checkout", "git missing": "git is not installed",
            "inside another checkout": "a folder inside one"}[how] in warning
    assert any("kit/.hypothesis/" in message and "kit/.env" in message for level, message in logged())


# Secrets fail the build, named but never shown ------------------------------------------------------------

SECRETS = {  # name: (file, its text, the kind the message names, the value it must not show)
    "tracked .env": ("kit/.env", f"OPENAI_API_KEY={OPENAI}\n", "a .env file", OPENAI),
    "private key": ("kit/data/deploy.txt", "notes\n" + PRIVATE_KEY, "a private key (line 2)", "b3BlbnNzaC1rZXkt"),
    "GitHub token": ("kit/data/notes.md", f"# Notes\n\ntoken: {GITHUB}\n", "a GitHub token shape (line 3)", GITHUB),
    "AWS key id": ("kit/evidencedesk/aws.py", f'KEY_ID = "{AWS}"\n', "an AWS access key id (line 1)", AWS),
    "Slack token": ("kit/data/slack.json", f'{{"token": "{SLACK}"}}\n', "a Slack token shape", SLACK),
    "Stripe key": ("kit/data/pay.toml", f'key = "{STRIPE}"\n', "a Stripe live key shape", STRIPE),
    "Anthropic key": ("kit/tests/fixture.txt", ANTHROPIC + "\n", "an API key shape (sk-...)", ANTHROPIC),
    ".env in capitals, with a suffix": ("kit/config/.ENV.production", "PASSWORD=hunter2x\n", "a .env file", "hunter2x"),
    "a key file by its name": ("kit/data/Server.PEM", "pem-body-7Q2x\n", "a pem key or certificate", "pem-body-7Q2x"),
    "an SSH key by its name": ("kit/data/id_ed25519", "ssh-body-5KQ\n", "an SSH private key file", "ssh-body-5KQ"),
    ".npmrc with a token": ("kit/.npmrc", "//registry.npmjs.org/:_authToken=npm_abc123\n", "credentials (line 1)",
                            "npm_abc123"),
}


@pytest.mark.parametrize("case", SECRETS, ids=SECRETS)
def test_a_tracked_secret_fails_the_build_naming_the_file_and_kind_never_the_value(case, repo):
    name, text, kind, value = SECRETS[case]
    write(repo, {name: text})
    git(repo, "add", "-f", name)

    with pytest.raises(PluginError) as failure:
        kit_archive(repo)

    message = str(failure.value)
    assert name in message and kind in message, message
    assert value not in message and value[-8:] not in message, message


def test_a_token_in_a_tracked_file_name_fails_the_build_without_showing_it(repo):
    name = f"kit/data/backup-{GITHUB}.json"
    write(repo, {name: "[]\n"})
    git(repo, "add", name)

    with pytest.raises(PluginError) as failure:
        kit_archive(repo)

    assert "kit/data/backup-[...].json: its name holds a GitHub token shape" in str(failure.value)
    assert GITHUB[-8:] not in str(failure.value)


def test_a_secret_added_to_a_tracked_file_after_its_commit_fails_the_build(repo):
    write(repo, {"kit/data/names.json": f'["Ada", "{GITHUB}"]\n'})

    with pytest.raises(PluginError, match="kit/data/names.json: a GitHub token shape"):
        kit_archive(repo)


def test_a_token_in_a_utf16_file_fails_the_build(repo):
    (repo / "kit/data/names.json").write_text(f'["{GITHUB}"]\n', encoding="utf-16")

    with pytest.raises(PluginError, match="kit/data/names.json: a GitHub token shape"):
        kit_archive(repo)


def test_a_secret_in_a_generated_file_fails_the_build(repo):
    with pytest.raises(PluginError, match="README.md: a GitHub token shape"):
        kit_archive(repo, {"README.md": f"see {GITHUB}\n".encode()})


def test_invented_keys_short_shapes_and_example_files_pass(repo):
    harmless = {
        "kit/.env.example": "OPENAI_API_KEY=sk-your-key-here\n",
        "kit/data/keys.txt": "sk-sim-NOT-A-REAL-KEY-000000000 sk-YsFXZUAWaZY8Lsm- sk-sim-please-leak-me-123 sk-short\n"
                             "task-1234567890abcdefghijklmnopqrstuvwxyz0123 ghp_short AKIA1234 xoxb-your-token\n"
                             "-----BEGIN PUBLIC KEY----- sk_test_" + "4eC39HqLyjWDarjtT1zdp7dc\n",
        "kit/data/id_ed25519.pub": "ssh-ed25519 AAAAC3Nz a@b\n",
        "kit/.npmrc": "registry=https://registry.npmjs.org/\n",  # no credentials in it
    }
    write(repo, harmless)
    git(repo, "add", "-f", *harmless)

    assert set(harmless) <= set(packed(kit_archive(repo)))


# The real kit -----------------------------------------------------------------------------------------------


def test_the_real_download_is_the_tracked_kit_with_its_readme_licence_and_project_and_passes_the_check():
    """The kit's own invented keys (security.py SIMULATED_SECRET and the tests' samples) are not real-looking."""
    tracked = git(ROOT, "ls-files", "--", "kit/").split()

    files = packed(kit_download(ROOT, CONFIG["nav"], ROOT / "docs", ""))

    assert sorted(files) == sorted([*tracked, "LICENSE", "README.md", "pyproject.toml", "requirements-notebooks.txt",
                                    "requirements.txt"])
    assert b"sk-sim-" in files["kit/evidencedesk/security.py"]
