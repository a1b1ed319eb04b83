"""Nothing private to the build machine reaches an approved output, a page or the cache (issue 26, cases 4 and 5)."""

from __future__ import annotations

import os
import socket
import sys
from pathlib import Path

import pytest

from sitebuild.run.leaks import machine_facts, machine_values, redact, secret_values, secrets_in
from tests.conftest import approved_entries, create_site, fence, page

pytestmark = pytest.mark.site

MACHINE = "output holds build-machine values that differ on every machine"


# Build-machine values --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("code", "language", "named"),
    [
        ('echo "$HOME"', "bash", "the home folder"),  # no trailing slash
        ("from pathlib import Path\nprint(Path.home())", "python", "the home folder"),
        ("print('home is', __import__('os').path.expanduser('~') + '.')", "python", "the home folder"),
        ("id -un", "bash", "the login name"),
        ("import getpass\nprint(f'user={getpass.getuser()}')", "python", "the login name"),
        ("uname -n", "bash", "the host name"),
        ("import socket\nprint(socket.gethostname())", "python", "the host name"),
        ("nproc", "bash", "the CPU count"),
        ("import os\nprint('cpus:', os.cpu_count())", "python", "the CPU count"),
        ('basename "$PWD"', "bash", "the checkout's folder name"),
        ("from pathlib import Path\nprint(Path.cwd().name)", "python", "the checkout's folder name"),
    ],
)
def test_a_block_printing_a_value_of_this_machine_fails_naming_it(code, language, named, make_site):
    site = make_site({"index.md": page(fence(code, language))})

    accepted = site.accept()

    assert accepted.code != 0, accepted
    message = next(line for line in accepted.output.splitlines() if MACHINE in line)
    assert named in message
    assert not site.approved_file().exists()


def test_a_value_read_in_one_python_block_and_printed_in_a_later_one_is_found(make_site):
    site = make_site({"index.md": page(fence("import os\ncount = os.cpu_count()\nprint('read')"),
                                       fence("print(count)"))})

    accepted = site.accept()

    assert accepted.code != 0 and "the CPU count" in accepted.output, accepted


@pytest.mark.parametrize("code", ['basename "$PWD"', "from pathlib import Path\nprint(Path.cwd().name)"])
def test_a_checkout_named_like_a_word_of_the_site_is_found_where_the_code_reads_it(code, tmp_path):
    # a checkout called "main" (CI's is), or any word the pages hold: printed by code that reads the folder,
    # it would differ on the next machine as much as any other name
    language = "bash" if "PWD" in code else "python"
    site = create_site(tmp_path / "main", {"index.md": page("A main loop.\n\n" + fence(code, language))})

    accepted = site.accept()

    assert accepted.code != 0, accepted
    assert "the checkout's folder name 'main'" in accepted.output


@pytest.mark.parametrize("code", ['v=${VIRTUAL_ENV%/.venv}; echo ${v##*/}', 'print(sys.prefix.split("/")[-2])',
                                  "git rev-parse --show-toplevel | sed 's#.*/##'", 'echo "$(dirname "$0")"'])
def test_code_that_reads_the_checkout_folder_another_way_counts_its_name(code, tmp_path):
    # an attacker's ways to the folder's name that the first list of SOURCES missed
    root = tmp_path / "main"
    root.mkdir()
    assert machine_values("main", root, code) == ["the checkout's folder name 'main'"]


def test_a_checkout_named_like_a_word_of_the_site_passes_where_the_code_does_not_read_it(tmp_path):
    site = create_site(tmp_path / "main", {"index.md": page(fence("print('the main loop')"))})

    assert site.accept().code == 0


def test_ordinary_words_and_numbers_pass_when_the_code_reads_no_machine_value(make_site):
    facts = {f.what: f.value for f in machine_facts(Path.cwd())}
    text = f"the repo root, {facts['the CPU count']} passed, main loop, step {os.cpu_count()}"
    site = make_site({"index.md": page(fence(f"print({text!r})"))})

    assert site.accept().code == 0
    assert site.build().code == 0


def test_machine_values_names_a_path_whatever_follows_it():
    home = str(Path.home())
    assert machine_values(f"home: {home}\n") == [f"{home} (the home folder)"]
    assert machine_values(f"'{home}'") == [f"{home} (the home folder)"]
    assert machine_values(f"{home}/x") == [f"{home}{os.sep}... (the home folder)"]
    assert machine_values(f"/x{home}") == []  # another path that ends like it
    assert machine_values(f"{home}rest") == []  # a longer name


def test_a_distinctive_host_name_is_found_anywhere_and_a_generic_one_where_the_code_reads_it(monkeypatch):
    monkeypatch.setattr(socket, "gethostname", lambda: "build-box-7f3a.example.org")
    assert "the host name 'build-box-7f3a'" in machine_values("built on build-box-7f3a today")
    monkeypatch.setattr(socket, "gethostname", lambda: "vm")
    assert machine_values("a vm is a virtual machine") == []
    assert machine_values("vm", code="uname -n") == ["the host name 'vm'"]


# The builder's secrets ------------------------------------------------------------------------------

SECRET = "sk-test-ZXCVBNM0123456789qwertyuiop"


def test_redact_removes_each_secret_value_and_names_its_variable():
    environ = {"OPENAI_API_KEY": SECRET, "GITHUB_TOKEN": "ghp_" + "a" * 36, "KEYBOARD": "us", "PATH": SECRET}
    text = redact(f"a {SECRET} b ghp_{'a' * 36} us", environ)
    assert SECRET not in text and "ghp_" not in text and text.endswith(" us")
    assert secrets_in(text) == ["$GITHUB_TOKEN", "$OPENAI_API_KEY"]
    assert [name for name, _ in secret_values(environ)] == ["GITHUB_TOKEN", "OPENAI_API_KEY"]  # longest first


@pytest.mark.parametrize("name", ["DB_PASS", "MYSQL_PWD", "GH_PAT", "PAT_FOR_CI", "BASIC_AUTH", "PGPASSWORD"])
def test_more_names_say_a_variable_holds_a_secret(name):
    assert secret_values({name: "correct-horse-battery"}) == [(name, "correct-horse-battery")]


def test_the_shells_folders_places_and_names_that_merely_hold_a_secret_word_are_no_secrets():
    # real machines' variables an honest output may hold (an attacker found each failing a build)
    environ = {"PWD": "/home/someone/work", "OLDPWD": "/home/someone", "PATH": "/usr/bin:/bin", "PATTERN": "x" * 9,
               "XAUTHLOCALHOSTNAME": "localhost", "PIP_KEYRING_PROVIDER": "subprocess",
               "UV_KEYRING_PROVIDER": "subprocess", "GIT_AUTHOR_NAME": "EvidenceDesk Bot",
               "GIT_AUTHOR_EMAIL": "bot@example.org", "PASSWORD_STORE_DIR": "/home/someone/.password-store",
               "SSH_AUTH_SOCK": "/tmp/ssh-abc/agent.1", "KEYBOARD_LAYOUT": "us-intl-alt"}
    assert secret_values(environ) == []


def test_a_password_inside_a_url_is_a_secret_whatever_the_variable_is_called():
    environ = {"DATABASE_URL": "postgres://app:correct-horse-battery@db.example.org/shop"}
    assert secret_values(environ) == [("DATABASE_URL", "correct-horse-battery")]
    assert (redact("postgres://app:correct-horse-battery@db", environ)
            == "postgres://app:[value of $DATABASE_URL removed]@db")


KEYS_IN_A_FILE = {"an API key shape (sk-...)": "sk-proj-" + "Ab3" * 16,
                  "an AWS access key id": "AKIA" + "QWERTYUIOPASDFGH"}


def test_a_key_shaped_value_is_removed_wherever_it_came_from_and_named_by_its_shape():
    text = redact(" ".join(KEYS_IN_A_FILE.values()) + " sk-sim-NOT-A-REAL-KEY-000000000", {})
    assert not any(key in text for key in KEYS_IN_A_FILE.values())
    assert text.endswith(" sk-sim-NOT-A-REAL-KEY-000000000")  # the kit's invented key is no real key's shape
    assert secrets_in(text) == sorted(KEYS_IN_A_FILE)


def test_a_block_that_prints_a_key_from_a_file_fails_and_the_key_reaches_nothing(make_site):
    # `cat .env` is no environment variable: the key shapes the kit download refuses are looked for in outputs
    env_file = "".join(f"KEY_{n}={key}\n" for n, key in enumerate(KEYS_IN_A_FILE.values()))
    site = make_site({"index.md": page(fence("cat outside.env", "bash"))}, files={"outside.env": env_file})

    accepted = site.accept()

    assert accepted.code != 0, accepted
    assert "a value shaped like a real secret (an API key shape (sk-...), an AWS access key id)" in accepted.output
    assert not site.approved_file().exists()
    written = [p for p in site.root.rglob("*") if p.is_file() and p.name != "outside.env"]
    assert not [p for p in written if any(key.encode() in p.read_bytes() for key in KEYS_IN_A_FILE.values())]


def test_a_python_installed_by_the_system_is_no_machine_value(monkeypatch):
    monkeypatch.setattr(sys, "base_prefix", "/usr")
    assert machine_values("#!/usr/bin/env python3") == []
    monkeypatch.setattr(sys, "base_prefix", "/opt/pythons/3.11.7")
    assert machine_values("#!/opt/pythons/3.11.7/bin/python") == ["/opt/pythons/3.11.7/... (the Python installation)"]


# A block finds the builder's environment through /proc (every process's initial environment), so the
# builder here is a subprocess started with the secrets set: `python -m sitebuild accept`.
READ_PROC = {
    "python": ("import glob\nfound = set()\nfor name in glob.glob('/proc/[0-9]*/environ'):\n"
               "    try:\n        found |= {v for v in open(name, 'rb').read().decode(errors='replace').split(chr(0))"
               " if v.startswith('SITEBUILD_TEST')}\n    except OSError:\n        pass\nprint(sorted(found))"),
    "bash": ("for f in /proc/[0-9]*/environ; do tr '\\0' '\\n' < \"$f\" 2>/dev/null || true; done "
             "| grep -a '^SITEBUILD_TEST' | sort -u"),
}


@pytest.mark.parametrize("language", ["python", "bash"])
def test_a_block_that_reads_the_builders_secret_fails_and_the_value_reaches_nothing(language, make_site, monkeypatch):
    # the net where bubblewrap cannot start: in the sandbox /proc shows no builder (test_site_sandbox.py)
    monkeypatch.setenv("SITEBUILD_SANDBOX", "0")
    monkeypatch.setenv("SITEBUILD_TEST_API_KEY", SECRET)
    monkeypatch.setenv("SITEBUILD_TEST_DB_PASSWORD", "correct-horse-battery")
    site = make_site({"index.md": page(fence(READ_PROC[language], language))})

    accepted = site.accept_command()

    assert accepted.code != 0, accepted
    assert "$SITEBUILD_TEST_API_KEY, $SITEBUILD_TEST_DB_PASSWORD" in accepted.output, accepted
    assert SECRET not in accepted.output and "correct-horse-battery" not in accepted.output
    assert not site.approved_file().exists()
    written = [p for p in site.root.rglob("*") if p.is_file()]
    assert not [p for p in written if SECRET.encode() in p.read_bytes()]


def test_a_secret_is_not_in_the_diff_against_an_approved_output(make_site, monkeypatch):
    # the net where bubblewrap cannot start: in the sandbox /proc shows no builder (test_site_sandbox.py)
    monkeypatch.setenv("SITEBUILD_SANDBOX", "0")
    site = make_site({"index.md": page(fence("print('stable')", id="leak"))})
    assert site.accept().code == 0
    monkeypatch.setenv("SITEBUILD_TEST_TOKEN", SECRET)
    site.page("index.md", page(fence(READ_PROC["python"], id="leak")))

    accepted = site.accept_command()

    assert accepted.code != 0 and "$SITEBUILD_TEST_TOKEN" in accepted.output and SECRET not in accepted.output
    assert approved_entries(site.approved()) == ["--- leak (1 line)\nstable\n"]


def test_a_failed_build_leaves_nothing_in_the_site_folder_to_publish(make_site):
    # the red box of a block that printed the home folder held it, in a site folder a careless deploy publishes
    site = make_site({"index.md": page(fence('echo "$HOME"', "bash")), "other.md": page("No blocks.")})

    built = site.build()

    assert built.code != 0 and "was emptied: a failed build publishes nothing" in built.output, built
    assert site.out.is_dir() and list(site.out.iterdir()) == []
