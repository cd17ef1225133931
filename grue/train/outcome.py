"""What the runner needs from a training loop, and what a loop needs from the run.

The loops (grue/train/rl/loop.py, grue/train/supervised/loop.py) own the schedule, resuming and
checkpointing; the run (grue/run/runner.py) owns the run directory, the processes, the progress
display and evaluation. `RunServices` is the run's side of that seam, spelled out so a loop reads
as a list of what it uses.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Optional, Protocol, Sequence


class RunServices(Protocol):
    cfg: Any
    dir: Any            # grue.run.run_dir.RunDir
    accelerator: Any
    main: bool          # this process speaks for the run (writes logs and files)

    def bar(self, description: str, total: int, completed: int = 0) -> Any: ...

    def evaluate(self, policy: Any, scorers: Any, samples: list, split: str, trained: Any = None) -> Any: ...

    def save_checkpoint(self, step: int, trainer: Any) -> None: ...

    def save_model(self, policy: Any) -> None: ...

    def start_sharding(self) -> Any: ...

    def say(self, message: str, warning: bool = False) -> None: ...


@dataclass
class Trained:
    """A finished training phase: where evaluation starts and how it decodes."""
    final_iteration: int = 0
    # A factory of logits processors for evaluation decoding (an NLPO run's mask), and the models it
    # runs (gathered whole when parameters are sharded).
    eval_processors: Optional[Callable[[Any], Sequence[Any]]] = None
    eval_models: Sequence[Any] = ()
    # Decoding that replaces evaluation's plain generate(): (policy, samples, progress) -> (generations, tokens
    # generated on this process). Best-of-n (grue/run/best_of_n.py) samples n per prompt and keeps one.
    eval_decoder: Optional[Callable[[Any, Sequence[Any], Any], tuple[list[str], int]]] = None
