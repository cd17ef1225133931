"""model.gradient_checkpointing changes memory, not results, so it is not part of a run's identity:
configs that differ only in it share a hash (one run directory, one board row), and so do the recorded
preset hashes (tests/config/preset_hashes.json). A lever that does change results (autocast) stays hashed."""
import json
from pathlib import Path

from grue.config import config_hash, load_config

RECORD = json.loads((Path(__file__).parents[1] / "config" / "preset_hashes.json").read_text())


def test_configs_differing_only_in_gradient_checkpointing_share_a_hash():
    for base in (["task=imdb", "profile=mini", "algo=ppo", "model.lora.rank=4"],
                 ["task=imdb", "profile=mini", "algo=grpo"]):
        plain = config_hash(load_config(base))
        assert config_hash(load_config([*base, "model.gradient_checkpointing=true"])) == plain
        assert config_hash(load_config([*base, "model.gradient_checkpointing=false"])) == plain
        # the comparison can tell settings apart: autocast rounds differently and is a setting of its own
        assert config_hash(load_config([*base, "model.mixed_precision=bf16"])) != plain


def test_a_recorded_preset_keeps_its_hash_with_gradient_checkpointing_on():
    for args in ("task=imdb profile=mini algo=ppo", "task=cnn_dailymail profile=paper algo=nlpo"):
        recorded = RECORD[args]
        assert config_hash(load_config(args.split())) == recorded
        assert config_hash(load_config([*args.split(), "model.gradient_checkpointing=true"])) == recorded
