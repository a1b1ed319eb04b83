"""What an author sees (issue 20): failures listed at the top of a served page, and what `make accept` approves."""

from __future__ import annotations

import re

import pytest

from tests.conftest import fence, label, page

pytestmark = pytest.mark.site


def test_serve_lists_each_failing_block_at_the_top_with_a_link_to_it(make_site):
    markdown = page(fence("print('fine')"), "Prose.", fence("raise ValueError('broken')"), fence("print('new')"))
    site = make_site({"index.md": markdown})
    site.write("data/index.txt", "")
    site.build("--no-strict", mode="serve")
    html = site.html()

    top = html[html.index('id="sitebuild-failures"'):]
    top = top[:top.index("</div>")]
    links = re.findall(r'<a href="#(block-[a-z0-9-]+)">([^<]+)</a>', top)
    assert [text for _, text in links] == [label(markdown, n) for n in (1, 2, 3)]  # none approved yet; 2 raised
    assert "raised ValueError: broken" in top
    for anchor, _ in links:
        assert f'id="{anchor}"' in html  # each link leads to its block's output
    assert html.index('id="sitebuild-failures"') < html.index(f'id="{links[0][0]}"')
    assert "admonition failure" in html[html.index(f'id="{links[1][0]}"'):]  # the red box at the block stays


def test_a_failed_build_leaves_no_page_with_a_box_at_the_top(make_site):
    site = make_site({"index.md": page(fence("raise ValueError('broken')"))})

    built = site.build("--no-strict")

    assert built.code != 0 and not (site.out / "index.html").exists()  # the box is serve's: a build publishes none


def test_accept_prints_each_change_with_its_diff_then_the_next_step(make_site):
    site = make_site({"index.md": page(fence("print('value: old')\nprint('same')"), fence("print('gone')"))})
    assert site.accept().code == 0
    site.page("index.md", page(fence("print('value: new')\nprint('same')")))

    edited = site.accept().output
    site.page("index.md", page(fence("print('value: new')\nprint('same')"), fence("print('added')", id="added")))
    added = site.accept().output

    assert "code edited\n    --- approved (data/index.txt)\n    +++ this build\n" in edited
    assert "\n    -value: old\n    +value: new\n     same\n" in edited
    assert "dropped (its block is gone)\n    -gone\n" in edited
    assert "key added: new\n    +added\n" in added
    for out in (edited, added):
        assert out.rstrip().endswith("Next: review them with `git status data/` (a new page's file is new to git) "
                                     "and `git diff data/`, then commit data/ with the change that caused them.")
