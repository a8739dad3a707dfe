"""`roofline plot` and `roofline export`: standalone files that work from file://, and an iframe
snippet that works pasted into a bare HTML page."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import screenshot
from pagecheck import first_block_ready
from sitecheck import EMBED_MD, doc_block
from roofline.cli import main
from roofline.cli import COMMANDS
from roofline.cli.export import ASSETS, VIEWS
from roofline.render import assets

# The trimmed BokehJS a self-contained file inlines (roofline/vendor/bokehjs).
_BOKEHJS_BYTES = sum(a.path.stat().st_size for a in assets.bokeh_assets())


def test_commands_are_registered():
    assert {"plot", "export"} <= set(COMMANDS)


@pytest.fixture(scope="module")
def plot_file(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("plot") / "h100.html"
    assert main(["plot", "--hardware", "h100-sxm", "--precision", "bf16",
                 "--ops", "rmsnorm,gemm-train", "-o", str(out)]) == 0
    return out


@pytest.fixture(scope="module")
def export_dir(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("export")
    assert main(["export", "--out", str(out)]) == 0
    return out


def test_plot_is_one_self_contained_file(plot_file):
    html = plot_file.read_text(encoding="utf-8")
    assert not re.findall(r'<script[^>]+src=', html)
    markup = re.sub(r"<script[^>]*>.*?</script>", "", html, flags=re.S)  # BokehJS's own text aside
    assert not re.findall(r'(href|src)="https?:', markup)
    assert "Bokeh" in html and 'class="roofline-block"' in html


def test_plot_is_deterministic(plot_file, tmp_path):
    again = tmp_path / "again.html"
    main(["plot", "--hardware", "h100-sxm", "--precision", "bf16", "--ops", "rmsnorm,gemm-train",
          "-o", str(again)])
    assert again.read_bytes() == plot_file.read_bytes()


def test_plot_rejects_bad_ids(tmp_path, capsys):
    assert main(["plot", "--hardware", "h1000", "-o", str(tmp_path / "x.html")]) == 2
    err = capsys.readouterr().err
    assert "unknown hardware 'h1000'" in err and err.count("\n") == 1
    assert not (tmp_path / "x.html").exists()


def _fails(capsys, args: list[str]) -> str:
    """Exit 2, nothing on stdout, one line on stderr; returns it."""
    assert main(args) == 2
    out, err = capsys.readouterr()
    assert out == "" and "Traceback" not in err and err.count("\n") == 1, err
    return err.rstrip("\n")


def _unwritable_folder(tmp_path: Path) -> Path:
    """A folder this process cannot create files in: a read-only one, or for root (whom
    permission bits do not stop) sysfs, which refuses new files to everyone."""
    folder = tmp_path / "read-only"
    folder.mkdir()
    folder.chmod(0o555)
    try:
        (folder / "probe").write_text("x")
    except OSError:
        return folder
    (folder / "probe").unlink()
    return Path("/sys")


def test_plot_output_that_is_a_folder_is_one_line(tmp_path, capsys):
    assert _fails(capsys, ["plot", "-o", str(tmp_path)]) == (
        f"roofline plot: error: argument -o/--output: '{tmp_path}' is a folder; "
        "name a file inside it")


def test_plot_output_whose_folder_is_missing_is_one_line(tmp_path, capsys):
    target = tmp_path / "nope" / "x.html"
    assert _fails(capsys, ["plot", "-o", str(target)]) == (
        f"roofline plot: error: argument -o/--output: folder '{tmp_path / 'nope'}' "
        "does not exist")
    assert not target.parent.exists()  # not created behind the user's back


def test_plot_output_under_a_file_is_one_line(tmp_path, capsys):
    (tmp_path / "a.html").write_text("x")
    assert _fails(capsys, ["plot", "-o", str(tmp_path / "a.html" / "x.html")]) == (
        f"roofline plot: error: argument -o/--output: '{tmp_path / 'a.html'}' is a file, "
        "not a folder")


def test_plot_output_unwritable_is_one_line(tmp_path, capsys):
    folder = _unwritable_folder(tmp_path)
    line = _fails(capsys, ["plot", "-o", str(folder / "x.html")])
    assert re.fullmatch(r"roofline plot: error: argument -o/--output: (folder '.*' is not "
                        r"writable|cannot write '.*x\.html': [A-Z][a-z ]+)", line), line


def test_unwritable_is_caught_before_any_work(tmp_path, capsys, monkeypatch):
    """What a non-root user meets in a read-only folder (root is not stopped by mode bits, so
    the permission check is simulated here; the test above writes for real)."""
    from roofline.cli import _common
    monkeypatch.setattr(_common.os, "access", lambda path, mode: False)
    assert _fails(capsys, ["plot", "-o", str(tmp_path / "x.html")]) == (
        f"roofline plot: error: argument -o/--output: folder '{tmp_path}' is not writable")
    assert _fails(capsys, ["export", "--out", str(tmp_path)]) == (
        f"roofline export: error: argument --out: folder '{tmp_path}' is not writable")


def test_plot_replaces_an_existing_file(tmp_path, capsys):
    target = tmp_path / "old.html"
    target.write_text("old")
    assert main(["plot", "--ops", "rmsnorm", "-o", str(target)]) == 0
    assert target.stat().st_size > _BOKEHJS_BYTES  # the old text was replaced, BokehJS inlined
    assert capsys.readouterr().out.startswith(f"wrote {target} (")


def test_export_out_that_is_an_existing_file_is_one_line(tmp_path, capsys):
    (tmp_path / "a.html").write_text("x")
    assert _fails(capsys, ["export", "--out", str(tmp_path / "a.html")]) == (
        f"roofline export: error: argument --out: '{tmp_path / 'a.html'}' is an existing "
        "file; name a folder")


def test_export_out_whose_parent_is_missing_is_one_line(tmp_path, capsys):
    assert _fails(capsys, ["export", "--out", str(tmp_path / "nope" / "embed")]) == (
        f"roofline export: error: argument --out: folder '{tmp_path / 'nope'}' does not exist")
    assert not (tmp_path / "nope").exists()


def test_export_out_unwritable_is_one_line(tmp_path, capsys):
    folder = _unwritable_folder(tmp_path)
    line = _fails(capsys, ["export", "--out", str(folder / "embed")])
    assert re.fullmatch(r"roofline export: error: argument --out: (folder '.*' is not "
                        r"writable|cannot write '.*embed': [A-Z][a-z ]+)", line), line


def test_export_assets_only_creates_parent_folders(tmp_path, capsys):
    """--assets-only writes into a site's docs tree (docs/assets/roofline), parents and all."""
    dest = tmp_path / "docs" / "assets" / "roofline"
    assert main(["export", "--assets-only", "--out", str(dest)]) == 0
    assert (dest / assets.loader_name()).exists()
    capsys.readouterr()


def test_export_shim_only_writes_the_offline_polyfill(tmp_path, capsys):
    dest = tmp_path / "docs" / "assets" / "vendor"
    assert main(["export", "--shim-only", "--out", str(dest)]) == 0
    assert sorted(p.name for p in dest.iterdir()) == ["iframe-worker-shim.js",
                                                      "iframe-worker.LICENSE"]
    assert capsys.readouterr().out.splitlines() == [str(dest / "iframe-worker-shim.js"),
                                                   str(dest / "iframe-worker.LICENSE")]
    assert _fails(capsys, ["export", "--shim-only", "--assets-only", "--out", str(dest)]) == (
        "roofline export: error: argument --shim-only: not allowed with --assets-only")


def test_export_shares_one_copy_of_bokehjs(export_dir):
    pages = sorted(p.name for p in export_dir.glob("*.html"))
    assert pages == sorted([f"{v.slug}.html" for v in VIEWS] + ["snippets.html"])
    shipped = sorted(p.name for p in (export_dir / ASSETS).iterdir())
    assert shipped == sorted([a.name for a in assets.bokeh_assets()]
                             + [assets.loader_name(), assets.STABLE_LOADER])
    for v in VIEWS:
        html = (export_dir / f"{v.slug}.html").read_text(encoding="utf-8")
        assert f'src="{ASSETS}/{assets.loader_name()}"' in html
        assert "Bokeh.version" not in html  # BokehJS is not inlined in exported pages
    snippets = (export_dir / "snippets.html").read_text(encoding="utf-8")
    for v in VIEWS:
        assert f'&lt;iframe src=&quot;{v.slug}.html&quot;' in snippets


def _ready(w, timeout=20000):
    first_block_ready(w.page, timeout_ms=timeout, errors=w.errors)
    return w.page.evaluate("() => window.roofline.documents[0].get_model_by_name('verdict').text")


@pytest.mark.browser
def test_plot_file_renders_from_disk(plot_file, open_page):
    w = open_page(plot_file.as_uri())
    assert "ridge at 295 FLOP/byte" in _ready(w)
    screenshot(w.page, "plot-file")
    w.assert_clean()


@pytest.mark.browser
def test_every_exported_page_renders_from_disk(export_dir, open_page):
    for v in VIEWS:
        w = open_page((export_dir / f"{v.slug}.html").as_uri())
        assert "FLOP/byte" in _ready(w)
        if v.slug.endswith("hierarchy"):
            screenshot(w.page, "export-hierarchy")
        w.assert_clean()


@pytest.mark.browser
def test_iframe_snippet_works_in_a_bare_page(export_dir, open_page):
    snippets = (export_dir / "snippets.html").read_text(encoding="utf-8")
    code = re.search(r'<pre><code>(&lt;iframe src=&quot;roofline-h100-fp8.html.*?)</code></pre>',
                     snippets).group(1)
    import html as html_mod
    bare = export_dir / "bare.html"
    bare.write_text(f"<!DOCTYPE html><title>bare</title><p>Someone's page.</p>\n"
                    f"{html_mod.unescape(code)}\n", encoding="utf-8")
    w = open_page(bare.as_uri())
    frame = w.page.frame_locator("iframe")
    frame.locator(".roofline-block[data-roofline-state=ready]").wait_for(timeout=20000)
    text = w.page.frames[1].evaluate(
        "() => window.roofline.documents[0].get_model_by_name('verdict').text")
    assert "ridge at 591 FLOP/byte" in text  # the FP8 view
    w.assert_clean()



@pytest.fixture(scope="module")
def docs_export(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("docs-export")
    command = doc_block("write embeddable pages").split()
    assert command[:2] == ["roofline", "export"]
    assert main(command[1:-1] + [str(root / command[-1])]) == 0
    return root


@pytest.mark.browser
def test_docs_iframe_example_renders_from_disk(docs_export, open_page):
    page_file = docs_export / "index.html"
    page_file.write_text(doc_block("index.html"), encoding="utf-8")
    w = open_page(page_file.as_uri())
    w.page.frame_locator("iframe").locator(
        ".roofline-block[data-roofline-state=ready]").wait_for(timeout=20000)
    w.assert_clean()


def test_docs_sphinx_example_points_at_an_exported_page(docs_export):
    conf = doc_block("conf.py")
    scope: dict = {}
    exec(conf, scope)  # noqa: S102 - the documented conf.py line
    extra = docs_export / scope["html_extra_path"][0]
    src = re.search(r'<iframe src="([^"]+)"', doc_block("roofline.rst")).group(1)
    assert (extra / src).exists(), src


def test_docs_plot_example_command(tmp_path):
    text = EMBED_MD.read_text(encoding="utf-8")
    command = re.search(r"`(roofline plot [^`]+)`", text).group(1).split()
    command[-1] = str(tmp_path / command[-1])
    assert main(command[1:]) == 0
    assert Path(command[-1]).stat().st_size > _BOKEHJS_BYTES  # BokehJS is inside
