"""SPICE: unavailable without Java and the jars, and the Java protocol exercised with a stand-in."""
import json
import stat
import sys

import pytest

from grue.metrics.base import MetricContext, MetricInputs
from grue.metrics.registry import build_scorers

FAKE_JAVA = f"""#!{sys.executable}
import json, sys
args = sys.argv[1:]
items = json.load(open(args[3]))
out = args[args.index("-out") + 1]
json.dump([{{"image_id": it["image_id"],
            "scores": {{"All": {{"f": float("nan") if not it["test"] else len(it["refs"]) / 10}}}}}}
           for it in items], open(out, "w"))
"""


@pytest.fixture
def spice_install(tmp_path):
    java = tmp_path / "java"
    java.write_text(FAKE_JAVA)
    java.chmod(java.stat().st_mode | stat.S_IEXEC)
    jar = tmp_path / "spice" / "spice-1.0.jar"
    (jar.parent / "lib").mkdir(parents=True)
    jar.write_bytes(b"")
    (jar.parent / "lib" / "stanford-corenlp-3.6.0.jar").write_bytes(b"")
    return {"spice_java": str(java), "spice_jar": str(jar)}


def test_without_a_jar_it_is_unavailable_with_the_reason(spice_install, monkeypatch):
    monkeypatch.delenv("GRUE_SPICE_JAR", raising=False)
    scorers = build_scorers(["spice"], MetricContext(options={"spice_java": spice_install["spice_java"]}))
    assert "spice-1.0.jar" in scorers.unavailable["spice"]
    scorers = build_scorers(["spice"], MetricContext(options={"spice_java": "no-such-java-here"}))
    assert "Java" in scorers.unavailable["spice"]


def test_without_corenlp_it_is_unavailable(spice_install, tmp_path):
    (tmp_path / "spice" / "lib" / "stanford-corenlp-3.6.0.jar").unlink()
    scorers = build_scorers(["spice"], MetricContext(options=spice_install))
    assert "CoreNLP" in scorers.unavailable["spice"]


def test_items_are_positional_and_nan_becomes_zero(spice_install):
    scorers = build_scorers(["spice"], MetricContext(options=spice_install))
    assert scorers.unavailable == {}
    inputs = MetricInputs(prompts=["same", "same", "same"], generations=["a dog", "", "two dogs"],
                          references=[["r1"], ["r1"], ["r1", "r2"]])
    value = scorers.compute(inputs)["spice"]
    assert value.per_sample == pytest.approx([0.1, 0.0, 0.2])
    assert value.corpus == pytest.approx(0.1)
