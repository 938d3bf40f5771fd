"""Running a study's cells: data and splits, methods and peers, one cell, the run loop."""
