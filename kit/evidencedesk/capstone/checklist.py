"""A release checklist: one item per course page, each linked to its page and backed by a check.

An item says what must be true before EvidenceDesk ships, names the page that teaches it and the check
that shows it: a table (the line the one command prints for that module) or a test of kit/tests (a
pytest node id, "test_budget.py::test_the_cost_limit_refuses_before_the_spend_and_is_never_crossed").
ITEMS holds the items written for each page; items() adds, for a page of course.PAGES with none written,
one item per table of its subpackage, so a page's table joins the checklist when its code joins the kit.
Only pages whose code is in the kit are listed. verify() runs the test checks with pytest and takes the
table checks from the one command's tables, and markdown() prints the list with relative links from a
page of docs/advanced/. Left out: checks outside the kit (an on-call rota, a signed release, a rollback
plan), which a real checklist also holds.
"""

from __future__ import annotations

import ast
from pathlib import Path, PurePosixPath

from pydantic import BaseModel, ConfigDict, Field

from evidencedesk.capstone.course import PAGES, Page
from evidencedesk.capstone.properties import TESTS_DIR, PropertyCollector
from evidencedesk.capstone.tables import PACKAGE_DIR, Played, Table, tables

TABLE = "table:"  # a check that names a table module: "table:tenancy.scenarios"


class Item(BaseModel):
    """One checklist item: what (str, the claim), page (its course page) and check ("table:<module label>" or a
    node id of a test file in kit/tests). Example: Item(what="...", page=PAGES[2], check="test_budget.py::test_x")
    """

    model_config = ConfigDict(frozen=True)
    what: str = Field(min_length=1)
    page: Page
    check: str = Field(pattern=r"^(table:[a-z_.]+|test_[a-z0-9_]+\.py::test_[a-z0-9_]+)$")


def _page(title: str) -> Page:
    return next(p for p in PAGES if p.title == title)


_WRITTEN: tuple[tuple[str, str, str], ...] = (  # (page title, what, check)
    ("Provider-Neutral LLM Clients", "calling code is the same whichever provider answers",
     "test_providers.py::test_calling_code_does_not_change_when_the_client_does"),
    ("Cost and Latency Fundamentals", "every call is priced in exact decimals from the price table",
     "test_usage.py::test_cost_is_tokens_times_price_in_exact_decimals"),
    ("Budgets, Caching, and Usage Limits", "a run's cost limit refuses before the spend, never after",
     "test_budget.py::test_the_cost_limit_refuses_before_the_spend_and_is_never_crossed"),
    ("Tool Contracts and Execution", "bad tool arguments get a code and the tool never runs",
     "test_tools.py::test_bad_arguments_get_a_code_and_the_function_never_runs"),
    ("Tool Permissions and Failure Handling", "a write is parked for a person and nothing is sent",
     "test_gate.py::test_a_write_with_the_grant_is_parked_and_nothing_is_sent"),
    ("Context Assembly and Trust Boundaries", "untrusted text cannot close its block",
     "test_context.py::test_untrusted_text_cannot_close_its_block"),
    ("Prompt Injection and Access Boundaries", "another user's ticket answers like a missing one",
     "test_gate.py::test_another_users_ticket_answers_like_a_missing_one_through_the_gate"),
    ("Safe Failure and Security Regression Tests", "every known attack gets its expected code",
     "table:attacks"),
    ("Native Tool Calling and Structured Outputs", "tool rounds and structured replies end as expected",
     "table:calling.scenarios"),
    ("Streaming, Deadlines, and Provider Resilience", "fallbacks stay within the deadline and budget",
     "table:resilience.scenarios"),
    ("Retrieval with Access Control", "retrieval filters by owner before it ranks",
     "table:retrieval.scenarios"),
    ("Prompt Caching and Context Compaction", "the cached prefix holds and compaction fits its budget",
     "table:compaction.scenarios"),
    ("Agent Loops, State, and Memory", "every run stops for a named reason, actions through the gate",
     "table:agent.scenarios"),
    ("Agent Loops, State, and Memory", "no injected reply gets an action past the checks",
     "table:agent.attacks"),
    ("Human Approval and Multi-Agent Boundaries", "a model-proposed note waits for a person",
     "table:agent.poisoning"),
    ("Plan-then-Execute Agents", "a plan is checked whole before its first step",
     "table:planning.scenarios"),
    ("Eval Sets and Deterministic Graders", "graders, intervals and paired comparisons agree",
     "table:evals.scenarios"),
    ("LLM-as-Judge and Its Biases", "the judge's biases and agreement are measured",
     "table:judging.scenarios"),
    ("Trajectory Evals and Regression Gates", "the regression gate decides by its stated rule",
     "table:trajectories.scenarios"),
    ("Improper Output Handling", "model output is escaped or parameterised at every sink",
     "table:sinks.scenarios"),
    ("Sensitive Data and System Prompt Leakage", "personal data is minimised and replies checked",
     "table:privacy.scenarios"),
    ("Red Teaming and Guardrail Classifiers", "mutated attacks meet the filter and the gate",
     "table:redteam.scenarios"),
    ("Tool Supply Chain and MCP Servers", "a tool that changed after pinning is refused",
     "table:supplychain.scenarios"),
    ("Multi-Tenant Isolation", "no tenant sees another's data or senses it",
     "table:tenancy.scenarios"),
    ("Capstone: Shipping EvidenceDesk", "the drill finds, contains and purges the poisoned ticket",
     "table:capstone.scenarios"),
)
ITEMS: tuple[Item, ...] = tuple(Item(what=what, page=_page(title), check=check) for title, what, check in _WRITTEN)


def items(root: Path = PACKAGE_DIR) -> list[Item]:
    """The checklist, in course order: ITEMS for the pages whose code is under root (the evidencedesk package
    folder, the kit's by default), and for a page with a table but no written item, one item per table.

    Example: items()[0].page.title -> "Provider-Neutral LLM Clients"
    """
    found = {t.label: t for t in tables(root)}
    out = []
    for page in PAGES:
        if page.package and not (root / page.package / "__init__.py").is_file():
            continue  # the page's subpackage is not in the kit yet
        written = [item for item in ITEMS if item.page == page]
        out += written or [Item(what="every row of its table holds", page=page, check=f"{TABLE}{t.label}")
                           for t in found.values() if t.page == page]
    return out


def verify(checklist: list[Item], played: list[Played]) -> dict[str, str]:
    """The status of each item's check, by check: "12/12 rows" for a table (from played, the one command's
    tables), "passed" or "failed" for a test (run here with pytest), "missing" for a table not played or a
    test that pytest did not find.

    Example: verify(items(), [play(t) for t in tables()])["table:attacks"] -> "32/32 rows"
    """
    import pytest  # the kit's test extras

    status = {}
    by_label = {p.table.label: p for p in played}
    for item in checklist:
        if item.check.startswith(TABLE):
            one = by_label.get(item.check.removeprefix(TABLE))
            status[item.check] = f"{one.held}/{one.rows} rows" if one else "missing"
    nodes = sorted(n for n in {item.check for item in checklist if not item.check.startswith(TABLE)} if _exists(n))
    collector = PropertyCollector(only_properties=False)
    if nodes:
        pytest.main([str(TESTS_DIR / n) for n in nodes] + ["-o", "addopts=", "-p", "no:terminal",
                                                              "-p", "no:cacheprovider"], plugins=[collector])
    for node in sorted({item.check for item in checklist if not item.check.startswith(TABLE)}):
        name = node.split("::")[1]
        runs = collector.by_test.get(name)
        status[node] = "missing" if runs is None else ("passed" if runs else "failed")
    return status


def _exists(node: str) -> bool:
    """True when node ("file::test_name") names a test function at the top level of a file of kit/tests
    (pytest would stop the whole run at a node it cannot find)."""
    file, _, name = node.partition("::")
    path = TESTS_DIR / file
    return path.is_file() and name in {n.name for n in ast.parse(path.read_text(encoding="utf-8")).body
                                       if isinstance(n, ast.FunctionDef)}


def link(page: Page, start: str = "advanced") -> str:
    """A relative link from a page in docs/<start>/ to page: "multi-tenant-isolation.md", "../beginner/...".

    Example: link(PAGES[0]) -> "../beginner/provider-neutral-llm-clients.md"
    """
    target = PurePosixPath(page.path)
    return target.name if str(target.parent) == start else f"../{target}"


def markdown(checklist: list[Item], status: dict[str, str]) -> list[str]:
    """The checklist as Markdown task-list lines: ticked when the check passed (a test) or every row held.

    Example: markdown(items(), verify(items(), played))[0].startswith("- [x] [Provider-Neutral")
    """
    lines = []
    for item in checklist:
        said = status.get(item.check, "missing")
        held, _, rows = said.removesuffix(" rows").partition("/")
        done = said == "passed" or (said.endswith(" rows") and held == rows != "0")
        check = item.check.removeprefix(TABLE)
        lines.append(f"- [{'x' if done else ' '}] [{item.page.title}]({link(item.page)}): {item.what}. "
                     f"`{check}`: {said}")
    return lines


__all__ = ["ITEMS", "Item", "Table", "items", "link", "markdown", "verify"]
