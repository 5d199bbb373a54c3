"""Traffic lights and signs: placement from the map, road boxes, light cycles and sign timers."""
