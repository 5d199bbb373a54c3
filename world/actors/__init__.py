"""The actors wing: what an actor is made of, apart from the handles that reach the world.

Holds the blueprint library and its catalogue, the vehicle and walker models and their
dimensions, the body models that turn a blueprint into table rows, controls, the actor
state enums (vehicle_state), rigid attachments and the `ActorList` container.

May import: the plain types at the top of world/, map/ and physics/control (a model's
physics parameters). The actor handles themselves sit beside world.py (world/handles.py),
since they reach into every wing.
"""
