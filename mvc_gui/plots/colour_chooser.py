"""The embedding's "colour by" controls: the source, and a feature or a run when it needs one.

Sources: the clusters, the reference labels, every metadata column, a feature's value (a view
and a feature, typed by name with completion when the data names its features, else ``f1``,
``f2``... or a column number) and the disagreement with another run of the Runs dock. Emits
``changed`` when the choice changes; :meth:`choice` says what is chosen.
"""

from __future__ import annotations

from PySide6.QtCore import QStringListModel, Qt, Signal
from PySide6.QtWidgets import QComboBox, QCompleter, QHBoxLayout, QLineEdit, QWidget

__all__ = ["ColourChooser"]

CLUSTERS, TRUTH, META, FEATURE, DISAGREE = "clusters", "truth", "meta", "feature", "disagree"


class ColourChooser(QWidget):
    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(4)
        self.colour_by = QComboBox()
        self.colour_by.setToolTip(
            "Colour the points by the clusters, the reference labels, a metadata column, a "
            "feature's value, or where another run disagrees with the current one"
        )
        self.view_box = QComboBox()
        self.view_box.setToolTip("The view the feature comes from")
        self.feature_edit = QLineEdit()
        self.feature_edit.setPlaceholderText("feature name or number")
        self.feature_edit.setToolTip("Type to search the view's feature names; Enter to colour")
        self.feature_edit.setMinimumWidth(60)
        self._names = QStringListModel(self)
        completer = QCompleter(self._names, self)
        completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        completer.setFilterMode(Qt.MatchFlag.MatchContains)
        completer.activated.connect(self._on_feature_typed)
        self.feature_edit.setCompleter(completer)
        self.run_box = QComboBox()
        self.run_box.setToolTip("The run compared with the current one (from the Runs dock)")
        for w, chars in ((self.colour_by, 9), (self.view_box, 4), (self.run_box, 6)):
            # combos as wide as their longest entry would widen the window past 1280 px
            w.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            w.setMinimumContentsLength(chars)
        row.addWidget(self.colour_by, 3)
        row.addWidget(self.view_box, 1)
        row.addWidget(self.feature_edit, 2)
        row.addWidget(self.run_box, 2)
        self.feature_names: list[list[str]] = []
        self.feature = 0
        self.colour_by.currentIndexChanged.connect(self._on_source)
        self.view_box.currentIndexChanged.connect(self._on_view)
        self.feature_edit.returnPressed.connect(self._on_feature_typed)
        self.run_box.currentIndexChanged.connect(self._emit_if(DISAGREE))
        self.set_data(False, {}, [], [])

    # -- filling --------------------------------------------------------------------------------
    def set_data(
        self,
        has_truth: bool,
        metadata: dict[str, str],
        view_names: list[str],
        feature_names: list[list[str]],
    ) -> None:
        """The sources this data offers (``metadata``: column -> "numeric"/"categorical");
        keeps the current choice when the new data still has it."""
        before = self.colour_by.currentData()
        combo = self.colour_by
        combo.blockSignals(True)
        combo.clear()
        combo.addItem("colour: clusters", CLUSTERS)
        if has_truth:
            combo.addItem("colour: reference labels", TRUTH)
        for key, kind in metadata.items():
            what = "numbers" if kind == "numeric" else "categories"
            combo.addItem(f"colour: {key} ({what})", f"{META}:{key}")
        if view_names:
            combo.addItem("colour: feature value", FEATURE)
        combo.addItem("colour: disagreement", DISAGREE)
        combo.setCurrentIndex(max(0, combo.findData(before)) if before else 0)
        combo.blockSignals(False)
        self.feature_names = [list(f) for f in feature_names]
        self.view_box.blockSignals(True)
        self.view_box.clear()
        self.view_box.addItems(view_names)
        self.view_box.blockSignals(False)
        self._fill_names()
        self._show_extras()

    def set_runs(self, titles: list[str]) -> None:
        """The runs offered for the disagreement (keeps the chosen one when still listed)."""
        before = self.run_box.currentText()
        self.run_box.blockSignals(True)
        self.run_box.clear()
        self.run_box.addItems(titles)
        if before in titles:
            self.run_box.setCurrentIndex(titles.index(before))
        self.run_box.blockSignals(False)
        if self.source == DISAGREE and self.run_box.currentText() != before:
            self.changed.emit()

    # -- what is chosen -----------------------------------------------------------------------
    @property
    def source(self) -> str:
        data = self.colour_by.currentData()
        return data.split(":", 1)[0] if data else CLUSTERS

    def choice(self) -> tuple:
        """``("clusters",)``, ``("truth",)``, ``("meta", column)``, ``("feature", view,
        column)`` or ``("disagree", run index in the list or -1)``."""
        src = self.source
        if src == META:
            return (META, self.colour_by.currentData().split(":", 1)[1])
        if src == FEATURE:
            return (FEATURE, self.view_box.currentIndex(), self.feature)
        if src == DISAGREE:
            return (DISAGREE, self.run_box.currentIndex())
        return (src,)

    def select(self, choice: tuple) -> bool:
        """Choose a source programmatically (tests, sessions); False if it is not offered."""
        if choice[0] == FEATURE:
            self.view_box.setCurrentIndex(choice[1])
            self.set_feature(choice[2])
            key = FEATURE
        elif choice[0] == DISAGREE:
            self.run_box.setCurrentIndex(choice[1])
            key = DISAGREE
        else:
            key = ":".join(choice)
        i = self.colour_by.findData(key)
        if i < 0:
            return False
        if i == self.colour_by.currentIndex():
            self.changed.emit()
        self.colour_by.setCurrentIndex(i)
        return True

    def feature_name(self, view: int, j: int) -> str:
        names = self.feature_names[view] if view < len(self.feature_names) else []
        return names[j] if j < len(names) else f"f{j + 1}"

    def set_feature(self, j: int) -> None:
        self.feature = j
        self.feature_edit.setText(self.feature_name(self.view_box.currentIndex(), j))

    def find_feature(self, text: str) -> int | None:
        """The column a typed name (exact, then case-insensitive), ``f<k>`` or number means."""
        names = self._names.stringList()
        text = text.strip()
        if text in names:
            return names.index(text)
        lower = [n.lower() for n in names]
        if text.lower() in lower:
            return lower.index(text.lower())
        digits = text[1:] if text[:1] in "fF" else text
        if digits.isdigit() and 1 <= int(digits) <= len(names):
            return int(digits) - 1
        return None

    # -- slots ----------------------------------------------------------------------------------
    def _emit_if(self, source: str):
        return lambda *_: self.source == source and self.changed.emit()

    def _fill_names(self) -> None:
        v = self.view_box.currentIndex()
        names = self.feature_names[v] if 0 <= v < len(self.feature_names) else []
        self._names.setStringList(names)
        self.feature = min(self.feature, max(len(names) - 1, 0))
        self.feature_edit.setText(names[self.feature] if names else "")

    def _on_source(self) -> None:
        self._show_extras()
        self.changed.emit()

    def _on_view(self) -> None:
        self.feature = 0
        self._fill_names()
        self._emit_if(FEATURE)()

    def _on_feature_typed(self, *_: object) -> None:
        j = self.find_feature(self.feature_edit.text())
        ok = j is not None
        self.feature_edit.setStyleSheet("" if ok else "border: 1px solid #d62728;")
        self.feature_edit.setToolTip(
            "Type to search the view's feature names; Enter to colour"
            if ok
            else f"No feature '{self.feature_edit.text()}' in this view"
        )
        if ok:
            self.feature = j
            self._emit_if(FEATURE)()

    def _show_extras(self) -> None:
        src = self.source
        self.view_box.setVisible(src == FEATURE)
        self.feature_edit.setVisible(src == FEATURE)
        self.run_box.setVisible(src == DISAGREE)
