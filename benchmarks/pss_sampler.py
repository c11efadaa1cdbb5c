"""Peak memory of a window and its children, sampled from a separate process.

The summed PSS (proportional set size: shared pages counted once across the processes that
map them) of a process and all its descendants, every 2 s, with peaks per phase. Used by
``gui_million.py``.

Why a process and not a thread of the window it measures (2026-11-27): a sampler thread
holds the window's GIL while it parses /proc, and at a lowered priority beside busy
children it can be preempted holding it, so the GUI thread waited for the benchmark's own
thread ("blocked" time in the stalls, 50-90 ms at 1M). And reading smaps_rollup walks the
page tables while holding the walked process's memory-map lock: the window's own walk took
40 ms with the 3.7 GB data mapped, and an 8 MB allocation in another of its threads waited
up to 43 ms for it; so the window is walked only when a phase starts and every
SELF_WALK_EVERY samples, its anonymous memory read from /proc/<pid>/status (counters, no
walk) in between. A user's window has neither cost.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a script: the repository root on the path
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks.gui_probes import children, process_name

__all__ = ["SELF_WALK_EVERY", "PssSampler"]

#: the root process's page tables are walked once in this many samples and when a phase
#: starts; in between its PSS is the last walk's file part + its anonymous memory now
SELF_WALK_EVERY = 15
INTERVAL_S = 2.0


def _pss_kb(pid: int) -> tuple[int, int]:
    """(PSS, its anonymous part) in kB: the anonymous pages are the process's own memory (no
    swap here: never given back), the rest mapped files' pages the kernel can drop."""
    pss = anon = 0
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                pss = int(line.split()[1])
            elif line.startswith("Pss_Anon:"):
                anon = int(line.split()[1])
    except OSError:
        pass
    return pss, anon


def _rss_anon_kb(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("RssAnon:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


class _Tracker:
    """The sampling state, inside the sampler process."""

    def __init__(self, root: int) -> None:
        self.root = root
        self.peak_kb, self.peak_parts = 0, {}
        self.anon_peak_kb, self.anon_parts = 0, {}  # the anonymous part alone
        self.own_peak: dict[int, tuple[int, str]] = {}  # pid: (its own peak PSS, name)
        self.phases: list[tuple[str, int, dict[str, int]]] = []  # (phase, peak, parts)
        self.phase = "start"
        self._walked_phase, self._root_file_kb, self._samples = "", 0, 0

    def _root_pss(self) -> tuple[int, int]:
        self._samples += 1
        if self._walked_phase != self.phase or self._samples % SELF_WALK_EVERY == 1:
            self._walked_phase = self.phase
            pss, anon = _pss_kb(self.root)
            self._root_file_kb = max(pss - anon, 0)
            return pss, anon
        anon = _rss_anon_kb(self.root)
        return self._root_file_kb + anon, anon

    def sample(self) -> None:
        pids, todo = [], [self.root]
        while todo:
            pid = todo.pop()
            if pid != os.getpid():  # not this sampler
                pids.append(pid)
                todo.extend(children(pid))
        both = {pid: _pss_kb(pid) for pid in pids[1:]}
        both[self.root] = self._root_pss()
        parts = {pid: kb for pid, (kb, _anon) in both.items()}
        anon = sum(a for _kb, a in both.values())
        if anon > self.anon_peak_kb:
            self.anon_peak_kb = anon
            self.anon_parts = {pid: a for pid, (_kb, a) in both.items()}
        for pid, kb in parts.items():
            if kb > self.own_peak.get(pid, (0, ""))[0]:
                self.own_peak[pid] = (
                    kb,
                    self.own_peak.get(pid, (0, ""))[1] or process_name(pid, self.root),
                )
        total = sum(parts.values())
        if total > self.peak_kb:
            self.peak_kb, self.peak_parts = total, parts
        if not self.phases or self.phases[-1][0] != self.phase:
            self.phases.append((self.phase, 0, {}))
        if total > self.phases[-1][1]:
            named = {self.own_peak.get(pid, (0, str(pid)))[1]: kb for pid, kb in parts.items()}
            self.phases[-1] = (self.phase, total, named)

    def report(self) -> str:
        gb = 2**20
        me = self.peak_parts.get(self.root, 0)
        each = ", ".join(
            f"{name} {kb / gb:.2f}"
            for kb, name in sorted(self.own_peak.values(), reverse=True)
            if kb > 2**16
        )
        anon_parts = ", ".join(
            f"{self.own_peak.get(p, (0, str(p)))[1]} {a / gb:.2f}"
            for p, a in self.anon_parts.items()
            if a > 2**16
        )
        lines = [
            f"peak summed PSS {self.peak_kb / gb:.2f} GB "
            f"({len(self.peak_parts)} processes; window {me / gb:.2f} GB)",
            f"  each process's own peak PSS, GB: {each}",
            f"peak summed anonymous PSS (private memory) {self.anon_peak_kb / gb:.2f} GB "
            f"({anon_parts})",
        ]
        for name, kb, parts in self.phases:
            inside = ", ".join(f"{p} {v / gb:.2f}" for p, v in parts.items() if v > 2**16)
            lines.append(f"  peak summed PSS during {name}: {kb / gb:.2f} GB ({inside})")
        return "\n".join(lines)


def _serve(root: int) -> None:
    """The sampler process: a sample every INTERVAL_S; stdin lines ``phase NAME`` or
    ``stop`` (then the report, as JSON, on stdout)."""
    import select

    tracker = _Tracker(root)
    while True:
        ready, _, _ = select.select([sys.stdin], [], [], INTERVAL_S)
        if not ready:
            tracker.sample()
            continue
        line = sys.stdin.readline().strip()
        if line.startswith("phase "):
            tracker.phase = line[6:]
        else:  # "stop", or the window closed the pipe
            print(json.dumps(tracker.report()), flush=True)
            return


class PssSampler:
    """Start the sampler process for this process's tree; :meth:`phase` names what the
    next peaks belong to; :meth:`stop` returns the report."""

    def __init__(self) -> None:
        self._proc = subprocess.Popen(
            [sys.executable, __file__, str(os.getpid())],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )

    def phase(self, name: str) -> None:
        """Peaks from now on count for phase ``name`` (open, run, layout)."""
        self._proc.stdin.write(f"phase {name}\n")
        self._proc.stdin.flush()

    def stop(self) -> str:
        out, _ = self._proc.communicate("stop\n", timeout=60)
        return json.loads(out)


if __name__ == "__main__":
    _serve(int(sys.argv[1]))
