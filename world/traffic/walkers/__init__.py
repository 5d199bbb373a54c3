"""AI walkers: sidewalk navigation, routes between navigation points, compiled steering."""
