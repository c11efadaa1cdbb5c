"""Screenshots of the embedding coloured by a metadata column, a feature and a single view's
layout, for docs/gui.md (run offscreen: ``QT_QPA_PLATFORM=offscreen python
scripts/screenshot_colour_by.py``; writes docs/screenshots/colour_by_*.png).

The digits demo has no metadata table, so two columns are made from its own data, the kind a
user would load with File > Load metadata...: "ink" (a number: the sum of the 240 pixel
averages, how much ink the digit uses) and "digit" (text: the digit's name).
"""

from __future__ import annotations

from demo_window import OUT, digit_names, finished_demo, wait
from PySide6.QtWidgets import QApplication


def main() -> None:
    app = QApplication([])  # noqa: F841 (kept alive while the window lives)

    def columns(ds):
        pix = ds.views[ds.view_names.index("pix")]
        return {"ink": pix.sum(axis=1), "digit": digit_names(ds)}

    win = finished_demo(columns)
    emb = win.plots["embedding"]
    for name, choice in (("ink", ("meta", "ink")), ("feature", ("feature", 3, 100))):
        emb.chooser.select(choice)
        wait(lambda: False, 0.5)
        win.grab().save(str(OUT / f"colour_by_{name}.png"))
    emb.chooser.select(("truth",))
    emb.layout_box.setCurrentIndex(1 + win.session.dataset.view_names.index("mor"))
    wait(lambda: emb.xy is not None and not win.embedder.busy)
    wait(lambda: False, 0.5)
    emb.grab().save(str(OUT / "colour_by_layout_mor.png"))
    win.embedder.shutdown(5.0)
    win.controller.shutdown(5.0)


if __name__ == "__main__":
    main()
