"""Work off the GUI thread: the run controller, worker threads, the solver and t-SNE child
processes, the experiment worker. Frames reach the GUI thread through queued signals.

May import: ``core``, ``mvc_gui.model``.
"""
