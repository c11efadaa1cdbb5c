"""Preview of a table (or .h5ad/.h5mu) before it is added as a view or as metadata: the id
column, the first rows, the matrix to use, and how missing cells are handled."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from core.data.dataset import DataError
from core.data.io.missing import DEFAULT_MISSING, MISSING_POLICIES

__all__ = ["PREVIEW_ROWS", "TablePreviewDialog"]

PREVIEW_ROWS = 20
AUTO_ID = "(automatic)"


class TablePreviewDialog(QDialog):
    """``kind`` is ``"view"`` or ``"meta"``; after ``exec()`` read :meth:`choices`.

    Raises DataError (from the constructor) when the file cannot be previewed.
    """

    def __init__(self, path: str, kind: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.path, self.kind = Path(path), kind
        what = "Add view: " if kind == "view" else "Load metadata: "
        self.setWindowTitle(what + self.path.name)
        layout = QVBoxLayout(self)
        form = QFormLayout()
        self.name = QLineEdit(self.path.stem)
        self.id_column = QComboBox()
        self.key = QComboBox()
        self.missing = QComboBox()
        self.label_column = QComboBox()
        self.shared_only = QCheckBox("Keep only the samples every view has")
        self.table = QTableWidget()
        self.is_h5 = self.path.suffix.lower() in (".h5ad", ".h5mu")
        columns = self._fill_h5() if self.is_h5 else self._fill_table()
        if kind == "view":
            form.addRow("View name", self.name)
            if self.is_h5:
                form.addRow("Matrix", self.key)
            else:
                form.addRow("Id column", self.id_column)
            for p in MISSING_POLICIES:
                self.missing.addItem(p, p)
            self.missing.setCurrentIndex(self.missing.findData(DEFAULT_MISSING))
            self.missing.setToolTip(
                "Empty or NA cells: impute the per-feature mean or median, drop those samples, "
                "or mark this view missing for them"
            )
            form.addRow("Missing cells", self.missing)
            form.addRow("", self.shared_only)
        else:
            if not self.is_h5:
                form.addRow("Id column", self.id_column)
            self.label_column.addItem("(none)", None)
            for c in columns:
                self.label_column.addItem(c, c)
            self.label_column.setToolTip("Column used as the reference labels for the metrics")
            form.addRow("Reference labels", self.label_column)
        layout.addLayout(form)
        hint = QLabel(f"First {PREVIEW_ROWS} rows:")
        hint.setObjectName("helpText")
        layout.addWidget(hint)
        layout.addWidget(self.table, 1)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.resize(720, 480)

    def _show_rows(self, header: list[str], rows: list[list[str]]) -> None:
        self.table.setColumnCount(len(header))
        self.table.setHorizontalHeaderLabels(header)
        self.table.setRowCount(len(rows))
        for r, row in enumerate(rows):
            for c, cell in enumerate(row[: len(header)]):
                self.table.setItem(r, c, QTableWidgetItem(cell))

    def _fill_table(self) -> list[str]:
        from core.data.io.tables import sniff_table

        layout = sniff_table(self.path)
        header = layout.header or [f"column {j + 1}" for j in range(layout.n_cols)]
        self.id_column.addItem(AUTO_ID, None)
        for j, name in enumerate(header):
            self.id_column.addItem(name or f"column {j + 1}", name if name else str(j + 1))
        self._show_rows(header, layout.sample[:PREVIEW_ROWS])
        return [h for h in header if h]

    def _fill_h5(self) -> list[str]:
        from core.data.io.anndata import matrix_keys, read_obs

        for k in matrix_keys(self.path):
            self.key.addItem(k, k)
        if self.key.count() == 0:
            raise DataError(f"{self.path.name}: no matrix (X, layers, obsm) to use as a view")
        ids, columns = read_obs(self.path)
        header = ["obs_names", *columns]
        rows = [[str(ids[i])] + [str(v[i]) for v in columns.values()]
                for i in range(min(PREVIEW_ROWS, ids.size))]  # fmt: skip
        self._show_rows(header, rows)
        return list(columns)

    def choices(self) -> dict:
        """What the user chose: name, id_column, key, missing, shared_only, label_column."""
        return {
            "name": self.name.text().strip() or self.path.stem,
            "id_column": self.id_column.currentData(),
            "key": self.key.currentData() if self.is_h5 else None,
            "missing": self.missing.currentData(),
            "shared_only": self.shared_only.isChecked(),
            "label_column": self.label_column.currentData(),
        }
