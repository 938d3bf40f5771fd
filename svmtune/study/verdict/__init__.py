"""The verdict across data sets: comparisons, significance tests, profiles, noise controls."""
