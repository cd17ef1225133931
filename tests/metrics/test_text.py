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


def test_treebank_tokens_equal_nltks_own_tokenizer():
    """The tokenizer runs NLTK's patterns on the stdlib engine; every token must be NLTK's own."""
    from nltk.tokenize import NLTKWordTokenizer

    from grue.assets.rotten_tomatoes import rotten_tomatoes_rows
    from grue.metrics.text import _treebank

    tricky = ["It's live-action, isn't it?", "\"Gimme\" -- she said: 'cannot'... (really) [sic] {x} <y>",
              "«Quoted» “curly” ‘single’ ``tex'' 3,000.50 $5 @you #tag 50% & co; wanna go?",
              "He said 'tis so; 'twas not.", "Ends with quote.\"", "I'D, YOU'LL, WE'RE, CAN'T", "em—dash – en"]
    texts = tricky + [text for text, _ in rotten_tomatoes_rows()[:2000]]
    nltk_tokenizer = NLTKWordTokenizer()
    ours = _treebank()
    assert type(ours) is not NLTKWordTokenizer  # the stdlib-engine subclass is what is compared
    for text in texts:
        for parens in (False, True):
            assert ours.tokenize(text, convert_parentheses=parens) == nltk_tokenizer.tokenize(
                text, convert_parentheses=parens), text
