"""Sampled evaluation on 2 processes (torchrun, gloo) gives the texts one process samples: each episode's
noise is keyed by the seed and its sample id (grue.policy.sampling), not by the rank it lands on."""
import json

from grue.config import load_config
from grue.policy.load import load_policy
from grue.run import evaluate
from tasks import get_task
from tests.distributed.test_two_processes import torchrun_two


def test_two_processes_sample_the_texts_one_process_samples(tiny_imdb_args, tmp_path):
    args = [*tiny_imdb_args, "algo=zero_shot", "data.max_val=7", "generation.top_k=0"]  # ranks hold 4 + 3
    cfg = load_config(args)
    assert cfg.generation.do_sample
    samples = get_task(cfg.task).loader(cfg)["val"]
    policy = load_policy(cfg, cfg.model.policy, "cpu")
    one = evaluate.generate(policy, samples, cfg.generation, cfg.eval.batch_size, seed=int(cfg.seed))
    assert one != evaluate.generate(policy, samples, cfg.generation, cfg.eval.batch_size, seed=int(cfg.seed) + 1)
    spec = {"args": args, "out": str(tmp_path / "two.json"), "out_dir": str(tmp_path / "acc")}
    torchrun_two("eval_two_ranks.py", spec, tmp_path)
    two = json.loads((tmp_path / "two.json").read_text())
    assert two["world"] == 2 and two["generations"] == one
