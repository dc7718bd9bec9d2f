"""What the swarm's and the structure lab's HTML reports share: matplotlib set up to draw SVG into the page,
an SVG of a figure, an HTML table and the page's style. The pages are self-contained: no network and no script
is needed to open them (docs/dependencies.md says why matplotlib)."""

from __future__ import annotations

import html
import io
from collections.abc import Sequence
from typing import Any

STYLE = """
body { font: 14px system-ui, sans-serif; margin: 1.5rem; color: #222; max-width: 75rem; }
table { border-collapse: collapse; margin: 0.5rem 0 1.2rem; }
td, th { border-bottom: 1px solid #ddd; padding: 0.25rem 0.6rem; text-align: left; }
td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; }
.passed { color: #1d7a2c; } .failed { color: #b00; font-weight: bold; }
.charts { display: flex; flex-wrap: wrap; gap: 1rem; }
figure.chart { margin: 0; } figure.chart svg { max-width: 100%; height: auto; }
.wide { overflow-x: auto; max-width: 100%; }
"""


def pyplot() -> Any:
    """matplotlib's pyplot for files only (no display), text kept as text in the SVG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams.update({"svg.fonttype": "none", "font.size": 9})
    return plt


def svg(figure: Any) -> str:
    """The figure as an inline ``<svg>`` element, closed once drawn."""
    out = io.StringIO()
    figure.savefig(out, format="svg", bbox_inches="tight")
    pyplot().close(figure)
    text = out.getvalue()
    return text[text.index("<svg"):]


def figures(drawn: Sequence[tuple[str, str]]) -> str:
    return "".join(f'<figure class="chart" data-title="{html.escape(title)}">{image}</figure>'
                   for title, image in drawn)


def table(header: Sequence[str], rows: Sequence[Sequence[Any]], css: str = "") -> str:
    head = "".join(f"<th>{html.escape(str(cell))}</th>" for cell in header)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(str(cell))}</td>" for cell in row) + "</tr>" for row in rows)
    # a table wider than the page (Locust's 22 columns) scrolls in its own box, never the page
    return f'<div class="wide"><table class="{css}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>'
