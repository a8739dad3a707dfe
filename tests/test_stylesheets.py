"""The site's own stylesheets joined into one file (lesson_site.stylesheets, used by the
site hook): order kept, remote entries and @import users left alone, a content hash in the
name."""

from __future__ import annotations

from lesson_site.stylesheets import join


def _docs(tmp_path, files: dict[str, str]):
    for name, text in files.items():
        path = tmp_path / "assets" / "stylesheets" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return tmp_path


def test_local_stylesheets_become_one_in_order(tmp_path):
    docs = _docs(tmp_path, {"a.css": ".a{color:red}", "b.css": ".b{color:blue}"})
    extra = ["assets/stylesheets/a.css", "https://example.org/x.css", "assets/stylesheets/b.css"]
    out, uri, text = join(extra, docs)
    assert uri.startswith("assets/stylesheets/site.") and uri.endswith(".css")
    assert out == [uri, "https://example.org/x.css"]
    assert text.index(".a{color:red}") < text.index(".b{color:blue}")
    # the name follows the content
    (docs / "assets/stylesheets/b.css").write_text(".b{color:green}")
    assert join(extra, docs)[1] != uri


def test_nothing_to_join_is_left_alone(tmp_path):
    docs = _docs(tmp_path, {"a.css": ".a{}", "i.css": "@import 'a.css';\n.i{}"})
    one = ["assets/stylesheets/a.css", "https://example.org/x.css"]
    assert join(one, docs) == (one, None, "")
    with_import = ["assets/stylesheets/a.css", "assets/stylesheets/i.css", "missing.css"]
    assert join(with_import, docs) == (with_import, None, "")
