"""The rater app through Flask's test client: the flow, what a rater may see, and every refusal."""
from __future__ import annotations

import re

import pytest
from sqlalchemy import func, select
from werkzeug.datastructures import MultiDict

from grue.human.app import create_app
from grue.human.db import answers, assignments, open_database
from grue.human.frame import choices_frame
from human_fixtures import build_study


def _count(study) -> int:
    engine = open_database(study.db_path)
    with engine.begin() as conn:
        n = conn.execute(select(func.count()).select_from(answers)).scalar()
    engine.dispose()
    return n


def _current(client, token: str) -> tuple[str, str]:
    page = client.get(f"/r/{token}").get_data(as_text=True)
    return re.search(r'name="item" value="([^"]+)"', page).group(1), page


@pytest.fixture
def ratings(tmp_path):
    study, tokens = build_study(tmp_path)
    return study, tokens, create_app(study.root).test_client()


def test_a_rater_answers_every_item_then_sees_the_end(ratings):
    study, tokens, client = ratings
    token = tokens["rater-01"]
    for step in range(1, 15):
        item, page = _current(client, token)
        assert f"Item {step} of 14" in page
        reply = client.post(f"/r/{token}", data={"item": item, "sentiment": "4", "coherence": "3"})
        assert reply.status_code == 303
    assert "answered all 14 items" in client.get(f"/r/{token}").get_data(as_text=True)
    assert _count(study) == 14


def test_pages_never_name_the_algorithm_or_run(ratings):
    study, tokens, client = ratings
    token = tokens["rater-02"]
    for _ in range(14):
        item, page = _current(client, token)
        for info in study.systems.values():
            assert info["algo"] not in page and info["run"] not in page
        assert "&lt;b&gt;raw&lt;/b&gt;" in page or "attention check" in page  # texts are escaped, never markup
        client.post(f"/r/{token}", data={"item": item, "sentiment": "4", "coherence": "3"})


@pytest.mark.parametrize("fields, status, message", [
    ({"sentiment": "6", "coherence": "3"}, 400, "between 1 and 5"),
    ({"sentiment": "0", "coherence": "3"}, 400, "between 1 and 5"),
    ({"sentiment": "four", "coherence": "3"}, 400, "whole number"),
    ({"sentiment": "4"}, 400, "missing answer for coherence"),
    ({"sentiment": "4", "coherence": "3", "algo": "ppo"}, 400, "form was altered"),
])
def test_bad_answers_are_refused_and_change_nothing(ratings, fields, status, message):
    study, tokens, client = ratings
    item, _ = _current(client, tokens["rater-01"])
    reply = client.post(f"/r/{tokens['rater-01']}", data={"item": item, **fields})
    assert reply.status_code == status and message in reply.get_data(as_text=True)
    assert _count(study) == 0
    assert _current(client, tokens["rater-01"])[0] == item  # still on the same item


def test_a_repeated_field_is_refused(ratings):
    study, tokens, client = ratings
    item, _ = _current(client, tokens["rater-01"])
    form = MultiDict([("item", item), ("sentiment", "4"), ("sentiment", "5"), ("coherence", "3")])
    assert client.post(f"/r/{tokens['rater-01']}", data=form).status_code == 400
    assert _count(study) == 0


def test_a_replayed_submission_is_refused(ratings):
    study, tokens, client = ratings
    token = tokens["rater-01"]
    item, _ = _current(client, token)
    form = {"item": item, "sentiment": "4", "coherence": "3"}
    assert client.post(f"/r/{token}", data=form).status_code == 303
    replay = client.post(f"/r/{token}", data={**form, "sentiment": "1"})
    assert replay.status_code == 409 and "already answered" in replay.get_data(as_text=True)
    assert _count(study) == 1


def test_a_double_click_on_submit_is_shown_as_success_and_stored_once(ratings):
    study, tokens, client = ratings
    token = tokens["rater-01"]
    item, _ = _current(client, token)
    form = {"item": item, "sentiment": "4", "coherence": "3"}
    assert client.post(f"/r/{token}", data=form).status_code == 303
    again = client.post(f"/r/{token}", data=form)
    assert again.status_code == 303 and again.headers["Location"].endswith(f"/r/{token}")
    assert _count(study) == 1 and _current(client, token)[0] != item


def test_unknown_items_tokens_and_other_raters_items_are_refused(tmp_path):
    study, tokens = build_study(tmp_path, pool=4, raters_per_item=1)
    client = create_app(study.root).test_client()
    engine = open_database(study.db_path)
    with engine.begin() as conn:
        mine = set(conn.execute(select(assignments.c.item_id).where(assignments.c.rater_id == "rater-01")).scalars())
    foreign = next(i for i in study.items if i not in mine)  # someone else's item
    for item in (foreign, "item-999", ""):
        reply = client.post(f"/r/{tokens['rater-01']}", data={"item": item, "sentiment": "4", "coherence": "3"})
        assert reply.status_code in (400, 404)
    assert client.get("/r/not-a-token").status_code == 404
    assert client.post("/r/not-a-token", data={"item": foreign}).status_code == 404
    assert client.get("/").status_code == 404
    assert _count(study) == 0


def test_an_item_other_than_the_current_one_is_refused(ratings):
    study, tokens, client = ratings
    token = tokens["rater-01"]
    current, _ = _current(client, token)
    later = next(i for i in study.items if i != current)
    reply = client.post(f"/r/{token}", data={"item": later, "sentiment": "4", "coherence": "3"})
    assert reply.status_code == 409 and _count(study) == 0


def test_cnn_dailymail_hides_the_scales_and_refuses_answers_before_15_seconds(tmp_path):
    study, tokens = build_study(tmp_path, task="cnn_dailymail")
    client = create_app(study.root).test_client()
    item, page = _current(client, tokens["rater-01"])
    assert re.search(r'id="scales"\s+hidden data-wait="1[45]"', page)
    reply = client.post(f"/r/{tokens['rater-01']}", data={"item": item, "quality": "4", "coherence": "4"})
    assert reply.status_code == 400 and "minimum reading time" in reply.get_data(as_text=True)
    assert _count(study) == 0


def test_commongen_does_not_show_the_prompt(tmp_path):
    study, tokens = build_study(tmp_path, task="commongen")
    page = create_app(study.root).test_client().get(f"/r/{tokens['rater-01']}").get_data(as_text=True)
    assert 'id="prompt"' not in page and 'id="text"' in page


def test_comparison_choice_maps_the_shown_position_back_to_the_candidate(tmp_path):
    study, tokens = build_study(tmp_path, kind="comparisons", algos=("zero_shot", "ppo", "nlpo", "supervised"))
    client = create_app(study.root).test_client()
    token = tokens["rater-01"]
    item, page = _current(client, token)
    shown = re.findall(r'class="candidate-text">([^<]*)<', page)
    assert len(shown) == 4
    assert client.post(f"/r/{token}", data={"item": item, "choice": "4"}).status_code == 400
    assert client.post(f"/r/{token}", data={"item": item, "choice": "2"}).status_code == 303
    chosen = choices_frame(study).iloc[0]["chosen"]
    chosen_text = next(c.text for c in study.items[item].candidates if c.system == chosen)
    assert chosen_text.replace("<b>", "&lt;b&gt;").replace("</b>", "&lt;/b&gt;") == shown[2]


def test_security_headers_are_set(ratings):
    _, tokens, client = ratings
    headers = client.get(f"/r/{tokens['rater-01']}").headers
    assert headers["Cache-Control"] == "no-store" and headers["Referrer-Policy"] == "no-referrer"
    assert "default-src 'self'" in headers["Content-Security-Policy"]


@pytest.mark.parametrize("task, axis_words", [("imdb", "positive about the movie"), ("commongen", "plausible everyday"),
                                              ("cnn_dailymail", "main points faithfully")])
def test_comparison_pages_and_batches_carry_comparison_instructions_with_the_task_axis(tmp_path, task, axis_words):
    from grue.human.crowd_export import batch_rows

    study, tokens = build_study(tmp_path, kind="comparisons", task=task)
    page = create_app(study.root).test_client().get(f"/r/{tokens['rater-01']}").get_data(as_text=True)
    for text in (page, batch_rows(study)[0]["instructions"]):
        assert axis_words in text and "fluent" in text
        assert "Rate the" not in text and "scales appear" not in text
    if not study.protocol["show_prompt"]:
        assert "prompt" not in study.protocol["instructions"] + study.protocol["criterion"]
