"""The registered algorithms: the paper's six (grue_spec.md section 3) in the paper's table order, then
today's critic-free methods, DPO and best-of-n (docs/algorithms.md).

`reads` lists the config groups each one reads beyond the common ones; it is exactly what its
config hash covers, and the paper's six lists reproduce the hashes runs had before the registry existed
(tests/config/test_hash_stability.py), so existing run directories are still found and resumed.
"""
from __future__ import annotations

from grue.train.registry import Algorithm, register_algorithm
from grue.train.variants import VARIANT_KEYS as VARIANTS, register_method

RL_GROUPS = ("ppo", "kl", "rollout")
_PPO = "grue.train.rl.trainer:RLTrainer"
_NLPO = "grue.train.rl.nlpo:NLPOTrainer"
_SUPERVISED = "grue.train.supervised.trainer:SupervisedTrainer"

# The paper's PPO forms keep the paper's names and labels (NLPO is PPO through the action mask); each says
# its parts (`method`, `warm_start`, `mask`) so that `algo=ppo init=supervised mask=nlpo` finds
# `supervised_nlpo` (grue/train/variants.py). The trainer of an NLPO form is NLPOTrainer itself.
for _algo in (
    Algorithm("zero_shot", "Zero-Shot", "#9e9e9e", trains="nothing", paper=True,
              description="the initial model, evaluated as it is"),
    Algorithm("supervised", "Supervised", "#4c72b0", trains="supervised", reads=("supervised",),
              trainer=_SUPERVISED, paper=True, description="fine-tuning on the references"),
    Algorithm("ppo", "PPO", "#dd8452", trains="rl", reads=RL_GROUPS, trainer=_PPO, paper=True, takes=VARIANTS,
              description="PPO-clip with a critic, GAE and a per-token KL penalty (paper section 3)"),
    Algorithm("nlpo", "NLPO", "#55a868", trains="rl", reads=RL_GROUPS + ("nlpo",), trainer=_NLPO, paper=True,
              method="ppo", mask="nlpo",
              description="PPO with a top-p action mask from a periodically refreshed copy of the policy"),
    Algorithm("supervised_ppo", "Supervised+PPO", "#c44e52", trains="rl", reads=RL_GROUPS + ("supervised",),
              trainer=_PPO, warm_start="supervised", paper=True, method="ppo",
              description="PPO from the supervised run with the same settings and seed"),
    Algorithm("supervised_nlpo", "Supervised+NLPO", "#8172b3", trains="rl",
              reads=RL_GROUPS + ("nlpo", "supervised"), trainer=_NLPO, warm_start="supervised", paper=True,
              method="ppo", mask="nlpo", description="NLPO from the supervised run with the same settings and seed"),
):
    register_algorithm(_algo)


# -- today's critic-free methods (issue 25). Each is one method taking both variants: the registry composes
# its form trained from the supervised run (its warm start and KL reference, as supervised_ppo), its form
# through NLPO's action mask (grue/train/rl/masked.py; it reads the nlpo group, so its mask settings are in
# its hash) and both (grue/train/variants.py). The forms registered before composition keep their colours.
_CONFIGS = "grue.train.rl.critic_free_config"
_CRITIC_FREE = (
    # name, label, group, (colour, supervised colour, masked colour), trainer module:class, description
    ("grpo", "GRPO", "grpo", ("#17becf", "#0e7c86", "#9edae5"), "grpo:GRPOTrainer",
     "group-normalised sequence rewards of G samples per prompt, PPO-clip, 1/|o_i| per sequence, no critic"),
    ("rloo", "RLOO", "rloo", ("#bcbd22", "#7a7b12", "#dbdb8d"), "rloo:RLOOTrainer",
     "REINFORCE on whole sequences with a leave-one-out baseline over k samples per prompt, KL in the reward"),
    ("reinforce_pp", "REINFORCE++", "reinforce_pp", ("#e377c2", "#a0458a", "#f7b6d2"),
     "reinforce_pp:ReinforcePPTrainer",
     "token returns of the KL-penalised reward normalised over the global batch, PPO-clip, no critic"),
    ("reinforce_pp_baseline", "REINFORCE++-baseline", "reinforce_pp_baseline", ("#937860", "#5e4a38", "#c49c94"),
     "reinforce_pp:ReinforcePPBaselineTrainer",
     "REINFORCE++ with each prompt's group mean reward subtracted first"),
)
# Samples per prompt on GRUE. GRPO's paper draws 64 per question in batches of 1,024 samples (Shao et al. 2024,
# section 4.2); a GRUE iteration holds tens of episodes (IMDB paper: 1,280 tokens = 27 reviews of 48 tokens;
# mini: 32), where 64 would make an iteration a single prompt. 4 per prompt is RLOO's k (its paper's larger
# setting) and REINFORCE++-baseline's default, so the three group methods compare at the same group size.
GROUP = 4
# Each method's own settings on every task, over the task's PPO (NLPO, Supervised+PPO) preset: it inherits
# that preset's token budget (grue/train/rl/trainer.py stops every run at ppo.total_steps), learning rate,
# epochs, minibatches and its whole `kl` group, so it runs under the same regulariser as PPO (where the KL
# sits, its estimator, its coefficient rule: grue/train/regulariser.py); its advantages, its loss and its
# samples per prompt differ, and PPO alone has a critic (on the mini presets one that shares the policy's
# trunk, model.value_model=shared). Each paper's own regulariser or update is a named setting below.
_OWN_PRESET = {"grpo": {"grpo": {"group_size": GROUP}}, "rloo": {"rloo": {"k": GROUP}},
               "reinforce_pp": {},  # one sample per prompt, as the paper's REINFORCE++
               "reinforce_pp_baseline": {"reinforce_pp_baseline": {"group_size": GROUP}}}
_DATACLASS = {"grpo": "GRPOConfig", "rloo": "RLOOConfig", "reinforce_pp": "ReinforcePPConfig",
              "reinforce_pp_baseline": "ReinforcePPBaselineConfig"}

for _name, _label, _group, (_colour, _sup_colour, _mask_colour), _trainer, _what in _CRITIC_FREE:
    register_method(
        Algorithm(_name, _label, _colour, trains="rl", reads=RL_GROUPS + (_group,), trainer=f"grue.train.rl.{_trainer}",
                  config_groups={_group: f"{_CONFIGS}:{_DATACLASS[_group]}"}, description=_what, presets_from="ppo",
                  preset=_OWN_PRESET[_name], critic_free=True, takes=VARIANTS),
        colours={("supervised", None): _sup_colour, (None, "nlpo"): _mask_colour})


# -- the paper-faithful settings (issue 40), each its own algorithm, hence its own board row and hash. The
# defaults above compare every method under the task's PPO regulariser; these keep what each paper ran:
# GRPO's beta 0.04 on k3 in the loss (Shao et al. 2024, Eqs. 3-4, section 4.2), Dr. GRPO's recipe without a
# KL term (Liu et al. 2025; understand-r1-zero's --beta 0) and RLOO's single unclipped REINFORCE step on the
# whole sequence (Ahmadian et al. 2024).
_GRPO_PAPER_KL = {"placement": "loss", "estimator": "k3", "init_coef": 0.04, "k_beta": 0.0}
_PAPER_SETTINGS = (
    # name, label, colour, method whose group and trainer it uses, preset, description
    ("grpo_paper", "GRPO (paper KL)", "#1f77b4", "grpo",
     {"grpo": {"group_size": GROUP}, "kl": _GRPO_PAPER_KL},
     "GRPO as its paper regularises it: beta 0.04 times the k3 KL in the loss, fixed (kl.placement=loss)"),
    ("dr_grpo", "Dr. GRPO", "#9467bd", "grpo",
     {"grpo": {"group_size": GROUP, "scale_rewards": False, "loss_aggregation": "constant"}, "kl": {"target": None}},
     "GRPO without the group's std and with a constant length divisor (Liu et al. 2025), no KL term"),
    ("rloo_paper", "RLOO (paper step)", "#8c564b", "rloo",
     {"rloo": {"k": GROUP, "steps": "single"}},
     "RLOO as its paper updates: one unclipped REINFORCE step on the whole rollout per iteration"),
)
_TRAINERS = {group: trainer for _n, _l, group, _c, trainer, _w in _CRITIC_FREE}
for _name, _label, _colour, _group, _preset, _what in _PAPER_SETTINGS:
    register_algorithm(Algorithm(
        _name, _label, _colour, trains="rl", reads=RL_GROUPS + (_group,), trainer=f"grue.train.rl.{_TRAINERS[_group]}",
        config_groups={_group: f"{_CONFIGS}:{_DATACLASS[_group]}"}, description=_what, presets_from="ppo",
        preset=_preset, critic_free=True))


# -- DAPO, GSPO and CISPO (issue 43): presets of the critic-free loss options (grue/train/rl/loss_options.py;
# equations, papers and the reference code they were checked against in docs/algorithms.md), each on GRPO's
# group-normalised advantages and group size, the task's PPO budget and the shared `kl` regulariser, as grpo;
# each is a method taking both variants, so supervised_dapo, dapo_mask, ... are composed, not written here.
_LOSS_PRESETS = (
    # name, label, colour, grpo group settings, other groups, description
    ("dapo", "DAPO", "#ff7f0e",
     # Yu et al. 2025: clip-higher eps_low 0.2 / eps_high 0.28 (section 3.1), dynamic sampling (3.2), token-level
     # loss (3.3), soft overlong punishment with L_cache / L_max = 4,096 / 20,480 (3.4, Eq. 13)
     {"loss_aggregation": "token", "loss": {"clip_low": 0.2, "clip_high": 0.28, "dynamic_sampling": True,
                                            "overlong_buffer": 0.2}}, {},
     "GRPO advantages with DAPO's decoupled clip (0.2/0.28), dynamic sampling, token-level loss and soft overlong "
     "punishment"),
    ("gspo", "GSPO", "#2f4b7c",
     # Zheng et al. 2025: the length-normalised sequence ratio clipped at 3e-4 below / 4e-4 above (section 5.1),
     # a token mean per sequence; whole episodes per minibatch, as the sequence ratio needs every token
     {"loss_aggregation": "sequence", "loss": {"ratio": "sequence", "clip_low": 3e-4, "clip_high": 4e-4}},
     {"ppo": {"minibatch": "episodes"}},
     "GRPO advantages with GSPO's clipped sequence-level importance ratio (3e-4/4e-4), a token mean per sequence"),
    ("cispo", "CISPO", "#a05195",
     # MiniMax-M1 (Chen et al. 2025, Eqs. 4-5): the importance weight clipped under a stop-gradient, no lower
     # bound, a token-level loss; eps_high^IS is not printed in the paper, so ScaleRL's eps_max = 5 (TRL's
     # recommended CISPO cap) is taken: 1 + 4
     {"loss_aggregation": "token", "loss": {"clip": "weight", "clip_high": 4.0}}, {},
     "GRPO advantages with CISPO's clipped, stop-gradient importance weight (at most 5): every token keeps its "
     "gradient, token-level loss"),
)
for _name, _label, _colour, _grpo, _other, _what in _LOSS_PRESETS:
    register_method(Algorithm(
        _name, _label, _colour, trains="rl", reads=RL_GROUPS + ("grpo",), trainer=f"grue.train.rl.{_TRAINERS['grpo']}",
        config_groups={"grpo": f"{_CONFIGS}:{_DATACLASS['grpo']}"}, description=_what, presets_from="ppo",
        preset={"grpo": {"group_size": GROUP, **_grpo}, **_other}, critic_free=True, takes=VARIANTS))


# -- GDPO-style multi-reward normalisation and on-policy distillation (issue 43): options of the critic-free
# advantage seam (grue/train/rl/multi_reward.py, grue/train/rl/teacher.py; equations, papers and reference code in
# docs/algorithms.md), each preset on GRPO's trainer, group size and the task's PPO budget, a method taking both
# variants as dapo does.
_ADVANTAGE_PRESETS = (
    # name, label, colour, grpo group settings, other groups, preflight, description
    ("gdpo", "GDPO", "#4e9a06",
     # Liu et al. 2026, Eqs. 4-6: each reward component standardised in its group, the weighted sum, then whitened
     # over the batch. No division of the sum by its group's std (scale_rewards=false): that re-normalisation per
     # group is what GDPO's batch-wide Eq. 6 replaces. A one-component reward is its own single component.
     {"scale_rewards": False, "loss": {"reward_normalisation": "per_component", "whiten_advantages": True}}, {},
     None,
     "GRPO with each reward component standardised in its group before the weighted sum (GDPO), then whitened "
     "over the iteration"),
    ("distill", "On-policy distillation", "#c17d11",
     # Thinking Machines 2025 / Agarwal et al. 2024 (reverse KL): each token's advantage is log p_teacher - log
     # p_student on the student's own samples, discount 0, no task reward; the teacher KL is the regulariser, so
     # no KL penalty to the reference (kl.target=null); a token-mean loss. The teacher is the task's supervised
     # run of the same settings and seed, trained first when absent (grue/run/teacher_runs.py), so distillation is a
     # plain sweep cell; grpo.teacher.model= names another teacher.
     {"loss_aggregation": "token", "teacher": {"task_weight": 0.0, "model": "supervised"}}, {"kl": {"target": None}},
     f"{_CONFIGS}:teacher_preflight",
     "the student's own samples scored token by token by a frozen teacher: advantage log p_teacher - log p_student "
     "(reverse KL), no task reward; the teacher is grpo.teacher.model, by default the task's supervised run"),
)
for _name, _label, _colour, _grpo, _other, _preflight, _what in _ADVANTAGE_PRESETS:
    register_method(Algorithm(
        _name, _label, _colour, trains="rl", reads=RL_GROUPS + ("grpo",), trainer=f"grue.train.rl.{_TRAINERS['grpo']}",
        config_groups={"grpo": f"{_CONFIGS}:{_DATACLASS['grpo']}"}, description=_what, presets_from="ppo",
        preset={"grpo": {"group_size": GROUP, **_grpo}, **_other}, critic_free=True, takes=VARIANTS,
        preflight=_preflight))


# -- preference optimisation from a comparisons file (issue 25): DPO, from the initial model and from the
# supervised run (its warm start and reference, as supervised_ppo); grue/train/offline/.
_DPO_GROUPS = {"dpo": "grue.train.offline.dpo_config:DPOConfig"}
# A mini DPO run costs what mini PPO's 8 iterations cost (issue 25: the same minutes). From the paper (Rafailov
# et al. 2023, Appendix B) stay beta 0.1 and RMSprop (the dpo group's defaults), a linear warm-up and at most one
# epoch. Scaled to the budget: measured side by side on 1 thread of a shared 2-core machine (two runs), one
# step of 16 answers (4 candidates of 24 tokens after a mini prompt, forward and backward) took 0.60-0.69 of a
# mini PPO iteration and the reference's single pass 0.017 of one per answer, so 8 PPO iterations buy 133-147
# answers: 8 steps of 16 (dpo.max_steps), the head of the seeded order (128 of the 1,000-label study's 900
# training answers; one epoch over all 900 costs 6.1-6.8x mini PPO, dpo.max_steps=null):
# `.venv/bin/python scripts/bench_dpo.py --comparisons labels.jsonl --steps 3 --threads 1` (once with
# --ppo-iters 2; its docstring makes the file). Batch 16, not 64, for steps at all; warm-up 2 of the 8 steps
# (the paper's 150 would never reach the learning rate); learning rate 1e-5, not 1e-6, which would barely move
# SmolLM2 in a few steps. Not tuned: no mini DPO run's learning had been measured when this was set, and 8 steps
# at 1e-5 move the policy less than the 57-step preset this replaces did.
# On the mini profile a DPO run makes its own comparisons file from its initial policy, the task's reward as
# mock labeler (dpo.comparisons=auto; grue/train/offline/auto_recipe.py), so the whole grid runs with no hand
# step; a file given on the command line replaces it (same hash as before this default existed).
# The rollout group is read by the auto recipe only (sampling the candidates); its digest holds it.
# Four answers per pass (dpo.micro_batch_size: memory only, not hashed, so no run's hash moves): a whole step of
# 16 answers x 4 candidates needs an estimated 21.6 GiB on CNN/DM mini and 27.8 GiB on ToTTo mini (`grue plan
# task=totto algo=dpo profile=mini dpo.micro_batch_size=null`), more than a 24 GiB laptop; at 4, CNN/DM's step
# peaked at 8.1 GB (docs/speed.md, scripts/bench_dpo_memory.py).
_DPO_RECIPE_READS = {"rollout": "grue.train.offline.auto_recipe:recipe_off"}
_DPO_MINI = {"mini": {"dpo": {"comparisons": "auto", "batch_size": 16, "learning_rate": 1e-5, "warmup_steps": 2,
                              "max_steps": 8, "save_every": 4, "micro_batch_size": 4}}}
for _algo in (
    Algorithm("dpo", "DPO", "#2ca02c", trains="preferences", reads=("dpo",), takes=("init",),
              trainer="grue.train.offline.dpo:DPOTrainer", config_groups=_DPO_GROUPS, profile_presets=_DPO_MINI,
              recipe_reads=_DPO_RECIPE_READS, preflight="grue.train.offline.dpo_config:preflight",
              description="Direct Preference Optimization on a comparisons file's answers (Plackett-Luce over k-way "
                          "choices), reference = the initial policy"),
    Algorithm("supervised_dpo", "Supervised+DPO", "#1a5e1a", trains="preferences", reads=("dpo", "supervised"),
              trainer="grue.train.offline.dpo:DPOTrainer", warm_start="supervised", config_groups=_DPO_GROUPS, method="dpo",
              profile_presets=_DPO_MINI, recipe_reads=_DPO_RECIPE_READS,
              preflight="grue.train.offline.dpo_config:preflight",
              description="DPO from the supervised run with the same settings and seed (its reference too)"),
):
    register_algorithm(_algo)

# -- best-of-n, the training-free baseline (issue 25): the initial model, n samples per prompt at evaluation,
# the task's reward keeps one (grue/run/best_of_n.py). It optimises the reward at decoding time, so its runs
# record and are grouped by the reward, as RL runs are.
register_algorithm(Algorithm(
    "best_of_n", "Best-of-n", "#7f7f7f", trains="nothing", reads=("best_of_n", "rollout"), optimises_reward=True,
    config_groups={"best_of_n": "grue.run.best_of_n_config:BestOfNConfig"},
    preflight="grue.run.best_of_n_config:preflight", evaluation="grue.run.best_of_n:best_of_n_decoder",
    description="the initial model sampling n continuations per prompt at evaluation; the task's reward picks one"))
