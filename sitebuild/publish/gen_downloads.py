"""The kit on the site as one download, downloads/evidencedesk-kit.zip (added by the plugin: mkdocs_adapter/hook.py).

The archive unpacks into `evidencedesk-kit/`, a small project of its own:
- README.md: how to install the kit and run its tests and a page's examples, and what each module
  teaches, with links to the pages that teach it (built from the nav and the pages, see kit_readme);
- LICENSE: the repo's licence file;
- requirements.txt and requirements-notebooks.txt: the exact versions of requirements.lock for everything the
  kit, its tests and a notebook's kernel need (kit_pins.py), as the pages' outputs depend on them;
- pyproject.toml: the kit's own project (its package, its test extra, pytest's settings), made from
  the repo's pyproject.toml without the site's tools (see kit_pyproject);
- kit/: the package, its data and its tests: exactly the files git tracks under kit/, and nothing
  that merely lies there (see kit_files.py, which also fails the build on anything that looks like a secret).
A learner unpacks it, runs `python3 -m venv .venv`, `.venv/bin/python -m pip install -r requirements.txt -e ".[test]"`
and `.venv/bin/python -m pytest kit/tests` (README.md's steps, which work on a stock Debian or Ubuntu). The archive
is the same on every machine: files in sorted order, one fixed timestamp and fixed permissions.

Left out: a wheel or sdist of the kit. The kit reads its data from kit/data next to the package,
so it is installed editable, from the unpacked folder.
"""

from __future__ import annotations

import ast
import io
import json
import posixpath
import re
import tomllib
import zipfile
from pathlib import Path

from sitebuild.course.coursenav import CoursePage, course_pages, page_url
from sitebuild.publish.kit_files import check_secrets, report, select_kit_files
from sitebuild.publish.kit_pins import kit_requirements

ROOT = Path(__file__).resolve().parents[2]
DOWNLOAD = "downloads/evidencedesk-kit.zip"  # its place in the site
FIXED_TIME = (2026, 1, 1, 0, 0, 0)  # zip stores no time zone; a constant keeps the archive reproducible
FOLDER = "evidencedesk-kit"
README_TEMPLATE = Path(__file__).with_name("kit_readme.md")
MODULES_MARK = "<!-- modules -->"
BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


def kit_files(root: Path) -> list[Path]:
    """The kit's own files a learner downloads, relative to root, sorted: the files git tracks under kit/
    (kit_files.select_kit_files, which also says what it leaves out and why; this logs nothing).

    Raises:
        PluginError: a tracked file is a link to something outside kit/.

    Example: Path("kit/evidencedesk/llm.py") in kit_files(ROOT)
    """
    return select_kit_files(root).files


def module_summary(path: Path) -> str:
    """The first paragraph of a module's docstring, on one line ("" without a docstring).

    Example: module_summary(ROOT / "kit/evidencedesk/llm.py").startswith("Provider-neutral")
    """
    docstring = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    return " ".join(docstring.split("\n\n")[0].split())


def tests_of(module: str) -> str:
    """The test file of a kit module, by the kit's convention: agent/state.py -> kit/tests/test_agent_state.py."""
    return f"kit/tests/test_{module.removesuffix('.py').replace('/', '_')}.py"


def teaching_pages(module: str, pages: list[CoursePage], sources: dict[str, str]) -> list[CoursePage]:
    """The course pages that teach a module: those whose Markdown prints, imports or runs it, or runs its tests.

    Args:
        module: the module's path under kit/evidencedesk/, e.g. "agent/state.py".
        pages: the course pages in nav order; sources: each page's Markdown by src_uri.

    Returns:
        The pages, in nav order, whose source names kit/evidencedesk/<module> or its test file, or
        the module's dotted name as a whole name (evidencedesk.agent.state, not a longer name that
        starts with it); a package's __main__.py by `-m` and its package's dotted name.

    Example: teaching_pages("capstone/__main__.py", ...) finds the page that runs
        `python -m evidencedesk.capstone`.
    """
    names = (f"kit/evidencedesk/{module}", tests_of(module))
    parts = ["evidencedesk", *Path(module).with_suffix("").parts]
    if parts[-1] == "__main__":
        dotted = re.compile(r"-m\s+" + re.escape(".".join(parts[:-1])) + r"(?![\w.])")
    else:
        dotted = re.compile(r"(?<![\w.])" + re.escape(".".join(parts)) + r"(?![\w])")
    return [p for p in pages
            if any(name in sources.get(p.src_uri, "") for name in names) or dotted.search(sources.get(p.src_uri, ""))]


def kit_readme(root: Path, pages: list[CoursePage], sources: dict[str, str], site_url: str,
               files: list[Path] | None = None) -> str:
    """The kit's README.md: README_TEMPLATE with the table of modules in place of its mark.

    Args:
        root: the repo root (kit/ is under it).
        files: the kit's files that go into the download (None: kit_files(root)); only their modules
            get a row, so an untracked module is not described in the README.
        pages: the course pages, in nav order (coursenav.course_pages).
        sources: each course page's Markdown, by src_uri.
        site_url: the site's address (mkdocs.yml site_url); "" when it has none, and then each
            page is named with its path on the site.

    Returns:
        The README text. One table row per module of kit/evidencedesk (packages' __init__ left
        out): its file, what it does (its docstring's first paragraph), its test file, and the
        pages that teach it ("not on the site yet" when none does yet).
    """
    rows = ["| Module | What it does | Tests | Taught on |", "|---|---|---|---|"]
    package = root / "kit" / "evidencedesk"
    packed = kit_files(root) if files is None else files
    for path in sorted(root / p for p in packed if p.suffix == ".py" and p.is_relative_to("kit/evidencedesk")):
        if path.name == "__init__.py":
            continue
        module = path.relative_to(package).as_posix()
        links = []
        for page in teaching_pages(module, pages, sources):
            url = page_url(page.src_uri)
            links.append(f"[{page.title}]({site_url.rstrip('/')}/{url})" if site_url else f"*{page.title}* (`{url}`)")
        tests = tests_of(module)
        tests_cell = f"`{tests}`" if Path(tests) in packed else "none"
        summary = module_summary(path).replace("|", "\\|")
        taught_on = ", ".join(links) or "not on the site yet"
        rows.append(f"| `kit/evidencedesk/{module}` | {summary} | {tests_cell} | {taught_on} |")
    template = README_TEMPLATE.read_text(encoding="utf-8")
    if MODULES_MARK not in template:
        raise ValueError(f"{README_TEMPLATE.name} has no {MODULES_MARK} line for the table of modules")
    where = (
        f"The pages are on the course site, {site_url}."
        if site_url
        else "After each page's title comes its path on the course site, the site you downloaded this kit from."
    )
    return template.replace(MODULES_MARK, where + "\n\n" + "\n".join(rows))


def _toml_key(key: str) -> str:
    return key if BARE_KEY.match(key) else json.dumps(key)


def _toml_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str | int | float):
        return json.dumps(value)  # a JSON string is a TOML basic string
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(item) for item in value) + "]"
    raise TypeError(f"cannot write {value!r} as a TOML value")


def toml_text(tables: dict[str, dict]) -> str:
    """TOML for {table name: {key: value}}, nested dicts written as sub-tables ([a.b]).

    Example: toml_text({"project": {"name": "x", "license": {"text": "MIT"}}}) ==
        '[project]\\nname = "x"\\n\\n[project.license]\\ntext = "MIT"\\n'
    """
    chunks = []

    def table(name: str, body: dict) -> None:
        lines = [f"{_toml_key(k)} = {_toml_value(v)}" for k, v in body.items() if not isinstance(v, dict)]
        if lines or not body:  # a table holding only tables needs no header of its own
            chunks.append("\n".join([f"[{name}]", *lines]))
        for k, v in body.items():
            if isinstance(v, dict):
                table(f"{name}.{_toml_key(k)}", v)

    for name, body in tables.items():
        table(name, body)
    return "\n\n".join(chunks) + "\n"


def kit_pyproject(repo_pyproject: str) -> str:
    """The kit's pyproject.toml, made from the repo's: the same package, version and dependencies,
    the test extra, the README, and pytest's settings for kit/tests; no site tools, no dependency groups, no
    MkDocs plugin and no sitebuild package (the site's machinery).

    Args:
        repo_pyproject: the text of the repo's pyproject.toml.

    Returns:
        The kit's pyproject.toml text.

    Raises:
        KeyError: the repo's pyproject.toml lacks [build-system], [project] or [tool.setuptools].
    """
    repo = tomllib.loads(repo_pyproject)
    pytest_options = dict(repo.get("tool", {}).get("pytest", {}).get("ini_options", {}))
    pytest_options.pop("markers", None)  # the site's own markers
    pytest_options["testpaths"] = ["kit/tests"]  # the site's own tests are not in the download
    header = (
        "# The EvidenceDesk teaching kit: the package evidencedesk (kit/evidencedesk), its synthetic data\n"
        "# (kit/data, read in place, so install it editable, as README.md says) and its tests (kit/tests).\n"
        "# requirements.txt pins the exact versions the course's outputs were made with.\n\n"
    )
    project = {k: v for k, v in repo["project"].items() if k != "entry-points"}  # the site's MkDocs plugin
    setuptools = dict(repo["tool"]["setuptools"])
    if isinstance(setuptools.get("package-dir"), dict):
        setuptools["package-dir"] = {k: v for k, v in setuptools["package-dir"].items() if k != "sitebuild"}
    if isinstance(setuptools.get("packages"), dict):  # find: the kit's package only, not sitebuild/
        find = dict(setuptools["packages"].get("find", {}))
        if find:
            find["where"] = [w for w in find.get("where", []) if w != "."]
            find["include"] = [i for i in find.get("include", []) if not i.startswith("sitebuild")]
            setuptools["packages"] = {**setuptools["packages"], "find": find}
    return header + toml_text(
        {
            "build-system": repo["build-system"],
            "project": {**project, "readme": "README.md"},
            "tool.setuptools": setuptools,
            "tool.pytest.ini_options": pytest_options,
        }
    )


def kit_archive(root: Path, extra: dict[str, bytes] | None = None, files: list[Path] | None = None) -> bytes:
    """The kit as zip bytes, identical for identical files.

    Args:
        root: the repo root; the files git tracks under its kit/ go into the archive.
        extra: more files by their path in the kit's folder, e.g. {"README.md": b"..."}.
        files: the kit files to pack, relative to root (None: select them here and log what is left out,
            kit_files.report).

    Returns:
        The archive: every file under evidencedesk-kit/, in sorted order.

    Raises:
        PluginError: a file to be packed, an extra one included, looks like a secret (kit_files.check_secrets),
            or a tracked file is a link to something outside kit/.

    Example: kit_archive(ROOT)[:2] == b"PK"
    """
    if files is None:
        selection = select_kit_files(root)
        report(selection)
        files = selection.files
    contents = {path.as_posix(): (root / path).read_bytes() for path in files}
    contents.update(extra or {})
    check_secrets(contents)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name in sorted(contents):
            info = zipfile.ZipInfo(posixpath.join(FOLDER, name), FIXED_TIME)
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, contents[name])
    return buffer.getvalue()


def kit_download(root: Path, nav: list | None, docs_dir: Path, site_url: str) -> bytes:
    """The download, downloads/evidencedesk-kit.zip: the kit with its README, LICENSE, pyproject.toml and
    pinned requirements (kit_pins.kit_requirements, from root/requirements.lock).

    Args:
        root: the repo root; nav: the nav of mkdocs.yml; docs_dir: the pages' folder;
        site_url: the site's address, "" when mkdocs.yml sets none.

    Returns:
        The zip archive's bytes (kit_archive).

    Raises:
        PluginError: see kit_archive (a secret-looking file, a link out of kit/).
        kit_pins.PinError: the lock lacks a version of something the kit needs, or .venv is not the lock's.
    """
    selection = select_kit_files(root)
    report(selection)
    pages = course_pages(nav)
    sources = {
        p.src_uri: (docs_dir / p.src_uri).read_text(encoding="utf-8") for p in pages if (docs_dir / p.src_uri).is_file()
    }
    project = kit_pyproject((root / "pyproject.toml").read_text(encoding="utf-8"))
    pins = kit_requirements(tomllib.loads(project), (root / "requirements.lock").read_text(encoding="utf-8"))
    extra = {
        "README.md": kit_readme(root, pages, sources, site_url, selection.files).encode(),
        "LICENSE": (root / "LICENSE").read_bytes(),
        "pyproject.toml": project.encode(),
        **{name: text.encode() for name, text in pins.items()},
    }
    return kit_archive(root, extra, selection.files)
