"""The map wing: OpenDRIVE reading and writing, CARLA's Map API, lane geometry, the ground.

Holds the OpenDRIVE reader and writer (opendrive/), the town generator (towngen/), the
`Map` with its waypoints, junctions and landmarks, the lane frames and the nearest-lane
index, the road graph, the ground query, geolocation and the road-less `FlatMap`.

May import: the plain value types at the top of world/ (geometry, enums, errors), its
own modules and the kernels wing (world.kernels: the kernels' decorator and their folder,
below every wing). Never actors/, physics/, traffic/, sensors/ or world.py: everything
else builds on the map, so the map builds on nothing of theirs.
"""
