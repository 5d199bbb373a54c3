"""`lockstep serve`: lockstep's world behind CARLA 0.9.16's wire protocol.

CARLA's unmodified client (`pip install carla==0.9.16`), its Traffic Manager and the
scripts written for them connect to this server as to CARLA's. Calls are answered by
lockstep's in-process `carla` layer (runner.carla) and the World; docs/serve.md describes
the protocol and what is served.
"""
