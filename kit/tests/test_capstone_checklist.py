"""The release checklist: an item per page present, each backed by a check that exists, ticked only when it held."""

import ast

from evidencedesk.capstone.checklist import ITEMS, TABLE, Item, items, link, markdown, verify
from evidencedesk.capstone.course import PAGES
from evidencedesk.capstone.properties import TESTS_DIR
from evidencedesk.capstone.tables import PACKAGE_DIR, Played, Table, tables


def test_every_test_check_names_a_test_function_of_its_file():
    for item in ITEMS:
        if not item.check.startswith(TABLE):
            file, name = item.check.split("::")
            tree = ast.parse((TESTS_DIR / file).read_text(encoding="utf-8"))
            assert name in {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}, item.check


def test_every_table_check_names_a_table_of_the_kit():
    labels = {t.label for t in tables()}
    assert {i.check.removeprefix(TABLE) for i in items() if i.check.startswith(TABLE)} <= labels


def test_every_page_in_the_kit_has_an_item_in_course_order():
    listed = [i.page for i in items()]
    present = [p for p in PAGES if not p.package or (PACKAGE_DIR / p.package / "__init__.py").is_file()]
    assert list(dict.fromkeys(listed)) == present


def test_a_page_without_code_in_the_kit_is_left_out_and_one_without_a_written_item_gets_its_tables(tmp_path):
    (tmp_path / "threats").mkdir()
    (tmp_path / "threats" / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "threats" / "scenarios.py").write_text("def load_rows(): ...\ndef check_row(r): ...\n",
                                                       encoding="utf-8")
    found = items(tmp_path)
    assert {i.page.package for i in found} == {"", "threats"}
    assert [(i.what, i.check) for i in found if i.page.package] == [("every row of its table holds",
                                                                     "table:threats.scenarios")]


def test_links_are_relative_to_a_page_of_docs_advanced():
    assert link(PAGES[0]) == "../beginner/provider-neutral-llm-clients.md"
    assert link(PAGES[-1]) == "capstone-shipping-evidencedesk.md"


def test_an_item_is_ticked_only_when_its_check_held():
    attacks = next(t for t in tables() if t.label == "attacks")
    item = Item(what="w", page=attacks.page, check="table:attacks")
    test = Item(what="t", page=PAGES[0], check="test_budget.py::test_the_step_limit_counts_calls")
    gone = Item(what="g", page=PAGES[0], check="test_budget.py::test_no_such_test")
    status = verify([item, test, gone], [Played(table=Table(module=attacks.module, page=attacks.page),
                                               rows=3, held=2)])
    assert status == {"table:attacks": "2/3 rows", test.check: "passed", gone.check: "missing"}
    lines = markdown([item, test, gone], status)
    assert [line[:5] for line in lines] == ["- [ ]", "- [x]", "- [ ]"]
    assert markdown([item], {"table:attacks": "0/0 rows"})[0].startswith("- [ ]")
