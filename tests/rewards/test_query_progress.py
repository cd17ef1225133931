"""Query sampling's progress: a running count, said once as it passes each tenth of the total."""
from grue.runtime.console import tenths


def test_tenths_says_the_first_count_past_each_tenth_and_the_end():
    said = []
    report = tenths(1000, said.append, "queries")
    for done in [*range(0, 1000, 16), 1000]:  # chunks of 16, as make_queries reports them
        report(done)
    counts = [int(line.split(": ")[1].split("/")[0]) for line in said]
    # 112 is the first multiple of 16 at or past 100, 208 past 200, ...; 1000 is the end
    assert counts == [112, 208, 304, 400, 512, 608, 704, 800, 912, 1000]
    assert said[-1] == "queries: 1000/1000"


def test_a_resumed_count_is_said_once_and_nothing_is_said_for_zero():
    said = []
    report = tenths(100, said.append, "q")
    report(0)
    assert said == []
    report(64)  # resumed at 64: one line, then the next tenth is 70
    report(68)
    report(70)
    assert said == ["q: 64/100", "q: 70/100"]
