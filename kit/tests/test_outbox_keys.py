"""Keys: a step key is the same for every retry of a step and differs between steps; a purpose key does not
change with the step; a text key changes with the wording; bad input is refused by name."""

import pytest

from evidencedesk.outbox.keys import purpose_key, step_key, text_key


def test_the_step_key_names_the_run_the_step_and_the_tool():
    assert step_key("r-2001", 2, "send_reply") == "r-2001/2/send_reply"
    assert step_key("r-2001", 2, "send_reply") != step_key("r-2001", 3, "send_reply")
    assert step_key("r-2001", 2, "send_reply") != step_key("r-2002", 2, "send_reply")


def test_a_text_key_changes_with_the_wording_and_not_otherwise():
    assert text_key("Refund approved.") == text_key("Refund approved.")
    assert text_key("Refund approved.") != text_key("Your refund is approved.")
    assert text_key("x").startswith("sha256:") and len(text_key("x")) == len("sha256:") + 16


@pytest.mark.parametrize("args, name", [(("R 1", 2, "send_reply"), "run_id"), (("r-1", 0, "send_reply"), "step"),
                                        (("r-1", True, "send_reply"), "step"), (("r-1", 2, "Send Reply"), "tool"),
                                        ((None, 2, "send_reply"), "run_id")])
def test_bad_input_is_refused_by_name(args, name):
    with pytest.raises(ValueError, match=name):
        step_key(*args)
    with pytest.raises(ValueError, match="text"):
        text_key(b"bytes")


def test_a_purpose_key_names_the_record_and_the_purpose_and_refuses_bad_input():
    assert purpose_key("T-2001", "refund_confirmation") == "T-2001/refund_confirmation"
    assert purpose_key("T-2001", "refund_confirmation") != purpose_key("T-2002", "refund_confirmation")
    with pytest.raises(ValueError, match="subject"):
        purpose_key("T 2001", "refund_confirmation")
    with pytest.raises(ValueError, match="purpose"):
        purpose_key("T-2001", "Refund confirmation")
