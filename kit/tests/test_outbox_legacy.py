"""Legacy: the file-locked send log, dying between the mail service and its log line, sends again on the
retry; a mail service that takes the key keeps the customer at one email, one that does not sends two."""

from evidencedesk.helpdesk import Outbox
from evidencedesk.outbox.legacy import PlainMail, send_log_retry


def test_a_service_without_keys_sends_twice(tmp_path):
    assert send_log_retry(tmp_path, PlainMail()) == (1, 2)


def test_a_service_that_takes_the_key_sends_once(tmp_path):
    assert send_log_retry(tmp_path, Outbox()) == (1, 1)
