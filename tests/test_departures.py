"""Corrections to the client's text (issue #46): one short note where the text stands, the
client's words untouched above it. Each note is at most 40 words as a reader sees it, quotes
client words that really are on the page just before it (and in the client's text), and links
to a derivation that exists."""

from __future__ import annotations

import html as h
import re

import pytest

from roofline.errors import RooflineError
from lesson_site import departures as dep
from lesson_site.context import load_context
from lesson_site.markers import expand
from site_helpers import CLIENT_TEXT, LESSON, normalise

NOTE = re.compile(r'<span class="rl-departure" role="note" data-departure="([a-z0-9-]+)">'
                  r"(.*?)</span>", re.S)


@pytest.fixture(scope="module")
def page(built_site):
    return (built_site / LESSON).read_text(encoding="utf-8")


def _text(fragment: str) -> str:
    return " ".join(h.unescape(re.sub(r"<[^>]+>", " ", fragment)).split())


def test_every_note_is_on_the_page_once_and_at_most_40_words(page):
    _, entries = dep.departures()
    found = NOTE.findall(page)
    assert sorted(i for i, _ in found) == sorted(e.id for e in entries)
    for i, body in found:
        words = len(_text(body).split())
        assert words <= dep.MAX_WORDS, f"{i}: {words} words"
        assert "rl:" not in body and "Often quoted" not in body


def test_a_long_note_is_refused(tmp_path, monkeypatch):
    """The gate: a note over 40 words fails the build, naming the entry."""
    long = tmp_path / "departures.toml"
    long.write_text('schema_version = 1\nsource = "test"\n\n[[departure]]\nid = "long"\n'
                    'quote = "80 GB"\ntext = "' + "word " * 40 + '"\nsee = "#x"\n',
                    encoding="utf-8")
    real = dep.departures
    monkeypatch.setattr(dep, "departures", lambda path=None: real(long))
    with pytest.raises(RooflineError, match="more than 40"):
        expand("<!-- rl:departure id=long -->", load_context(), "test")


def test_each_quote_is_the_clients_words_just_above_its_note(page):
    """Each piece of a note's quote ("…" joins pieces) is in the client's text and on the page,
    outside any note, in the 3,000 characters of prose before the note."""
    client = normalise(CLIENT_TEXT.read_text(encoding="utf-8"), mask=False)
    _, entries = dep.departures()
    for e in entries:
        m = re.search(rf'<span class="rl-departure" role="note" data-departure="{e.id}">', page)
        before = normalise(_text(NOTE.sub(" ", page[max(0, m.start() - 12000):m.start()])),
                           mask=False)[-3000:]
        for piece in e.fields["quote"].split(" … "):
            want = normalise(piece, mask=False)
            assert want in client, f"{e.id}: {piece!r} is not the client's"
            assert want in before, f"{e.id}: {piece!r} is not just above its note"


def test_each_note_links_a_derivation_that_exists(page, built_site):
    ids = set(re.findall(r'id="([^"]+)"', page))
    for i, body in NOTE.findall(page):
        href = re.search(r'<a href="([^"]+)">\(derivation\)</a>', body)
        assert href, f"{i}: no derivation link"
        target, _, anchor = href.group(1).partition("#")
        if not target:
            assert anchor in ids, f"{i}: no #{anchor} on the page"
        else:
            other = (built_site / LESSON).parent / target
            assert other.is_file(), f"{i}: {target}"
            if anchor:
                assert f'id="{anchor}"' in other.read_text(encoding="utf-8"), (i, anchor)


def test_the_section_2_claim_has_its_note_pointing_to_section_5(page):
    """§2's "the reason MFU is 50% and not 95%" is corrected where it stands: the model's
    leaks are mostly elsewhere (§5)."""
    sec2 = page[page.index('id="2-compute'):page.index('id="3-arithmetic')]
    m = NOTE.search(sec2[sec2.index("the reason MFU is 50% and not 95%"):])
    assert m and m.group(1) == "mfu-50-not-95"
    assert 'href="#5-the-execution-model' in m.group(2)
