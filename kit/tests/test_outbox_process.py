"""Process: a crash at each boundary, then the restart, gives one email with an idempotent receiver; the
naive receiver emails twice after a death between send and mark; the direct path loses the email after a
death between commit and send; a real death (hard) gives the same outcome as the simulated one; a replayed
step keyed by its text sends twice, keyed by its step once; a re-planned step sends twice by step key and
once by purpose key."""

import pytest

from evidencedesk.outbox.crash import CRASH_POINTS, Boundary
from evidencedesk.outbox.keys import purpose_key, step_key, text_key
from evidencedesk.outbox.process import DIRECT, WORDINGS, crash_and_resume, replanned_step, replayed_step


@pytest.mark.parametrize("at", CRASH_POINTS)
def test_an_idempotent_receiver_gets_one_email_whatever_the_boundary(tmp_path, at):
    out = crash_and_resume(tmp_path, at)
    assert out.died and out.seen.effects == 1 and out.final == ("resolved", (("r-2001/2/send_reply", 1),))


def test_what_the_database_holds_at_each_death(tmp_path):
    states = {at: crash_and_resume(tmp_path / at.value, at).at_crash
              for at in CRASH_POINTS if not (tmp_path / at.value).mkdir()}
    assert states[Boundary.BEFORE_COMMIT] == ("open", ())
    assert states[Boundary.AFTER_COMMIT] == states[Boundary.AFTER_SEND] == ("resolved", (("r-2001/2/send_reply", 0),))
    assert states[Boundary.AFTER_MARK] == ("resolved", (("r-2001/2/send_reply", 1),))


def test_the_restart_asks_the_model_again_only_when_nothing_was_committed(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    assert crash_and_resume(tmp_path / "a", "before_commit").emails[0][1] == WORDINGS[1]
    assert crash_and_resume(tmp_path / "b", "after_commit").emails[0][1] == WORDINGS[0]


def test_the_naive_receiver_emails_twice_after_a_death_between_send_and_mark(tmp_path):
    out = crash_and_resume(tmp_path, "after_send", "naive")
    assert (out.seen.deliveries, out.seen.duplicates, out.seen.effects) == (2, 1, 2)


def test_the_direct_path_loses_the_email_after_a_death_between_commit_and_send(tmp_path):
    out = crash_and_resume(tmp_path, "after_commit", path=DIRECT)
    assert out.final[0] == "resolved" and out.seen.effects == 0


@pytest.mark.parametrize("at", [Boundary.BEFORE_COMMIT, Boundary.AFTER_SEND])
def test_a_real_death_matches_the_simulated_one(tmp_path, at):
    (tmp_path / "soft").mkdir()
    (tmp_path / "hard").mkdir()
    soft = crash_and_resume(tmp_path / "soft", at, "naive")
    assert soft == crash_and_resume(tmp_path / "hard", at, "naive", hard=True)


def test_a_replayed_step_sends_once_by_step_key_and_twice_by_text_key(tmp_path):
    (tmp_path / "s").mkdir()
    (tmp_path / "t").mkdir()
    assert replayed_step(tmp_path / "s").seen.effects == 1
    by_text = replayed_step(tmp_path / "t", text_key)
    assert by_text.seen.effects == 2 and by_text.seen.duplicates == 0


def test_a_replanned_step_sends_twice_by_step_key_and_once_by_purpose_key(tmp_path):
    (tmp_path / "s").mkdir()
    (tmp_path / "p").mkdir()
    by_step = replanned_step(tmp_path / "s", lambda step: step_key("r-2001", step, "send_reply"))
    assert [m for m, _ in by_step.emails] == ["r-2001/2/send_reply", "r-2001/3/send_reply"]
    by_purpose = replanned_step(tmp_path / "p", lambda step: purpose_key("T-2001", "refund_confirmation"))
    assert by_purpose.emails == (("T-2001/refund_confirmation", WORDINGS[0]),)


def test_bad_arguments_are_refused_by_name(tmp_path):
    with pytest.raises(ValueError, match="path"):
        crash_and_resume(tmp_path, "none", path="carrier_pigeon")
    with pytest.raises(ValueError, match="after_lunch"):
        crash_and_resume(tmp_path, "after_lunch")
