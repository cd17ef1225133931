"""`grue tasks`: what each GRUE task uses, per profile, and whether it can run here."""
from __future__ import annotations

from rich.table import Table

from grue.run.display import console


def print_tasks() -> None:
    from grue.config import load_config
    from tasks import get_task, task_names

    table = Table(title="GRUE tasks", show_lines=True)
    for col in ("task", "profile", "data", "policy", "metrics (task | naturalness)", "rewards", "runs here?"):
        table.add_column(col)
    for name in task_names():
        task = get_task(name)
        for profile in ("paper", "mini"):
            runnable = task.runnable(profile)
            policy = load_config([f"task={name}", f"profile={profile}", "algo=zero_shot"]).model.policy
            metrics = f"{', '.join(task.task_metrics)} | {', '.join(task.naturalness_metrics)}"
            status = "yes" if runnable else f"no: {task.why_not_runnable(profile)}"
            table.add_row(name if profile == "paper" else "", profile,
                          task.data_description.get(profile, "—"), policy, metrics, ", ".join(task.rewards), status)
    console.print(table)
