"""Page assembly: one self-contained HTML file (inline CSS, vendored Vega/Vega-Lite, data as JSON, plain JS).

The page never loads anything: the vendored bundles and ``report.js`` (after ``errors.js``, the
sample table's error-class filter) are inlined in ``<script>`` tags, and the report's data sits in a ``<script type="application/json">``
block from which ``report.js`` draws the charts and the sample table. Every text that
comes from the input reaches the page either through :func:`esc` (HTML) or through
:func:`script_json` (JSON with ``<``, ``>`` and ``&`` escaped), never as markup.
"""

from __future__ import annotations

import functools
import html
import re
from pathlib import Path

import msgspec

from aggregator.version import __version__

ASSETS = Path(__file__).parent / "assets"
VENDORED = ("vega.min.js", "vega-lite.min.js")
REPORT_ASSETS = (*VENDORED, "report.css", "errors.js", "report.js")
_JSON_ESCAPES = ((b"<", b"\\u003c"), (b">", b"\\u003e"), (b"&", b"\\u0026"))
_CODE = re.compile(r"`([^`]*)`")


class AssetError(RuntimeError):
    """A vendored asset is missing or cannot be inlined safely."""


def esc(value: object) -> str:
    """Text for HTML content or a quoted attribute."""
    return html.escape(str(value), quote=True)


def esc_code(value: object) -> str:
    """:func:`esc`, with Markdown-style `code` spans shown as ``<code>``."""
    return _CODE.sub(r"<code>\1</code>", esc(value))


@functools.cache
def asset(name: str) -> bytes:
    """An asset's bytes, checked to be safe inside a ``<script>`` or ``<style>`` element."""
    try:
        data = (ASSETS / name).read_bytes()
    except OSError as exc:
        raise AssetError(f"report asset {name} is missing ({exc.strerror})") from None
    if b"</script" in data.lower() or b"</style" in data.lower():
        raise AssetError(f"report asset {name} contains a closing tag and cannot be inlined")
    return data


def script_json(value: object) -> bytes:
    """``value`` as JSON that cannot end the ``<script>`` element it sits in.

    ``<``, ``>`` and ``&`` become ``\\u003c``, ``\\u003e``, ``\\u0026``: the same JSON
    to ``JSON.parse`` and inert to the HTML parser. NaN and infinities become null.
    """
    data = msgspec.json.encode(value)
    for raw, escaped in _JSON_ESCAPES:
        if raw in data:
            data = data.replace(raw, escaped)
    return data


def page(*, title: str, body: str, data: object) -> bytes:
    """The whole HTML document: ``body`` is trusted markup built with :func:`esc`."""
    scripts = b"".join(b"<script>" + asset(name) + b"</script>\n" for name in VENDORED)
    return b"".join(
        (
            b'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n',
            b'<meta name="viewport" content="width=device-width, initial-scale=1">\n',
            f'<meta name="generator" content="absa-aggregator {esc(__version__)}">\n'.encode(),
            f"<title>{esc(title)}</title>\n".encode(),
            b"<style>\n" + asset("report.css") + b"</style>\n</head>\n<body>\n",
            body.encode("utf-8"),
            b'\n<script type="application/json" id="report-data">' + script_json(data) + b"</script>\n",
            scripts,
            b"<script>" + asset("errors.js") + b"\n" + asset("report.js") + b"</script>\n</body>\n</html>\n",
        )
    )
