"""`make run`: the main job on the built-in default."""

from __future__ import annotations

import sys


def main() -> int:
    print("lockstep: nothing to run yet")
    return 0


if __name__ == "__main__":
    sys.exit(main())
