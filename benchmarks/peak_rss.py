"""`python benchmarks/peak_rss.py MODULE ARGS...`: run a module like `python -m`, then print its peak RSS."""

from __future__ import annotations

import resource
import runpy
import sys

if __name__ == "__main__":
    sys.argv = sys.argv[1:]
    try:
        runpy.run_module(sys.argv[0], run_name="__main__", alter_sys=True)
    except SystemExit as exit_:
        if exit_.code not in (0, None):
            raise
    finally:
        print("PEAK_RSS_KB", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)
