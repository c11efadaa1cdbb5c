"""Qt-free GUI logic: what the window shows, computed without a display.

May import: ``core`` only (no Qt, no other ``mvc_gui`` package).
"""
