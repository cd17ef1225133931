import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent.parent / "train"))
from plugin_fixtures import toy_plugin  # noqa: E402,F401  (a fixture)
