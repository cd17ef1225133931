"""The run configuration: schema and defaults, what a task file declares, `key=value` overrides,
validation and the config hash."""
from grue.config.load import ConfigError, config_hash, load_config, parse_overrides, to_yaml
from grue.config.schema import RunConfig

__all__ = ["ConfigError", "RunConfig", "config_hash", "load_config", "parse_overrides", "to_yaml"]
