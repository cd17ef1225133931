"""The pinned TRL environments `make bench` compares grue against, built once under `.bench/`.

TRL stays out of grue's own dependencies: each TRL release lives in its own virtual environment.
- `trl-1.16`: trl 1.16.0, the newest release, for the GRPO pair (`GRPOTrainer`), on the same torch,
  transformers, accelerate and datasets as grue (its requirements accept them), so both sides run the
  same kernels.
- `trl-1.12`: trl 1.12.0 (the last release with a PPO trainer, `trl.experimental.ppo`) on the same
  torch and transformers as grue, for the PPO pair (and the older GRPO sides).
- `trl-0.11`: trl 0.11.4 (the classic `PPOTrainer.step` with a shared value head), which needs
  transformers 4.46.3; SmolLM2's folder is re-spelled for transformers 4 (`respell_for_transformers4`).
"""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from importlib import metadata
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parents[2] / ".bench"
TORCH = "torch==2.13.0"  # the CPU build the project installs; an unpinned torch would pull a CUDA build


def _same_as_grue(package: str) -> str:
    return f"{package}=={metadata.version(package)}"


ENVIRONMENTS: dict[str, list[str]] = {
    "trl-1.16": ["trl==1.16.0", _same_as_grue("transformers"), _same_as_grue("accelerate"),
                 _same_as_grue("datasets")],
    # GRPOTrainer imports requests (its vLLM client) without declaring it
    "trl-1.12": ["trl==1.12.0", _same_as_grue("transformers"), _same_as_grue("accelerate"),
                 _same_as_grue("datasets"), "requests"],
    # trl 0.11 imports rich without declaring it
    "trl-0.11": ["trl==0.11.4", "transformers==4.46.3", "accelerate==1.0.1", "datasets<4", "rich"],
}


def python_of(name: str) -> Path:
    """The interpreter of one TRL environment, building the environment first if needed.

    The stamp records the requirements installed, so an environment built from an older list gets
    what the list has gained (pip installs only what is missing)."""
    env = BENCH_DIR / name
    stamp = env / ".installed"
    wanted = " ".join([TORCH, *ENVIRONMENTS[name], "psutil"])
    if stamp.exists() and stamp.read_text() == wanted:
        return env / "bin" / "python"
    pip = [str(env / "bin" / "python"), "-m", "pip", "install", "-q"]
    if not stamp.exists():
        print(f"[bench] building the {name} environment once (pip, a few minutes)", file=sys.stderr)
        shutil.rmtree(env, ignore_errors=True)
        subprocess.run([sys.executable, "-m", "venv", str(env)], check=True)
        subprocess.run([*pip, TORCH], check=True)
    subprocess.run([*pip, *ENVIRONMENTS[name], "psutil"], check=True)
    stamp.write_text(wanted)
    return env / "bin" / "python"


def respell_for_transformers4(model_dir: Path) -> Path:
    """A copy of a transformers-5 Llama folder that transformers 4.46 reads the same way.

    transformers 5 writes `rope_parameters` and `dtype` where 4.x reads `rope_theta` and
    `torch_dtype`, may write a null `quantization_config` (4.x then tries to build a quantizer), and
    names a tokenizer class 4.x does not have; the weights are untouched.
    """
    out = BENCH_DIR / "models" / f"{model_dir.name}-transformers4"
    if (out / "config.json").exists():
        return out
    tmp = out.with_name(out.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    shutil.copytree(model_dir, tmp)
    config = json.loads((tmp / "config.json").read_text())
    rope = config.pop("rope_parameters", None) or {}
    config.setdefault("rope_theta", rope.get("rope_theta", 10000.0))
    if "dtype" in config:
        config["torch_dtype"] = config.pop("dtype")
    if config.get("quantization_config", 0) is None:
        del config["quantization_config"]
    (tmp / "config.json").write_text(json.dumps(config, indent=2))
    tok_cfg_path = tmp / "tokenizer_config.json"
    tok_cfg = json.loads(tok_cfg_path.read_text())
    tok_cfg["tokenizer_class"] = "PreTrainedTokenizerFast"
    tok_cfg_path.write_text(json.dumps(tok_cfg, indent=2))
    tmp.rename(out)
    return out


if __name__ == "__main__":
    for env_name in sys.argv[1:] or ENVIRONMENTS:
        print(python_of(env_name))
