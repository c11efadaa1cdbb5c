"""Entry point: ``mvc-gui [FILE] [--demo [NAME]] [--method M] [--run] [--screenshot F] [--exit]``.

Sets the organisation/application names once (QSettings uses them), loads the stylesheet,
opens the main window with the handwritten-digits demo (or FILE), and optionally runs a
method to convergence, saves a screenshot of the whole window and exits (status 0 on
success, 1 if loading or the run failed).
"""

from __future__ import annotations

import argparse
import sys
import threading

from PySide6.QtCore import QSettings, QTimer
from PySide6.QtWidgets import QApplication

__all__ = ["main"]

ORGANIZATION = "MVC Studio"
APPLICATION = "MVC Studio"


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="mvc-gui", description="MVC Studio: multi-view clustering")
    p.add_argument("file", nargs="?", help="a .mat / .npz / CSV file or CSV folder to open")
    p.add_argument(
        "--demo",
        nargs="?",
        const="handwritten",
        default=None,
        help="open an embedded demo (default: handwritten)",
    )
    p.add_argument("--method", help="method to select (a registered solver name)")
    p.add_argument("--run", action="store_true", help="run the method once the data is loaded")
    p.add_argument("--screenshot", metavar="PNG", help="save a screenshot after the run")
    p.add_argument("--exit", action="store_true", help="quit after the run (and screenshot)")
    p.add_argument("--size", default="1600x950", help="window size WxH (default 1600x950)")
    p.add_argument("--timeout", type=float, default=600.0, help="--exit deadline in seconds")
    return p.parse_args(argv)


class _Script:
    """Drives --run / --screenshot / --exit once the window is up."""

    def __init__(self, app: QApplication, win, args: argparse.Namespace) -> None:
        self.app, self.win, self.args = app, win, args
        self.status = 0
        self._ran = False
        win.controller.run_finished.connect(self._on_finished)
        win.controller.run_failed.connect(self.on_failed)
        win.controller.run_stopped.connect(lambda _h: self.on_failed("stopped", ""))
        if args.exit:
            QTimer.singleShot(int(args.timeout * 1000), lambda: self.on_failed("timeout", ""))

    def on_loaded(self) -> None:
        if self.args.run and not self._ran:
            self._ran = True
            if self.win.run() is None:
                self.on_failed("could not start", "")
        elif not self.args.run and (self.args.screenshot or self.args.exit):
            self._wait_for_layout()

    def _on_finished(self, _history) -> None:
        self._wait_for_layout()

    def _wait_for_layout(self) -> None:
        if self.win.embedder.busy:
            QTimer.singleShot(200, self._wait_for_layout)
        else:
            QTimer.singleShot(800, self._finish)  # let animations settle

    def on_failed(self, message: str, details: str) -> None:
        if self.args.exit:
            print(f"mvc-gui: {message}\n{details}", file=sys.stderr)  # noqa: T201
            self.status = 1
            self._finish()

    def _finish(self) -> None:
        if self.args.screenshot:
            self.win.grab().save(self.args.screenshot)
        if self.args.exit:
            self.win.close()
            self.app.exit(self.status)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setOrganizationName(ORGANIZATION)
    app.setApplicationName(APPLICATION)
    from mvc_gui.model.data_stores import remove_orphan_stores
    from mvc_gui.resources import stylesheet
    from mvc_gui.run.gui_gc import collect_in_gui_thread
    from mvc_gui.run.priority import favour_event_loop
    from mvc_gui.run.solver_process import process_mode_default
    from mvc_gui.window.main_window import MainWindow

    # data a killed session left in the temp folder (GBs at 1M samples), off the start path
    threading.Thread(target=remove_orphan_stores, daemon=True).start()
    app.setStyleSheet(stylesheet())
    favour_event_loop(process_mode_default())
    win = MainWindow(QSettings())
    collect_in_gui_thread(freeze=True)  # the window's objects built: GUI-thread collection
    w, _, h = args.size.partition("x")
    win.resize(int(w), int(h))
    if args.method:
        win.method_panel.set_method(args.method)
    script = _Script(app, win, args)
    # connected before loading starts: a fast failure must not be missed
    win.data_loaded.connect(script.on_loaded)
    win.load_failed.connect(script.on_failed)
    if args.file:
        win.open_path(args.file)
    else:
        win.load_demo(args.demo or "handwritten")
    win.show()
    status = app.exec()
    return script.status or status


if __name__ == "__main__":
    sys.exit(main())
