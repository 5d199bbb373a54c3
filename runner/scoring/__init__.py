"""The leaderboard's scoring, piece by piece: events, records, the results file, the route
order, the statistics manager, the evaluator's call sequence and merging.

The public face is runner/statistics.py; these modules each hold one job.
"""
