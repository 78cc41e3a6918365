"""`python -m generator` runs the same command line as `trainwreck`."""

from generator.cli import main

raise SystemExit(main())
