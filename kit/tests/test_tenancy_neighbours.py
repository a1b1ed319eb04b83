"""Per-tenant limits: a burst from one tenant never refuses another; a shared pool does."""

from evidencedesk.tenancy.neighbours import serve


def test_burst_spends_only_its_own_allowance_per_tenant():
    requests = ["brassfern"] * 30 + ["quillmere"] * 5
    assert serve(requests, max_calls=20) == {"brassfern": (20, 10), "quillmere": (5, 0)}


def test_shared_pool_refuses_the_quiet_tenant():
    requests = ["brassfern"] * 30 + ["quillmere"] * 5
    assert serve(requests, max_calls=20, per_tenant=False) == {"brassfern": (20, 10), "quillmere": (0, 5)}


def test_order_of_first_request_is_kept():
    assert list(serve(["b", "a", "b"], max_calls=5)) == ["b", "a"]
