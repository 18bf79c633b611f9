"""docs/quickstart.ipynb executed as Jupyter executes it (nbclient, an IPython kernel running
this Python with the project importable), then its outputs opened in headless Chromium as
nbconvert's HTML export lays them out: one page, each cell's HTML output in turn."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from engine import GameRecord
from publish import ShowError, show
from tests.publish.conftest import Visit, _require

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = ROOT / "docs" / "quickstart.ipynb"


@pytest.fixture(scope="module")
def executed(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The quick start, run in a temporary folder by a kernel of this venv's Python (its
    connection file and IPython profile there too: nothing written under $HOME)."""
    try:
        import nbformat
        from jupyter_client.kernelspec import KernelSpecManager
        from jupyter_client.manager import KernelManager
        from nbclient import NotebookClient
    except ImportError as err:
        _require(f"{err.name} is not installed (pip install -e '.[dev]')")
    base = tmp_path_factory.mktemp("notebook")
    spec = base / "kernels" / "arena"
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "arena", "language": "python",
        "env": {"PYTHONPATH": str(ROOT), "IPYTHONDIR": str(base / "ipython")}}))
    km = KernelManager(kernel_name="arena", connection_file=str(base / "connection.json"),
                       kernel_spec_manager=KernelSpecManager(kernel_dirs=[str(spec.parent)]))
    nb = nbformat.read(NOTEBOOK, as_version=4)
    work = base / "work"
    work.mkdir()
    NotebookClient(nb, km=km, timeout=180, resources={"metadata": {"path": str(work)}}).execute()
    return nb


def _html(nb: Any) -> list[str]:
    return [out["data"]["text/html"] for cell in nb.cells if cell.cell_type == "code"
            for out in cell.get("outputs", []) if "text/html" in out.get("data", {})]


def test_the_quickstart_runs_and_shows_three_replays_and_the_ranking(executed: Any) -> None:
    errors = [out for cell in executed.cells if cell.cell_type == "code"
              for out in cell.outputs if out.output_type == "error"]
    assert not errors
    shown = _html(executed)
    kinds = [re.search(r'class="arena-(\w+)"', h).group(1) for h in shown]
    assert kinds == ["replay", "ranking", "replay", "replay", "ranking"]   # last: %load_ext's
    ids = [re.search(r'<iframe id="([^"]+)"', h).group(1) for h in shown]
    assert len(set(ids)) == 5
    assert 'id=&quot;analysis&quot;' in shown[3] and "id=&quot;analysis&quot;" not in shown[0]
    for html in shown:      # everything inline: no address to load anything from (an inline
        # chart's SVG namespace is a name, not an address)
        html = html.replace("xmlns=&quot;http://www.w3.org/2000/svg&quot;", "")
        assert not re.search(r"(src|href)=&quot;(https?:)?//|https?://", html)
    texts = [out for cell in executed.cells if cell.cell_type == "code"
             for out in cell.outputs if "text/plain" in out.get("data", {})]
    assert texts[-3]["data"]["text/plain"] == "<replay: Game: heuristic vs greedy vs random>"
    assert texts[-2]["data"]["text/plain"] == "<replay: Game: random vs greedy>"   # analysed
    assert texts[-1]["data"]["text/plain"].startswith("Ranking(")   # the object itself


def test_the_quickstart_outputs_work_in_chromium(executed: Any, visit: Visit,
                                                 tmp_path: Path) -> None:
    page_file = tmp_path / "quickstart.html"
    page_file.write_text("<!doctype html><html><head><meta charset=\"utf-8\"></head><body>"
                         + "".join(f'<div class="output">{h}</div>' for h in _html(executed))
                         + "</body></html>", encoding="utf-8")
    page = visit.open(page_file)
    first, ranking, second, costs, again = (page.frame_locator(f"iframe >> nth={n}")
                                            for n in range(5))
    assert first.locator("#where").inner_text() == "Round 1 · Turn 1 of 10"
    first.locator("#next").click()
    assert first.locator("#where").inner_text() == "Round 1 · Turn 2 of 10"
    page.keyboard.press("ArrowRight")           # the keys step the replay clicked into
    assert first.locator("#where").inner_text() == "Round 1 · Turn 3 of 10"
    assert second.locator("#where").inner_text() == "Round 1 · Turn 1 of 9"   # its own ids
    second.locator("#last").click()
    assert second.locator("#final-scores tbody tr").count() == 3
    names = ranking.locator("#ranking tbody td:nth-child(2)").all_inner_texts()
    assert sorted(names) == ["greedy", "heuristic", "random"]
    ranking.locator("#ranking thead th", has_text="bot").click()     # sort.js works inside
    assert ranking.locator("#ranking tbody td:nth-child(2)").all_inner_texts() == sorted(names)
    assert again.locator("#ranking tbody td:nth-child(2)").all_inner_texts() == names
    # analyse=True: every seat's pick marked at turn 1, the costliest pick's link steps there.
    assert costs.locator("#board .costnote").count() == 2
    link = costs.locator("#costliest a").first
    where = link.inner_text()                     # "round R, turn T"
    link.click()
    rnd, turn = re.findall(r"\d+", where)
    assert costs.locator("#where").inner_text() == f"Round {rnd} · Turn {turn} of 10"
    assert costs.locator("#analysis + p + svg polyline").count() == 2
    frame = page.locator("iframe").nth(2)     # fitted to its content: nothing cut off
    height = frame.evaluate("f => f.getBoundingClientRect().height")
    inner = frame.evaluate("f => f.contentDocument.body.getBoundingClientRect().height")
    assert inner <= height <= inner + 8
    visit.shot("notebook")


def test_show_takes_records_in_every_form_and_refuses_the_rest(tmp_path: Path) -> None:
    from tests.publish.helpers import play_record
    record = play_record(["a", "b"], 5)
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record))
    pages = {show(x).page for x in (record, GameRecord.from_json(record), path, str(path))}
    assert len(pages) == 1 and '"players":["a","b"]' in pages.pop()
    with pytest.raises(ShowError, match="^cannot show a int: show takes a game"):
        show(3)
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    with pytest.raises(ShowError, match=r"bad\.json is not a game record"):
        show(bad)
    with pytest.raises(ShowError, match=r"holds no tournament \(no tournament\.db\)$"):
        show(tmp_path)
    with pytest.raises(ShowError, match="^analyse=True marks a game's picks"):
        show(tmp_path, analyse=True)
    assert 'id="analysis"' in show(path, analyse=True).page
