"""`grue config --origins`: the resolved config as YAML, each value followed by where it came from.

The output stays valid YAML (the origins are comments), so it can be saved and read back like the plain
output. A value's origin is the last layer that set it (grue/config/provenance.py): `default`, `task <name>`
(its file's base, `profile <p>` or `<profile>/<algo> preset` layers), `inherited from <task>` (a task file's
`inherit:`), `algorithm <algo> preset`, `the caller` (a sweep cell), `command line`, `variant of algo`, and
`grue (...)` for what grue fills itself (digests of files).
"""
from __future__ import annotations

from typing import Any, Mapping

COMMENT_COLUMN = 48  # origins line up here (further right after a longer line)


def _scalar(value: Any) -> str:
    """A value (or key) as one line of YAML flow style; JSON (also YAML) where a string holds a line break."""
    import json

    import yaml

    text = yaml.safe_dump(value, default_flow_style=True, width=10 ** 9, allow_unicode=True).strip()
    text = text[:-4].rstrip() if text.endswith("\n...") else text
    return json.dumps(value, ensure_ascii=False) if "\n" in text else text


def annotated_yaml(values: Mapping[str, Any], origin: Any, prefix: str = "", indent: int = 0) -> list[str]:
    """`values` as block YAML, a leaf per line with `# <origin(dotted key)>`; groups as headers."""
    lines = []
    for key, value in values.items():
        dotted = f"{prefix}{key}"
        pad = "  " * indent
        if isinstance(value, Mapping) and value:
            lines.append(f"{pad}{_scalar(key)}:")
            lines += annotated_yaml(value, origin, dotted + ".", indent + 1)
            continue
        text = f"{pad}{_scalar(key)}: {_scalar(value)}"
        lines.append(f"{text:<{COMMENT_COLUMN}} # {origin(dotted)}")
    return lines


def traced_load(args: list[str], refuse_unread: bool = True) -> tuple[Any, dict[str, str]]:
    """(the config `load_config` resolves for `args`, each leaf key's origin)."""
    from grue.config import load_config
    from grue.config.provenance import Trace, file_task_origins
    from tasks import task_from_choice

    trace = Trace()
    cfg = load_config(args, refuse_unread=refuse_unread, trace=trace)
    task = task_from_choice(cfg.task_file or cfg.task)
    return cfg, file_task_origins(trace.origins(), task, cfg.profile, cfg.algo)


def config_with_origins(args: list[str], every_group: bool = False) -> tuple[Any, str, str]:
    """(the loaded config, its YAML with origins, the `inherit:` note or '') for the command line `args`."""
    from omegaconf import OmegaConf

    from grue.config.provenance import inherit_note, origin_of
    from grue.config.read_groups import shown_config

    cfg, origins = traced_load(args)
    values = OmegaConf.to_container(cfg, resolve=True)
    shown = shown_config(values, cfg.algo, every_group)
    text = "\n".join(annotated_yaml(shown, lambda key: origin_of(key, origins)))
    return cfg, text, inherit_note(values, origins)


def inherit_note_of(args: list[str], cfg: Any) -> str:
    """`grue run`'s copy of the `inherit:` note ('' for a task that inherits nothing; only such a task pays
    for the second, traced load)."""
    from grue.config.provenance import inherit_note, inherited_parent
    from tasks import task_from_choice

    if not cfg.task_file or inherited_parent(task_from_choice(cfg.task_file)) is None:
        return ""
    from omegaconf import OmegaConf

    _, origins = traced_load(args, refuse_unread=False)
    return inherit_note(OmegaConf.to_container(cfg, resolve=True), origins)
