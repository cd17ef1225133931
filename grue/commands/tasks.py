"""`grue tasks`: what each task uses, per profile, whether it can run here, and where it came from
(tasks/ for the built-in ones, a task file of the user's, or a plugin)."""
from __future__ import annotations

from rich.table import Table

from grue.run.display import console


def print_tasks() -> None:
    from grue.config import load_config
    from tasks import get_task, task_names, task_origin

    table = Table(title="GRUE tasks (and tasks from task files and plugins)", show_lines=True)
    for col in ("task", "from", "profile", "data", "policy", "metrics (task | naturalness)", "rewards", "runs here?"):
        table.add_column(col)
    for name in task_names():
        task = get_task(name)
        origin = task_origin(task) + ("" if task.grue_task else "; not in the GRUE score")
        for profile in ("paper", "mini"):
            runnable = task.runnable(profile)
            choice = task.origin or name
            policy = load_config([f"task={choice}", f"profile={profile}", "algo=zero_shot"]).model.policy
            metrics = f"{', '.join(task.task_metrics)} | {', '.join(task.naturalness_metrics)}"
            status = "yes" if runnable else f"no: {task.why_not_runnable(profile)}"
            first = profile == "paper"
            table.add_row(name if first else "", origin if first else "", profile,
                          task.data_description.get(profile, "—"), policy, metrics, ", ".join(task.rewards), status)
    console.print(table)
