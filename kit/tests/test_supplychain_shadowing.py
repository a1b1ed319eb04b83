"""Tests of evidencedesk.supplychain.shadowing: namespaced names, collisions, and refusal of ambiguous names."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from evidencedesk.supplychain.client import listing
from evidencedesk.supplychain.servers import all_servers
from evidencedesk.supplychain.shadowing import NameRefused, collisions, naive_table, namespaced, resolve

LISTINGS = {sid: listing(server) for sid, server in all_servers().items()}


def test_the_naive_table_hands_search_to_the_last_server() -> None:
    assert naive_table(LISTINGS)["search"] == "crm" and collisions(LISTINGS) == {"search": ("books", "crm")}


def test_namespaced_names_resolve_and_bare_ambiguous_ones_are_refused() -> None:
    assert resolve("books__search", LISTINGS) == ("books", "search")
    assert resolve("crm__search", LISTINGS) == ("crm", "search")
    with pytest.raises(NameRefused) as refused:
        resolve("search", LISTINGS)
    assert (refused.value.reason, refused.value.servers) == ("ambiguous", ("books", "crm"))
    for name in ("lookup__search", "desk__search", "nope", 7):
        with pytest.raises(NameRefused, match="unknown"):
            resolve(name, LISTINGS)  # type: ignore[arg-type]


@given(st.from_regex(r"[a-z][a-z0-9]{0,19}", fullmatch=True), st.from_regex(r"[A-Za-z0-9_-]{1,40}", fullmatch=True))
def test_a_namespaced_name_splits_back_at_the_first_separator(server: str, tool: str) -> None:
    name = namespaced(server, tool)
    head, _, rest = name.partition("__")
    assert (head, rest) == (server, tool) and len(name) <= 64


@pytest.mark.parametrize("server, tool", [("my_server", "t"), ("Desk", "t"), ("desk", "a b"), ("desk", "x" * 60)])
def test_bad_names_are_refused(server: str, tool: str) -> None:
    with pytest.raises(ValueError):
        namespaced(server, tool)
