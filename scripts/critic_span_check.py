"""Does the critic mark the right words? On generations from a run's predictions file, remove each
span the critic marks and re-score the text with the sentiment classifier: a positive span's removal
should lower P(positive), a negative span's removal should raise it. Prints the share of spans that
move the score in their direction, with the critic's outcome counts (a small critic may do badly:
the number is what matters).

    .venv/bin/python scripts/critic_span_check.py runs/<imdb mini run>/predictions/{val,test}.jsonl \
        --critic packaged:smollm2-135m --limit 300
"""
from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

import torch

from grue.rewards.critic.cache import JudgementCache, judgement_key
from grue.rewards.critic.local_backend import LocalLMCritic
from grue.rewards.critic.parse import parse_critique
from grue.rewards.critic.template import load_template
from grue.rewards.critic.token_spans import locate
from grue.rewards.sentiment import SentimentClassifier
from grue.storage.run_layout import read_jsonl


def without(text: str, span: str) -> str:
    """`text` with every occurrence of `span` cut out (as the critic's reward marks every occurrence)."""
    for start, end in reversed(locate(text, span)):
        text = text[:start] + text[end:]
    return text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("predictions", type=Path, nargs="+", help="predictions/<split>.jsonl files of IMDB runs")
    parser.add_argument("--critic", default="packaged:smollm2-135m")
    parser.add_argument("--critic-tokens", type=int, default=32)
    parser.add_argument("--classifier", default="packaged:minilm-sentiment-split42")
    parser.add_argument("--limit", type=int, default=300)
    parser.add_argument("--template", default="sentiment", help="built-in name or a template file")
    parser.add_argument("--cache", type=Path, default=Path("runs/critic_span_check_cache"))
    parser.add_argument("--threads", type=int, default=1, help="torch threads (one is fastest on a busy machine)")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    rows = [row for path in args.predictions for row in read_jsonl(path)][:args.limit]
    template = load_template(args.template)
    classifier = SentimentClassifier(args.classifier)
    scores = classifier.positive_probability([r["prompt"] + r["generation"] for r in rows])
    critic, cache = LocalLMCritic(args.critic, max_new_tokens=args.critic_tokens), JudgementCache(args.cache)
    prompts = [template.render(r["prompt"], r["generation"], s * 10) for r, s in zip(rows, scores)]
    keys = [judgement_key(critic.identity, template.digest, p) for p in prompts]
    missing = [(k, p) for k, p in zip(keys, prompts) if cache.get(k) is None]
    for start in range(0, len(missing), 16):  # cached in blocks, so an interrupted check resumes
        block = missing[start:start + 16]
        answers = critic.judge([p for _, p in block])
        cache.put_many({k: a for (k, _), a in zip(block, answers) if a is not None})
    outcomes, moved, total, unmatched, none_under = Counter(), Counter(), Counter(), 0, 0
    edits, edit_labels, base = [], [], []
    for row, key, score in zip(rows, keys, scores):
        critique = parse_critique(cache.get(key), list(template.labels), template.answer_format)
        outcomes[critique.outcome] += 1
        none_under += len(critique.none_under)
        for label, span in critique.spans:
            if not locate(row["generation"], span):
                unmatched += 1
                continue
            edits.append(row["prompt"] + without(row["generation"], span))
            edit_labels.append(label)
            base.append(score)
    for label, before, after in zip(edit_labels, base, classifier.positive_probability(edits)):
        sign = template.labels[label]
        total[label] += 1
        moved[label] += (before - after) * sign > 0  # removing good words lowers P(positive), bad ones raise it
    report = {"generations": len(rows), "outcomes": dict(outcomes), "headings_none_identified": none_under,
              "spans_not_in_generation": unmatched,
              **{f"{label}_spans": total[label] for label in template.labels},
              **{f"{label}_moved_as_marked": moved[label] / total[label] if total[label] else None
                 for label in template.labels},
              "all_moved_as_marked": sum(moved.values()) / max(1, sum(total.values()))}
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
