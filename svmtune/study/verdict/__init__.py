"""The verdict across data sets: comparisons, significance tests, profiles, the report."""
