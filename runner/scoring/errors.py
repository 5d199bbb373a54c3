"""Errors of the scoring: a results file or a spec that cannot be used."""

from __future__ import annotations

from runner.errors import RunnerError


class ScoringError(RunnerError):
    """Scoring inputs that break the leaderboard's rules (an unknown entry status, a bad id)."""


class ResultsFileError(ScoringError):
    """A results.json that cannot be read back (not JSON, or not the leaderboard's schema)."""


class SpecError(ScoringError):
    """A golden spec.json whose runs do not follow the evaluator's order."""
