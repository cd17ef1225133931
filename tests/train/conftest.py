from plugin_fixtures import toy_plugin  # noqa: F401  (a fixture)
