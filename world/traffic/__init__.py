"""The traffic wing: traffic lights and signs, the traffic manager's autopilot, AI walkers.

signals/: the map's lights and signs placed as actors, their road (trigger) boxes, light
cycles and sign timers. autopilot/: the traffic manager, its vectorised driver and
controllers over lane paths. walkers/: the AI walkers' navigation and steering.
scene.py: seeded background traffic (`populate_traffic`) and a monitor of what must not
happen.

May import: the plain types at the top of world/, map/, actors/ and physics/. Never
sensors/; the World is reached through the world object handed in, never by importing
world.py.
"""
