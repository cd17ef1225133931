"""Each task's loader reads its hub layout and schema (local directories written by hub_fixtures) the way a
real download is read: the paper's prompts, every reference, the metadata metrics need, hidden test
references replaced by validation, nothing scored against an empty string."""
from __future__ import annotations

import pytest

import hub_fixtures
from grue.config import load_config
from grue.data.sample import Sample
from grue.train.supervised.trainer import training_pairs
from tasks import get_task


def load(task: str, source, *extra: str) -> dict[str, list[Sample]]:
    cfg = load_config([f"task={task}", "algo=zero_shot", f"data.source={source}", *extra])
    splits = get_task(task).loader(cfg)
    for samples in splits.values():
        assert all(s.references and all(r.strip() for r in s.references) for s in samples)
    return splits


def by_id(samples: list[Sample]) -> dict[str, Sample]:
    return {s.id: s for s in samples}


def test_commongen_groups_every_target_and_scores_test_on_validation(tmp_path):
    hub_fixtures.commongen(tmp_path)
    splits = load("commongen", tmp_path)
    test = by_id(splits["test"])
    assert set(test) == {"validation-100", "validation-101"}  # the hub's hidden test split is never used
    apron = test["validation-100"]
    assert apron.prompt == "generate a sentence with: apron cut hat kitchen sausage"
    assert apron.references == ("A cook cuts.", "In a hat.")  # all targets, the blank one dropped
    assert apron.meta["concepts"] == ["apron", "cut", "hat", "kitchen", "sausage"]
    # val: as many concept sets as validation, held out of train, disjoint from it
    assert len(splits["val"]) == 2 and len(splits["train"]) == 8
    assert not {s.prompt for s in splits["val"]} & {s.prompt for s in splits["train"]}
    assert splits == load("commongen", tmp_path)  # seeded, deterministic


def test_commongen_supervised_trains_on_every_target(tmp_path):
    hub_fixtures.commongen(tmp_path)
    train = load("commongen", tmp_path)["train"]
    pairs = training_pairs(get_task("commongen"), train)
    assert len(pairs) == sum(len(s.references) for s in train) > len(train)


def test_commongen_results_say_test_is_validation():
    assert get_task("commongen").test_references_hidden and get_task("totto").test_references_hidden


def test_cnn_dailymail_reads_only_its_subset(tmp_path):
    hub_fixtures.cnn_dailymail(tmp_path)
    splits = load("cnn_dailymail", tmp_path, "data.max_test=2")
    assert [len(splits[s]) for s in ("train", "val", "test")] == [6, 3, 2]
    sample = by_id(splits["val"])["validation1"]
    assert sample.prompt == "Summarize: (3.0.0) Article validation 1. It rained in Leeds."
    assert sample.references == ("Rain in Leeds 1.\nMore rain.",)  # line breaks kept for ROUGE-Lsum
    assert sample.meta["document"] == "(3.0.0) Article validation 1. It rained in Leeds."


def test_totto_linearised_subtable_all_annotations_and_parent_tables(tmp_path):
    hub_fixtures.totto(tmp_path)
    splits = load("totto", tmp_path)
    test = by_id(splits["test"])
    assert set(test) == {"v0", "v1"}  # validation, not the hidden test split
    v0 = test["v0"]
    assert v0.references == ("In 2002 Smith scored 9 goals for Leeds.", "Smith: 9 goals in 2002.")
    # Column headers are every header cell above (ToTTo's heuristic), so 2001 heads 2002 too.
    cells = ("<table> <cell> 2002 <col_header> Season </col_header> <col_header> 2001 </col_header> </cell> "
             "<cell> 9 <col_header> Goals </col_header> <row_header> 2002 </row_header> </cell> </table>")
    metadata = "<page_title> Ann Smith </page_title> <section_title> Career </section_title> "
    assert v0.prompt == cells + metadata + cells  # without, then with metadata (paper B.6.4)
    assert v0.meta["recall_table"] == [("Season 2001", "2002"), ("Goals 2002", "9")]
    assert ("page_title", "Ann Smith") in v0.meta["table"] and ("header", "Goals") in v0.meta["table"]
    assert v0.meta["overlap_subset"] == "overlap"
    assert test["v1"].prompt.startswith(
        "<table> <cell> 30 <col_header> Apps </col_header> <row_header> 2001 </row_header> </cell> </table>")
    assert len(splits["val"]) == 2 and len(splits["train"]) == 6


def test_totto_headers_follow_row_spans(tmp_path):
    hub_fixtures.totto(tmp_path)
    train = load("totto", tmp_path)["train"] + load("totto", tmp_path)["val"]
    # train rows highlight [2, 2]: in the spanned row that is "9" under Goals (not "28" under Apps)
    assert all(s.prompt.startswith("<table> <cell> 9 <col_header> Goals </col_header>") for s in train)


@pytest.mark.parametrize(("extra", "layout", "subset"), [
    ((), "files", "de-en"),  # WMT16, the paper's corpus
    (("data.config=iwslt2017-en-de", "data.revision=refs/convert/parquet"), "converted", "iwslt2017-en-de"),
])
def test_translation_from_wmt16_or_iwslt2017(tmp_path, extra, layout, subset):
    hub_fixtures.translation(tmp_path, subset, layout)
    hub_fixtures.translation(tmp_path, "cs-en", "files")  # another language pair in the same repository
    splits = load("wmt16", tmp_path, *extra)
    assert [len(splits[s]) for s in ("train", "val", "test")] == [5, 3, 3]  # the pair without German dropped
    sample = by_id(splits["test"])["test-2"]
    assert sample.prompt == f"translate English to German: The house {subset} test 2."
    assert sample.references == (f"Das Haus {subset} test 2.",)


def test_narrativeqa_unifiedqa_prompt_both_answers_no_books(tmp_path):
    hub_fixtures.narrativeqa(tmp_path)
    splits = load("narrativeqa", tmp_path)
    assert [len(splits[s]) for s in ("train", "val", "test")] == [4, 2, 3]
    sample = by_id(splits["test"])["test-1"]
    assert sample.prompt == "where does mira live? \\n mira lives in greycliff 1."
    assert sample.references == ("greycliff 1", "in greycliff 1")
    assert "book" not in sample.prompt


def test_dailydialog_five_utterance_context_and_gold_intent(tmp_path):
    hub_fixtures.dailydialog(tmp_path)
    splits = load("dailydialog", tmp_path)
    samples = sorted(splits["test"], key=lambda s: s.id)
    assert [s.id for s in samples] == ["test-0-5", "test-0-6"]  # only turns with five previous utterances
    first = samples[0]
    utterances = [f"Utterance {k} ? " if k % 2 else f"Utterance {k} . " for k in range(5)]
    assert first.prompt == "<EOU>".join(utterances) + " <EOU>"
    assert first.references == ("Utterance 5 ?",)
    assert first.meta == {"context": "Utterance 4 .", "intent": 1, "emotion": 4}  # act 2 (question) -> index 1
    assert "Utterance 0" not in samples[1].prompt  # the window slides: last five only


def test_prompt_suffix_is_appended_after_the_task_prompt(tmp_path):
    hub_fixtures.cnn_dailymail(tmp_path)
    splits = load("cnn_dailymail", tmp_path, "data.prompt_suffix=' TL;DR:'")
    assert all(s.prompt.endswith(". It rained in Leeds. TL;DR:") for s in splits["test"])
