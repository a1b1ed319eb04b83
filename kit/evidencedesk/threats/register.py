"""The threat register: each threat of a flow, with its control, page, test and outside references.

kit/data/threats/threats.jsonl holds one threat per line: the flow it is on (an id of flows.all_flows),
its STRIDE category, what goes wrong, the control that stops it, the course page that teaches the
control, a kit test that enforces it (a pytest node id), and its entries in OWASP's Top 10 for LLM
Applications (2025 and 2026 editions), OWASP's Top 10 for Agentic Applications and the NCSC's
Guidelines for secure AI system development (frameworks.json: titles, dates, links, entry names).
residual.jsonl lists what no control of the course covers. problems() checks a register against the
flows, the pages before this one, the test files and the frameworks; unnamed_flows() lists the flows no
threat is filed under yet.
STRIDE is Microsoft's: spoofing, tampering, repudiation, information disclosure, denial of service,
elevation of privilege (https://learn.microsoft.com/en-us/azure/security/develop/threat-modeling-tool-threats,
read 2026-12-03). Left out: likelihood and impact scores; a register ranks nothing here.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from evidencedesk import DATA_DIR
from evidencedesk.threats.flows import Flow
from evidencedesk.tools import problems_of

THREATS_DATA = DATA_DIR / "threats"
KIT = Path(__file__).resolve().parents[2]  # kit/evidencedesk/threats/ -> kit/
THIS_PAGE = "advanced/threat-modelling-an-agent.md"
# The course's pages before this one, in nav order: a threat's page must be one of them.
COURSE_PAGES = (
    "beginner/provider-neutral-llm-clients.md", "beginner/cost-and-latency.md",
    "beginner/budgets-caching-usage-limits.md", "beginner/tool-contracts-execution.md",
    "beginner/tool-permissions-failure-handling.md", "beginner/context-assembly-trust-boundaries.md",
    "beginner/prompt-injection-access-boundaries.md", "beginner/safe-failure-security-regression-tests.md",
    "advanced/native-tool-calling-structured-outputs.md", "advanced/streaming-deadlines-provider-resilience.md",
    "advanced/retrieval-access-control.md", "advanced/prompt-caching-context-compaction.md",
    "advanced/agent-loops-state-memory.md", "advanced/human-approval-multi-agent-boundaries.md",
    "advanced/plan-then-execute-agents.md", "advanced/eval-sets-deterministic-graders.md",
    "advanced/llm-as-judge-biases.md", "advanced/trajectory-evals-regression-gates.md",
    "advanced/improper-output-handling.md", "advanced/sensitive-data-system-prompt-leakage.md",
    "advanced/red-teaming-guardrail-classifiers.md", "advanced/tool-supply-chain-mcp-servers.md",
    "advanced/multi-tenant-isolation.md", "advanced/tracing-cost-attribution.md",
    "advanced/routing-cascades-fallbacks.md", "advanced/quotas-fairness-at-scale.md",
    "advanced/releasing-prompt-model-changes.md", "advanced/exactly-once-side-effects.md",
)
STRIDE = {"S": "spoofing", "T": "tampering", "R": "repudiation", "I": "information disclosure",
          "D": "denial of service", "E": "elevation of privilege"}
FRAMEWORKS = ("llm2025", "llm2026", "asi", "ncsc")  # the keys of frameworks.json, and a Threat's fields
Text = Annotated[str, Field(min_length=1, max_length=200)]


class Threat(BaseModel):
    """One row of threats.jsonl. Strict: unknown fields refused, lists of entry ids per framework.

    Example: load_threats()[0].stride -> "E"
    """

    model_config = ConfigDict(frozen=True, strict=True, extra="forbid")
    id: Annotated[str, Field(pattern=r"^TH-[0-9]{2}$")]
    flow: Text
    stride: Literal["S", "T", "R", "I", "D", "E"]
    threat: Text
    control: Text
    page: Text
    test: Annotated[str, Field(pattern=r"^kit/tests/test_[a-z0-9_]+\.py::test_[a-z0-9_]+$")]
    llm2025: tuple[str, ...]
    llm2026: tuple[str, ...]
    asi: tuple[str, ...]
    ncsc: tuple[str, ...]


class Residual(BaseModel):
    """One row of residual.jsonl: a risk no control here covers, why not, and what a team would do."""

    model_config = ConfigDict(frozen=True, strict=True, extra="forbid")
    id: Annotated[str, Field(pattern=r"^R[0-9]{1,2}$")]
    risk: Text
    why: Annotated[str, Field(min_length=1, max_length=300)]
    do: Annotated[str, Field(min_length=1, max_length=300)]


def _rows(path: Path, model: type[BaseModel]) -> list[Any]:
    """Read a JSON-lines table into models; raises ValueError naming the file, line and field."""
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
            if isinstance(data, dict):  # JSON has lists, not tuples: strict models take tuples
                data = {k: tuple(v) if isinstance(v, list) else v for k, v in data.items()}
            rows.append(model.model_validate(data))
        except ValueError as exc:
            detail = "; ".join(problems_of(exc)) if isinstance(exc, ValidationError) else "not JSON"
            raise ValueError(f"{path.name}: line {number}: {detail}") from None
    return rows


def load_threats(path: str | Path | None = None) -> list[Threat]:
    """The register (default kit/data/threats/threats.jsonl). Raises ValueError naming a bad line."""
    return _rows(Path(path) if path is not None else THREATS_DATA / "threats.jsonl", Threat)


def load_residual(path: str | Path | None = None) -> list[Residual]:
    """The residual risks (default kit/data/threats/residual.jsonl). Raises ValueError naming a bad line."""
    return _rows(Path(path) if path is not None else THREATS_DATA / "residual.jsonl", Residual)


def load_frameworks(path: str | Path | None = None) -> dict[str, dict[str, Any]]:
    """frameworks.json: for each of FRAMEWORKS, its title, published date, link and entries {id: name}.

    Raises ValueError naming a framework or field that is missing. Example: load_frameworks()["asi"]["published"]
    """
    data = json.loads(Path(path if path is not None else THREATS_DATA / "frameworks.json").read_text("utf-8"))
    for key in FRAMEWORKS:
        if not {"title", "published", "link", "entries"} <= set(data.get(key, {})):
            raise ValueError(f"frameworks.json: {key} needs title, published, link and entries")
    return data


def node_exists(node: str, root: Path = KIT.parent) -> bool:
    """True when a pytest node id "kit/tests/test_x.py::test_y" names a top-level test function there.

    Read from the source (ast), without running it; root (Path) is the folder that holds kit/.
    Example: node_exists("kit/tests/test_gate.py::test_an_allowed_read_runs_and_is_audited") -> True
    """
    path, _, name = node.partition("::")
    file = root / path
    if not name or not file.is_file():
        return False
    tree = ast.parse(file.read_text(encoding="utf-8"))
    return any(isinstance(n, ast.FunctionDef) and n.name == name for n in tree.body)


def problems(threats: list[Threat], flows: tuple[Flow, ...],
             frameworks: dict[str, dict[str, Any]],
             pages: tuple[str, ...] = COURSE_PAGES,
             root: Path = KIT.parent) -> list[str]:
    """Every way the register breaks its rules, as "TH-xx: ..." lines.

    Each threat needs: a unique id, a flow among flows, a page among pages, a
    test node that exists, entry ids that exist in frameworks, an LLM entry in
    both editions or in neither, an LLM or an agentic entry, and an NCSC
    guideline. [] when it holds.
    Example: problems(load_threats(), all_flows(), load_frameworks())
    """
    found, seen, flow_ids = [], set(), {f.id for f in flows}
    for t in threats:
        if t.id in seen:
            found.append(f"{t.id}: the id is used twice")
        seen.add(t.id)
        if t.flow not in flow_ids:
            found.append(f"{t.id}: no flow {t.flow}")
        if t.page not in pages:
            found.append(f"{t.id}: {t.page} is not a page before this one")
        if not node_exists(t.test, root):
            found.append(f"{t.id}: no test {t.test}")
        for key in FRAMEWORKS:
            known = frameworks[key]["entries"]
            found += [f"{t.id}: {key} has no entry {e}"
                      for e in getattr(t, key) if e not in known]
        if bool(t.llm2025) != bool(t.llm2026):
            found.append(f"{t.id}: an LLM entry in one edition needs one in "
                         "the other")
        if not (t.llm2025 or t.asi) or not t.ncsc:
            found.append(f"{t.id}: needs an OWASP entry and an NCSC guideline")
    return found


def uncovered(threats: list[Threat], frameworks: dict[str, dict[str, Any]], key: str) -> list[str]:
    """The entries of one framework (key, one of FRAMEWORKS) that no threat names, in the file's order."""
    named = {e for t in threats for e in getattr(t, key)}
    return [e for e in frameworks[key]["entries"] if e not in named]


def unnamed_flows(threats: list[Threat], flows: tuple[Flow, ...]) -> list[str]:
    """Ids of the flows (in their order) that no threat of the register is filed under: the next to review.

    Args: threats (Threat), flows (Flow, e.g. all_flows()). Returns [] when every flow has a threat.
    Example: unnamed_flows(load_threats(), all_flows())[0] -> "sinks:json"
    """
    named = {t.flow for t in threats}
    return [f.id for f in flows if f.id not in named]
