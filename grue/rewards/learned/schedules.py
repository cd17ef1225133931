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

When each round starts and on how many labels is grue.rewards.learned.plan's; a plan whose rounds
cannot all start in the run's RL iterations is refused when the config is loaded, so every planned
round is trained on exactly its planned labels.

Files in the run directory: `labels/comparisons.jsonl` (queries and answers, append-only),
`reward_model/plan.json` (the plan) and `reward_model/round<r>/` (the model, complete once its
reward_model.json exists). Everything is
rebuilt from them on resume: queries are sampled from fixed seeds, answers are deterministic per
query, so a killed run continues where it stopped and ends with the same labels.
"""
from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any, Callable, Optional, Sequence

from grue.data.sample import Sample
from grue.rewards.learned.comparisons import Comparison, latest_answers, read_comparisons
from grue.rewards.learned.labelers import MockLabeler, label_file
from grue.rewards.learned.model import RewardModel, is_reward_model_dir
from grue.rewards.learned.plan import (SCHEDULES, Round, online_label_target, rl_iterations, round_of,  # noqa: F401
                                       schedule_problem, schedule_rounds, start_iterations)
from grue.rewards.learned.queries import extend_queries, query_samples
from grue.rewards.learned.reward import LearnedReward
from grue.rewards.learned.rng import isolated_rng
from grue.rewards.learned.training import TrainingSettings, fit_reward_model
from grue.runtime.console import tenths

LABELS_FILE = Path("labels") / "comparisons.jsonl"
MODELS_DIR = Path("reward_model")
PLAN_FILE = MODELS_DIR / "plan.json"  # the schedule's rounds as planned: budget, start iterations, labels


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
    problem = schedule_problem(r, cfg.ppo)
    if problem:
        raise ValueError(problem)


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
        self._write_plan(rl_iterations(cfg.ppo))
        self.round = 0
        with isolated_rng():
            self.current = self._prepare(0)

    # -- rounds ------------------------------------------------------------------------------------
    def _write_plan(self, iterations: int) -> None:
        from grue.storage.atomic import atomic_write_json

        r = self.cfg.reward
        atomic_write_json(self.run_dir / PLAN_FILE, {
            "schedule": r.schedule, "labels_budget": int(r.labels), "labels_planned": self.plan[-1].labels,
            "iterations": iterations,
            "rounds": [{"round": j, "start_iteration": start, "labels_planned": round_.labels}
                       for j, (round_, start) in enumerate(zip(self.plan, start_iterations(self.plan, iterations)))]})

    def __call__(self, samples: Sequence[Sample], generations: Sequence[str]) -> list[float]:
        wanted = round_of(self.plan, *self.progress())
        # One round after the other: the config check refuses plans whose rounds would share an
        # iteration, and should a run ever get there anyway, no round (nor its labels) is skipped.
        while self.round < wanted:
            with isolated_rng():
                self.current = self._prepare(self.round + 1)
            self.round += 1
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
                                 f"r{r}-", seed=int(self.cfg.seed) + 7919 * r, task=self.cfg.task,
                                 progress=tenths(n, self.say, f"round {r}: queries sampled"))
        label_file(self.labeler, queries, path, self.samples)
        return [a for a in latest_answers(read_comparisons(path)) if a.labeler == self.labeler.name]


def results_fields(run_dir: Path) -> dict:
    """What a run's own files add to results.json: a label schedule's `reward_learning` (labels budgeted,
    planned and used, and each round, named as its directory reward_model/round<r> is, with its planned
    and used labels, start iteration and held-out reward-model accuracy / ROC AUC), and for an RL run
    the KL it ended at (`training_kl`, grue.train.rl.kl.kl_results), the sampler-vs-learner gap and NLPO's mask
    binding (`sampler_mismatch`, `nlpo_mask`)."""
    from grue.storage.run_layout import read_jsonl, train_log
    from grue.train.rl.kl import kl_results

    run_dir = Path(run_dir)
    out: dict = {}
    if train_log(run_dir).is_file():
        from grue.train.rl.mismatch import mismatch_results
        from grue.train.rl.nlpo_mask import mask_results

        log = read_jsonl(train_log(run_dir))
        out.update(kl_results(log))
        out.update(mismatch_results(log))  # the sampler-vs-learner gap (issue 44)
        out.update(mask_results(log))  # how often NLPO's mask bound: at 0 it sampled as PPO
    from grue.rewards.learned.normalised import normalisation_fields

    out.update(normalisation_fields(run_dir))
    rounds = sorted((run_dir / MODELS_DIR).glob("round*/reward_model.json"),
                    key=lambda p: int(p.parent.name.removeprefix("round")))
    if not rounds:
        return out
    plan_path = run_dir / PLAN_FILE
    plan = json.loads(plan_path.read_text()) if plan_path.is_file() else {}
    planned = {r["round"]: r for r in plan.get("rounds", [])}
    per_round = []
    for path in rounds:
        info, number = json.loads(path.read_text()), int(path.parent.name.removeprefix("round"))
        per_round.append({"round": number, "labels": info["train_comparisons"] + info["heldout_comparisons"],
                          **({"labels_planned": planned[number]["labels_planned"],
                              "start_iteration": planned[number]["start_iteration"]} if number in planned else {}),
                          "heldout_accuracy": info["heldout_accuracy"], "heldout_auc": info["heldout_auc"]})
    learning = {"labels_used": per_round[-1]["labels"], "rounds": per_round}
    if plan:
        learning = {"labels_budget": plan["labels_budget"], "labels_planned": plan["labels_planned"], **learning}
    return {**out, "reward_learning": learning}


def build_run_reward(cfg: Any, run_dir: Path, policy: Any, train: Sequence[Sample],
                     progress: Callable[[], tuple[int, int]], say: Callable[[str], None]) -> Any:
    """The reward an RL run optimises: a scheduled learned reward when `reward.schedule` is set,
    otherwise the registry's."""
    if cfg.reward.schedule:
        return ScheduledReward(cfg, run_dir, policy, train, progress, say)
    from grue.rewards.registry import build_reward

    reward = build_reward(cfg, run_dir)
    base = getattr(reward, "extrinsic", reward)  # under reward.dense=critic, the task's reward inside it
    if hasattr(base, "calibrate"):  # a reward standardised over the initial policy's samples
        base.calibrate(cfg, run_dir, policy, train, say)
    return reward
