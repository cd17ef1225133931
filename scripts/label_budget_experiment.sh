#!/usr/bin/env bash
# Ziegler's mock-sentiment study on IMDB mini (issue 13): the task's sentiment classifier is the oracle
# labeler, 4-way comparisons, PPO against reward models learned from a label budget, against PPO on the
# oracle itself and zero-shot; offline against batched at one budget. Every cell is a `grue sweep` cell,
# so the same command again resumes. Then scripts/label_budget_summary.py prints the table.
#
#   BUDGETS=250,1000,4000 SEEDS=0,1 scripts/label_budget_experiment.sh    # the study as the issue asks
#   BUDGETS=100,400,1000 BATCHED_BUDGET=400 SEEDS=0,1 JOBS=2 scripts/label_budget_experiment.sh offline batched summary
#                                          # what ran on 2 cores (the zero-shot and direct cells came from
#                                          # scripts/measure_imdb_mini.py, the same preset and seeds)
#
# Arguments pick arms (default: all, then the summary): zero_shot direct offline batched. Two shells
# running different arms share the machine's cores between them.
set -euo pipefail
ARMS=${*:-zero_shot direct offline batched summary}
BUDGETS=${BUDGETS:-250,1000,4000}
SEEDS=${SEEDS:-0,1}
BATCHED_BUDGET=${BATCHED_BUDGET:-${BUDGETS%%,*}}
EVAL_N=${EVAL_N:-200}
JOBS=${JOBS:-1}   # cells at once; the sweep splits the cores between them
RL_STEPS=${RL_STEPS:-6144}   # the IMDB mini preset: 8 PPO iterations of 768 token steps
OUT=${OUT:-runs/label_budget}
COMMON=(task=imdb profile=mini "seed=$SEEDS" "output_dir=$OUT" "data.max_val=$EVAL_N" "data.max_test=$EVAL_N")
# The reward model: the packaged MiniLM encoder as backbone on 2 cores (the paper profile uses rho);
# 4-way comparisons; Adam with batch 8 as Ziegler, at MiniLM's usual fine-tuning rate (not tuned here).
LEARNED=(reward=learned reward.labeler=sentiment reward.k=4 reward.backbone=packaged:minilm
         reward.rm_learning_rate=5e-5 reward.rm_batch_size=8 reward.rm_max_length=64)

for arm in $ARMS; do
  case $arm in
    zero_shot) grue sweep "${COMMON[@]}" algo=zero_shot --no-export -j "$JOBS" ;;
    direct) grue sweep "${COMMON[@]}" algo=ppo "ppo.total_steps=$RL_STEPS" --no-export -j "$JOBS" ;;  # RL on the oracle itself
    offline) grue sweep "${COMMON[@]}" algo=ppo "ppo.total_steps=$RL_STEPS" "${LEARNED[@]}" reward.schedule=offline "reward.labels=$BUDGETS" \
               --no-export -j "$JOBS" ;;
    batched) grue sweep "${COMMON[@]}" algo=ppo "ppo.total_steps=$RL_STEPS" "${LEARNED[@]}" reward.schedule=batched reward.rounds=2 \
               "reward.labels=$BATCHED_BUDGET" --no-export -j "$JOBS" ;;
    summary) python scripts/label_budget_summary.py "$OUT" ;;
    *) echo "unknown arm $arm (zero_shot direct offline batched summary)" >&2; exit 2 ;;
  esac
done
