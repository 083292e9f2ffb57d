"""``python -m memnb``: the same command line as the ``memnb`` console script."""

import sys

from memnb.cli import main

if __name__ == "__main__":
    sys.exit(main())
