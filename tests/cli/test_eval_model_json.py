"""`grue eval model=<folder>` on a model folder whose config.json or adapter_config.json is not a JSON object:
one `error:` line naming the file, exit 2, before anything is loaded (it was a traceback from transformers or
peft; issue 45)."""
from __future__ import annotations

import pytest
from typer.testing import CliRunner

from cli import app


def model_folder(root, config: str):
    root.mkdir()
    (root / "config.json").write_text(config)
    (root / "model.safetensors").write_bytes(b"")
    (root / "tokenizer.json").write_text("{}")
    return root


@pytest.mark.parametrize("config, expected", [("{not json", "is not readable JSON"), ("[1, 2]", "holds a list")])
def test_a_model_folder_with_a_broken_config_is_refused_before_loading(tmp_path, config, expected):
    folder = model_folder(tmp_path / "m", config)
    result = CliRunner().invoke(app, ["eval", f"model={folder}", "task=imdb", "profile=mini",
                                      f"output_dir={tmp_path / 'evals'}"])
    assert result.exit_code == 2 and "Traceback" not in result.output, result.output
    assert result.output.startswith(f"error: model={folder}: {folder / 'config.json'} {expected}"), result.output
    assert not (tmp_path / "evals").exists()


def test_an_adapter_folder_with_a_broken_adapter_config_is_refused(tmp_path):
    folder = tmp_path / "adapter"
    folder.mkdir()
    (folder / "adapter_config.json").write_text("not json at all")
    result = CliRunner().invoke(app, ["eval", f"model={folder}", "task=imdb", "profile=mini",
                                      f"output_dir={tmp_path / 'evals'}"])
    assert result.exit_code == 2 and "adapter_config.json is not readable JSON" in result.output, result.output
