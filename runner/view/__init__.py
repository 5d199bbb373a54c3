"""See a run: `lockstep view` (a web page of a run directory or a log: the score table, the
route's log played on its map, two runs overlaid with their first divergence) and
`lockstep export` (the run for Foxglove, MCAP, and Rerun).

sources.py finds the routes of the paths given, route_data.py makes a route's data for the
page from its log (recorder/picture/frame_chunks.py), site.py names every address of the
page, server.py serves them on 127.0.0.1 and static_site.py writes them into a folder. The
page itself (page/) is plain JavaScript and Canvas. Each exporter is a module of its own,
the only importer of its library (an optional extra).
"""
