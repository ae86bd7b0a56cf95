"""Evaluation reports: the recall / all-gold table and the evidence-density table, as
Markdown or text, and the misses."""

from __future__ import annotations

from collections.abc import Sequence

from graphrag.eval.outcomes import ALL, EvalReport


def _pct(x: float) -> str:
    return f"{100 * x:.1f}"


def _pct_or_dash(share: float | None) -> str:
    return "-" if share is None else _pct(share)


def table(report: EvalReport) -> tuple[list[str], list[list[str]]]:
    """Header and rows: per budget and system, recall and all-gold per type, tokens."""
    types = (*report.types, ALL)
    counts = {t: len(report.outcomes_for(report.systems[0], report.budgets[0], t)) for t in types}
    header = ["budget", "system"]
    header += [f"recall {t} (n={counts[t]})" for t in types]
    header += [f"all-gold {t}" for t in types]
    header += ["tokens used"]
    rows = []
    for budget in report.budgets:
        for system in report.systems:
            cells = [report.row(system, budget, t) for t in types]
            rows.append(
                [str(budget), system]
                + [_pct(c.recall) for c in cells]
                + [_pct(c.all_gold) for c in cells]
                + [f"{cells[-1].tokens:.0f}"]
            )
    return header, rows


def density_table(report: EvalReport) -> tuple[list[str], list[list[str]]]:
    """Header and rows: per budget and system, the notes shown and those named as
    copies of them, evidence density (those notes, and recall, per 1,000 tokens used)
    and where the budget went, in percent of the budget: note text, entry lists, the
    keys saying how notes relate (``context.RELATION_KEYS``), the rest of the notes'
    metadata; then the answer words found in the context and in the gold notes' text
    (``answers.py``; ``-`` when no question has a reference answer)."""
    header = [
        "budget",
        "system",
        "notes",
        "copies named",
        "notes/1k tokens",
        "recall/1k tokens",
        "% used",
        "% note text",
        "% lists",
        "% relations",
        "% other metadata",
        "gold as copy",
        "% answer words",
        "% answer words in gold notes",
    ]
    rows = []
    for budget in report.budgets:
        for system in report.systems:
            r = report.row(system, budget, ALL)
            share = 100 / budget if budget else 0.0
            other = max(r.tokens - r.text_tokens - r.list_tokens - r.relation_tokens, 0.0)
            rows.append(
                [
                    str(budget),
                    system,
                    f"{r.notes:.1f}",
                    f"{r.named_copies:.1f}",
                    f"{r.notes_per_1k:.2f}",
                    f"{100 * r.recall_per_1k:.1f}",
                    f"{r.tokens * share:.0f}",
                    f"{r.text_tokens * share:.0f}",
                    f"{r.list_tokens * share:.0f}",
                    f"{r.relation_tokens * share:.0f}",
                    f"{other * share:.0f}",
                    str(r.copies),
                    _pct_or_dash(r.answer_words),
                    _pct_or_dash(r.answer_words_gold),
                ]
            )
    return header, rows


def render_markdown(report: EvalReport) -> str:
    """Two Markdown tables: recall and all-gold in percent with the mean tokens used;
    then evidence density and the budget's shares (``density_table``)."""
    return _markdown(*table(report)) + "\n" + _markdown(*density_table(report))


def render_text(report: EvalReport) -> str:
    """The same tables in fixed-width columns, for a terminal."""
    return _text(*table(report)) + "\n" + _text(*density_table(report))


def _markdown(header: list[str], rows: list[list[str]]) -> str:
    align = ["---:", "---"] + ["---:"] * (len(header) - 2)
    lines = [_md_row(header), _md_row(align)] + [_md_row(r) for r in rows]
    return "\n".join(lines) + "\n"


def _text(header: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]

    def line(cells: list[str]) -> str:
        return "  ".join(
            c.ljust(w) if i == 1 else c.rjust(w)
            for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        ).rstrip()

    return "\n".join([line(header), line(["-" * w for w in widths]), *map(line, rows)]) + "\n"


def render_misses(report: EvalReport, budget: int) -> str:
    """Markdown: per question, the gold notes each system missed at ``budget``."""
    header = ["id", "type", *report.systems]
    lines = [_md_row(header), _md_row(["---"] * len(header))]
    by_key = {(o.question.id, o.system): o for o in report.outcomes if o.budget == budget}
    for q in report.questions:
        cells = []
        for s in report.systems:
            o = by_key.get((q.id, s))
            cells.append(
                "—"
                if o is None
                else ("ok" if o.all_gold else ", ".join(f"`{m}`" for m in o.missing))
            )
        lines.append(_md_row([q.id, q.type, *cells]))
    return "\n".join(lines) + "\n"


def _md_row(cells: Sequence[str]) -> str:
    return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"
