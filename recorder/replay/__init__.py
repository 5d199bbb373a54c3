"""Replaying a log as CARLA's replayer does: the Replayer, the helper calls a replayed
record makes (on a lockstep World or on a recording stand-in), UE's float32 pose
arithmetic, the packet stream, walker gait, the blueprint a logged one replays as, and the
replay traces compared with CARLA's.

May import: logfile/, recorder.errors and the world. Never live/, json_form/, queries/ or
picture/.
"""
