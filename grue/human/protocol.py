"""What a task's human-study protocol holds, and how a study reads it (spec §2.x "Human eval", §4.4).

Each task's own protocol, as the paper ran it, is declared in its task file (`human_protocol`).

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




def protocol_for(task: str) -> Protocol:
    """The protocol a task's spec declares (`TaskSpec.human_protocol`, in its task file); a task without
    one is a ValueError naming the tasks that have one."""
    from tasks import all_tasks, find_task

    spec = find_task(task)
    if spec is None or spec.human_protocol is None:
        having = [t.name for t in all_tasks() if t.human_protocol is not None]
        raise ValueError(f"no human-study protocol for task {task!r} (a task file's human_protocol); "
                         f"one of {', '.join(having)}")
    return spec.human_protocol
