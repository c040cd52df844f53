"""Checks a carom analysis (PREFIX.json and tables, STATS.json) against
theory; used by tests/test_analysis.sh. Prints one "pass NAME" or
"FAIL NAME: why" line per check.

usage: check.py CASE PREFIX STATS.json [--smoke]
CASE: dense3d, dense2d, dilute3d, mixture3d (the scenarios of test_analysis.sh).
--smoke: a short run: only the files' shape is checked (every table has its
header and rows, the summary its keys)."""

import csv
import json
import math
import sys

import numpy as np

case, prefix, stats_path = sys.argv[1:4]
summary = json.load(open(prefix + ".json"))
stats = json.load(open(stats_path))
kt = stats["mean_temperature"]
failures = 0


def check(name, ok, detail):
    global failures
    print(("pass  %s (%s)" if ok else "FAIL  %s: %s") % (name, detail))
    failures += 0 if ok else 1


def table(suffix):
    rows = list(csv.DictReader(open(prefix + suffix)))
    return {key: np.array([float(r[key]) if r[key] != "" else math.nan for r in rows]) for key in rows[0]}


def close(name, got, want, tolerance):
    check(name, abs(got / want - 1) < tolerance, "%.6g against %.6g, tolerance %g%%" % (got, want, 100 * tolerance))


def smoke():
    expected = {"dense3d": ["_rdf.csv", "_sk.csv", "_free_time.csv", "_free_path.csv"],
                "dense2d": ["_rdf.csv", "_free_time.csv", "_free_path.csv"],
                "dilute3d": ["_msd.csv", "_free_time.csv", "_free_path.csv"],
                "mixture3d": ["_rdf.csv", "_free_time.csv", "_free_path.csv"]}[case]
    for suffix in expected:
        rows = table(suffix)
        check("%s has rows" % suffix, len(next(iter(rows.values()))) > 0, "")
    check("summary keys", all(k in summary for k in ("samples", "species", "contact_value_rdf", "diffusion")),
          ", ".join(summary))
    sys.exit(1 if failures else 0)


if len(sys.argv) > 4 and sys.argv[4] == "--smoke":
    smoke()


def contact(pair=0):
    return summary["contact_value_rdf"][pair]["value"]


def common_flights():
    rate = summary["collisions"][0]["rate_per_body_a"] if len(summary["collisions"]) == 1 else None
    if rate:  # flights still under way at the end are not counted: low by about tau / T
        bias = summary["mean_free_time"] / (summary["end"] - summary["start"])
        close("mean free time = 1 / collision rate", summary["mean_free_time"], 1 / rate, 0.01 + 1.5 * bias)
    mean_speed = math.sqrt(8 * kt / math.pi) if summary["dim"] == 3 else math.sqrt(math.pi * kt / 2)
    close("mean free path / mean free time = <|v|>", summary["mean_free_path"] / summary["mean_free_time"],
          mean_speed, 0.015)


if case == "dense3d":
    phi = 0.30
    z = stats["compressibility"]
    close("g(sigma+) from g(r) against the collision virial", contact(), summary["contact_value_virial"], 0.02)
    close("g(sigma+) against Carnahan-Starling", summary["contact_value_virial"],
          (1 - phi / 2) / (1 - phi) ** 3, 0.02)
    close("Z = 1 + 4 phi g(sigma+)", 1 + 4 * phi * contact(), z, 0.02)
    sk = table("_sk.csv")
    k, s = sk["k"][:3], sk["S"][:3]
    fit = np.polyfit(k ** 2, s, 1)
    close("S(k -> 0) against Carnahan-Starling's compressibility", fit[1],
          (1 - phi) ** 4 / (1 + 4 * phi + 4 * phi ** 2 - 4 * phi ** 3 + phi ** 4), 0.08)
    rdf = table("_rdf.csv")
    inside = rdf["r_high"] <= 1.0
    check("g(r) = 0 inside contact", np.all(rdf["g_X_X"][inside] == 0), "%d bins" % inside.sum())
    tail = rdf["r_low"] > 3.0
    close("g(r) -> 1 far away", float(np.mean(rdf["g_X_X"][tail])), 1.0, 0.01)
    common_flights()

if case == "dense2d":
    phi = 0.30
    close("g(sigma+) from g(r) against the collision virial (2D)", contact(), summary["contact_value_virial"], 0.03)
    close("g(sigma+) against Henderson's equation of state", summary["contact_value_virial"],
          (1 - 7 * phi / 16) / (1 - phi) ** 2, 0.02)
    close("Z = 1 + 2 phi g(sigma+)", 1 + 2 * phi * contact(), stats["compressibility"], 0.03)
    common_flights()

if case == "dilute3d":
    phi, sigma, bodies = 0.02, 1.0, summary["bodies"]
    n = 6 * phi / (math.pi * sigma ** 3)
    g = (1 - phi / 2) / (1 - phi) ** 3
    common_flights()
    # Free times: a mixture of exponentials over speeds, each at the Enskog rate of a body of that speed.
    s = math.sqrt(kt)
    v = np.linspace(1e-6, 10 * s, 4001)
    x = v / (math.sqrt(2) * s)
    erf = np.vectorize(math.erf)(x)
    relative = s * math.sqrt(2) * (np.exp(-x * x) / math.sqrt(math.pi) + (x + 1 / (2 * x)) * erf)
    omega = g * n * math.pi * sigma ** 2 * relative
    speeds = 4 * math.pi * v ** 2 * (2 * math.pi * s * s) ** -1.5 * np.exp(-v * v / (2 * s * s))
    mean_rate = np.trapz(speeds * omega, v)
    close("collision rate against Enskog", summary["collisions"][0]["rate_per_body_a"], mean_rate, 0.03)
    times = table("_free_time.csv")
    mid = 0.5 * (times["time_low"] + times["time_high"])
    want = np.array([np.trapz(speeds * omega ** 2 * np.exp(-omega * t), v) / mean_rate for t in mid])
    tau = summary["mean_free_time"]
    used = (mid < 3 * tau) & (times["count"] > 400)
    worst = float(np.max(np.abs(times["density"][used] / want[used] - 1)))
    check("free-time distribution against the Boltzmann mixture of exponentials", worst < 0.06,
          "worst bin %.2f%% off over %d bins" % (100 * worst, used.sum()))
    exp_fit = np.exp(-mid / tau) / tau
    check("free times are near exponential (within 20% up to 2 mean free times)",
          float(np.max(np.abs(times["density"][mid < 2 * tau] / exp_fit[mid < 2 * tau] - 1))) < 0.2, "")
    msd = table("_msd.csv")
    d_enskog = 3 / (8 * n * sigma ** 2 * g) * math.sqrt(kt / math.pi)
    close("D from the MSD against Enskog (+1.6% Sonine correction)", summary["diffusion"]["all"],
          1.016 * d_enskog, 0.06)
    every = summary["every"]
    green_kubo = np.trapz(msd["vacf"], dx=every) / 3
    close("D from the VACF (Green-Kubo) against D from the MSD", green_kubo, summary["diffusion"]["all"], 0.05)
    close("VACF(0) = <v^2> = 2 KE / N", msd["vacf"][0], 2 * stats["kinetic_energy"] / bodies, 1e-9)
    check("MSD(0) = 0", msd["msd"][0] == 0, "")

if case == "mixture3d":
    rates = {tuple(c["species"]): c for c in summary["collisions"]}
    contacts = {tuple(c["species"]): c["value"] for c in summary["contact_value_rdf"]}
    sizes = {"S": (0.5, 1.0), "L": (1.0, 8.0)}  # radius, mass
    counts = {"S": 3200, "L": 400}
    volume = stats["volume"]
    check("three species pairs", len(rates) == 3 and len(contacts) == 3, str(sorted(rates)))
    for (a, b), c in rates.items():
        ra, ma = sizes[a]
        rb, mb = sizes[b]
        mu = ma * mb / (ma + mb)
        sigma = ra + rb
        enskog = counts[b] / volume * math.pi * sigma ** 2 * contacts[(a, b)] * math.sqrt(8 * kt / (math.pi * mu))
        close("rate of %s with %s against Enskog from g_%s%s(contact)" % (a, b, a, b), c["rate_per_body_a"],
              enskog, 0.03)
    total = sum(c["count"] for c in rates.values())
    check("flights = 2 collisions - the bodies' first collisions", 2 * total - summary["bodies"] <=
          summary["flights"] <= 2 * total, "%d flights, %d collisions" % (summary["flights"], total))

sys.exit(1 if failures else 0)
