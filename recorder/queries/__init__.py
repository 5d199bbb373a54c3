"""CARLA's three log queries with CARLA's exact text: file info, collisions, blocked actors."""

from recorder.queries.blocked import query_blocked
from recorder.queries.collisions import query_collisions
from recorder.queries.info import query_info

__all__ = ["query_blocked", "query_collisions", "query_info"]
