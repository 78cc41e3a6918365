"""The one shape of every problem the tool reports: `path:line:col: field: message`."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, order=True)
class Problem:
    """A located problem in an input file. Problems are values: collected, sorted, reported once."""

    path: str
    line: int
    col: int
    field: str
    message: str

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}:{self.col}"
        return f"{where}: {self.field}: {self.message}" if self.field else f"{where}: {self.message}"

    def github_annotation(self) -> str:
        """The same problem as a GitHub Actions workflow command, so it shows at the line in a PR."""
        message = str(self.message if not self.field else f"{self.field}: {self.message}")
        message = message.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
        return f"::error file={self.path},line={self.line},col={self.col}::{message}"


class ProblemsFound(Exception):
    """Raised at a stage boundary when its inputs had problems; carries all of them."""

    def __init__(self, problems: list[Problem]):
        super().__init__(f"{len(problems)} problem(s)")
        self.problems = sorted(problems)
