"""The leaderboard site with human studies: a "Human studies" page in every page's navigation."""
from __future__ import annotations

from grue.board.build import BoardOptions
from grue.board.export import export_board
from human_fixtures import answer_all, build_study


def test_the_site_links_and_writes_the_human_page(tmp_path):
    study, tokens = build_study(tmp_path, algos=("supervised", "ppo"))
    for n, token in enumerate(tokens.values()):
        answer_all(study, token, lambda item, order, n=n: {"sentiment": str(1 + (n + len(item.sample_id)) % 5),
                                                           "coherence": str(2 + n)})
    _, written = export_board([tmp_path / "runs"], tmp_path / "out", ["html"], BoardOptions(studies=(str(study.root),)))
    site = tmp_path / "out" / "site"
    assert site / "human.html" in written["html"]
    assert '<a href="human.html">Human studies</a>' in (site / "index.html").read_text()
    page = (site / "human.html").read_text()
    assert 'class="here">Human studies' in page and "paper (Table 9)" in page and 'src="human_figure2.png"' in page
    assert (site / "human_figure2.png").exists()


def test_without_studies_the_site_has_no_human_page(tmp_path):
    build_study(tmp_path)
    _, written = export_board([tmp_path / "runs"], tmp_path / "out", ["html"])
    assert not (tmp_path / "out" / "site" / "human.html").exists()
    assert "Human studies" not in (tmp_path / "out" / "site" / "index.html").read_text()
