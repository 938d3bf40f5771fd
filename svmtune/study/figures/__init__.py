"""The study's figures: the plots, the verdict's plots and the jobs that draw them."""
