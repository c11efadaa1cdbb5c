"""Method panel: pick any registered solver; its parameter form, help text and reset.

Built from ``core.methods.REGISTRY`` only, so methods registered later appear without GUI
code. One form per method is kept, so switching back and forth keeps the edits.

The number of clusters follows the data, not the method (issue 24, item 7): every form shows
the loaded dataset's number of reference classes, or "auto" when it has none, until the user
picks a number for that dataset; that choice then holds in every form while the same dataset
stays (reference labels chosen, views excluded, the file opened again) and a new dataset
resets it. Parameters remembered from an earlier session never bring back another dataset's
number of clusters.
"""

from __future__ import annotations

from contextlib import contextmanager
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
        self._n_clusters: int | None = None  # the data's reference classes (None: unlabelled)
        self._data_loaded = False
        self._data: object = None  # identifies the loaded dataset (see set_default_clusters)
        self._chosen_k: tuple[object, Any] | None = None  # (data, n_clusters the user picked)
        self._applying = False  # n_clusters set by the panel, not picked by the user
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
            if (k_editor := form.editors.get("n_clusters")) is not None:
                k_editor.changed.connect(lambda ed=k_editor: self._on_clusters_edited(ed))
            self._forms[name] = form
            self.stack.addWidget(form)
            self._apply_cluster_default(form)
        return self._forms[name]

    # -- values -----------------------------------------------------------------------------
    def params(self) -> dict[str, Any]:
        form = self.form()
        return form.values() if form else {}

    def set_params(self, values: dict[str, Any]) -> None:
        """Values chosen now for the data on display (a tool, a run shown again, a test): an
        ``n_clusters`` among them becomes the dataset's choice, in every form."""
        form = self.form()
        if form:
            form.set_values(values)

    def restore_params(self, values: dict[str, Any]) -> None:
        """Values remembered from an earlier session (settings): applied, except that the
        number of clusters stays the loaded dataset's (its classes, "auto", or the user's
        choice for it), never one remembered from other data."""
        form = self.form()
        if form:
            with self._setting_clusters():
                form.set_values(values)
            self._apply_cluster_default(form)

    def reset_defaults(self) -> None:
        """The method's defaults; the number of clusters back to the data's (a number typed
        for this dataset is forgotten, in every form)."""
        form = self.form()
        if form:
            self._chosen_k = None
            with self._setting_clusters():
                form.reset_defaults()
            for f in self._forms.values():
                self._apply_cluster_default(f)

    def set_default_clusters(self, k: int | None, data: object = None) -> None:
        """A dataset was loaded: ``k`` its number of classes (None, data without labels:
        "auto", estimated when the method runs) and ``data`` what identifies it (hashable;
        None: unknown, always new data). Another dataset's number of clusters is forgotten;
        the number the user picked for this same dataset stays."""
        if data is None or self._chosen_k is None or self._chosen_k[0] != data:
            self._chosen_k = None
        self._n_clusters, self._data_loaded, self._data = k, True, data
        for form in self._forms.values():
            self._apply_cluster_default(form)

    def cluster_value(self) -> int | str | None:
        """What every form's n_clusters shows for the data (None: no data yet)."""
        if not self._data_loaded:
            return None
        if self._chosen_k is not None:
            return self._chosen_k[1]
        return max(2, self._n_clusters) if self._n_clusters else "auto"

    def _apply_cluster_default(self, form: ParamForm) -> None:
        editor = form.editors.get("n_clusters")
        k = self.cluster_value()
        if editor is None or k is None or editor.value() == k:
            return
        with self._setting_clusters():
            try:
                editor.set_value(editor.param.check(k))
            except (ValueError, TypeError):  # a form whose n_clusters takes no such value
                pass

    def _on_clusters_edited(self, editor) -> None:
        """The user (or a tool) picked a number of clusters: the choice for this dataset."""
        if self._applying or not self._data_loaded:
            return
        self._chosen_k = (self._data, editor.value())
        for form in self._forms.values():
            if form.editors.get("n_clusters") is not editor:
                self._apply_cluster_default(form)

    @contextmanager
    def _setting_clusters(self):
        applying, self._applying = self._applying, True
        try:
            yield
        finally:
            self._applying = applying

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
