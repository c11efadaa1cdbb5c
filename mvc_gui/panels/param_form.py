"""A parameter form generated from a solver's ParamSpec.

One editor per :class:`core.methods.params.Param`: spin boxes for ints and seeds, a log-scale
slider + spin box for positive log parameters (the lambdas), plain number boxes otherwise,
combo boxes for choices, check boxes for switches, and an "auto" box for parameters where
None (or, for ``Param.auto`` parameters such as n_clusters, the string "auto") means
automatic. Each label and editor has a tooltip with the help text, the range and the default.
Advanced parameters sit in a collapsible section.
"""

from __future__ import annotations

import math
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QSlider,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)
from superqt import QCollapsible

from core.methods.params import Param, ParamSpec

__all__ = ["FloatSpinBox", "ParamEditor", "ParamForm"]

INT_MAX = 2**31 - 1
SLIDER_STEPS = 400


class FloatSpinBox(QDoubleSpinBox):
    """Shows numbers in %g form; on a log parameter each step multiplies by 10^(1/4)."""

    def __init__(self, log: bool = False, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._log = log
        self.setDecimals(12)
        self.setKeyboardTracking(False)

    def textFromValue(self, value: float) -> str:
        return f"{value:.6g}"

    def valueFromText(self, text: str) -> float:
        try:
            return float(text)
        except ValueError:
            return self.value()

    def validate(self, text: str, pos: int) -> object:
        from PySide6.QtGui import QValidator

        try:
            float(text)
        except ValueError:
            return QValidator.State.Intermediate, text, pos
        return QValidator.State.Acceptable, text, pos

    def stepBy(self, steps: int) -> None:
        v = self.value()
        if self._log and v > 0:
            self.setValue(v * 10 ** (steps / 4))
        elif self._log:
            self.setValue(max(self.minimum(), 10.0**-12) if steps > 0 else v)
        else:
            span = abs(v) * 0.1 if v else 0.1
            self.setValue(v + steps * span)


class ParamEditor(QWidget):
    """The editor of one parameter; ``value()`` returns a value of the parameter's kind."""

    changed = Signal()

    def __init__(self, param: Param, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.param = param
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self._auto: QCheckBox | None = None
        self._slider: QSlider | None = None
        p = param
        if p.kind == "bool":
            self._box = QCheckBox()
            self._box.toggled.connect(self.changed)
        elif p.kind == "choice":
            self._box = QComboBox()
            self._box.addItems(list(p.choices))
            self._box.currentIndexChanged.connect(self.changed)
        elif p.kind in ("int", "seed"):
            self._box = QSpinBox()
            lo = -INT_MAX if p.low is None else max(int(p.low), -INT_MAX)
            hi = INT_MAX if p.high is None else min(int(p.high), INT_MAX)
            self._box.setRange(lo, hi)
            self._box.setKeyboardTracking(False)
            self._box.valueChanged.connect(self.changed)
        else:
            self._box = FloatSpinBox(log=p.log)
            self._box.setRange(
                -1e300 if p.low is None else p.low, 1e300 if p.high is None else p.high
            )
            self._box.valueChanged.connect(self.changed)
            if p.log and p.low is not None and p.low > 0 and p.high is not None:
                self._add_slider()
        #: what the checked "auto" box stands for: None, or "auto" (estimated at fit)
        self._auto_value = "auto" if p.auto else None
        if p.allow_none or p.auto or p.kind == "seed":
            self._auto = QCheckBox("auto" if p.kind != "seed" else "random")
            self._auto.toggled.connect(self._box.setDisabled)
            self._auto.toggled.connect(self._show_auto)
            self._auto.toggled.connect(self.changed)
            layout.addWidget(self._auto)
        layout.addWidget(self._box, 1)
        tip = tooltip(p)
        self.setToolTip(tip)
        self._box.setToolTip(tip)
        self.reset()

    def _show_auto(self, on: bool) -> None:
        """A checked "auto" box shows words in the spin box, not its minimum as if chosen; once
        unchecked the box starts from the parameter's typical value."""
        box, p = self._box, self.param
        if not isinstance(box, QSpinBox | QDoubleSpinBox):
            return
        box.blockSignals(True)
        if on:
            box.setSpecialValueText("random" if p.kind == "seed" else "from the data")
            box.setValue(box.minimum())
        else:
            box.setSpecialValueText("")
            start = p.typical if p.typical is not None else p.default
            if isinstance(start, int | float) and not isinstance(start, bool):
                box.setValue(start)
        box.blockSignals(False)

    def _add_slider(self) -> None:
        p = self.param
        self._slider = QSlider(Qt.Orientation.Horizontal)
        self._slider.setRange(0, SLIDER_STEPS)
        self._slider.setToolTip("log scale")
        lo, hi = math.log10(p.low), math.log10(p.high)

        def from_slider(pos: int) -> None:
            self._box.setValue(10 ** (lo + (hi - lo) * pos / SLIDER_STEPS))

        def to_slider(value: float) -> None:
            if value > 0:
                pos = round((math.log10(value) - lo) / (hi - lo) * SLIDER_STEPS)
                self._slider.blockSignals(True)
                self._slider.setValue(pos)
                self._slider.blockSignals(False)

        self._slider.valueChanged.connect(from_slider)
        self._box.valueChanged.connect(to_slider)
        self._box.setMaximumWidth(90)
        self.layout().addWidget(self._slider, 2)

    def value(self) -> Any:
        if self._auto is not None and self._auto.isChecked():
            return self._auto_value
        if self.param.kind == "bool":
            return self._box.isChecked()
        if self.param.kind == "choice":
            return self._box.currentText()
        if self.param.kind in ("int", "seed"):
            return int(self._box.value())
        return float(self._box.value())

    def set_value(self, value: Any) -> None:
        p = self.param
        if self._auto is not None:
            self._auto.setChecked(value is None or value == self._auto_value)
        if value is None or value == self._auto_value:
            return
        if p.kind == "bool":
            self._box.setChecked(bool(value))
        elif p.kind == "choice":
            if value in p.choices:
                self._box.setCurrentText(value)
        else:
            self._box.setValue(value)

    def reset(self) -> None:
        default = self.param.default
        if default is None and self.param.kind == "float":
            self._box.setValue(self.param.low or 0.0)
        elif default is None and self.param.kind in ("int", "seed"):
            self._box.setValue(int(self.param.low or 0))
        self.set_value(default)


def tooltip(p: Param) -> str:
    default = "auto" if p.default is None else repr(p.default)
    scale = " (log scale)" if p.log else ""
    return f"<b>{p.display}</b>: {p.help}<br>Range: {p.range_text()}{scale}<br>Default: {default}"


class ParamForm(QWidget):
    """All editors of a ParamSpec; ``values_changed`` fires on any edit."""

    values_changed = Signal()

    def __init__(self, spec: ParamSpec, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.spec = spec
        self.editors: dict[str, ParamEditor] = {}
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        main = QFormLayout()
        outer.addLayout(main)
        advanced = [p for p in spec if p.advanced]
        adv_form = QFormLayout()
        for p in spec:
            editor = ParamEditor(p)
            editor.changed.connect(self.values_changed)
            label = QLabel(p.display)
            label.setToolTip(tooltip(p))
            (adv_form if p.advanced else main).addRow(label, editor)
            self.editors[p.name] = editor
        if advanced:
            section = QCollapsible("Advanced")
            inner = QWidget()
            inner.setLayout(adv_form)
            section.addWidget(inner)
            outer.addWidget(section)
        outer.addStretch(1)

    def values(self) -> dict[str, Any]:
        return {name: ed.value() for name, ed in self.editors.items()}

    def set_values(self, values: dict[str, Any]) -> None:
        """Apply known, valid values; silently skip the rest (e.g. stale settings)."""
        for name, value in values.items():
            ed = self.editors.get(name)
            if ed is None:
                continue
            try:
                ed.set_value(ed.param.check(value))
            except (ValueError, TypeError):
                continue

    def reset_defaults(self) -> None:
        for ed in self.editors.values():
            ed.reset()
