from user_task_fixtures import clean_extensions, user_task  # noqa: F401  (fixtures)
