"""The lesson's written parts that live in data files: failure modes & checklist, checkpoint
questions (answers collapsed until asked for) and interview prompts. Their text carries markers,
expanded with the data file and entry named on any error."""

from __future__ import annotations

import html

from roofline.model import datafile as _toml

from lesson_site import DATA_DIR
from roofline.model.datafile import Fields
from roofline.errors import RooflineError
from lesson_site.context import Context
from lesson_site.entries import entry_text as _text
from lesson_site.entries import indent as _indent
from lesson_site.entries import load_entries
from lesson_site.markers import expand, marker


@marker("prompts", block=True)
def prompts(ctx: Context) -> str:
    """Each interview prompt is the title of a collapsed box; its answer, in the client's
    "(§N — answer)" shape with our additions after it, opens on demand like the checkpoint's."""
    path, entries = load_entries("prompts", "prompt", ("question", "section", "answer"),
                                 optional=("extra",))
    items = []
    for e in entries:
        extra = f" {_text(ctx, path, e, 'extra')}" if "extra" in e.fields else ""
        question = _text(ctx, path, e, "question")
        if '"' in question or "\n" in question:
            raise RooflineError("a prompt's question is a box title: one line, no double quotes",
                                where=str(path), entry=e.id, field="question")
        answer = (f"({_text(ctx, path, e, 'section')} — {_text(ctx, path, e, 'answer')})"
                  + extra)
        items.append(f'<div class="rl-prompt" id="prompt-{e.id}" markdown="1">\n\n'
                     f'??? question "{question}"\n\n{_indent(answer)}\n\n</div>')
    return ('\n<div class="rl-prompts" markdown="1">\n\n*Answer each aloud first, then open '
            "it.*\n\n" + "\n\n".join(items) + "\n\n</div>\n")


@marker("checkpoint", block=True)
def checkpoint(ctx: Context) -> str:
    path, entries = load_entries("checkpoint", "question", ("question", "answer"))
    blocks = []
    for i, e in enumerate(entries, 1):
        q = _text(ctx, path, e, "question")
        a = _text(ctx, path, e, "answer")
        blocks.append(f'<div class="rl-checkpoint" id="checkpoint-{e.id}" markdown="1">\n\n'
                      f"**Q{i}.** {q}\n\n"
                      f'??? success "Reveal the answer"\n\n{_indent(a)}\n\n</div>')
    return ("\n*Write your answer down, then open it.*\n\n" + "\n\n".join(blocks) + "\n")


@marker("checkpoint_answers", block=True)
def checkpoint_answers(ctx: Context) -> str:
    """The checkpoint's answers collected for print (issue #14): on paper the questions stay a
    test and the answers come on their own page at the end; on screen this block is hidden
    (lesson.css .rl-answers) and each answer sits in its collapsed box."""
    path, entries = load_entries("checkpoint", "question", ("question", "answer"))
    from lesson_site.leaks import ranking_reveal
    items = [f"**The leaks ranked (§5).**\n\n{ranking_reveal(ctx)}"]
    items += [f"**Q{i}.** {_text(ctx, path, e, 'answer')}" for i, e in enumerate(entries, 1)]
    if (DATA_DIR / "problems.toml").exists():  # the worked back-of-envelope problems
        ppath, problems = load_entries("problems", "problem", ("title", "question", "answer"))
        items += [f"**P{i}. {_text(ctx, ppath, e, 'title')}.**\n\n"
                  f"{_text(ctx, ppath, e, 'answer')}" for i, e in enumerate(problems, 1)]
    return ('\n<div class="rl-answers" aria-hidden="true" data-search-exclude markdown="1">\n\n'
            "**Answers**\n\n" + "\n\n".join(items) + "\n\n</div>\n")


@marker("failure_modes", block=True)
def failure_modes(ctx: Context) -> str:
    path, entries = load_entries("failure_modes", "mode", ("title", "problem", "check"))
    rows = []
    for i, e in enumerate(entries, 1):
        rows.append(f'<div class="rl-failure" id="failure-{e.id}" markdown="1">\n\n'
                    f"**{i}. {_text(ctx, path, e, 'title')}.** {_text(ctx, path, e, 'problem')}"
                    f"\n\n*How to check:* {_text(ctx, path, e, 'check')}\n\n</div>")
    return "\n" + "\n\n".join(rows) + "\n"


@marker("checklist", block=True)
def checklist(ctx: Context) -> str:
    path = DATA_DIR / "failure_modes.toml"
    data = _toml.load(path)
    f = Fields(data.get("checklist"), where=str(path), entry="checklist")
    items = f.get("items", list)
    f.finish()
    if not items or not all(isinstance(x, str) and x.strip() for x in items):
        raise RooflineError("expected a non-empty list of strings", where=str(path),
                            entry="checklist", field="items")
    # Real checkboxes a reader can tick, each labelled by its item.
    lines = [f'<li><label><input type="checkbox"> '
             f"{html.escape(expand(x, ctx, f'{path} [checklist].items[{i}]'), quote=False)}"
             "</label></li>" for i, x in enumerate(items)]
    return '\n<ul class="rl-checklist">\n' + "\n".join(lines) + "\n</ul>\n"
