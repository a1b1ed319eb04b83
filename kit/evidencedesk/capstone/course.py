"""The course as the capstone reads it: every page, in course order, with the kit code it adds.

PAGES lists the Beginner course's eight pages and the Advanced course's twenty-two, each with its
title, its file under docs/ and what it adds to the kit: Beginner modules (evidencedesk/<module>.py),
or an Advanced subpackage (evidencedesk/<package>/), with, where one subpackage holds two pages (the
agent's), the modules of each. This is the one place the capstone keeps course order: the table
runner (tables.py) and the release checklist (checklist.py) read it, and a page whose subpackage is
not in the kit yet is simply skipped. The kit's tests hold it against kit/tests/test_course_order.py
and the site's build holds its titles against the site's navigation. Left out: reading times and
chapters, which the site works out from its navigation.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class Page(BaseModel):
    """One course page: title (as in the navigation), path (under docs/), package (the Advanced subpackage
    it adds, "" for a Beginner page) and modules (the modules it adds: a Beginner page's, or one page's share
    of a subpackage that holds two; () means the whole subpackage).

    Example: Page(title="Multi-Tenant Isolation", path="advanced/multi-tenant-isolation.md", package="tenancy")
    """

    model_config = ConfigDict(frozen=True, extra="forbid")
    title: str = Field(min_length=1)
    path: str = Field(pattern=r"^(beginner|advanced)/[a-z0-9-]+\.md$")
    package: str = Field(default="", pattern=r"^[a-z]*$")
    modules: tuple[str, ...] = ()
    tests: tuple[str, ...] = ()  # kit/tests files of the page not named after a module: "invariants"

    def owns(self, package: str, module: str) -> bool:
        """True when this page added module (str) of package (str, "" for a top-level module).

        Example: PAGES[7].owns("", "attacks") -> True
        """
        return self.package == package and (not self.modules or module in self.modules)


def _b(title: str, slug: str, *modules: str) -> Page:
    return Page(title=title, path=f"beginner/{slug}.md", modules=modules)


def _a(title: str, slug: str, package: str, *modules: str) -> Page:
    return Page(title=title, path=f"advanced/{slug}.md", package=package, modules=modules)


PAGES: tuple[Page, ...] = (
    _b("Provider-Neutral LLM Clients", "provider-neutral-llm-clients", "llm", "providers"),
    _b("Cost and Latency Fundamentals", "cost-and-latency", "usage"),
    _b("Budgets, Caching, and Usage Limits", "budgets-caching-usage-limits", "budget", "cache", "limits", "retry"),
    _b("Tool Contracts and Execution", "tool-contracts-execution", "tools", "helpdesk"),
    _b("Tool Permissions and Failure Handling", "tool-permissions-failure-handling", "gate"),
    _b("Context Assembly and Trust Boundaries", "context-assembly-trust-boundaries", "context"),
    _b("Prompt Injection and Access Boundaries", "prompt-injection-access-boundaries", "security"),
    _b("Safe Failure and Security Regression Tests", "safe-failure-security-regression-tests",
       "failsafe", "attacks", "strictjson").model_copy(update={"tests": ("invariants",)}),
    _a("Native Tool Calling and Structured Outputs", "native-tool-calling-structured-outputs", "calling"),
    _a("Streaming, Deadlines, and Provider Resilience", "streaming-deadlines-provider-resilience", "resilience"),
    _a("Retrieval with Access Control", "retrieval-access-control", "retrieval"),
    _a("Prompt Caching and Context Compaction", "prompt-caching-context-compaction", "compaction"),
    _a("Agent Loops, State, and Memory", "agent-loops-state-memory", "agent",
       "state", "loop", "memory", "fakes", "scenarios", "attacks"),
    _a("Human Approval and Multi-Agent Boundaries", "human-approval-multi-agent-boundaries", "agent",
       "approval", "checkpoint", "interrupt", "delegation", "boundaries", "cli", "identity", "locks", "sendlog",
       "decisionlog", "proposals", "poisoning"),
    _a("Plan-then-Execute Agents", "plan-then-execute-agents", "planning"),
    _a("Eval Sets and Deterministic Graders", "eval-sets-deterministic-graders", "evals"),
    _a("LLM-as-Judge and Its Biases", "llm-as-judge-biases", "judging"),
    _a("Trajectory Evals and Regression Gates", "trajectory-evals-regression-gates", "trajectories"),
    _a("Improper Output Handling", "improper-output-handling", "sinks"),
    _a("Sensitive Data and System Prompt Leakage", "sensitive-data-system-prompt-leakage", "privacy"),
    _a("Red Teaming and Guardrail Classifiers", "red-teaming-guardrail-classifiers", "redteam"),
    _a("Tool Supply Chain and MCP Servers", "tool-supply-chain-mcp-servers", "supplychain"),
    _a("Multi-Tenant Isolation", "multi-tenant-isolation", "tenancy"),
    _a("Tracing and Cost Attribution", "tracing-cost-attribution", "tracing"),
    _a("Routing, Cascades, and Fallbacks", "routing-cascades-fallbacks", "routing"),
    _a("Quotas and Fairness at Scale", "quotas-fairness-at-scale", "quotas"),
    _a("Releasing Prompt and Model Changes", "releasing-prompt-model-changes", "releases"),
    _a("Exactly-Once Side Effects", "exactly-once-side-effects", "outbox"),
    _a("Threat Modelling an Agent", "threat-modelling-an-agent", "threats"),
    _a("Capstone: Shipping EvidenceDesk", "capstone-shipping-evidencedesk", "capstone"),
)
ADVANCED_PACKAGES = tuple(dict.fromkeys(p.package for p in PAGES if p.package))  # course order, each once
BEGINNER_MODULES = tuple(m for p in PAGES if not p.package for m in p.modules)


class CourseError(ValueError):
    """The kit holds code that no page of PAGES adds; the message names it and what to do."""


def page_of(package: str, module: str) -> Page:
    """The page that added module (str) of package (str; "" for a Beginner module).

    Raises CourseError naming the module when no page of PAGES added it.
    Example: page_of("agent", "poisoning").title -> "Human Approval and Multi-Agent Boundaries"
    """
    for page in PAGES:
        if page.owns(package, module):
            return page
    where = f"evidencedesk.{package}.{module}" if package else f"evidencedesk.{module}"
    raise CourseError(f"{where} belongs to no page of capstone.course.PAGES: add it to its page")


def page_of_test(name: str) -> Page | None:
    """The page whose test file name (str, "test_tenancy_platform.py") is: test_<package>_<module> for an
    Advanced module, test_<module> for a Beginner one, or a test a page lists in Page.tests; None for a
    helper file that belongs to no page.

    Example: page_of_test("test_invariants.py").title -> "Safe Failure and Security Regression Tests"
    """
    stem = name.removeprefix("test_").removesuffix(".py")
    for page in PAGES:
        if stem in page.tests:
            return page
        module = stem.removeprefix(page.package + "_")
        if page.package and stem.startswith(page.package + "_") and page.owns(page.package, module):
            return page
        if not page.package and stem in page.modules:
            return page
    return None
