"""The critic's answers, well and badly formed, to labelled spans and a counted outcome."""
from grue.rewards.critic.parse import parse_critique

SENTIMENT = ["Positive", "Negative"]
SUMMARY = ["Factually Incorrect", "Irrelevant", "Incoherent"]


def test_labelled_quoted_spans_are_read_in_order():
    answer = 'Positive: "a joy to watch"\nNegative: "the ending felt rushed"\n'
    critique = parse_critique(answer, SENTIMENT)
    assert critique.outcome == "spans"
    assert critique.spans == (("Positive", "a joy to watch"), ("Negative", "the ending felt rushed"))


def test_bullets_numbering_case_and_curly_quotes_are_tolerated():
    answer = '1. positive: “great cast”\n- **NEGATIVE**: "weak", "slow"\nSome closing remark.'
    critique = parse_critique(answer, SENTIMENT)
    assert critique.spans == (("Positive", "great cast"), ("Negative", "weak"), ("Negative", "slow"))


def test_multi_word_labels_and_unquoted_spans():
    answer = "Factually Incorrect: 5 million dollars.\nIncoherent - parks parks"
    critique = parse_critique(answer, SUMMARY)
    assert critique.spans == (("Factually Incorrect", "5 million dollars"), ("Incoherent", "parks parks"))


def test_none_identified_refusal_malformed_and_missing_answers_are_told_apart():
    assert parse_critique("None identified", SENTIMENT).outcome == "none"
    assert parse_critique("Positive: None identified", SENTIMENT).outcome == "none"
    assert parse_critique("I'm sorry, but I cannot help with that.", SENTIMENT).outcome == "refusal"
    assert parse_critique("The review is quite nice overall.", SENTIMENT).outcome == "malformed"
    assert parse_critique("Positive:", SENTIMENT).outcome == "malformed"
    assert parse_critique("", SENTIMENT).outcome == "malformed"
    assert parse_critique(None, SENTIMENT).outcome == "failed"


def test_unknown_labels_are_not_spans():
    critique = parse_critique('Neutral: "the plot"\nPositive: "lovely"', SENTIMENT)
    assert critique.spans == (("Positive", "lovely"),)
