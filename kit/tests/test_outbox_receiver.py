"""Receiver: the idempotent one writes one email per message id and counts repeats; the naive one writes one
per delivery; the arrival is recorded either way; a bad kind is refused."""

import pytest

from evidencedesk.outbox.receiver import APPLIED, DUPLICATE, IDEMPOTENT, NAIVE, Receiver, Seen


def test_the_idempotent_receiver_applies_a_message_once(tmp_path):
    inbox = Receiver(tmp_path, IDEMPOTENT)
    assert [inbox.deliver("k-1", "a@example.org", "Hi") for _ in range(3)] == [APPLIED, DUPLICATE, DUPLICATE]
    assert inbox.deliver("k-2", "a@example.org", "Hi") == APPLIED
    assert inbox.seen() == Seen(deliveries=4, duplicates=2, effects=2)
    assert inbox.emails() == [("k-1", "Hi"), ("k-2", "Hi")]


def test_the_naive_receiver_applies_every_delivery(tmp_path):
    inbox = Receiver(tmp_path, NAIVE)
    assert [inbox.deliver("k-1", "a@example.org", "Hi") for _ in range(2)] == [APPLIED, APPLIED]
    assert inbox.seen() == Seen(deliveries=2, duplicates=1, effects=2)


def test_the_ids_survive_a_new_receiver_object_on_the_same_file(tmp_path):
    Receiver(tmp_path, IDEMPOTENT).deliver("k-1", "a@example.org", "Hi")
    assert Receiver(tmp_path, IDEMPOTENT).deliver("k-1", "a@example.org", "Hi") == DUPLICATE


def test_a_bad_kind_is_refused_by_name(tmp_path):
    with pytest.raises(ValueError, match="kind"):
        Receiver(tmp_path, "exactly_once")
