"""The one road from what the user names (a file, id-keyed tables, a demo) to a dataset.

Every reader of data (``mvc run``, ``info``, ``predict``, ``sweep``, ``robustness``, ``tune``
and the app's loader) says *what* to open (:class:`DataSource`) and *how* (:class:`OpenPolicy`)
and calls :func:`open_dataset`; which route that takes is decided here only:

* **streamed**: the views would not fit in memory (or ``stream="on"``): row-block sources
  over the file, never read whole (FMDC and DTLL read them; others refuse with the estimate);
* **mapped**: a large file stored as plain arrays (``map_above``: the app) is memory-mapped
  where it is, no copy (``core.data.mapped``);
* **isolated**: a child process with time and memory limits reads the file into a store the
  caller memory-maps (HDF5 files by default: their C reader cannot be checked ahead, and
  damaged ones were seen looping inside libhdf5); the app isolates every file;
* **in process**: MATLAB v5 (elements checked before scipy reads them), ``.npz``, tables.

Whatever the route, the views answer the same row interface (``shape``, ``x[rows]``;
``core.data.blocks.take_rows``) and the dataset says how it was opened in
``meta["opened_as"]``. Reference labels chosen by a metadata column are applied last, the
same way for every route.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from core.data.dataset import DataError, MultiViewDataset
from core.data.io.aligned import DataSpec

__all__ = ["DataSource", "OpenPolicy", "isolates", "open_dataset", "stream_decision"]

STREAM_MODES = ("auto", "on", "off")


@dataclass(frozen=True)
class DataSource:
    """What to open: one ``file``, the ``tables`` of a :class:`DataSpec`, or a ``demo``;
    ``label_column``: a metadata column to use as the reference labels."""

    file: str | None = None
    tables: DataSpec | None = None
    demo: str | None = None
    label_column: str | None = None

    def __post_init__(self) -> None:
        given = [x for x in (self.file, self.tables, self.demo) if x]
        if len(given) > 1:
            if self.file and self.tables:
                raise DataError(f"give either a data file ({self.file}) or --view files, not both")
            raise DataError("give one of a data file, --view tables or --demo")
        if not given:
            raise DataError("give a data file, --view tables, or --demo for the embedded digits")

    @property
    def label(self) -> str:
        """The user's own words for it (errors name this)."""
        if self.tables is not None:
            return ", ".join(v.path for v in self.tables.views)
        return self.file or f"demo {self.demo}"


@dataclass(frozen=True)
class OpenPolicy:
    """How to open it.

    ``isolate``: True/False, or None for HDF5 files only. ``stream``: ``auto`` (when the views
    would take more than ``stream_above`` bytes as float64, default half the available RAM),
    ``on`` or ``off``. ``streams``: whether the method that will read the data accepts
    row-block views (None: no method, e.g. ``mvc info``; ``method_name`` and
    ``streaming_methods`` word the refusal). ``map_above``: files of more bytes whose views
    are plain arrays are memory-mapped in place (None: never). ``store``: the isolated reader's
    folder, kept for other processes to map (the app); ``timeout`` / ``memory``: the reader
    child's limits."""

    isolate: bool | None = None
    stream: str = "auto"
    stream_above: int | None = None
    streams: bool | None = None
    method_name: str = ""
    #: named in the refusal of a method that cannot read row blocks
    streaming_methods: tuple[str, ...] = ()
    map_above: int | None = None
    store: str | None = None
    timeout: float | None = None
    memory: int | str | None = "auto"
    child_module: str | None = None

    def __post_init__(self) -> None:
        if self.stream not in STREAM_MODES:
            raise DataError(f"stream must be one of {STREAM_MODES}, got {self.stream!r}")


def stream_decision(source: DataSource, policy: OpenPolicy) -> str | None:
    """Why this source is read in row blocks (a sentence), or None to read it whole.

    Raises DataError for ``stream="on"`` on a source that cannot be streamed, or a method that
    needs its views in memory when they would not fit (with the estimate and what to do)."""
    from core.data.streamed import estimate_bytes, open_streamed, stream_reason, worth_checking

    if policy.stream == "off":
        return None
    if not source.file:
        if policy.stream == "on":
            raise DataError("--stream reads one data file (not --demo or --view tables)")
        return None
    if policy.stream == "on":
        ds = open_streamed(source.file)  # a format that cannot be streamed says why here
        reason = f"asked for with --stream ({estimate_bytes(ds) / 2**30:.2f} GB as float64)"
    else:
        # a file far smaller than the limit is not even opened here
        if not worth_checking(source.file, policy.stream_above):
            return None
        reason = stream_reason(source.file, threshold=policy.stream_above)
        if reason is None:
            return None
    if policy.streams is False:
        able = ", ".join(policy.streaming_methods) or "none"
        raise DataError(
            f"{policy.method_name or 'this method'} needs the views in memory at every "
            f"iteration, but the data would be streamed: {reason}; methods that read row "
            f"blocks: {able} (or --no-stream to load the views anyway)"
        )
    return reason


def isolates(source: DataSource, policy: OpenPolicy) -> bool:
    """Whether ``source`` is read in a child process under ``policy``."""
    if policy.isolate is not None:
        return policy.isolate
    from core.data.io.matlab import is_hdf5

    paths = (
        [source.file]
        if source.tables is None
        else [v.path.split("#")[0] for v in source.tables.views]
    )
    return any(p and Path(p).is_file() and is_hdf5(Path(p)) for p in paths)


def open_dataset(
    source: DataSource,
    policy: OpenPolicy | None = None,
    *,
    progress: Callable[[float, str], None] | None = None,
    cancel: Callable[[], bool] | None = None,
) -> MultiViewDataset:
    """The dataset ``source`` names, opened as ``policy`` says (see the module docstring).

    Raises DataError naming the user's file, table or column; ``LoadCancelled`` when
    ``cancel`` returned True."""
    policy = policy or OpenPolicy()
    reason = stream_decision(source, policy)  # refuses --stream on what cannot stream
    if source.demo:
        from core.data.demo import load_demo

        ds, how = load_demo(source.demo), "demo"
    elif reason is not None:
        from core.data.streamed import open_streamed, with_note

        ds, how = with_note(open_streamed(source.file), reason), "streamed"
    elif (mapped := _mapped(source, policy)) is not None:
        ds, how = mapped, "mapped"
    elif isolates(source, policy):
        from core.data.isolated_load import load_isolated

        spec = source.tables
        if spec is not None:  # absolute paths: the child may run elsewhere
            spec = replace(
                spec,
                views=[replace(v, path=_absolute(v.path)) for v in spec.views],
                meta=spec.meta and _absolute(spec.meta),
            )
        kw = {} if policy.timeout is None else {"timeout": policy.timeout}
        if policy.child_module:
            kw["child_module"] = policy.child_module
        ds = load_isolated(
            spec if spec is not None else source.file,
            memory=policy.memory,
            progress=progress,
            cancel=cancel,
            store=policy.store,
            **kw,
        )
        ds, how = replace(ds, source=source.label) if spec is not None else ds, "isolated"
    else:
        from core.data.io import load_dataset, load_spec

        if source.tables is not None:
            ds = load_spec(source.tables)
        else:
            ds = load_dataset(source.file)
        how = "in process"
    if source.label_column and source.tables is None:
        ds = ds.with_reference_labels(source.label_column)
    return replace(ds, meta={**ds.meta, "opened_as": how})


def _mapped(source: DataSource, policy: OpenPolicy) -> MultiViewDataset | None:
    if policy.map_above is None or not source.file:
        return None
    from core.data.mapped import open_mapped

    return open_mapped(source.file, policy.map_above)


def _absolute(path: str) -> str:
    """``path`` made absolute, keeping a ``#key`` suffix (an .h5ad/.h5mu matrix)."""
    file, sep, key = path.partition("#")
    return str(Path(file).resolve()) + sep + key if file else path
