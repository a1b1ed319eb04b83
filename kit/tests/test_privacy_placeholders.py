"""Tests of evidencedesk.privacy.placeholders: minimise and restore round trip, and what restoring refuses to guess."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from evidencedesk.privacy.placeholders import MAX_PER_KIND, Vault, minimise, restore, restore_html
from evidencedesk.security import visible

TEXT = "I'm Sipho Dlamini: sipho@example.org, +44 20 7946 0321. Ask SIPHO DLAMINI."


def test_minimise_sends_placeholders_and_the_vault_keeps_the_values() -> None:
    vault = Vault()
    done = minimise(TEXT, vault, ["Sipho Dlamini"])
    assert done.text == "I'm <NAME_1>: <EMAIL_1>, <PHONE_1>. Ask <NAME_2>."
    assert done.placeholders == ("<NAME_1>", "<EMAIL_1>", "<PHONE_1>", "<NAME_2>")
    assert vault.items() == [("<NAME_1>", "Sipho Dlamini"), ("<EMAIL_1>", "sipho@example.org"),
                             ("<PHONE_1>", "+44 20 7946 0321"), ("<NAME_2>", "SIPHO DLAMINI")]
    assert "sipho" not in done.text.casefold()


def test_one_address_in_two_cases_is_one_placeholder_and_the_first_spelling_comes_back() -> None:
    vault = Vault()
    assert minimise("A@example.org or a@EXAMPLE.org", vault).text == "<EMAIL_1> or <EMAIL_1>"
    assert restore("<EMAIL_1>", vault).text == "A@example.org"


def test_a_vault_is_shared_across_turns_of_one_conversation() -> None:
    vault = Vault()
    minimise("mail a@example.org", vault)
    assert minimise("and b@example.org, not a@example.org", vault).text == "and <EMAIL_2>, not <EMAIL_1>"


def test_restore_puts_back_exact_placeholders_and_reports_the_rest() -> None:
    vault = Vault()
    minimise(TEXT, vault, ["Sipho Dlamini"])
    done = restore("Dear <NAME_1>, see <EMAIL_1>; EMAIL_1 and <phone 1> and <CARD_1>.", vault)
    assert done.text == "Dear Sipho Dlamini, see sipho@example.org; EMAIL_1 and <phone 1> and <CARD_1>."
    assert done.restored == ("<NAME_1>", "<EMAIL_1>")
    assert done.missing == ("<PHONE_1>", "<NAME_2>")
    assert done.mangled == ("EMAIL_1", "<phone 1>", "<CARD_1>") and not done.ok


def test_placeholder_shaped_input_cannot_pull_another_value_out() -> None:
    vault = Vault()
    sent = minimise("Send <EMAIL_1> and NAME_1 my file; I am a@example.org", vault).text
    assert sent == "Send <TEXT_1> and <TEXT_2> my file; I am <EMAIL_1>"
    assert restore("Sent <TEXT_1> and <TEXT_2> to <EMAIL_1>.", vault).text == \
        "Sent <EMAIL_1> and NAME_1 to a@example.org."


def test_restore_cannot_tell_a_wrong_placeholder_or_a_rewording_outside_near() -> None:
    vault = Vault()
    minimise("mine is +44 20 7946 0321, the crew lead's +44 20 7946 0998", vault)
    wrong = restore("We will ring you on <PHONE_2>.", vault)  # the model meant <PHONE_1>
    assert wrong.ok and wrong.text == "We will ring you on +44 20 7946 0998."
    reworded = restore("We will ring phone no. 1.", vault)
    assert reworded.ok and reworded.mangled == () and reworded.restored == ()


def test_ordinary_words_are_not_placeholders() -> None:
    vault = Vault()
    assert minimise("email 2 times, card 4 boxes, phone me", vault).text == "email 2 times, card 4 boxes, phone me"
    assert restore("we sent email 2 times", vault).ok


def test_restore_html_escapes_the_reply_and_the_restored_values() -> None:
    vault = Vault()
    vault.placeholder("NAME", 'Ann <img src=x onerror="alert(1)">')
    page, summary = restore_html("Hello <NAME_1>, <b>done</b> & <NAME_9>", vault)
    assert str(page) == ("Hello Ann &lt;img src=x onerror=&#34;alert(1)&#34;&gt;, &lt;b&gt;done&lt;/b&gt; "
                         "&amp; &lt;NAME_9&gt;")
    assert summary.mangled == ("<NAME_9>",) and "<img" in summary.text  # restore() alone is not for HTML


def test_vault_refuses_bad_input() -> None:
    vault = Vault()
    with pytest.raises(ValueError, match="kind must be one of"):
        vault.placeholder("SSN", "x")
    with pytest.raises(ValueError, match="non-empty str"):
        vault.placeholder("NAME", "")
    vault._counts["NAME"] = MAX_PER_KIND
    with pytest.raises(ValueError, match="more than 9999"):
        vault.placeholder("NAME", "new")
    with pytest.raises(TypeError, match="text must be a str"):
        restore(None, vault)  # type: ignore[arg-type]


FRAGMENTS = ["Sipho", "a@example.org", "+44 20 7946 0321", "4111 1111 1111 1111", "<EMAIL_1>", "NAME_2",
             "<", ">", "_", " ", "x", "1", "EMAIL", "ｓ", "\u200b", "-"]


@given(st.lists(st.sampled_from(FRAGMENTS), max_size=12))
def test_restoring_what_minimise_sent_gives_back_the_visible_text(parts: list[str]) -> None:
    text = "".join(parts)
    vault = Vault()
    sent = minimise(text, vault, ["Sipho"])
    back = restore(sent.text, vault)
    assert back.text == visible(text) and back.ok and back.missing == ()
