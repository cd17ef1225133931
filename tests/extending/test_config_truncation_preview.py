"""`grue config` on a task file with local data says how many prompts of each split model.max_prompt_length
cuts, counted with the policy's tokenizer.json alone (issue 47: an inherited 24-token limit cut 10-17 % of a
user's prompts unseen). The expected counts come from transformers' own tokenizer on the prompts the task
file's template makes of the fixture's sentences."""
from __future__ import annotations

from grue.commands.config_truncation import RUN_START, truncation_preview
from grue.config import load_config
from user_task_fixtures import TEXTS


def test_the_preview_counts_what_the_limit_cuts_per_split(user_task, tiny_model_dirs):
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(tiny_model_dirs.policy))
    lengths = [len(tokenizer(f"Sentence: {text}\nTopic:", add_special_tokens=False)["input_ids"])
               for text, _, _ in TEXTS]
    limit = sorted(lengths)[len(lengths) // 2]           # about half the sentences are longer
    longer = sum(n > limit for n in lengths)
    assert 0 < longer < len(lengths)
    cfg = load_config([f"task={user_task}", "profile=mini", "algo=ppo", f"model.policy={tiny_model_dirs.policy}",
                       f"model.max_prompt_length={limit}"])
    line = truncation_preview(cfg)
    # train holds every sentence twice, val and test once (user_task_fixtures.write_task_folder)
    assert line.startswith(f"prompts cut to model.max_prompt_length={limit} tokens (from the left): ")
    assert f"train {2 * longer}/12 " in line and f"val {longer}/6 " in line and f"test {longer}/6 " in line
    assert f"longest {max(lengths)})" in line


def test_without_a_tokenizer_on_disk_the_count_waits_for_the_run(user_task, tmp_path):
    cfg = load_config([f"task={user_task}", "profile=mini", f"model.policy={tmp_path / 'not_built'}"])
    assert truncation_preview(cfg) == RUN_START


def test_a_built_in_task_gets_no_preview():
    assert truncation_preview(load_config(["task=imdb", "profile=mini"])) == ""
