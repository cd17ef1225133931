#!/usr/bin/env bash
# Ziegler's mock-sentiment study on IMDB mini (issues 13 and 27): the task's sentiment classifier is the
# oracle labeler, 4-way comparisons, PPO against reward models learned from a label budget, offline and
# online, against PPO on the oracle itself and zero-shot. The oracle arm runs twice: on P(positive)
# (`direct`) and at the learned reward's scale (`direct_scaled`: reward=sentiment_normalised, P(positive)
# standardised to std 1 over the initial policy's samples, as a learned reward is), so the learned arms
# and a direct arm meet the same KL coefficient at the same reward scale. The whole study is one
# `grue sweep` (a union of grids, one --grid per arm), so the same command again resumes it cell by cell.
# Then scripts/label_budget_summary.py prints the table (sentiment, gain, perplexity, KL per token and per
# episode, final beta, labels used, reward-model accuracy, share of direct RL's gain).
#
#   scripts/label_budget_experiment.sh     # issue 27's re-run: 400 and 1,000 labels, offline and online, 2 seeds
#   BUDGETS=250,1000,4000 scripts/label_budget_experiment.sh zero_shot direct offline summary   # issue 13's
#   BUDGETS=100,400,1000 BATCHED_BUDGET=400 SEEDS=0,1 EVAL_N=100 RL_STEPS=3072 \
#       scripts/label_budget_experiment.sh zero_shot direct offline batched summary   # what ran for issue 13
#
# Ziegler's own sampling and KL (temperature 0.7 without top-k, both sides of the KL at that temperature,
# 10 nats an episode; docs/learned_rewards.md) for every cell:
#   EXTRA="rollout.temperature=0.7 rollout.top_k=0 kl.temperature=sampling kl.target=10 kl.target_unit=episode" \
#       scripts/label_budget_experiment.sh
#
# Arguments pick arms (default: zero_shot direct direct_scaled offline online summary; also: batched).
# ONLINE_ROUNDS reward models per online run (Ziegler: 20; a plan whose rounds cannot all start in the
# run's RL iterations is refused, naming the largest that fits: 6 at the preset's 8 iterations).
set -euo pipefail
ARMS=${*:-zero_shot direct direct_scaled offline online summary}
BUDGETS=${BUDGETS:-400,1000}
SEEDS=${SEEDS:-0,1}
BATCHED_BUDGET=${BATCHED_BUDGET:-${BUDGETS%%,*}}
ONLINE_ROUNDS=${ONLINE_ROUNDS:-4}
EVAL_N=${EVAL_N:-200}
JOBS=${JOBS:-1}   # cells at once; the sweep splits the cores between them
RL_STEPS=${RL_STEPS:-6144}   # the IMDB mini preset: 8 PPO iterations of 768 token steps
OUT=${OUT:-runs/label_budget}
EXTRA=${EXTRA:-}  # more key=value settings for every cell (e.g. a smoke test's smaller sizes)
COMMON=(task=imdb profile=mini "seed=$SEEDS" "output_dir=$OUT" "data.max_val=$EVAL_N" "data.max_test=$EVAL_N" $EXTRA)
PPO="algo=ppo ppo.total_steps=$RL_STEPS"
# The reward model: the packaged MiniLM encoder as backbone on 2 cores (the paper profile uses rho);
# 4-way comparisons; Adam with batch 8 as Ziegler, at MiniLM's usual fine-tuning rate (not tuned here).
LEARNED="reward=learned reward.labeler=sentiment reward.k=4 reward.backbone=packaged:minilm
         reward.rm_learning_rate=5e-5 reward.rm_batch_size=8 reward.rm_max_length=64"
LEARNED=$(echo $LEARNED)  # one line

GRIDS=()
SUMMARY=no
for arm in $ARMS; do
  case $arm in
    zero_shot) GRIDS+=(--grid "algo=zero_shot") ;;
    direct) GRIDS+=(--grid "$PPO") ;;  # RL on the oracle itself, P(positive)
    direct_scaled) GRIDS+=(--grid "$PPO reward=sentiment_normalised") ;;  # the oracle at a learned reward's scale
    offline) GRIDS+=(--grid "$PPO $LEARNED reward.schedule=offline reward.labels=$BUDGETS") ;;
    online) GRIDS+=(--grid "$PPO $LEARNED reward.schedule=online reward.rounds=$ONLINE_ROUNDS reward.labels=$BUDGETS") ;;
    batched) GRIDS+=(--grid "$PPO $LEARNED reward.schedule=batched reward.rounds=2 reward.labels=$BATCHED_BUDGET") ;;
    summary) SUMMARY=yes ;;
    *) echo "unknown arm $arm (zero_shot direct direct_scaled offline online batched summary)" >&2; exit 2 ;;
  esac
done
if [ ${#GRIDS[@]} -gt 0 ]; then
  grue sweep "${COMMON[@]}" "${GRIDS[@]}" --no-export -j "$JOBS"
fi
if [ $SUMMARY = yes ]; then
  python scripts/label_budget_summary.py "$OUT"
fi
