"""Running an evaluation's route repetitions as tasks and merging their results: the driver
(the one owner of the evaluation's session, results.json and the manifest), the task a
worker runs, the schedulers (in this process, a pool of local processes, a Ray cluster),
the run directory's task checkpoint and its manifest.

Builds on runner/route.py (one route repetition) and below; nothing under it imports
this package.
"""
