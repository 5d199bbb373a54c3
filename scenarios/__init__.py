"""Scenario building blocks: tasks, behaviours, criteria, route scenarios, the scenario library."""
