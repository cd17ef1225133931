"""Label schedules inside a run: the reward model is trained from a mock labeler's answers.

- `offline` (Ziegler's N_r = N_r0): all `reward.labels` queries come from rho, the initial policy,
  before RL; one reward model, frozen for the whole run.
- `batched` (Ziegler §4.1's recommendation): `reward.rounds` rounds. Round r collects its share of
  the labels from the current policy (round 0: rho), retrains the reward model from scratch on all
  labels so far (fresh head on rho, one epoch), and RL continues against it, frozen, for the next
  1/rounds of the iterations.
- `online` (Ziegler §2.3): labels follow l(n) = N0 + (N - N0)(1 - (1 - n/N_pi)^2) over the RL
  iterations, and the reward model is retrained from scratch at `reward.rounds` evenly spaced label
  counts (Ziegler: 20 models). With the mock labeler the labels arrive at once, so "requesting" a
  label and receiving it are the same step.

Files in the run directory: `labels/comparisons.jsonl` (queries and answers, append-only) and
`reward_model/round<r>/` (the model, complete once its reward_model.json exists). Everything is
rebuilt from them on resume: queries are sampled from fixed seeds, answers are deterministic per
query, so a killed run continues where it stopped and ends with the same labels.
"""
from __future__ import annotations

import copy
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Optional, Sequence

from grue.data.sample import Sample
from grue.rewards.learned.comparisons import Comparison, latest_answers, read_comparisons
from grue.rewards.learned.labelers import MockLabeler, label_file
from grue.rewards.learned.model import RewardModel, is_reward_model_dir
from grue.rewards.learned.queries import extend_queries, query_samples
from grue.rewards.learned.reward import LearnedReward
from grue.rewards.learned.rng import isolated_rng
from grue.rewards.learned.training import TrainingSettings, fit_reward_model

SCHEDULES = ("offline", "batched", "online")
LABELS_FILE = Path("labels") / "comparisons.jsonl"
MODELS_DIR = Path("reward_model")


@dataclass(frozen=True)
class Round:
    start: float  # share of the RL iterations done when the round begins
    labels: int   # answered comparisons in all once the round has collected its share


def online_label_target(n: float, initial: int, total: int) -> float:
    """Ziegler's l(n): labels wanted before a share n of the RL episodes, N0 + (N - N0)(1 - (1 - n)^2)."""
    return initial + (total - initial) * (1 - (1 - n) ** 2)


def schedule_rounds(schedule: str, labels: int, rounds: int, initial_labels: Optional[int] = None) -> list[Round]:
    """When each reward model is trained and on how many labels.

    offline: one, on every label, before RL. batched: `rounds` equal shares at equal RL intervals.
    online: `rounds` models (Ziegler: 20, the first before RL then 19 retrains) at evenly spaced label
    counts L_j = N0 + (N - N0) j / rounds, each once l(n) reaches it, i.e. at n = 1 - sqrt(1 - j / rounds);
    the labels l(n) would ask for after the last retrain are never used, so they are not collected.
    """
    if schedule == "offline":
        return [Round(0.0, labels)]
    if schedule == "batched":
        return [Round(r / rounds, labels * (r + 1) // rounds) for r in range(rounds)]
    initial = labels // rounds if initial_labels is None else initial_labels
    return [Round(1 - math.sqrt(1 - j / rounds), initial + (labels - initial) * j // rounds) for j in range(rounds)]


def check_schedule(cfg: Any) -> None:
    r = cfg.reward
    if r.schedule not in SCHEDULES:
        raise ValueError(f"reward.schedule must be one of {', '.join(SCHEDULES)}, not {r.schedule!r}")
    if r.name != "learned":
        raise ValueError(f"reward.schedule trains a reward model for reward=learned, not reward={r.name}")
    if not r.labeler:
        raise ValueError("reward.schedule needs reward.labeler=<a registered reward as the mock labeler's oracle>")
    if r.labels < 2 or r.k < 2 or r.rounds < 1:
        raise ValueError("reward.labels and reward.k must be at least 2, reward.rounds at least 1")
    if r.initial_labels is not None and not 2 <= r.initial_labels <= r.labels:
        raise ValueError("reward.initial_labels must lie between 2 and reward.labels")
    if int(cfg.num_processes) > 1:
        raise ValueError("label schedules run in one process (num_processes=1)")


class ScheduledReward:
    """The run's reward: the current round's reward model, advanced by the RL progress."""

    name = "learned"

    def __init__(self, cfg: Any, run_dir: Path, policy: Any, train: Sequence[Sample],
                 progress: Callable[[], tuple[int, int]], say: Callable[[str], None]) -> None:
        check_schedule(cfg)
        from grue.rewards.registry import build_named_reward

        self.cfg, self.run_dir, self.policy, self.train = cfg, Path(run_dir), policy, list(train)
        self.progress, self.say = progress, say
        self.plan = schedule_rounds(cfg.reward.schedule, int(cfg.reward.labels), int(cfg.reward.rounds),
                                    cfg.reward.initial_labels)
        self.samples = {s.id: s for s in self.train}
        r = cfg.reward
        self.labeler = MockLabeler(build_named_reward(cfg, r.labeler), r.labeler_temperature, r.labeler_error_rate,
                                   seed=int(cfg.seed))
        # rho as the reward model's backbone (Ziegler): copied now, before RL changes the policy.
        self.rho = None if r.backbone else (copy.deepcopy(policy.model.base_model).eval(), copy.deepcopy(policy.tokenizer))
        self.round = 0
        with isolated_rng():
            self.current = self._prepare(0)

    # -- rounds ------------------------------------------------------------------------------------
    def _round_of(self, iteration: int, n_iters: int) -> int:
        return max(j for j, r in enumerate(self.plan) if r.start * n_iters <= iteration + 1e-9)

    def __call__(self, samples: Sequence[Sample], generations: Sequence[str]) -> list[float]:
        wanted = self._round_of(*self.progress())
        if wanted != self.round:
            with isolated_rng():
                self.round, self.current = wanted, self._prepare(wanted)
        return self.current(samples, generations)

    def _prepare(self, r: int) -> LearnedReward:
        out = self.run_dir / MODELS_DIR / f"round{r}"
        if not is_reward_model_dir(str(out)):
            answers = self._collect(r)
            rho_queries = [a for a in answers if a.query_id.startswith("r0-")]
            self.say(f"training the reward model of round {r} on {len(answers)} comparisons")
            report = fit_reward_model(self._fresh_model(r), answers, self._settings(), out, rho_queries)
            self.say(f"reward model round {r}: held-out accuracy {report.heldout_accuracy:.3f}, "
                     f"ROC AUC {report.heldout_auc:.3f} ({report.heldout_comparisons} held out)")
        from grue.runtime.process import device_of

        return LearnedReward(RewardModel.load(out, device_of(self.cfg)), int(self.cfg.reward.batch_size))

    def _settings(self) -> TrainingSettings:
        r = self.cfg.reward
        return TrainingSettings(learning_rate=r.rm_learning_rate, batch_size=r.rm_batch_size,
                                heldout_fraction=r.rm_heldout, seed=int(self.cfg.seed))

    def _fresh_model(self, r: int) -> RewardModel:
        """Every round starts again from the backbone with a new head (Ziegler retrains from scratch)."""
        reward_cfg = self.cfg.reward
        from grue.runtime.process import device_of

        if reward_cfg.backbone:
            return RewardModel.from_backbone(reward_cfg.backbone, reward_cfg.rm_max_length,
                                             seed=int(self.cfg.seed) + r, device=device_of(self.cfg))
        backbone, tokenizer = self.rho
        model = RewardModel(copy.deepcopy(backbone), copy.deepcopy(tokenizer), reward_cfg.rm_max_length,
                            f"rho:{self.cfg.model.policy}", seed=int(self.cfg.seed) + r)
        return model.to(self.policy.device).eval()

    # -- labels ------------------------------------------------------------------------------------
    def _collect(self, r: int) -> list[Comparison]:
        """Queries of round r from the current policy and the labeler's answers to them, appended as
        they are made; returns every answer of rounds 0..r."""
        path = self.run_dir / LABELS_FILE
        n = self.plan[r].labels - (self.plan[r - 1].labels if r else 0)
        source = self.cfg.model.policy if r == 0 else f"{self.run_dir.name}@iteration{self.progress()[0]}"
        prompts = query_samples(self.train, n, seed=int(self.cfg.seed) * 1009 + r)
        self.say(f"round {r}: {n} queries of {self.cfg.reward.k} candidates, labelled by {self.labeler.name}")
        queries = extend_queries(path, self.policy, prompts, self.cfg.rollout, int(self.cfg.reward.k), source,
                                 f"r{r}-", seed=int(self.cfg.seed) + 7919 * r, task=self.cfg.task)
        label_file(self.labeler, queries, path, self.samples)
        return [a for a in latest_answers(read_comparisons(path)) if a.labeler == self.labeler.name]


def results_fields(run_dir: Path) -> dict:
    """What results.json records of a run's label schedule (`reward_learning`: labels used, and each
    round's labels and held-out reward-model accuracy / ROC AUC); nothing for a run without one."""
    import json

    rounds = sorted((Path(run_dir) / MODELS_DIR).glob("round*/reward_model.json"),
                    key=lambda p: int(p.parent.name.removeprefix("round")))
    infos = [json.loads(p.read_text()) for p in rounds]
    per_round = [{"round": i, "labels": info["train_comparisons"] + info["heldout_comparisons"],
                  "heldout_accuracy": info["heldout_accuracy"], "heldout_auc": info["heldout_auc"]}
                 for i, info in enumerate(infos)]
    return {"reward_learning": {"labels_used": per_round[-1]["labels"], "rounds": per_round}} if infos else {}


def build_run_reward(cfg: Any, run_dir: Path, policy: Any, train: Sequence[Sample],
                     progress: Callable[[], tuple[int, int]], say: Callable[[str], None]) -> Any:
    """The reward an RL run optimises: a scheduled learned reward when `reward.schedule` is set,
    otherwise the registry's."""
    if cfg.reward.schedule:
        return ScheduledReward(cfg, run_dir, policy, train, progress, say)
    from grue.rewards.registry import build_reward

    return build_reward(cfg, run_dir)
