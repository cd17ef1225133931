"""SPICE (Anderson et al., 2016) through the reference Java implementation, when it is installed.

SPICE parses candidate and references into scene graphs with Stanford CoreNLP and scores the F1 of
their tuples; there is no Python implementation, so it needs Java 8+ and ``spice-1.0.jar`` with the
CoreNLP jars in its ``lib/`` directory (the layout the SPICE release and pycocoevalcap use).
Options: ``spice_jar`` (or ``GRUE_SPICE_JAR``), ``spice_java`` (default: ``java`` on PATH),
``spice_memory`` ("8G"), ``spice_cache`` (a directory for SPICE's parse cache; off by default).
When any piece is missing the metric is unavailable with the reason (never 0).

Each sample is one SPICE item, identified by position (duplicate prompts do not collapse). The value
per sample is SPICE's "All" F-score (NaN, which SPICE reports for an empty tuple set, becomes 0); the
corpus value is the mean over samples, as the COCO evaluation reports it.
"""
from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from grue.metrics.base import MetricContext, MetricInputs, MetricUnavailable, MetricValue
from grue.metrics.references import require_references
from grue.metrics.registry import register

_INSTALL_HINT = ("install Java (Debian: apt-get install default-jre-headless) and the SPICE 1.0 release with "
                 "its Stanford CoreNLP jars, then set spice_jar (or GRUE_SPICE_JAR) to spice-1.0.jar")


class SpiceScorer:
    names = ("spice",)
    higher_is_better = {"spice": True}

    def __init__(self, java: str, jar: Path, memory: str = "8G", cache: str | None = None) -> None:
        self.command = [java, "-jar", f"-Xmx{memory}", str(jar)]
        self.cache = cache

    def compute(self, inputs: MetricInputs) -> dict[str, MetricValue]:
        require_references(inputs, "spice")
        if not inputs.generations:
            return {"spice": MetricValue(corpus=0.0, per_sample=[])}
        items = [{"image_id": i, "test": g, "refs": list(refs)}
                 for i, (g, refs) in enumerate(zip(inputs.generations, inputs.references))]
        with tempfile.TemporaryDirectory(prefix="grue-spice-") as tmp:
            src, out = Path(tmp) / "input.json", Path(tmp) / "output.json"
            src.write_text(json.dumps(items))
            extra = ["-cache", self.cache] if self.cache else []
            proc = subprocess.run(self.command + [str(src), "-out", str(out), "-subset", "-silent"] + extra,
                                  capture_output=True, text=True)
            if proc.returncode != 0 or not out.exists():
                raise RuntimeError(f"SPICE failed (exit {proc.returncode}): {proc.stderr.strip()[-2000:]}")
            results = json.loads(out.read_text())
        by_id = {int(r["image_id"]): float(r["scores"]["All"]["f"]) for r in results}
        values = [0.0 if math.isnan(by_id.get(i, math.nan)) else by_id[i] for i in range(len(items))]
        return {"spice": MetricValue(corpus=sum(values) / len(values), per_sample=values)}


@register(higher_is_better=SpiceScorer.higher_is_better)
def build_spice(ctx: MetricContext) -> SpiceScorer:
    java = shutil.which(str(ctx.options.get("spice_java", "java")))
    if java is None:
        raise MetricUnavailable(f"spice needs Java, which is not installed here; {_INSTALL_HINT}")
    jar_option = ctx.options.get("spice_jar") or os.environ.get("GRUE_SPICE_JAR")
    if not jar_option:
        raise MetricUnavailable(f"spice needs spice-1.0.jar and none is configured; {_INSTALL_HINT}")
    jar = Path(str(jar_option)).expanduser()
    if not jar.is_file():
        raise MetricUnavailable(f"spice jar {jar} does not exist; {_INSTALL_HINT}")
    if not list((jar.parent / "lib").glob("stanford-corenlp-*.jar")):
        raise MetricUnavailable(f"spice needs the Stanford CoreNLP jars in {jar.parent / 'lib'}; {_INSTALL_HINT}")
    return SpiceScorer(java, jar, str(ctx.options.get("spice_memory", "8G")), ctx.options.get("spice_cache"))
