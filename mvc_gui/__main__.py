"""``python -m mvc_gui`` starts the GUI."""

import sys

from mvc_gui.app import main

if __name__ == "__main__":  # guarded: solver processes are spawned and re-import __main__
    sys.exit(main())
