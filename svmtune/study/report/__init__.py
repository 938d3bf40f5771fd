"""The report: the verdict's ``report.md`` and the figures composed (the top of the study)."""
