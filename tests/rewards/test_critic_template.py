"""Critic prompt templates: the built-in ones follow the paper's structure; user files are checked."""
import pytest

from grue.rewards.critic.template import TemplateError, built_in_names, load_template, template_for_task


@pytest.mark.parametrize("name", ["sentiment", "summarisation", "generic"])
def test_built_in_templates_have_steps_three_examples_and_the_sample(name):
    template = load_template(name)
    body = template.body
    assert "1." in body and "2." in body and "3." in body          # numbered annotation steps
    assert body.count("Example ") == 3                            # three worked examples
    assert body.index("Example 3") < body.index("{generation}")   # then the sample
    assert all(sign in (1.0, -1.0) for sign in template.labels.values())


def test_the_summarisation_template_shows_the_extrinsic_score():
    text = load_template("summarisation").render("Article text.", "A summary.", 7.25)
    assert "Summary Score: 7.2/10" in text and "Summary: A summary." in text and "Article: Article text." in text


def test_tasks_pick_their_template_and_others_fall_back_to_generic():
    assert template_for_task("imdb", None).name == "sentiment"
    assert template_for_task("cnn_dailymail", None).name == "summarisation"
    assert template_for_task("totto", None).name == "generic"
    assert template_for_task("totto", "sentiment").name == "sentiment"
    assert set(built_in_names()) == {"sentiment", "summarisation", "generic"}


def test_a_user_template_file_is_read_and_braces_in_its_body_survive(tmp_path):
    path = tmp_path / "mine.txt"
    path.write_text("# mine\nlabels: Good=+1, Bad=-0.5\n---\nJSON like {\"a\": 1}. Text: {generation}\n")
    template = load_template(str(path))
    assert template.labels == {"Good": 1.0, "Bad": -0.5}
    assert template.render("p", "hello", 0.0) == 'JSON like {"a": 1}. Text: hello\n'
    assert template.digest != load_template("generic").digest


@pytest.mark.parametrize("content, complaint", [
    ("labels: A=+1\nno separator {generation}\n", "'---'"),
    ("# no labels\n---\n{generation}\n", "labels:"),
    ("labels: A=plus\n---\n{generation}\n", "bad labels entry"),
    ("labels: A=+1\n---\nno placeholder\n", "{generation}"),
    ("labels: A=nan\n---\n{generation}\n", "bad labels entry"),
    ("labels: A=inf\n---\n{generation}\n", "bad labels entry"),
])
def test_broken_template_files_are_refused_with_the_reason(tmp_path, content, complaint):
    path = tmp_path / "broken.txt"
    path.write_text(content)
    with pytest.raises(TemplateError) as err:
        load_template(str(path))
    assert complaint in str(err.value)


def test_an_unknown_template_name_lists_the_built_in_ones():
    with pytest.raises(TemplateError, match="sentiment"):
        load_template("sentimentt")


@pytest.mark.parametrize("encode, complaint", [
    (lambda text: text.encode("utf-16"), "not UTF-8 (looks like UTF-16"),
    (lambda text: text.encode("cp1252"), "not UTF-8 at line 3 (looks like Windows-1252"),
])
def test_a_template_that_is_not_utf8_is_named_not_a_decode_traceback(tmp_path, encode, complaint):
    path = tmp_path / "mine.txt"
    path.write_bytes(encode("labels: A=+1\n---\nÉvaluez la critique: {generation}\n"))
    with pytest.raises(TemplateError, match=complaint.replace("(", ".")):
        load_template(str(path))


def test_a_template_saved_with_windows_line_ends_reads_like_any_other(tmp_path):
    path = tmp_path / "mine.txt"
    path.write_bytes(b"labels: A=+1\r\n---\r\nJudge: {generation}\r\n")
    assert "{generation}" in load_template(str(path)).body


# Each built-in label's sign, written down here from the paper (DRLC: positive spans +1, negative and
# flawed spans -1), not read from the template files: flipping one in a file must fail one case here.
BUILT_IN_SIGNS = [("sentiment", "Positive", 1.0), ("sentiment", "Negative", -1.0),
                  ("summarisation", "Factually Incorrect", -1.0), ("summarisation", "Irrelevant", -1.0),
                  ("summarisation", "Incoherent", -1.0), ("generic", "Good", 1.0), ("generic", "Flawed", -1.0)]


@pytest.mark.parametrize("name, label, sign", BUILT_IN_SIGNS)
def test_a_span_under_each_built_in_label_earns_that_label_s_sign_on_its_tokens(name, label, sign):
    from grue.rewards.critic.parse import parse_critique
    from grue.rewards.critic.token_spans import span_token_rewards

    template = load_template(name)
    assert sorted(template.labels) == sorted(lab for n, lab, _ in BUILT_IN_SIGNS if n == name)
    text = "the plot was thin"
    offsets = [(0, 3), (3, 8), (8, 12), (12, 17)]  # one token a word, its leading space included
    critique = parse_critique(f'{label}: "plot was"', list(template.labels))
    rewards, _ = span_token_rewards(text, offsets, critique, template.labels, 1.0)
    assert rewards == [0.0, sign, sign, 0.0]


def test_a_template_may_name_its_answer_format(tmp_path):
    path = tmp_path / "mine.txt"
    path.write_text("labels: Good=+1\nanswer format: lines\n---\n{generation}\n")
    assert load_template(str(path)).answer_format == "lines"
    assert load_template("sentiment").answer_format == "headed"  # the default reads both formats
    path.write_text("labels: Good=+1\nanswer format: prose\n---\n{generation}\n")
    with pytest.raises(TemplateError, match="answer format"):
        load_template(str(path))
