"""The shared tokenisers: sentence splitting around abbreviations, and memoised immutable results."""
from grue.metrics.text import clear_text_caches, split_sentences, treebank_tokens, word_tokens


def test_sentences_end_at_terminal_punctuation_and_newlines():
    assert split_sentences("One. Two! Three?\nFour") == ("One.", "Two!", "Three?", "Four")


def test_initialisms_and_titles_do_not_end_a_sentence():
    text = "Mr. Smith moved to the U.S. in May. Dr. Jones did not."
    assert split_sentences(text) == ("Mr. Smith moved to the U.S. in May.", "Dr. Jones did not.")
    # so the Treebank tokens keep the abbreviation whole, as word_tokenize (with punkt) does
    assert treebank_tokens(text)[:2] == ("Mr.", "Smith")


def test_a_newline_always_splits_even_after_an_abbreviation():
    assert split_sentences("moved to the U.S.\nThen") == ("moved to the U.S.", "Then")


def test_results_are_shared_tuples():
    first = word_tokens("The cat, the MAT.")
    assert first == ("the", "cat", "the", "mat")
    assert word_tokens("The cat, the MAT.") is first  # memoised: a second metric reuses the work
    clear_text_caches()  # as ScorerSet.compute does after an evaluation
    assert word_tokens("The cat, the MAT.") is not first
