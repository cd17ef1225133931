"""The model card of a finished run: `model/README.md` in the Hugging Face hub's model-card format.

A card is a YAML metadata block (what the hub indexes: pipeline, base model, dataset, tags, the metric
names and a `model-index` with the results per split) followed by Markdown: what was trained and how,
the metrics table with every seed of the run's setting, the resolved config, how to load the model,
and the citations of the GRUE paper and of grue. The seeds are the results files of the same setting
(the config without its seed, grue/board/numbers/setting.py) found beside the run in its output
directory, so a card written when seed 2 finishes also lists seeds 0 and 1; writing one seed's card
rewrites its siblings' so that every card of a setting shows the same table.

The renderer reads results documents only (docs/results_schema.md); the runner writes the card when a
run finishes, `grue eval` of a run directory writes it again, and a submission bundle carries one
(grue/board/submit/bundle.py). The metadata round-trips through `huggingface_hub`'s ModelCard parser.
"""
from __future__ import annotations

import json
import math
import re
import statistics
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

import yaml

from grue.storage.run_layout import RESULTS, config_file, model_dir, results_file

CARD_FILE = "README.md"
# Packaged models (grue/assets/packaged.py) are copies of these hub models.
PACKAGED_ON_HUB = {"smollm2-135m": "HuggingFaceTB/SmolLM2-135M-Instruct",
                   "minilm": "sentence-transformers/all-MiniLM-L6-v2"}
_HUB_ID = re.compile(r"[A-Za-z0-9][\w.-]*/[\w.-]+")

PAPER_BIBTEX = """@inproceedings{ramamurthy2023is,
  title     = {Is Reinforcement Learning (Not) for Natural Language Processing: Benchmarks, Baselines,
               and Building Blocks for Natural Language Policy Optimization},
  author    = {Ramamurthy, Rajkumar and Ammanabrolu, Prithviraj and Brantley, Kiant{\\'e} and Hessel, Jack
               and Sifa, Rafet and Bauckhage, Christian and Hajishirzi, Hannaneh and Choi, Yejin},
  booktitle = {The Eleventh International Conference on Learning Representations (ICLR)},
  year      = {2023},
  url       = {https://openreview.net/forum?id=8aHzds2uUyB}
}"""


def grue_bibtex(version: str | None) -> str:
    return ("@software{grue,\n  title   = {grue: the GRUE leaderboard runner},\n"
            f"  version = {{{version or 'unknown'}}},\n  note    = {{Train, score and verify language models on the "
            "GRUE benchmark}\n}")


def hub_id(reference: str | None) -> str | None:
    """The hub repository a model or dataset reference names: a hub id as is, a packaged model's source;
    None for local paths and data of grue's own (mini corpora)."""
    if not reference:
        return None
    if reference.startswith("packaged:"):
        return PACKAGED_ON_HUB.get(reference.split(":", 1)[1])
    if ":" in reference or reference.startswith((".", "/", "~")) or not _HUB_ID.fullmatch(reference):
        return None
    return None if Path(reference).exists() else reference


def _config(doc: Mapping[str, Any]) -> dict[str, Any]:
    config = doc.get("config")
    return dict(config) if isinstance(config, Mapping) else {}


def setting_of(doc: Mapping[str, Any]) -> tuple:
    """What makes two results documents seeds of one setting (the board's row key)."""
    from grue.board.numbers.setting import init_model_name, setting_id, setting_items

    return (doc.get("task"), doc.get("profile"), doc.get("algo"), doc.get("reward") or "",
            init_model_name(doc.get("init_model")), setting_id(setting_items(doc)))


def _load(path: Path) -> dict[str, Any] | None:
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return doc if isinstance(doc, dict) and doc.get("status") == "complete" and doc.get("kind") != "evaluation" else None


def seed_documents(run_dir: Path) -> list[tuple[Path, dict[str, Any]]]:
    """The run's own results and those of the other seeds of its setting beside it, by seed."""
    run_dir = Path(run_dir)
    own = _load(results_file(run_dir))
    if own is None:
        return []
    found = {own["seed"]: (run_dir, own)}
    key = setting_of(own)
    for path in sorted(run_dir.parent.glob(f"*/{RESULTS}")):
        if path.parent == run_dir:
            continue
        doc = _load(path)
        if doc is not None and doc.get("seed") not in found and setting_of(doc) == key:
            found[doc["seed"]] = (path.parent, doc)
    return [found[s] for s in sorted(found)]


# -- rendering -----------------------------------------------------------------------------------------------
def _fmt(value: float | None) -> str:
    if value is None or not math.isfinite(value):
        return "–"
    return f"{value:.4g}"


def _spread(values: Sequence[float]) -> tuple[float, float | None]:
    mean = statistics.fmean(values)
    return mean, (statistics.stdev(values) if len(values) > 1 else None)


def _task_info(task: str) -> tuple[str, str, tuple[str, ...]]:
    """(title, short name, Table 1 task metrics) of a task; its name where this grue does not know it."""
    from tasks import find_task

    spec = find_task(task)
    if spec is None:
        return task, task, ()
    return spec.title, spec.short, tuple(spec.task_metrics)


def _algo_label(algo: str) -> str:
    from grue.train.registry import find_algorithm

    entry = find_algorithm(algo)
    return entry.label if entry is not None else algo


def _splits(docs: Sequence[Mapping[str, Any]]) -> list[str]:
    names = {s for d in docs for s in (d.get("metrics") or {})}
    return [s for s in ("val", "test") if s in names] + sorted(names - {"val", "test"})


def _metric_names(docs: Sequence[Mapping[str, Any]], split: str, first: Iterable[str] = ()) -> list[str]:
    names = {m for d in docs for m in (d.get("metrics") or {}).get(split, {})}
    leading = [m for m in first if m in names]
    return leading + sorted(names - set(leading))


def metadata(docs: Sequence[Mapping[str, Any]], name: str) -> dict[str, Any]:
    """The card's YAML block: hub fields, a model-index with the seeds' mean per split, and grue's own record."""
    doc = docs[0]
    config = _config(doc)
    title, short, headline = _task_info(doc["task"])
    kind = (config.get("model") or {}).get("kind", "causal")
    pipeline = "text2text-generation" if kind == "seq2seq" else "text-generation"
    data = config.get("data") or {}
    dataset = hub_id(data.get("source"))
    base = hub_id(doc.get("init_model")) or hub_id((config.get("model") or {}).get("policy"))
    results = []
    for split in _splits(docs):
        metrics = []
        for metric in _metric_names(docs, split, headline):
            values = [float(d["metrics"][split][metric]) for d in docs if metric in d["metrics"].get(split, {})]
            mean, _ = _spread(values)
            metrics.append({"type": metric, "value": round(mean, 6),
                            "name": f"{metric} ({split}, mean of {len(values)} seed{'s' if len(values) > 1 else ''})"})
        source = ((doc.get("splits") or {}).get(split) or {}).get("source", split)
        results.append({"task": {"type": pipeline, "name": title},
                        "dataset": {"type": dataset or f"grue/{doc['task']}", "name": f"{short} ({doc['profile']} profile)",
                                    "split": source, **({"config": data["config"]} if data.get("config") else {})},
                        "metrics": metrics})
    tags = ["grue", f"grue-{doc['task']}", doc["algo"], doc["profile"]]
    from grue.train.registry import find_algorithm

    entry = find_algorithm(doc["algo"])
    if entry is not None and entry.trains == "rl":
        tags.append("reinforcement-learning")
    meta: dict[str, Any] = {"library_name": "transformers", "pipeline_tag": pipeline, "tags": tags}
    if base:
        meta["base_model"] = base
    if dataset:
        meta["datasets"] = [dataset]
    meta["metrics"] = sorted({m for r in results for m in (x["type"] for x in r["metrics"])})
    meta["model-index"] = [{"name": name, "results": results}]
    meta["grue"] = {
        "task": doc["task"], "profile": doc["profile"], "algo": doc["algo"], "reward": doc.get("reward"),
        "init_model": doc.get("init_model"), "comparable_to_paper": bool(doc.get("comparable_to_paper")),
        "seeds": [d["seed"] for d in docs], "config_hash": {str(d["seed"]): d.get("config_hash") for d in docs},
        "grue_version": (doc.get("versions") or {}).get("grue"), "git_commit": doc.get("git_commit"),
    }
    return meta


def _results_table(docs: Sequence[Mapping[str, Any]]) -> list[str]:
    seeds = [d["seed"] for d in docs]
    _, _, headline = _task_info(docs[0]["task"])
    head = ["split", "metric", "mean ± std"] + [f"seed {s}" for s in seeds]
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join(["---", "---"] + ["---:"] * (len(head) - 2)) + "|"]
    for split in _splits(docs):
        for metric in _metric_names(docs, split, headline):
            per_seed = [d["metrics"].get(split, {}).get(metric) for d in docs]
            values = [float(v) for v in per_seed if v is not None]
            mean, std = _spread(values)
            cell = _fmt(mean) + (f" ± {_fmt(std)}" if std is not None else "")
            lines.append("| " + " | ".join([split, metric, cell] + [_fmt(v) for v in per_seed]) + " |")
    return lines


def _loading(doc: Mapping[str, Any], where: str) -> list[str]:
    kind = (_config(doc).get("model") or {}).get("kind", "causal")
    auto = "AutoModelForSeq2SeqLM" if kind == "seq2seq" else "AutoModelForCausalLM"
    return ["```python", f"from transformers import {auto}, AutoTokenizer", "",
            f'model = {auto}.from_pretrained("{where}")', f'tokenizer = AutoTokenizer.from_pretrained("{where}")',
            "```", "", "Scored again on the task's whole metric mix (an evaluation, never a board row):", "",
            "```bash", f"grue eval model={where} task={doc['task']} profile={doc['profile']}", "```"]


def render_model_card(docs: Sequence[Mapping[str, Any]], *, seed: int | None = None, config_yaml: str | None = None,
                      name: str | None = None, where: str = ".") -> str:
    """The card of one setting: `docs` are its seeds' results documents; `seed` the one the card describes
    (the first by default), whose config it shows.

    `config_yaml` is that run's config.yaml (its resolved config is dumped when not given); `where` is
    the path or hub id the loading example reads the model from.
    """
    if not docs:
        raise ValueError("a model card needs at least one results document")
    docs = sorted(docs, key=lambda d: d["seed"])
    doc = next((d for d in docs if d["seed"] == seed), docs[0])
    name = name or f"{doc['task']}-{doc['profile']}-{doc['algo']}-seed{doc['seed']}"
    title, short, _ = _task_info(doc["task"])
    label = _algo_label(doc["algo"])
    seeds = [d["seed"] for d in docs]
    front = yaml.safe_dump(metadata(docs, name), sort_keys=False, allow_unicode=True, width=1000)
    reward = f", optimising the `{doc['reward']}` reward" if doc.get("reward") else ""
    comparable = ("comparable to the paper's numbers" if doc.get("comparable_to_paper") else
                  "not comparable to the paper's numbers (a profile or task outside the paper's setting)")
    lines = [
        "---", front.rstrip(), "---", "",
        f"# {label} on {short} ({doc['profile']} profile), trained with grue", "",
        f"This model was trained by [grue](#citation), the GRUE leaderboard runner, with **{label}** on "
        f"**{title}**{reward}, starting from `{doc.get('init_model')}`. Profile **{doc['profile']}**: "
        f"{comparable}. Seed {doc['seed']} of {len(seeds)} seed(s) of this setting ({', '.join(map(str, seeds))}); "
        f"config hash `{doc.get('config_hash')}`.", "",
        "## Results", "",
        "Each metric on each split: the mean ± sample standard deviation over the setting's seeds, then each "
        "seed's value (GRUE's metric mix; `docs/leaderboard.md` says how the board scores them).", "",
        *_results_table(docs), "",
    ]
    unavailable = doc.get("metrics_unavailable") or {}
    if unavailable:
        lines += ["Not reported (never counted as 0):", ""]
        lines += [f"- `{metric}`: {why}" for metric, why in sorted(unavailable.items())] + [""]
    text = config_yaml if config_yaml is not None else yaml.safe_dump(_config(doc), sort_keys=False)
    lines += ["## Config", "", f"The resolved config of seed {doc['seed']} (`config.yaml`; `grue run` with these values "
              "reproduces the run):", "", "```yaml", text.rstrip(), "```", "",
              "## How to load it", "", *_loading(doc, where), "",
              "## Citation", "", "The GRUE benchmark and NLPO:", "", "```bibtex", PAPER_BIBTEX, "```", "",
              "grue, which trained and scored this model:", "", "```bibtex",
              grue_bibtex((doc.get("versions") or {}).get("grue")), "```", ""]
    return "\n".join(lines)


def card_for_run(run_dir: Path, where: str | None = None) -> str | None:
    """The card of one run directory (its setting's seeds beside it); None when it has no complete results."""
    seeds = seed_documents(Path(run_dir))
    if not seeds:
        return None
    own = Path(run_dir)
    config = config_file(own)
    return render_model_card([d for _, d in seeds], seed=next(d["seed"] for p, d in seeds if p == own), name=own.name,
                             config_yaml=config.read_text(encoding="utf-8") if config.is_file() else None,
                             where=where or str(model_dir(own)))


def write_model_cards(run_dir: Path) -> list[Path]:
    """Write `model/README.md` of the run and of the other seeds of its setting beside it (those with a
    `model/`); returns the cards written."""
    from grue.storage.atomic import atomic_write_text

    written = []
    for path, _ in seed_documents(Path(run_dir)):
        model = model_dir(path)
        if model.is_dir():
            text = card_for_run(path)
            if text is not None:
                atomic_write_text(model / CARD_FILE, text)
                written.append(model / CARD_FILE)
    return written
