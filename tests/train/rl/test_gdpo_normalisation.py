"""GDPO-style multi-reward normalisation (Liu et al. 2026, Eqs. 4-6): each component of a metric mix standardised
in its prompt group before the weighted sum, then the advantages whitened over the iteration.

The worked example: one prompt, G = 4 samples, two components weighted 0.5 each. Component A is on a scale of
100 (a CIDEr-like count), component B on a scale of 0.01:
    A = [100, 0, 0, 100]   mean 50, deviations +-50, sample std sqrt(4 * 50^2 / 3) = 100 / sqrt(3)
    B = [0.01, 0.01, 0, 0] mean 0.005, deviations +-0.005, sample std 0.01 / sqrt(3)
GRPO on the total 0.5 A + 0.5 B = [50.005, 0.005, 0, 50] sees A alone: samples 2 and 3, which differ only in
B, get advantages within 1e-4 of each other. Per component, z_A = +-50 / (100/sqrt(3) + 1e-4) and
z_B = +-0.005 / (0.01/sqrt(3) + 1e-4), and the mix 0.5 z_A + 0.5 z_B gives sample 2 about 0 and sample 3
about -0.86. Every expectation is arithmetic on these numbers, not a value read back from the code.
"""
from __future__ import annotations

import math

import pytest
import torch

from grue.rewards.components import RewardComponents, score_episodes
from grue.train.registry import get_algorithm
from grue.train.rl.multi_reward import in_groups_of, per_component_normalised
from grue.train.rl.policy_gradient import group_normalised
from tests.train.rl.test_critic_free_learning import config, make_trainer

A = [100.0, 0.0, 0.0, 100.0]
B = [0.01, 0.01, 0.0, 0.0]
Z_A = 50 / (100 / math.sqrt(3) + 1e-4)
Z_B = 0.005 / (0.01 / math.sqrt(3) + 1e-4)


def test_each_component_is_standardised_in_its_group_before_the_weighted_sum():
    values = torch.tensor([A, B]).T  # [B, K]
    got = per_component_normalised(values, torch.tensor([0.5, 0.5]), in_groups_of(4))
    want = [0.5 * Z_A + 0.5 * Z_B, -0.5 * Z_A + 0.5 * Z_B, -0.5 * Z_A - 0.5 * Z_B, 0.5 * Z_A - 0.5 * Z_B]
    assert got.tolist() == pytest.approx(want, rel=1e-5)
    assert got[1].item() == pytest.approx(-0.5 * Z_A + 0.5 * Z_B, abs=1e-6) and abs(got[1].item()) < 0.02
    assert got[2].item() < -0.8  # B's difference between samples 2 and 3 now counts as much as A's


def test_without_it_the_large_scale_component_swamps_the_other():
    total = torch.tensor([0.5 * a + 0.5 * b for a, b in zip(A, B)])
    grpo = group_normalised(total, 4)
    mean = sum(total.tolist()) / 4
    std = math.sqrt(sum((t - mean) ** 2 for t in total.tolist()) / 3)
    assert grpo.tolist() == pytest.approx([(t - mean) / (std + 1e-4) for t in total.tolist()], rel=1e-5)
    assert abs(grpo[1].item() - grpo[2].item()) < 1e-3  # B is invisible


def test_a_metric_mix_gives_its_components_and_the_same_total():
    class Mix:  # the protocol MetricReward follows (grue/rewards/metric_reward.py)
        def score_components(self, samples, generations):
            return RewardComponents(("a", "b"), (0.5, 0.5), (tuple(A), tuple(B)))

    total, parts = score_episodes(Mix(), [None] * 4, [""] * 4)
    assert total == pytest.approx([50.005, 0.005, 0.0, 50.0])
    assert parts.names == ("a", "b")
    assert score_episodes(lambda samples, generations: [1.0, 2.0], [None] * 2, ["", ""]) == ([1.0, 2.0], None)


def test_a_weighted_mix_of_metrics_is_named_inline():
    from grue.rewards.mix import mix_weights
    from grue.rewards.registry import check_reward

    assert mix_weights("meteor@0.25+cider@0.75") == {"meteor": 0.25, "cider": 0.75}
    assert mix_weights("meteor+cider") == {"meteor": 1.0, "cider": 1.0}
    assert mix_weights("meteor") is None
    check_reward("meteor@0.5+cider@0.5")
    from grue.run.preflight import reward_metrics

    assert reward_metrics("meteor@0.5+cider@0.5") == ["meteor", "cider"]  # preflight checks each part is available
    for bad, why in (("meteor@0.5+cidr@0.5", "Did you mean: cider"), ("meteor@x", "must be a number"),
                     ("meteor+meteor", "twice")):
        with pytest.raises(KeyError, match=why):
            check_reward(bad)


# -- the trainer reads the option ---------------------------------------------------------------------
class ScaledMix:
    """Two components of the tiny "write e's" task on scales 100 apart: 100 x the share of e's, and the share
    of o's."""
    name = "e_and_o"

    def score_components(self, samples, generations):
        e = tuple(100.0 * sum(c == "e" for c in g) / max(1, len(g)) for g in generations)
        o = tuple(sum(c == "o" for c in g) / max(1, len(g)) for g in generations)
        return RewardComponents(("e", "o"), (0.5, 0.5), (e, o))

    def __call__(self, samples, generations):
        return self.score_components(samples, generations).total()


def gdpo_trainer(policy, loss, **grpo):
    trainer = make_trainer("grpo", policy, config("grpo", 0, grpo={"loss": loss, **grpo}))
    trainer.reward_fn = ScaledMix()
    return trainer


def test_the_trainer_standardises_each_component_when_asked(tiny_causal_policy):
    """No KL penalty (the test config's), GRPO's own group standardisation after the mix: the advantage is
    group_normalised(sum_k w_k z_k), not group_normalised(total)."""
    torch.manual_seed(0)
    trainer = gdpo_trainer(tiny_causal_policy, {"reward_normalisation": "per_component"})
    episodes = trainer.rollout_round(trainer._my_samples(16))
    values = torch.tensor(episodes.components.values).T
    assert values[:, 0].std() > 0 and values[:, 1].std() > 0  # both components vary on this round
    got = trainer.advantages(episodes).advantages[:, 0]
    mixed = 0.5 * group_normalised(values[:, 0], 4) + 0.5 * group_normalised(values[:, 1], 4)
    assert got.tolist() == pytest.approx(group_normalised(mixed, 4).tolist(), rel=1e-4, abs=1e-5)
    ignored = group_normalised(episodes.task_reward, 4)  # what a trainer ignoring the option trains on
    assert not torch.allclose(got, ignored, atol=1e-2)
    assert torch.equal(episodes.task_reward, torch.tensor(ScaledMix().score_components(None, episodes.generations)
                                                          .total(), dtype=torch.float32))  # the logged reward stays


def test_the_update_trains_on_advantages_whitened_over_the_iteration(tiny_causal_policy):
    torch.manual_seed(0)
    trainer = gdpo_trainer(tiny_causal_policy, {"reward_normalisation": "per_component", "whiten_advantages": True},
                           scale_rewards=False)
    trainer._backward, trainer.optimizer.step = (lambda loss, share: None), (lambda: None)
    exp = trainer.collect()
    before = exp.advantages.clone()
    trainer.update(exp)
    valid = exp.rollout.valid
    n = valid.sum()
    mean = (before * valid).sum() / n
    std = (((before - mean) ** 2 * valid).sum() / n).sqrt()
    assert torch.allclose(exp.advantages, (before - mean) / (std + 1e-8) * valid, atol=1e-5)
    assert not torch.allclose(before, exp.advantages, atol=1e-3)  # the whitening moved them


def test_gdpo_refuses_groups_of_one_and_dense_rewards(tiny_causal_policy):
    from grue.errors import GrueUserError

    with pytest.raises(GrueUserError, match="at least 2 samples per prompt"):
        make_trainer("reinforce_pp", tiny_causal_policy,
                     config("reinforce_pp", 0, reinforce_pp={"loss": {"reward_normalisation": "per_component"}}))
    with pytest.raises(GrueUserError, match="reward.dense=critic gives per-token rewards"):
        make_trainer("grpo", tiny_causal_policy, config("grpo", 0, reward={"dense": "critic"},
                                                        grpo={"loss": {"reward_normalisation": "per_component"}}))


def test_the_gdpo_preset_is_the_paper_s_three_steps():
    preset = get_algorithm("gdpo").preset["grpo"]
    assert preset["loss"] == {"reward_normalisation": "per_component", "whiten_advantages": True}
    assert preset["scale_rewards"] is False


class EAndO:
    """The share of e's and the share of o's, weighted 1 each."""
    name = "e_and_o"

    def score_components(self, samples, generations):
        return RewardComponents(("e", "o"), (1.0, 1.0), tuple(
            tuple(sum(c == letter for c in g) / max(1, len(g)) for g in generations) for letter in "eo"))

    def __call__(self, samples, generations):
        return self.score_components(samples, generations).total()


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_gdpo_raises_a_two_component_reward_within_the_budget(tiny_causal_policy, seed):
    """As tests/train/rl/test_critic_free_learning.py holds GRPO to: the mean of the last 3 of 25 iterations'
    summed reward at least 0.1 above the first 3's, the components being the shares of e's and of o's (gains
    measured when written: 0.51, 0.33, 0.41 on seeds 0, 1, 2)."""

    preset = get_algorithm("gdpo").preset["grpo"]
    torch.manual_seed(seed)
    trainer = make_trainer("gdpo", tiny_causal_policy, config("grpo", seed, grpo=preset))
    trainer.reward_fn = EAndO()
    rewards = [trainer.step()["reward_mean"] for _ in range(25)]
    assert sum(rewards[-3:]) / 3 > sum(rewards[:3]) / 3 + 0.1, (seed, rewards)


def test_a_real_metric_mix_gives_each_metric_s_per_sample_value():
    """reward=rouge1@0.25+rouge2@0.75 built as a run builds it. By hand, for "the dog runs in a park" against
    "the dog runs in the park": 5 of 6 unigrams shared (ROUGE-1 F 5/6), 3 of 5 bigrams (ROUGE-2 F 0.6); for "cat
    on mat" against "a cat sits on the mat": 3 unigrams shared, P 1, R 1/2 (F 2/3), no bigram."""
    from grue.config import load_config
    from grue.data.sample import Sample
    from grue.rewards.registry import build_reward

    reward = build_reward(load_config(["task=commongen", "profile=mini", "reward=rouge1@0.25+rouge2@0.75"]))
    samples = [Sample("a", "dog run park", ("the dog runs in the park",)),
               Sample("b", "cat sit mat", ("a cat sits on the mat",))]
    generations = ["the dog runs in a park", "cat on mat"]
    parts = reward.score_components(samples, generations)
    assert parts.names == ("rouge1", "rouge2") and parts.weights == (0.25, 0.75)
    assert parts.values[0] == pytest.approx((5 / 6, 2 / 3)) and parts.values[1] == pytest.approx((0.6, 0.0))
    assert reward(samples, generations) == pytest.approx([0.25 * 5 / 6 + 0.75 * 0.6, 0.25 * 2 / 3])


def test_gdpo_learns_on_a_seq2seq_policy_too(tiny_seq2seq_policy):
    """The two-component reward on the 2-layer T5, seed 0, as the other critic-free methods are held to (gain
    measured when written: 0.36)."""
    preset = get_algorithm("gdpo").preset["grpo"]
    torch.manual_seed(0)
    trainer = make_trainer("gdpo", tiny_seq2seq_policy, config("grpo", 0, grpo=preset))
    trainer.reward_fn = EAndO()
    rewards = [trainer.step()["reward_mean"] for _ in range(25)]
    assert sum(rewards[-3:]) / 3 > sum(rewards[:3]) / 3 + 0.1, rewards


def test_each_component_s_mean_is_logged_per_iteration(tiny_causal_policy):
    """`reward/<component>` in the iteration's log is the mean of that component over the iteration's episodes
    (before any normalisation), so a study can see which part of a mix moved; the weighted sum of the logged
    means is the logged reward_mean."""
    torch.manual_seed(0)
    trainer = gdpo_trainer(tiny_causal_policy, {"reward_normalisation": "per_component"})
    seen = []
    score = trainer.reward_fn.score_components
    trainer.reward_fn.score_components = lambda s, g: seen.append(score(s, g)) or seen[-1]
    stats = trainer.step()
    e = [v for parts in seen for v in parts.values[0]]
    o = [v for parts in seen for v in parts.values[1]]
    assert stats["reward/e"] == pytest.approx(sum(e) / len(e)) and stats["reward/o"] == pytest.approx(sum(o) / len(o))
    assert 0.5 * stats["reward/e"] + 0.5 * stats["reward/o"] == pytest.approx(stats["reward_mean"], rel=1e-5)
    assert "reward/e" in trainer.step() and trainer._component_sums == {}  # counted afresh each iteration
