"""Method panel: pick any registered solver; its parameter form, help text and reset.

Built from ``core.methods.REGISTRY`` only, so methods registered later appear without GUI
code. One form per method is kept, so switching back and forth keeps the edits.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from core.methods import REGISTRY
from mvc_gui.panels.param_form import ParamForm

__all__ = ["MethodPanel"]


class MethodPanel(QWidget):
    method_changed = Signal(str)
    params_changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._forms: dict[str, ParamForm] = {}
        self._n_clusters: int | None = None
        self._data_loaded = False
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        self.combo = QComboBox()
        self.combo.setToolTip("Clustering method (every registered solver)")
        # sized by its longest title the combo made the window wider than 1280 px
        self.combo.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.combo.setMinimumContentsLength(24)
        layout.addWidget(self.combo)
        self.help = QLabel()
        self.help.setObjectName("helpText")
        self.help.setWordWrap(True)
        self.help.setTextFormat(Qt.TextFormat.RichText)
        self.help.setOpenExternalLinks(True)
        layout.addWidget(self.help)
        self.stack = QStackedWidget()
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        scroll.setWidget(self.stack)
        layout.addWidget(scroll, 1)
        row = QHBoxLayout()
        self.reset_button = QPushButton("Reset to defaults")
        self.reset_button.setToolTip("Restore this method's default parameters")
        self.reset_button.clicked.connect(self.reset_defaults)
        row.addWidget(self.reset_button)
        # enabled and connected by the tool that runs the suggestion (mvc_gui/tools/choose_k)
        self.suggest_button = QPushButton("Suggest parameters")
        self.suggest_button.setToolTip(
            "Try a small grid of this method's main parameters over two seeds and pick the "
            "most stable and compact result, without labels (as mvc tune)"
        )
        self.suggest_button.setEnabled(False)
        row.addWidget(self.suggest_button)
        row.addStretch(1)
        self.run_button = QPushButton("Run")
        self.run_button.setObjectName("runButton")
        row.addWidget(self.run_button)
        layout.addLayout(row)
        self.combo.currentIndexChanged.connect(self._on_combo_changed)
        self.refresh_methods()

    # -- registry ---------------------------------------------------------------------------
    def refresh_methods(self) -> None:
        """(Re)list the registry; keeps the current choice when still available."""
        current = self.method
        self.combo.blockSignals(True)
        self.combo.clear()
        for name, cls in REGISTRY.items():
            self.combo.addItem(f"{cls.title or name} ({name})" if cls.title else name, name)
        self.combo.blockSignals(False)
        if current and current in REGISTRY:
            self.set_method(current)
        elif REGISTRY:
            self.set_method(next(iter(REGISTRY)))

    @property
    def method(self) -> str | None:
        return self.combo.currentData()

    def set_method(self, name: str) -> None:
        idx = self.combo.findData(name)
        if idx >= 0:
            self.combo.setCurrentIndex(idx)
            self._on_combo_changed()

    def form(self, name: str | None = None) -> ParamForm | None:
        name = name or self.method
        if name is None or name not in REGISTRY:
            return None
        if name not in self._forms:
            form = ParamForm(REGISTRY[name].param_spec)
            form.values_changed.connect(self.params_changed)
            self._forms[name] = form
            self.stack.addWidget(form)
            self._apply_cluster_default(form)
        return self._forms[name]

    # -- values -----------------------------------------------------------------------------
    def params(self) -> dict[str, Any]:
        form = self.form()
        return form.values() if form else {}

    def set_params(self, values: dict[str, Any]) -> None:
        form = self.form()
        if form:
            form.set_values(values)

    def reset_defaults(self) -> None:
        form = self.form()
        if form:
            form.reset_defaults()
            self._apply_cluster_default(form)

    def set_default_clusters(self, k: int | None) -> None:
        """Number of classes of the loaded data: the default number of clusters; None (data
        without labels): "auto", estimated when the method runs."""
        self._n_clusters, self._data_loaded = k, True
        for form in self._forms.values():
            self._apply_cluster_default(form)

    def _apply_cluster_default(self, form: ParamForm) -> None:
        if self._data_loaded and "n_clusters" in form.editors:
            k = max(2, self._n_clusters) if self._n_clusters else "auto"
            form.editors["n_clusters"].set_value(k)

    def _on_combo_changed(self) -> None:
        name = self.method
        form = self.form(name)
        if form is None:
            self.help.setText("<i>No clustering method is registered.</i>")
            return
        self.stack.setCurrentWidget(form)
        cls = REGISTRY[name]
        parts = [f"<b>{cls.title or name}</b>"]
        if cls.summary:
            parts.append(cls.summary)
        if cls.reference:
            parts.append(f"<span style='color:#6b7686'>{cls.reference}</span>")
        self.help.setText("<br>".join(parts))
        self.method_changed.emit(name)
