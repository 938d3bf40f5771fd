"""The papers' numbers, copied once: every study and the reproduction page read them from here
(and the names of the bundled data sets the papers' instances are).

Each table is copied from the paper's text, row by row, in the paper's order and units
(percent, seconds); a row the bundled data cannot reproduce stays in, so the page can say so.
``tests/test_reproductions.py`` checks the copies against the papers' own summaries: the
average row of Fischetti's Table 2, the average speed-ups Franc et al. state for their Table 3,
the win/tie/loss counts Carrizosa et al. state for their Table 3, and the counts they state
for their Tables 4 and 5.

- Fischetti (2016), "Fast training of Support Vector Machines with Gaussian kernel", Tables 1-2.
- Franc, Laskov, Muller (2008), "Stopping conditions for exact computation of leave-one-out
  error in support vector machines", Tables 2-3 (IDA benchmark = Ratsch's realizations).
- Carrizosa, Martin-Barragan, Romero Morales (2014), "A nested heuristic for parameter tuning
  in Support Vector Machines", Tables 1, 3, 4 and 5.
- Adankon, Cheriet, Ayat, "Optimizing resources in model selection for support vector
  machines", Table 1.
"""

from __future__ import annotations

# -- Fischetti (2016) ------------------------------------------------------------------------
#: Table 1: (points, features) of each instance.
FISCHETTI_TABLE1: dict[str, tuple[int, int]] = {
    "Australian": (690, 43),
    "Breast": (683, 9),
    "Bupa": (345, 6),
    "German": (1000, 24),
    "Heart": (270, 23),
    "Ionosphere": (351, 34),
    "Pima": (768, 8),
    "Sonar": (208, 60),
    "Wdbc": (568, 30),
    "Wpbc": (194, 33),
}

#: Table 1's instances svmtune bundles: the paper's name -> the bundled data set (Wpbc is not
#: bundled; the paper's "Breast" is the Wisconsin breast-cancer data). The Fischetti and peers
#: studies run on these.
FISCHETTI_DATASETS: dict[str, str] = {
    "Australian": "australian",
    "Breast": "wisconsin",
    "Bupa": "bupa",
    "German": "german",
    "Heart": "heart",
    "Ionosphere": "ionosphere",
    "Pima": "pima",
    "Sonar": "sonar",
    "Wdbc": "wdbc",
}

#: Table 2 (Gaussian kernel), percent over 10 random 70/30 splits: HINGE's test error "mis",
#: then for LOO_1, LOO_2, LOO_3 the LOO estimate and its sd, the test error and its sd.
FISCHETTI_TABLE2: dict[str, dict[str, tuple[float, ...]]] = {
    "Australian": {
        "HINGE": (18.20,),
        "LOO_1": (16.04, 1.13, 16.28, 2.22),
        "LOO_2": (14.74, 1.15, 15.31, 2.78),
        "LOO_3": (14.64, 1.17, 15.68, 2.59),
    },
    "Breast": {
        "HINGE": (3.20,),
        "LOO_1": (3.22, 0.45, 3.61, 0.99),
        "LOO_2": (2.97, 0.29, 4.00, 0.98),
        "LOO_3": (2.41, 0.35, 3.50, 1.04),
    },
    "Bupa": {
        "HINGE": (32.70,),
        "LOO_1": (36.67, 2.31, 38.68, 4.39),
        "LOO_2": (33.98, 1.93, 39.00, 2.43),
        "LOO_3": (33.20, 1.37, 39.61, 3.47),
    },
    "German": {
        "HINGE": (27.97,),
        "LOO_1": (27.19, 0.95, 26.52, 3.18),
        "LOO_2": (26.57, 1.20, 26.45, 3.16),
        "LOO_3": (24.09, 0.84, 25.74, 3.27),
    },
    "Heart": {
        "HINGE": (23.00,),
        "LOO_1": (17.88, 1.02, 19.05, 3.26),
        "LOO_2": (17.12, 0.84, 19.11, 3.19),
        "LOO_3": (16.47, 0.98, 18.77, 2.21),
    },
    "Ionosphere": {
        "HINGE": (6.30,),
        "LOO_1": (19.73, 1.67, 23.38, 2.97),
        "LOO_2": (4.93, 0.26, 6.66, 1.19),
        "LOO_3": (4.23, 0.35, 6.34, 1.50),
    },
    "Pima": {
        "HINGE": (25.70,),
        "LOO_1": (25.24, 1.42, 25.59, 2.52),
        "LOO_2": (24.39, 1.23, 25.76, 2.76),
        "LOO_3": (23.37, 1.01, 25.68, 2.95),
    },
    "Sonar": {
        "HINGE": (18.00,),
        "LOO_1": (16.49, 0.97, 17.03, 3.64),
        "LOO_2": (15.88, 1.54, 17.93, 2.86),
        "LOO_3": (12.91, 0.83, 11.44, 3.39),
    },
    "Wdbc": {
        "HINGE": (4.50,),
        "LOO_1": (5.15, 0.60, 5.66, 1.43),
        "LOO_2": (4.65, 0.73, 5.29, 1.70),
        "LOO_3": (3.58, 0.57, 4.63, 1.44),
    },
    "Wpbc": {
        "HINGE": (23.70,),
        "LOO_1": (22.72, 1.92, 21.59, 4.78),
        "LOO_2": (22.28, 2.13, 22.67, 3.90),
        "LOO_3": (21.03, 1.92, 23.14, 2.71),
    },
}
#: Table 2's "Average" row (over the 10 instances, Wpbc included).
FISCHETTI_TABLE2_AVERAGE: dict[str, tuple[float, ...]] = {
    "HINGE": (18.33,),
    "LOO_1": (19.03, 1.24, 19.74, 2.94),
    "LOO_2": (16.75, 1.13, 18.22, 2.50),
    "LOO_3": (15.59, 0.94, 17.45, 2.46),
}

# -- Franc, Laskov, Muller (2008) --------------------------------------------------------------
#: Table 2, percent: linear kernel (LOO error, test error, test sd), RBF kernel (the same). The
#: LOO error is the mean over the first 5 realizations at the selected setting, the test error
#: the mean and sd over 100 realizations (20 for Image and Splice).
FRANC_TABLE2: dict[str, tuple[tuple[float, float, float], tuple[float, float, float]]] = {
    "Banana": ((41.40, 47.80, 4.58), (8.55, 10.43, 0.44)),
    "Breast": ((27.20, 29.00, 4.83), (23.00, 26.06, 4.91)),
    "Diabetis": ((22.05, 23.44, 1.70), (21.50, 23.27, 1.65)),
    "Flare": ((32.85, 32.33, 1.82), (32.31, 34.04, 2.04)),
    "German": ((24.91, 24.06, 2.22), (23.71, 23.61, 2.23)),
    "Heart": ((14.24, 15.22, 3.22), (13.53, 15.55, 3.36)),
    "Image": ((15.48, 15.34, 0.84), (2.94, 3.15, 0.63)),
    "Ringnorm": ((23.45, 24.59, 0.67), (1.10, 1.60, 0.11)),
    "Splice": ((15.36, 16.20, 0.59), (10.60, 10.95, 0.64)),
    "Thyroid": ((8.43, 10.16, 2.60), (2.29, 4.87, 2.28)),
    "Titanic": ((21.20, 23.01, 4.62), (15.47, 23.99, 3.47)),
    "Twonorm": ((2.50, 2.90, 0.27), (2.25, 2.59, 0.18)),
    "Waveform": ((10.90, 12.95, 0.54), (8.85, 10.50, 0.43)),
}
#: Table 3: linear kernel, RBF kernel, each (standard approach's time [s], its kernel
#: evaluations [x 10^6], the proposed stop's time speed-up, KerEval speed-up, Prec [%]). Times
#: and evaluations are totals over model selection (5 realizations x the grid).
FRANC_TABLE3: dict[
    str, tuple[tuple[float, float, float, float, float], tuple[float, float, float, float, float]]
] = {
    "Banana": ((728.0, 109.5, 9.9, 12.3, 56.9), (1565.1, 222.4, 5.1, 6.1, 81.9)),
    "Breast": ((128.7, 34.6, 2.0, 2.1, 64.2), (265.9, 74.0, 1.5, 1.6, 55.6)),
    "Diabetis": ((3705.3, 432.1, 6.3, 7.2, 93.1), (3163.6, 382.3, 1.4, 1.5, 54.8)),
    "Flare": ((61.5, 4.7, 1.0, 1.1, 59.3), (2263.0, 189.1, 2.2, 2.4, 50.3)),
    "German": ((47603.8, 3685.7, 4.2, 4.4, 82.0), (6513.7, 549.4, 1.1, 1.1, 31.3)),
    "Heart": ((280.7, 90.1, 1.9, 2.1, 83.1), (59.5, 20.7, 1.1, 1.2, 50.3)),
    "Image": ((114373.9, 4793.8, 12.9, 14.9, 98.3), (10852.7, 514.5, 2.9, 3.1, 75.3)),
    "Ringnorm": ((11632.8, 1536.0, 2.8, 3.0, 91.8), (277.2, 47.4, 1.4, 1.4, 39.1)),
    "Splice": ((41072.8, 2222.1, 1.5, 1.5, 74.5), (6360.3, 453.8, 1.0, 1.0, 14.6)),
    "Thyroid": ((21.6, 8.2, 3.2, 5.2, 66.0), (10.3, 3.3, 1.5, 2.4, 80.3)),
    "Titanic": ((0.8, 0.1, 1.0, 1.0, 17.6), (25.5, 7.9, 5.7, 2.7, 50.2)),
    "Twonorm": ((52.8, 8.3, 1.9, 2.2, 89.1), (175.3, 36.8, 1.0, 1.0, 22.2)),
    "Waveform": ((3422.8, 503.3, 2.4, 2.6, 90.7), (345.6, 59.4, 1.1, 1.1, 30.9)),
}

# -- Carrizosa, Martin-Barragan, Romero Morales (2014) -----------------------------------------
#: Table 1: (training size, test size, features) of Ratsch's realizations.
CARRIZOSA_TABLE1: dict[str, tuple[int, int, int]] = {
    "banana": (400, 4900, 2),
    "diabetis": (468, 300, 8),
    "image": (1300, 1010, 18),
    "splice": (1000, 2175, 60),
    "ringnorm": (400, 7000, 20),
    "twonorm": (400, 7000, 20),
    "waveform": (400, 4600, 21),
    "german": (700, 300, 20),
    "heart": (170, 100, 13),
    "thyroid": (140, 75, 5),
    "titanic": (150, 2051, 3),
    "flare-solar": (666, 400, 9),
    "breast-cancer": (200, 77, 9),
}
#: Table 3: on Ratsch's first realization, Keerthi-Lin's (test error %, log C, log sigma), then
#: VNS's (test error %, log C, log sigma); logarithms base 2.
CARRIZOSA_TABLE3: dict[str, tuple[float, float, float, float, float, float]] = {
    "banana": (11.59, -2.00, -1.00, 11.61, -2.07, -0.87),
    "diabetis": (24.00, 4.00, 6.00, 24.67, -0.94, 4.02),
    "image": (5.84, -0.50, 3.00, 2.38, 1.26, 0.80),
    "splice": (10.53, -0.50, 6.00, 9.93, 1.90, 6.62),
    "ringnorm": (1.44, -3.00, 4.00, 1.70, 1.89, 3.10),
    "twonorm": (2.47, -2.50, 5.50, 2.77, 1.01, 6.08),
    "waveform": (11.39, 0.00, 6.00, 10.46, 0.90, 4.57),
    "german": (21.33, 3.00, 6.00, 21.33, 0.19, 4.09),
    "heart": (21.00, -3.00, 4.50, 20.00, 0.16, 7.38),
    "thyroid": (5.33, 0.00, -1.00, 5.33, -0.55, -1.12),
    "titanic": (22.92, -2.00, 3.50, 22.92, -1.39, 2.23),
    "flare-solar": (34.50, -0.50, 3.50, 34.50, 0.04, 3.32),
    "breast-cancer": (29.87, 3.50, 7.00, 28.57, 1.75, 5.83),
}
#: Table 2: (training size, test size, view sizes d_t) of the multiple-kernel data sets.
CARRIZOSA_TABLE2: dict[str, tuple[int, int, tuple[int, ...]]] = {
    "pendigitEO": (7494, 3498, (16, 16, 64, 256)),
    "pendigitSL": (7494, 3498, (16, 16, 64, 256)),
    "mfeatEO4": (1333, 667, (76, 64, 240, 47)),
    "mfeatEO6": (1333, 667, (76, 64, 240, 47, 216, 6)),
    "mfeatSL4": (1333, 667, (76, 64, 240, 47)),
    "mfeatSL6": (1333, 667, (76, 64, 240, 47, 216, 6)),
    "addata": (2186, 1093, (457, 495, 472, 111, 19)),
}
#: Table 4 (linear base kernels, model (10)): p, then the 12 methods of Gonen and Alpaydin
#: ("InGonAlp") best / median / worst test error %, then nested VNS's test error % and rank
#: among the 13 methods.
CARRIZOSA_TABLE4: dict[str, tuple[int, float, float, float, float, str]] = {
    "pendigitEO": (5, 6.47, 6.66, 11.07, 7.25, "11/13"),
    "pendigitSL": (5, 8.88, 9.06, 15.56, 10.45, "11/13"),
    "mfeatEO4": (5, 1.99, 2.15, 4.22, 2.34, "10/13"),
    "mfeatEO6": (7, 1.61, 1.76, 3.10, 1.46, "1/13"),
    "mfeatSL4": (5, 4.82, 5.11, 9.46, 6.19, "12/13"),
    "mfeatSL6": (7, 2.19, 2.54, 10.82, 2.30, "2/13"),
    "addata": (6, 3.41, 3.72, 4.90, 3.22, "1/13"),
}
#: Table 5 (RBF base kernels): model (13) with 3T fixed widths: p, InGonAlp best / median /
#: worst test error %, nested VNS's error % and rank; then model (8) with T tuned widths: p,
#: nested VNS's error % and rank (against the 12 methods' model-(7) errors).
CARRIZOSA_TABLE5: dict[str, tuple[int, float, float, float, float, str, int, float, str]] = {
    "mfeatEO4": (12, 0.67, 0.96, 2.18, 0.74, "4/13", 8, 0.72, "4/13"),
    "mfeatEO6": (18, 0.58, 0.67, 7.22, 0.65, "3/13", 12, 0.53, "1/13"),
    "mfeatSL4": (12, 1.43, 1.63, 4.60, 1.58, "5/13", 8, 1.40, "1/13"),
    "mfeatSL6": (18, 0.97, 1.25, 7.25, 0.99, "3/13", 12, 0.95, "1/13"),
    "addata": (15, 3.81, 4.34, 11.88, 3.24, "1/13", 10, 3.39, "1/13"),
}

# -- Adankon, Cheriet, Ayat --------------------------------------------------------------------
#: Table 1 columns: 5-fold CV (from Ratsch et al.), radius-margin and span bounds (from
#: Chapelle et al.), their approach (Platt's empirical error by gradient).
ADANKON_COLUMNS = ("5-fold CV", "radius-margin", "span bound", "their approach")
#: Table 1: test error (mean, sd) in percent over 100 realizations, per column above.
ADANKON_TABLE1: dict[str, tuple[tuple[float, float], ...]] = {
    "Breast cancer": ((26.04, 4.7), (26.84, 4.71), (25.59, 4.18), (25.48, 4.38)),
    "Diabetes": ((23.53, 1.73), (23.25, 1.70), (23.19, 1.67), (23.41, 1.68)),
    "Heart": ((15.95, 3.26), (15.92, 3.18), (16.13, 3.11), (15.96, 3.13)),
    "Thyroid": ((4.80, 2.19), (4.62, 2.03), (4.56, 1.97), (4.70, 2.07)),
    "Titanic": ((22.42, 1.02), (22.88, 1.23), (22.5, 0.88), (22.90, 1.16)),
}
