"""numba kernels shared by several methods (all ``nogil=True``), and the numba configuration.

``config`` sets the cache folder and threading layer and holds the flag dicts every kernel
uses; each kernel has a NumPy twin in ``tests/naive.py`` or its test file. Kernels take
contiguous arrays and explicit sizes, hold no RNG and allocate little; the outer loops stay
in Python so solvers can yield between calls. A method's own kernels live in its package
(``core/methods/<name>/jit*.py``).

May import: nothing else of ``core``.
"""
