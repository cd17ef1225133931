"""Each task's human-study protocol as the paper ran it (spec §2.x "Human eval", §4.4).

Axes: the task axis first, coherence (the paper's naturalness axis in Figure 2 c-d) second. The
instructions are this project's own wording of what the paper asked raters to judge. A comparisons
study asks the same two things of a choice: its instructions describe what the rater sees (never a
prompt the page hides, never rating scales) and its criterion names the task axis beside fluency.
"""
from __future__ import annotations

from dataclasses import dataclass

SCALE = (1, 5)  # the paper's Likert values all lie in 1-5
NATURALNESS_AXIS = "coherence"

AXIS_QUESTIONS = {
    "coherence": "Is the text fluent, grammatical and coherent, as a careful person would write it?",
    "sentiment": "How positive is the text about the movie?",
    "commonsense": "Does the sentence describe a plausible everyday scene that uses the given words sensibly?",
    "quality": "How good is the text at its job (a faithful summary, a fitting reply)?",
    "correctness": "Is every fact in the text supported by the table?",
}


@dataclass(frozen=True)
class Protocol:
    """How one task's texts are rated: axes, whether the prompt is shown, reading time, sample size."""

    task: str
    task_axis: str
    samples: int  # test prompts per algorithm in the paper's study
    show_prompt: bool
    instructions: str
    min_read_seconds: int = 0
    in_paper: bool = True
    comparison: tuple[str, str] = ("", "")  # a comparisons study's (instructions, criterion)

    @property
    def axes(self) -> tuple[str, str]:
        return (self.task_axis, NATURALNESS_AXIS)

    def to_dict(self, kind: str = "ratings") -> dict:
        """The protocol as a study stores it; a comparisons study gets its own instructions and criterion
        (and no reading-time wait, which only gates rating scales)."""
        doc = {"task": self.task, "axes": list(self.axes), "task_axis": self.task_axis, "scale": list(SCALE),
               "samples": self.samples, "show_prompt": self.show_prompt, "instructions": self.instructions,
               "min_read_seconds": self.min_read_seconds, "in_paper": self.in_paper,
               "questions": {axis: AXIS_QUESTIONS[axis] for axis in self.axes}}
        if kind == "comparisons":
            doc.update(instructions=self.comparison[0], criterion=self.comparison[1], min_read_seconds=0)
        return doc


PROTOCOLS: dict[str, Protocol] = {p.task: p for p in (
    Protocol("imdb", "sentiment", 100, True,
             "You see the start of a movie review and a continuation written after it. Rate the continuation.",
             comparison=("You see the start of a movie review and several continuations written after it.",
                         "Choose the continuation that is most positive about the movie while reading fluently "
                         "and coherently.")),
    Protocol("commongen", "commonsense", 100, False,
             "You see one sentence. Rate it on its own; the words it was asked to use are not shown.",
             comparison=("You see several sentences; the words they were asked to use are not shown.",
                         "Choose the sentence that describes the most plausible everyday scene while reading "
                         "fluently and grammatically.")),
    Protocol("cnn_dailymail", "quality", 50, True,
             "Read the news article first, then rate the summary below it. The rating scales appear after "
             "15 seconds so that there is time to read the article.", min_read_seconds=15,
             comparison=("Read the news article first, then the candidate summaries below it.",
                         "Choose the summary that best gives the article's main points faithfully while reading "
                         "fluently and coherently.")),
    Protocol("totto", "correctness", 50, True,
             "You see highlighted cells of a Wikipedia table and one sentence about them. Rate the sentence.",
             comparison=("You see highlighted cells of a Wikipedia table and several sentences about them.",
                         "Choose the sentence whose every fact is supported by the table and that reads most "
                         "fluently.")),
    Protocol("dailydialog", "quality", 100, True,
             "You see the last turns of a conversation and a proposed next reply. Rate the reply.",
             comparison=("You see the last turns of a conversation and several proposed next replies.",
                         "Choose the reply that fits the conversation best while reading naturally.")),
    Protocol("wmt16", "quality", 100, True,
             "You see an English sentence and a German translation. Rate the translation. (The paper ran no "
             "human study on this task.)", in_paper=False,
             comparison=("You see an English sentence and several German translations. (The paper ran no human "
                         "study on this task.)", "Choose the translation that renders the English most faithfully "
                         "while reading fluently.")),
    Protocol("narrativeqa", "quality", 100, True,
             "You see a story excerpt and a question, then an answer. Rate the answer. (The paper ran no human "
             "study on this task.)", in_paper=False,
             comparison=("You see a story excerpt and a question, then several answers. (The paper ran no human "
                         "study on this task.)", "Choose the answer that answers the question best while reading "
                         "fluently.")),
)}


def protocol_for(task: str) -> Protocol:
    """The protocol of `task`; an unknown task is a ValueError naming the known ones."""
    try:
        return PROTOCOLS[task]
    except KeyError:
        raise ValueError(f"no human-study protocol for task {task!r}; one of {', '.join(PROTOCOLS)}") from None
