"""The post-incident review is written from the drill's record: each lesson appears exactly when it applies."""

import pytest

from evidencedesk.capstone.drill import Controls, run_drill
from evidencedesk.capstone.review import REGRESSION, WIDTH, changes, review_lines


@pytest.fixture
def review(tmp_path):
    return lambda **controls: run_drill(Controls(**controls), tmp_path)[0]


def test_the_review_holds_the_timeline_the_finding_and_fits_the_width(review):
    drill = review()
    lines = review_lines(drill)
    assert lines[0] == "Post-incident review: T-2201, poisoned memory" and max(map(len, lines)) <= WIDTH
    text = "\n".join(lines)
    assert "Detected by: the traces: r-2" in text and "180 s after the poisoned notes reached memory" in text
    assert "Purged: 2 notes (t-2201-subject, t-2201-note-1)" in text and "T-2201 quarantined" in text
    assert len([line for line in lines if line.startswith("- ")]) == len(changes(drill)) == 2


@pytest.mark.parametrize("controls, pages", [
    ({}, ["Human Approval and Multi-Agent Boundaries", REGRESSION[1]]),
    ({"review": "decline"}, []),
    ({"review": "off"}, ["Human Approval and Multi-Agent Boundaries", REGRESSION[1]]),
    ({"gate": False}, ["Human Approval and Multi-Agent Boundaries", "Tool Permissions and Failure Handling",
                       REGRESSION[1]]),
    ({"tracing": False}, ["Human Approval and Multi-Agent Boundaries", "Tracing and Cost Attribution",
                          REGRESSION[1]]),
    ({"purge": False}, ["Human Approval and Multi-Agent Boundaries", "Human Approval and Multi-Agent Boundaries",
                        REGRESSION[1]]),
])
def test_each_lesson_follows_from_the_record(review, controls, pages):
    assert [page for _, page in changes(review(**controls))] == pages


def test_an_undetected_incident_says_nothing_found_it(review):
    text = "\n".join(review_lines(review(tracing=False)))
    assert "Detected by: nothing" in text and "Purged: nothing" in text
