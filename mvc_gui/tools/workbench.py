"""The analysis workbench: what a group of samples means, for the run on display.

One dock ("Analysis", a tab next to Runs) with four pages, each showing what ``core.analysis``
computes (the window never computes: every analysis runs in a
:class:`~mvc_gui.tools.workbench_parts.StepsWorker` thread, with progress and Cancel):

- **Compare**: group A (the selection or a named group) against the rest or group B, per view a
  sortable table (effect sizes first, AUC/p/q when ready), a volcano plot and, for the clicked
  feature, its values by group (observed samples only); Export CSV.
- **Association**: every metadata column against the clusters, sorted by strength; the
  contingency table or the values per cluster on click; Kaplan-Meier curves per cluster and the
  log-rank p for a time and an event column; Export CSV.
- **Views**: per view, how well a clustering of that view alone agrees with the result
  (ARI/NMI), its learned weight, and how many samples' views agree.
- **Why here**: for one sample (picked in the embedding, or the single selected sample), the
  cluster each of its views votes for and its nearest reference points.

The pages live in ``workbench_compare``, ``workbench_association`` and ``workbench_views``
(their frame in ``workbench_parts``); this module installs them.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QAbstractScrollArea,
    QDockWidget,
    QSplitter,
    QTabWidget,
    QWidget,
)

from mvc_gui.tools.host import ToolHost
from mvc_gui.tools.workbench_association import AssociationPage
from mvc_gui.tools.workbench_compare import ComparePage
from mvc_gui.tools.workbench_parts import REST
from mvc_gui.tools.workbench_views import ViewsPage, WhyPage

__all__ = ["Workbench", "install"]

PAGE_HEIGHT = 330  # pixels the dock takes when a page is brought forward


@dataclass(frozen=True)
class Workbench:
    """What the workbench installed."""

    dock: QDockWidget
    tabs: QTabWidget
    compare: ComparePage
    association: AssociationPage
    views: ViewsPage
    why: WhyPage
    compare_action: QAction
    why_action: QAction

    def show_page(self, page: object) -> None:
        """Bring the dock forward on ``page``, tall enough for a table and its plots."""
        self.dock.show()
        self.dock.raise_()
        self.tabs.setCurrentWidget(page)
        host = self.compare.host
        if self.dock.height() < PAGE_HEIGHT and not self.dock.isFloating():
            host.resizeDocks([self.dock], [PAGE_HEIGHT], Qt.Orientation.Vertical)

    def compare_groups(self, a: str, b: str = "") -> None:
        """Compare group ``a`` with group ``b`` ("": the rest), e.g. from the Selection dock."""
        self.show_page(self.compare)
        self.compare.group_a.choose(a)
        self.compare.group_b.choose(b or REST)
        self.compare.start()


#: the height a table or plot of the workbench may shrink to: the dock shares the bottom
#: area with Runs and Selection, and its own wish (226 px) kept the window above 800 px
COMPACT_HEIGHT = 48


def _compact(tabs: QTabWidget) -> None:
    """Let the pages' tables and plots shrink (they scroll or rescale) so the bottom dock
    area, not the workbench, sets how short the window can be."""
    for widget in tabs.findChildren(QAbstractScrollArea) + tabs.findChildren(QSplitter):
        widget.setMinimumHeight(COMPACT_HEIGHT)
    for page in (tabs.widget(i) for i in range(tabs.count())):
        for widget in page.findChildren(QWidget):
            if widget.minimumSizeHint().height() > 2 * COMPACT_HEIGHT and widget.layout() is None:
                widget.setMinimumHeight(COMPACT_HEIGHT)


def install(host: ToolHost) -> Workbench:
    """Add the "Analysis" dock (tabbed with Runs) and its Tools menu entries."""
    tabs = QTabWidget()
    tabs.setObjectName("workbenchTabs")
    compare, association = ComparePage(host), AssociationPage(host)
    views, why = ViewsPage(host), WhyPage(host)
    tabs.addTab(compare, "Compare groups")
    tabs.addTab(association, "Clusters vs metadata")
    tabs.addTab(views, "Views")
    tabs.addTab(why, "Why here?")
    _compact(tabs)
    dock = host.add_dock(
        "Analysis", tabs, Qt.DockWidgetArea.BottomDockWidgetArea, "analysisDock", floatable=True
    )  # floatable: a workbench wants room (a second screen)
    runs = host.findChild(QDockWidget, "runsDock")
    if runs is not None:  # a tab next to Runs: the wide bottom area suits tables and plots
        host.tabifyDockWidget(runs, dock)
        runs.raise_()
    compare_action = QAction("&Compare the selection with the rest", host)
    compare_action.setStatusTip("What sets the selected samples apart, per view (Analysis dock)")
    why_action = QAction("&Why is this sample here?", host)
    why_action.setStatusTip("The selected sample's view votes and nearest reference points")
    bench = Workbench(dock, tabs, compare, association, views, why, compare_action, why_action)
    compare_action.triggered.connect(lambda _=False: (bench.show_page(compare), compare.start()))
    why_action.triggered.connect(lambda _=False: (bench.show_page(why), why.explain_selected()))
    assoc_action = QAction("Clusters against &metadata", host)
    assoc_action.triggered.connect(lambda _=False: (bench.show_page(association),
                                                    association.start()))  # fmt: skip
    for act in (compare_action, assoc_action, why_action):
        host.tools_menu.addAction(act)
    why.picked.connect(lambda _i: bench.show_page(why))
    host.closing.connect(lambda: [page.cancel() for page in (compare, association, views, why)])
    requested = getattr(host, "compare_requested", None)  # the Selection dock's Compare
    if requested is not None:
        requested.connect(bench.compare_groups)
    return bench
