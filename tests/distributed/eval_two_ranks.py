"""Started by torchrun (2 processes) from test_two_processes.py: evaluate a split through the real
distributed path (each rank generates for its block, generations gathered, main scores them all),
with generation replaced by a lookup of fixed texts, so the numbers can be compared exactly with
one process scoring the same texts. Writes {"metrics": ..., "ranks": ...} from the main process."""
import json
import sys

import torch

torch.set_num_threads(1)


def main(spec_path: str) -> None:
    from grue.run import evaluate
    from grue.config import load_config
    from grue.policy.load import load_policy
    from grue.runtime.accelerator import make_accelerator
    from tasks import get_task

    spec = json.loads(open(spec_path).read())
    cfg = load_config(spec["args"])
    accelerator = make_accelerator("cpu", spec["out_dir"])
    fixed = spec.get("generations")  # sample id -> the text the one-process run generated
    seen: list[str] = []

    def lookup(policy, samples, gen_cfg, batch_size, progress=None, make_processors=None, seed=None):
        seen.extend(s.id for s in samples)
        return [fixed[s.id] for s in samples]

    if fixed is not None:  # else the real generation (test_sampling_two_processes.py)
        evaluate.generate = lookup
    samples = get_task(cfg.task).loader(cfg)["val"]
    policy = load_policy(cfg, cfg.model.policy, "cpu")
    scorers = evaluate.build_task_scorers(cfg, policy, "cpu") if accelerator.is_main_process else None
    result = evaluate.evaluate_split(cfg, policy, scorers, samples, accelerator=accelerator)
    ranks = accelerator.gather_for_metrics([{"rank": accelerator.process_index, "ids": seen}], use_gather_object=True)
    if accelerator.is_main_process:
        with open(spec["out"], "w") as handle:
            json.dump({"metrics": result.metrics, "ranks": list(ranks), "world": accelerator.num_processes,
                       "generations": [p["generation"] for p in result.predictions]}, handle)
    accelerator.wait_for_everyone()


if __name__ == "__main__":
    main(sys.argv[1])
