"""Quoted spans located in the generation and mapped onto the policy's sampled tokens."""
import pytest

from grue.rewards.critic.parse import Critique
from grue.rewards.critic.token_spans import locate, span_token_rewards, token_char_offsets

SIGNS = {"Positive": 1.0, "Negative": -1.0}


@pytest.fixture(scope="module")
def smollm_tokenizer():
    from transformers import AutoTokenizer

    from grue.assets import resolve_model

    return AutoTokenizer.from_pretrained(resolve_model("packaged:smollm2-135m"))


@pytest.mark.slow
def test_spans_land_on_the_right_smollm2_tokens_checked_by_hand(smollm_tokenizer):
    tok = smollm_tokenizer
    ids = tok(" was a joy to watch, but the ending felt rushed. A joy!", add_special_tokens=False)["input_ids"]
    # by hand: Ġwas Ġa Ġjoy Ġto Ġwatch , Ġbut Ġthe Ġending Ġfelt Ġrushed . ĠA Ġjoy !
    assert tok.convert_ids_to_tokens(ids) == ["Ġwas", "Ġa", "Ġjoy", "Ġto", "Ġwatch", ",", "Ġbut", "Ġthe", "Ġending",
                                              "Ġfelt", "Ġrushed", ".", "ĠA", "Ġjoy", "!"]
    ids = ids + [tok.eos_token_id]  # the episode ended with EOS: it decodes to nothing and earns nothing
    text, offsets = token_char_offsets(tok, ids)
    assert text == " was a joy to watch, but the ending felt rushed. A joy!"
    assert offsets[:3] == [(0, 4), (4, 6), (6, 10)] and offsets[-1] == (55, 55)
    critique = Critique("spans", (("Positive", "a joy to watch"),       # tokens 1-4 (the space of " a" included)
                                  ("Negative", "ending felt rushed"),   # tokens 8-10
                                  ("Positive", "joy"),                  # twice: tokens 2 and 13
                                  ("Negative", "boring")))              # nowhere
    rewards, counts = span_token_rewards(text, offsets, critique, SIGNS, 1.0)
    assert rewards == [0, 1, 1, 1, 1, 0, 0, 0, -1, -1, -1, 0, 0, 1, 0, 0]
    assert (counts.marked, counts.matched, counts.repeated, counts.unmatched) == (4, 2, 1, 1)


@pytest.mark.slow
def test_a_word_split_into_sub_tokens_marks_every_piece(smollm_tokenizer):
    tok = smollm_tokenizer
    ids = tok(" dull, lifeless bore", add_special_tokens=False)["input_ids"]
    assert tok.convert_ids_to_tokens(ids) == ["Ġdull", ",", "Ġlif", "eless", "Ġbore"]
    text, offsets = token_char_offsets(tok, ids)
    rewards, _ = span_token_rewards(text, offsets, Critique("spans", (("Negative", "lifeless"),)), SIGNS, 0.5)
    assert rewards == [0, 0, -0.5, -0.5, 0]


def test_offsets_of_sampled_tokens_tile_the_decoded_text(tiny_tokenizer):
    """Any token sequence, canonical or not, unicode split over byte tokens included."""
    for sentence in ("Ein schöner Film über Freundschaft.", "dogs run\n\nin the park"):
        ids = tiny_tokenizer(sentence, add_special_tokens=False)["input_ids"]
        for sequence in (ids, list(reversed(ids)), ids + [tiny_tokenizer.eos_token_id]):
            text, offsets = token_char_offsets(tiny_tokenizer, sequence)
            assert "".join(text[s:e] for s, e in offsets) == text
            assert all(s <= e for s, e in offsets)


def test_overlapping_positive_and_negative_spans_net_out_and_stay_in_range():
    text, offsets = "good bad", [(0, 4), (4, 8)]
    critique = Critique("spans", (("Positive", "good bad"), ("Negative", "bad"), ("Positive", "good"),
                                  ("Positive", "good")))
    rewards, counts = span_token_rewards(text, offsets, critique, SIGNS, 2.0)
    assert rewards == [2.0, 0.0]
    assert counts.matched == 4


def test_locate_prefers_exact_case_then_falls_back_to_any_case():
    assert locate("Great, great fun", "great") == [(7, 12)]
    assert locate("GREAT fun", "great") == [(0, 5)]
    assert locate("fun (really)", "(really)") == [(4, 12)]
    assert locate("fun", "boring") == []
