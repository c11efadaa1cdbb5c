"""``python -m core.cli`` runs the ``mvc`` command."""

import sys

from core.cli.main import main

if __name__ == "__main__":
    sys.exit(main())
