"""The study's database: tables, claims, the stored definition, rows <-> DataFrames, summaries."""
