"""The test suite: one folder per area, mirroring the project's packages; shared strategies,
fixtures and paths in support/."""
