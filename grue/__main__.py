"""`python -m grue ...` is the `grue` command, so launchers can start it: `torchrun -m grue run ...`,
`accelerate launch -m grue run ...`."""
import sys

from cli import main

sys.exit(main())
