"""A hard-sphere fluid from Python, cell by cell (``# %%`` marks a cell for
Jupyter, VS Code or Spyder; run the whole file with /usr/bin/python3).

It melts an fcc crystal at packing fraction 0.30, measures the pressure by
the collision virial and compares it with the Carnahan-Starling equation of
state, then checks the Enskog collision rate against the same contact value
g(sigma) and takes a snapshot that continues bit for bit. It ends with a
non-zero status if a check fails, so the test suite runs it too."""

# %% Setup: the package from this checkout unless it is installed
import math
import os
import sys

import numpy as np

try:
    import carom
except ImportError:
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    import carom

# %% An fcc crystal of 4 * 6^3 = 864 unit spheres (sigma = m = kT = 1) at phi = 0.30
phi, cells, sigma = 0.30, 6, 1.0
count = 4 * cells ** 3
side = (count * math.pi * sigma ** 3 / (6.0 * phi)) ** (1.0 / 3.0)
a = side / cells
basis = np.array([[0, 0, 0], [0.5, 0.5, 0], [0.5, 0, 0.5], [0, 0.5, 0.5]])
corners = np.array([[i, j, k] for i in range(cells) for j in range(cells) for k in range(cells)], dtype=float)
positions = ((corners[:, None, :] + basis[None, :, :]).reshape(-1, 3) + 0.25) * a - side / 2
rng = np.random.default_rng(2024)
velocities = rng.normal(size=(count, 3))
velocities -= velocities.mean(axis=0)
velocities *= math.sqrt(3 * (count - 1) / np.sum(velocities ** 2))  # kT = 1 exactly, momentum zero

world = carom.World(dim=3, box=side, boundary="periodic")
world.add_bodies(positions, velocities=velocities, radii=sigma / 2)
print(world, "box side %.4f" % side)

# %% Melt, then measure over a window of 50 time units
world.run(until=10.0)
world.reset_stats()
world.run(until=60.0)
stats = world.stats()
z = stats["compressibility"]
z_cs = (1 + phi + phi ** 2 - phi ** 3) / (1 - phi) ** 3
print("Z = PV/NkT  %.4f   Carnahan-Starling %.4f   (%+.2f%%)" % (z, z_cs, 100 * (z / z_cs - 1)))

# %% The same contact value from the collision rate (Enskog): omega = 24 phi g(sigma) sqrt(kT / (pi m)) / sigma
g_contact = (z - 1) / (4 * phi)
kt = stats["mean_temperature"]
omega = 24 * phi * g_contact * math.sqrt(kt / math.pi) / sigma
print("collision rate %.4f per body per unit time   Enskog from Z %.4f" % (stats["collision_rate"], omega))

# %% Events as a structured array: free times between a body's collisions
pairs_before = world.counts()["pair_events"]
world.record_events = True
world.run(until=100.0)
events = world.events()
world.record_events = False
pairs_counted = world.counts()["pair_events"] - pairs_before
pairs = events[events["kind"] == carom.EVENT_KINDS.index("pair")]
last = np.full(count, np.nan)
free_times = []
for t, i, j in zip(pairs["time"], pairs["i"], pairs["j"]):
    for body in (i, j):
        if not np.isnan(last[body]):
            free_times.append(t - last[body])
        last[body] = t
free_times = np.array(free_times)
window_rate = 2 * len(pairs) / (count * 40.0)
print("%d pair collisions from t = 60 to 100; mean free time %.4f, 1 / their rate %.4f"
      % (len(pairs), free_times.mean(), 1 / window_rate))

# %% A snapshot continues bit for bit
copy = carom.World.from_snapshot(world.snapshot())
world.run(until=105.0)
copy.run(until=105.0)
same = np.array_equal(world.positions, copy.positions) and np.array_equal(world.velocities, copy.velocities)
print("snapshot continues bit for bit:", same)

# %% Checks
checks = {"pressure within 2% of Carnahan-Starling": abs(z / z_cs - 1) < 0.02,
          "collision rate within 2% of Enskog from Z": abs(stats["collision_rate"] / omega - 1) < 0.02,
          "every pair collision recorded": len(pairs) == pairs_counted,
          "mean free time within 1% of 1 / rate": abs(free_times.mean() * window_rate - 1) < 0.01,
          "snapshot": same}
for name, ok in checks.items():
    print("%-45s %s" % (name, "ok" if ok else "FAILED"))
sys.exit(0 if all(checks.values()) else 1)
