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


# DRLC's own answer format: a heading per label, numbered span lines under it (issue 27: such an
# answer with negative spans used to parse as "none identified" and earn nothing, uncounted).
PAPER_ANSWER = """Positive spans: None identified
Negative spans:
[Span 1]: "dull, lifeless bore"
[Span 2]: "the ending felt rushed"
"""


def test_the_paper_s_heading_and_numbered_span_format_is_read_with_each_heading_s_label():
    critique = parse_critique(PAPER_ANSWER, SENTIMENT)
    assert critique.outcome == "spans"
    assert critique.spans == (("Negative", "dull, lifeless bore"), ("Negative", "the ending felt rushed"))
    assert critique.none_under == ("Positive",)  # counted apart: the critic looked and found none


def test_headings_in_bold_on_their_own_line_with_none_identified_below_them():
    answer = "**Positive Spans**\n- [Span 1]: “a joy to watch”\n\n**Negative Spans**\nNone identified\n"
    critique = parse_critique(answer, SENTIMENT)
    assert critique.spans == (("Positive", "a joy to watch"),) and critique.none_under == ("Negative",)


def test_none_identified_under_every_heading_is_none_not_malformed_and_not_failed():
    critique = parse_critique("Positive spans: None identified\nNegative spans: None identified", SENTIMENT)
    assert (critique.outcome, critique.spans, critique.none_under) == ("none", (), ("Positive", "Negative"))
    assert parse_critique("Positive spans:\nNegative spans:", SENTIMENT).outcome == "malformed"  # said nothing


def test_span_lines_outside_any_declared_heading_belong_to_no_label():
    answer = 'Neutral spans:\n[Span 1]: "the plot"\nNegative spans:\n[Span 1]: "thin"'
    assert parse_critique(answer, SENTIMENT).spans == (("Negative", "thin"),)
    assert parse_critique('[Span 1]: "thin"', SENTIMENT).outcome == "malformed"


def test_the_lines_format_does_not_read_numbered_span_lines():
    critique = parse_critique(PAPER_ANSWER, SENTIMENT, answer_format="lines")
    assert (critique.outcome, critique.spans) == ("malformed", ())  # counted, not taken for "none identified"
    assert parse_critique('Negative: "thin"', SENTIMENT, answer_format="lines").spans == (("Negative", "thin"),)


def test_a_line_with_two_labels_gives_each_span_its_own_label():
    critique = parse_critique('Positive: "great cast", Negative: "weak plot", "slow"', SENTIMENT)
    assert critique.spans == (("Positive", "great cast"), ("Negative", "weak plot"), ("Negative", "slow"))
    # a label word inside a quoted span is text, not a label
    assert parse_critique('Negative: "not Positive: at all"', SENTIMENT).spans == (("Negative", "not Positive: at all"),)
    both = parse_critique("Factually Incorrect: 5 million, Incoherent: parks parks", SUMMARY)
    assert both.spans == (("Factually Incorrect", "5 million"), ("Incoherent", "parks parks"))
