"""A launched rank destroys its process group before the interpreter finalises (gloo can abort in
finalisation when the group is left alive; see grue.runtime.distributed.destroy_group_at_exit)."""
import json

from test_two_processes import torchrun_two


def test_every_rank_destroys_its_process_group_at_exit(tmp_path):
    torchrun_two("exit_two_ranks.py", {"out": str(tmp_path)}, tmp_path)
    states = [json.loads((tmp_path / f"rank{rank}.json").read_text()) for rank in (0, 1)]
    assert states == [{"alive": False}, {"alive": False}]
