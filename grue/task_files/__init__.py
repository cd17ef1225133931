"""Tasks defined in files the user owns, outside the package: declarative (YAML or TOML) or Python.

- `declarative`: a YAML/TOML task file, checked key by key, turned into a TaskSpec;
- `records`: how a record of the task's data becomes a Sample (prompt template, references, id, meta);
- `file_loader`: the split loader of a declarative task (local JSONL/CSV/parquet files or a hub dataset);
- `python_file`: a Python file defining `TASK = TaskSpec(...)`;
- `discover`: `task=path/to/file` and the folders of `GRUE_TASKS_PATH`, the catalogue's entry to all of it.
Every problem is an ExtensionError naming the file and key (one `error:` line, exit code 2).
"""
