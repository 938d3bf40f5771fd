"""The parts of the reproduction page (``studies/reproductions.py`` writes it): one module per
paper's tables, beside what they share.

- ``common``: how the page prints numbers and tables, and the stored cells of a study;
- ``runs``: how much of each paper's protocol runs (``Scale``) and the studies that run it;
- ``versions``: the data sets' versions against the papers';
- ``fischetti_tables``, ``franc_tables``, ``carrizosa_tables``, ``adankon_tables``: each
  paper's tables beside ours, with a verdict.
"""
