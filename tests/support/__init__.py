"""Helpers shared by the tests: fakes, vault builders, paths. Not tests themselves."""
