"""A distillation teacher named by its algorithm (`grpo.teacher.model=supervised`, the `distill` preset's default;
grue/run/teacher_runs.py): the supervised run of the same task, settings and seed is trained first, the trainer
distils from that run's model/, and the run's config and hash keep the name while results.json records which
run it was. Named algorithms that cannot teach are refused before any work."""
from __future__ import annotations

import json

from typer.testing import CliRunner

from grue.config import load_config
from grue.config.run_settings import run_settings
from grue.run.teacher_runs import teacher_directory_of, teacher_run_args


def _results(path):
    return json.loads((path / "results.json").read_text())


def _train_log(path):
    return [json.loads(line) for line in (path / "logs" / "train.jsonl").read_text().splitlines()]


def test_the_named_teacher_is_the_supervised_run_trained_first(tiny_imdb_args, tmp_path):
    from cli import app

    runs = tmp_path / "runs"
    result = CliRunner().invoke(app, ["run", *tiny_imdb_args, "algo=distill"])  # the preset names `supervised`
    assert result.exit_code == 0, result.output
    [supervised] = [p.parent for p in runs.glob("imdb-mini-supervised-seed0-*/results.json")]
    [named] = [p.parent for p in runs.glob("imdb-mini-distill-seed0-*/results.json")]
    assert (supervised / "model" / "config.json").is_file()
    doc = _results(named)
    assert doc["config"]["grpo"]["teacher"]["model"] == "supervised"  # the name is what the run is, not a path
    assert doc["teachers"] == {"grpo.teacher.model": {"given": "supervised", "run": supervised.name}}
    named_kl = [r["distill/reverse_kl"] for r in _train_log(named)]
    # the student starts as the packaged policy, the teacher is the supervised model: they differ at once
    assert named_kl[0] > 0

    # The same distillation with the teacher given as that run's directory (another hash, the same computation):
    # the same reverse KL at every iteration and the same scores, so the named run distilled from that run.
    by_path = CliRunner().invoke(app, ["run", *tiny_imdb_args, "algo=distill", f"grpo.teacher.model={supervised}"])
    assert by_path.exit_code == 0, by_path.output
    [explicit] = [p.parent for p in runs.glob("imdb-mini-distill-seed0-*/results.json") if p.parent != named]
    assert [r["distill/reverse_kl"] for r in _train_log(explicit)] == named_kl
    assert _results(explicit)["metrics"] == doc["metrics"]
    assert "teachers" not in _results(explicit)


def test_an_algorithm_that_cannot_teach_is_refused_before_any_work(tiny_imdb_args, tmp_path):
    from cli import app

    for algo, name, why in (("grpo", "zero_shot", "trains nothing"), ("grpo", "best_of_n", "trains nothing"),
                            ("distill", "distill", "distils from a teacher itself")):
        result = CliRunner().invoke(app, ["run", *tiny_imdb_args, f"algo={algo}", f"grpo.teacher.model={name}"])
        assert result.exit_code == 2, result.output
        assert f"grpo.teacher.model={name}: a {name} run {why}" in result.output, result.output
        assert "Traceback" not in result.output
    assert not list((tmp_path / "runs").glob("imdb-*"))  # no run directory was made, nothing trained


def test_the_trainer_alone_receives_the_directory():
    cfg = load_config(["task=imdb", "profile=mini", "algo=distill"])
    settings = run_settings(cfg, {"grpo.teacher.model": "some/run/model"})
    assert settings.grpo.teacher.model == "some/run/model"
    assert cfg.grpo.teacher.model == "supervised"  # the loader's config, hashed and recorded, keeps the name
    assert run_settings(cfg).grpo.teacher.model == "supervised"


def test_the_teacher_run_is_the_student_s_settings_without_its_teacher(tmp_path):
    args = ["task=imdb", "profile=mini", "seed=2", "algo=distill", "grpo.teacher.coef=0.5", "supervised.epochs=3",
            "grpo.group_size=2", f"output_dir={tmp_path}"]
    got = teacher_run_args(args, "supervised")
    assert got[-1] == "algo=supervised" and "seed=2" in got and "supervised.epochs=3" in got
    assert not [a for a in got if a.startswith("grpo.")]  # no group it does not read
    # a teacher of the student's own family keeps the settings it reads, but no teacher of its own (else a
    # `grpo` teacher would name itself its teacher, without end)
    assert teacher_run_args(args, "grpo")[-1] == "algo=grpo" and "grpo.group_size=2" in teacher_run_args(args, "grpo")
    assert not [a for a in teacher_run_args(args, "grpo") if ".teacher." in a]
    cfg = load_config(args)
    expected = load_config(["task=imdb", "profile=mini", "seed=2", "algo=supervised", "supervised.epochs=3",
                            f"output_dir={tmp_path}"])
    from grue.config import config_hash

    assert teacher_directory_of(cfg, args, "supervised").endswith(f"-{config_hash(expected)[:8]}/model")
    # a published supervised checkpoint stands in for the supervised run, as it does for a warm start
    published = load_config([*args, f"model.supervised_init={tmp_path / 'published'}"])
    assert teacher_directory_of(published, args, "supervised") == str(tmp_path / "published")
