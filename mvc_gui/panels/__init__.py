"""Side panels: dataset, method (parameter form built from ParamSpec), results, and the
message bar shared by the main window and the tool windows.

May import: ``core``, ``mvc_gui.model``, ``mvc_gui.run``, ``mvc_gui.plots``.
"""
