"""`python -m generator` runs the same command line as `trainwreck`."""

from __future__ import annotations

from generator.cli import main

raise SystemExit(main())
