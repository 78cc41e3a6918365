"""`python benchmarks/peak_rss.py MODULE ARGS...`: run a module like `python -m`, then print its peak RSS.

The peak is the kernel's high-water mark of this process's own memory (VmHWM). Not
`getrusage().ru_maxrss`: Linux carries that figure over from the parent through fork and exec,
so a child started by a benchmark holding 190 MB reported at least 190 MB whatever it used.
"""

from __future__ import annotations

import re
import resource
import runpy
import sys
from pathlib import Path


def peak_rss_kb() -> int:
    try:
        status = Path("/proc/self/status").read_text(encoding="ascii")
    except OSError:  # not Linux: the rusage figure, an upper bound
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return int(re.search(r"^VmHWM:\s+(\d+) kB", status, re.MULTILINE).group(1))


if __name__ == "__main__":
    sys.argv = sys.argv[1:]
    try:
        runpy.run_module(sys.argv[0], run_name="__main__", alter_sys=True)
    except SystemExit as exit_:
        if exit_.code not in (0, None):
            raise
    finally:
        print("PEAK_RSS_KB", peak_rss_kb(), file=sys.stderr)
