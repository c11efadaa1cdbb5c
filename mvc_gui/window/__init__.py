"""The main window: its widgets' arrangement, actions, exports, presenter, settings.

May import: every other ``mvc_gui`` package (it installs the tools).
"""
