"""What must never reach an approved output, a page or the cache: this machine's values and the builder's secrets.

An output is the same on every machine, or it is refused. Two kinds of value break that:

- Build-machine values (machine_values): memory addresses; absolute paths of this machine (the
  Python installation, the temporary folder, the home folder, what is left of the site root's path),
  whatever follows them; the login name, the host name, the CPU count and the name of the checkout's
  folder. A value that is distinctive on its own (a path, a long host or login name) is found
  wherever it stands. One that is also an ordinary word or number ("root", "main", "2") is found only
  when the block's code reads it (`nproc`, `os.cpu_count()`, `id -un`, `$PWD`, `Path.cwd()`, ...), since
  a page that says "the repo root" or prints "2 passed" is no leak.
- The builder's secrets (redact, secrets_in): the values of the builder's environment variables whose
  names say they hold one (secret_name), passwords inside URLs, and any value shaped like a real key
  (KEY_SHAPES, the shapes the kit download refuses too: a key read from a file such as .env). Blocks
  never inherit the variables (runner.block_env), but a block can still read them (through /proc, say);
  so every output is redacted as it is captured, before anything compares, approves, shows or stores
  it, and the build fails naming the variable or the shape, never the value.

Left out: a value printed in another form (encoded, split, reversed) is not found; a secret shorter
than MIN_SECRET characters is not looked for, since it would match ordinary text.
"""

from __future__ import annotations

import contextlib
import functools
import os
import pwd
import re
import socket
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

MEMORY_ADDRESS = re.compile(r"\b0x[0-9a-fA-F]{6,}\b")
# Names that say a variable holds a secret, read by the parts between underscores (so AUTHOR, KEYRING and
# XAUTHLOCALHOSTNAME are not): a part that is one of SECRET_PARTS, or ends with one of SECRET_ENDINGS (APIKEY,
# PGPASSWORD). A name whose last part says it holds a place (PASSWORD_STORE_DIR, SSH_AUTH_SOCK) is not one,
# nor are the shell's PWD and OLDPWD.
SECRET_PARTS = {"KEY", "KEYS", "TOKEN", "SECRET", "PASS", "PASSWORD", "PASSWD", "PWD", "CREDENTIAL", "CREDENTIALS",
                "AUTH", "PAT"}
SECRET_ENDINGS = ("KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD")
PLACE_PARTS = {"DIR", "FILE", "PATH", "SOCK", "SOCKET", "HOME"}
SHELL_NAMES = {"PWD", "OLDPWD"}  # the shell's folders, not secrets
# A password inside a URL, as in DATABASE_URL=postgres://user:password@host/db (RFC 3986 section 3.2.1 userinfo).
URL_PASSWORD = re.compile(r"://[^/\s:@]*:([^/\s@]+)@")
MIN_SECRET = 8  # characters; a shorter value ("1", "true", "dev") would match ordinary text
REDACTED = re.compile(r"\[value of \$([A-Za-z_][A-Za-z0-9_]*) removed\]")
SHAPE_REDACTED = re.compile(r"\[removed: (.+?) in the output\]")
# Secret-looking content (key shapes), with where each shape comes from. Lengths are real keys' lengths, so that
# the kit's invented keys (security.py SIMULATED_SECRET "sk-sim-NOT-A-REAL-KEY-000000000", 28
# characters after "sk-"; "sk-short" and others in kit/tests and kit/data) do not match.
KEY_SHAPES = [
    # RFC 7468 (2015) section 2 "-----BEGIN label-----", labels "PRIVATE KEY" and "ENCRYPTED PRIVATE KEY";
    # also OpenSSL's legacy "RSA/EC/DSA PRIVATE KEY", OpenSSH's and OpenPGP's (RFC 4880 "PGP PRIVATE KEY
    # BLOCK"), as in gitleaks' rule private-key (github.com/gitleaks/gitleaks config/gitleaks.toml).
    ("a private key", re.compile(r"-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----")),
    # AWS IAM User Guide, "IAM identifiers", unique ID prefixes: AKIA an access key, ASIA a temporary
    # one; 16 characters of base32 after it (gitleaks rule aws-access-token).
    ("an AWS access key id", re.compile(r"\b(?:AKIA|ASIA)[A-Z2-7]{16}\b")),
    # GitHub blog, "Behind GitHub's new authentication token formats", 2021-04-05
    # (github.blog/engineering/behind-githubs-new-authentication-token-formats): ghp_ gho_ ghu_ ghs_ ghr_
    # and 36 characters; fine-grained tokens (GitHub changelog 2022-10-18) github_pat_ and 82 (gitleaks).
    ("a GitHub token shape", re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{36}|github_pat_[A-Za-z0-9_]{82})\b")),
    # Slack, "Token types" (api.slack.com/authentication/token-types): xoxb- bot, xoxp- user, xoxa-/xoxr-
    # app and refresh, xoxs- session; each goes on with a numeric team or user id (gitleaks slack-* rules).
    ("a Slack token shape", re.compile(r"\bxox[abprs]-(?:[0-9]+-){1,4}[A-Za-z0-9]{8,}")),
    # Stripe docs, "API keys" (docs.stripe.com/keys): live secret keys sk_live_, restricted rk_live_.
    ("a Stripe live key shape", re.compile(r"\b[sr]k_live_[A-Za-z0-9]{20,}")),
    # Google Cloud API keys: AIza and 35 characters (gitleaks rule gcp-api-key).
    ("a Google API key shape", re.compile(r"\bAIza[A-Za-z0-9_-]{35}(?![A-Za-z0-9_-])")),
    # OpenAI (sk- and 48 legacy, sk-proj-/sk-svcacct-/sk-admin- and about 160) and Anthropic (sk-ant-api03-
    # and 95, gitleaks rule anthropic-api-key) keys: sk- then 32 or more key characters.
    ("an API key shape (sk-...)", re.compile(r"(?<![A-Za-z0-9_-])sk-[A-Za-z0-9_-]{32,}")),
]
# Login and host names that are also ordinary words: found only where the block reads them.
GENERIC_NAMES = {"root", "user", "admin", "runner", "ubuntu", "debian", "build", "builder", "ci", "app", "dev",
                 "vagrant", "docker", "node", "localhost", "host", "vm", "server", "home", "main", "test"}
# A Python installed by the system (Debian's /usr, a source build's /usr/local) sits where the Filesystem
# Hierarchy Standard puts it on every such machine: `#!/usr/bin/env python3` is no machine value.
SYSTEM_PREFIXES = {"/usr", "/usr/local"}
# What in a block's code reads each kind of value (bash and Python spellings).
SOURCES = {
    "cpu": re.compile(r"cpu_count|nproc|NPROCESSORS|cpuinfo|sched_getaffinity|NUMBER_OF_PROCESSORS|lscpu|hw\.ncpu|"
                      r"-n\s*(?:auto|logical)\b|--numprocesses"),  # pytest-xdist's -n auto prints its workers
    "login": re.compile(r"whoami|\bid\s+-[a-zA-Z]*[un]|\bid\s*(?:$|[|;)`])|logname|getuser|getlogin|getpw|"
                        r"\$\{?(?:USER|LOGNAME)\b|USERNAME|\bHOME\b|home\(|expanduser|(?<![\w~])~(?=/|\s|$|[\"'])|"
                        r"%U|\bls\s+-\w*[lgno]|\.owner\(|st_uid|\bstat\b", re.MULTILINE),  # ~ as bash expands it
    "host": re.compile(r"hostname|uname|gethostname|getfqdn|platform\.node|HOSTNAME|/etc/host"),
    "folder": re.compile(r"\bpwd\b|\bPWD\b|getcwd|\bcwd\b|basename|realpath|readlink|resolve\(\)\.|absolute\(\)\.|"
                         r"__file__|abspath|VIRTUAL_ENV|sys\.(?:base_|exec_)?prefix|sys\.executable|show-toplevel|"
                         r"\bdirname\b|\$0\b|\$\{?BASH_SOURCE"),
}
# The site's own words: a value that the kit or the pages themselves hold ("maria", "agent") is no evidence
# of a leak, so it counts only where the block's code reads it, as an ordinary word does.
WORD = re.compile(r"[A-Za-z0-9_][\w.-]*")
TEXT_SUFFIXES = {".py", ".md", ".json", ".jsonl", ".txt", ".toml", ".yml", ".yaml", ".csv"}


@dataclass(frozen=True)
class Fact:
    """One value of this machine: what it is, the value, and whether it is found only where code reads it."""

    what: str  # how a message names it, e.g. "the login name"
    value: str
    source: str = ""  # a key of SOURCES: found only when the block's code matches it ("": found anywhere)


def _boundary(value: str, folder: bool = False) -> re.Pattern:
    """value as a whole word or path: not inside a longer name (/x/root, /rootfs, rooted), whatever follows.

    folder: a folder's bare name, which is also not a part of a path (kit/evidencedesk is the package, not a
    checkout named evidencedesk: the checkout's own path is made relative before this check).
    """
    if folder:
        return re.compile(r"(?<![\w./-])" + re.escape(value) + r"(?![\w/-])")
    return re.compile(r"(?<![\w.-])" + re.escape(value) + r"(?![A-Za-z0-9_])")


def machine_facts(root: Path | None = None) -> list[Fact]:
    """This machine's values that an output must not hold, read now.

    Args:
        root: the site root (None: no checkout folder name).

    Returns:
        One Fact per value: login name, host name (and its first label), CPU count, and the root folder's
        name (the home folder is a path, found with the others in machine_values). The CPU count, the
        folder's name, and a name in GENERIC_NAMES, shorter than 4 characters, all digits or a word of the
        site's own text (site_words), are found only where the block's code reads them (Fact.source).

    Example: any(f.what == "the CPU count" for f in machine_facts())
    """
    facts: list[Fact] = []

    words = site_words(root) if root is not None else frozenset()

    def named(what: str, value: str | None, source: str) -> None:
        if value:
            generic = value.lower() in GENERIC_NAMES or len(value) < 4 or value.isdigit() or value in words
            facts.append(Fact(what, value, source if generic else ""))

    with contextlib.suppress(KeyError):  # a uid with no passwd entry (some containers) has no login name
        named("the login name", pwd.getpwuid(os.getuid()).pw_name, "login")
    host = socket.gethostname()
    named("the host name", host, "host")
    if "." in host:
        named("the host name", host.split(".", 1)[0], "host")
    facts.append(Fact("the CPU count", str(os.cpu_count() or 1), "cpu"))
    if hasattr(os, "sched_getaffinity"):
        facts.append(Fact("the CPU count", str(len(os.sched_getaffinity(0))), "cpu"))
    if root is not None:  # a folder's name, even one named like a word of the site ("main"), is this machine's
        for name in {root.name, root.resolve().name}:  # found only where the code reads the folder (SOURCES)
            facts.append(Fact("the checkout's folder name", name, "folder"))
    return facts


@functools.lru_cache(maxsize=8)
def site_words(root: Path) -> frozenset[str]:
    """Every word of the site's own text files under kit/ and docs/ (read once per root and process).

    Example: "maria" in site_words(ROOT)  # a person of the kit's invented data
    """
    words: set[str] = set()
    for top in (root / "kit", root / "docs"):
        for path in top.rglob("*") if top.is_dir() else []:
            if path.suffix in TEXT_SUFFIXES and path.is_file():
                with contextlib.suppress(OSError, UnicodeDecodeError):
                    words.update(WORD.findall(path.read_text(encoding="utf-8")))
    return frozenset(words)


def machine_values(output: str, root: Path | None = None, code: str = "") -> list[str]:
    """The build-machine values left in an output, each named, sorted; [] when there is none.

    Args:
        output: an output after capture.relative() (the repo root already made relative).
        root: the site root: what is left of its path (a sibling such as <root>-backup), its parent and its
            folder's name count as this machine's values.
        code: the code that printed the output (for python blocks, the page's python code so far), which
            decides whether a value that is also an ordinary word or number was read from the machine.

    Returns:
        Descriptions such as "0x7f3a2b1c9d40", "/tmp/... (the temporary folder)", "the login name 'alice'",
        "the CPU count 2".

    Example: machine_values("<object at 0x7f3a2b1c9d40>") == ["0x7f3a2b1c9d40"]
    """
    found = {m.group(0) for m in MEMORY_ADDRESS.finditer(output)}
    places = {prefix: "the Python installation" for prefix in {sys.prefix, sys.base_prefix}
              if prefix not in SYSTEM_PREFIXES}
    places |= {tempfile.gettempdir(): "the temporary folder", str(Path.home()): "the home folder"}
    if root is not None:
        places |= {str(root.resolve().parent): "the checkout's parent folder", str(root.parent): "the checkout's "
                   "parent folder"}
        found |= {str(root) + "..." for base in {str(root), str(root.resolve())} if len(base) > 1 and base in output}
    for path, what in places.items():
        if len(path) > 1:
            if path + os.sep in output:
                found.add(f"{path}{os.sep}... ({what})")
            elif _boundary(path).search(output):
                found.add(f"{path} ({what})")
    for fact in machine_facts(root):
        if fact.source and not SOURCES[fact.source].search(code):
            continue
        if _boundary(fact.value, fact.source == "folder").search(output):
            shown = fact.value if fact.value.isdigit() else repr(fact.value)
            found.add(f"{fact.what} {shown}")
    return sorted(found)


def secret_name(name: str) -> bool:
    """Whether an environment variable's name says it holds a secret (SECRET_PARTS, SECRET_ENDINGS, PLACE_PARTS).

    Example: [secret_name(n) for n in ("GH_PAT", "PGPASSWORD", "GIT_AUTHOR_NAME", "SSH_AUTH_SOCK")]
    == [True, True, False, False]
    """
    parts = [part for part in name.upper().split("_") if part]
    if not parts or name.upper() in SHELL_NAMES or parts[-1] in PLACE_PARTS:
        return False
    return any(part in SECRET_PARTS or part.endswith(SECRET_ENDINGS) for part in parts)


def secret_values(environ: dict[str, str] | None = None) -> list[tuple[str, str]]:
    """(name, value) of the builder's environment variables that hold a secret, longest value first.

    Args:
        environ: the environment to read (default: this process's).

    Returns:
        Variables whose name says they hold a secret (secret_name: a part KEY, TOKEN, SECRET, PASS, PWD,
        CREDENTIAL, AUTH or PAT, or one ending in KEY, TOKEN, SECRET or PASSWORD; not a place such as
        PASSWORD_STORE_DIR, nor the shell's PWD), and the password inside any variable's URL (URL_PASSWORD),
        each at least MIN_SECRET characters long.

    Example: secret_values({"OPENAI_API_KEY": "sk-0123456789"}) == [("OPENAI_API_KEY", "sk-0123456789")]
    """
    environ = os.environ if environ is None else environ
    found = [(n, v) for n, v in environ.items() if secret_name(n) and len(v.strip()) >= MIN_SECRET]
    found += [(n, m.group(1)) for n, v in environ.items() for m in URL_PASSWORD.finditer(v)
              if len(m.group(1)) >= MIN_SECRET]
    return sorted(set(found), key=lambda item: (-len(item[1]), item[0]))


def redact(text: str, environ: dict[str, str] | None = None) -> str:
    """text with every secret value of the builder (secret_values) replaced by "[value of $NAME removed]",
    and every key-shaped value (KEY_SHAPES: a secret read from a file, say) by "[removed: KIND in the output]".

    Example: redact("key sk-0123456789", {"API_KEY": "sk-0123456789"}) == "key [value of $API_KEY removed]"
    """
    for name, value in secret_values(environ):
        text = text.replace(value, f"[value of ${name} removed]")
    for kind, shape in KEY_SHAPES:
        text = shape.sub(f"[removed: {kind} in the output]", text)
    return text


def secrets_in(output: str) -> list[str]:
    """What redact() removed from an output, sorted: "$NAME" for a variable's value, the kind for a key shape.

    Example: secrets_in("[value of $API_KEY removed] [removed: a private key in the output]")
    == ["$API_KEY", "a private key"]
    """
    return sorted({f"${name}" for name in REDACTED.findall(output)} | set(SHAPE_REDACTED.findall(output)))
