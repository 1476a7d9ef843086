#!/usr/bin/env python3
"""Issue 18's 3D pour through the API: random convex hulls poured one by one into a container.

The scene (docs/rigid_lcp.md, "3D pouring"): a rigid_lcp session (PEG or the standard model,
friction coefficient 1), a container given as ONE static body of five convex hulls (floor top at
z = 0, interior [-0.3, 0.3]^2 m, walls 0.5 m high, floor and walls 0.1 m thick), and N bodies,
each the convex hull of 10 random points 35-50 mm from its origin (the server's random_hull
primitive, seed --seed + i), 0.1 kg each. Body i is released at rest at t = i * T / N, 0.8 m above
cell i mod 9 of a 3 x 3 grid 0.18 m apart (+-1 cm jitter), in a random orientation; the run
simulates T seconds. Between releases the client steps the session in one Step call.

It prints one line per release (time, bodies in, the largest LCP so far, steps/s) and a summary:
bodies that left the container (centres outside it), the lowest centre, the largest LCP of any
step, the solver paths that solved the steps' islands, and the session's steps/s.

Exit codes: 0 every body stayed in the container, 1 one left it, 2 usage error, 3 the server
refused or could not be reached (the gRPC code and message are printed; a solver failure makes
the session FAILED and ends the run here).

    python3 pour.py --address 127.0.0.1:50051 [--bodies 20] [--dt-ms 4] [--model peg|standard]
"""

import argparse
import collections
import math
import random
import sys
import time

try:
    import contactsim
except ImportError as error:
    sys.exit(f"pour: {error}")

BODY_MASS_KG = 0.1
INTERIOR_HALF_M = 0.3
WALL_HEIGHT_M = 0.5
THICKNESS_M = 0.1
RELEASE_HEIGHT_M = 0.8
CELL_SPACING_M = 0.18
JITTER_M = 0.01


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--address", default="127.0.0.1:50051", help="host:port of the server")
    parser.add_argument("--bodies", type=int, default=20, help="N, bodies poured (1-1000)")
    parser.add_argument("--dt-ms", type=float, default=4.0, help="time step h [ms]")
    parser.add_argument("--duration-s", type=float, default=5.0, help="T, simulated time [s]")
    parser.add_argument("--model", choices=("peg", "standard"), default="peg",
                        help="contact model")
    parser.add_argument("--seed", type=int, default=1, help="first body's seed (then +1 each)")
    parser.add_argument("--timeout-s", type=float, default=120.0, help="deadline per call [s]")
    args = parser.parse_args(argv)
    if not 1 <= args.bodies <= 1000:
        parser.error("--bodies: must be in [1, 1000]")
    if not 0.0 < args.dt_ms <= 100.0:
        parser.error("--dt-ms: must be in (0, 100]")
    if not 0.0 < args.duration_s <= 600.0:
        parser.error("--duration-s: must be in (0, 600]")
    return args


def box_corners(lo, hi):
    return [tuple(hi[a] if (corner >> a) & 1 else lo[a] for a in range(3))
            for corner in range(8)]


def container_pieces():
    """The floor and four walls as boxes that touch but do not overlap."""
    outer = INTERIOR_HALF_M + THICKNESS_M
    inner = INTERIOR_HALF_M
    top = WALL_HEIGHT_M
    return [box_corners(lo, hi) for lo, hi in [
        ((-outer, -outer, -THICKNESS_M), (outer, outer, 0.0)),  # floor
        ((-outer, -outer, 0.0), (-inner, outer, top)),  # wall -x (full depth)
        ((inner, -outer, 0.0), (outer, outer, top)),  # wall +x
        ((-inner, -outer, 0.0), (inner, -inner, top)),  # wall -y (between the x walls)
        ((-inner, inner, 0.0), (inner, outer, top)),  # wall +y
    ]]


def random_orientation(rng):
    """A uniformly random unit quaternion (w, x, y, z) (Shoemake 1992)."""
    u1, u2, u3 = rng.random(), rng.random(), rng.random()
    a, b = math.sqrt(1.0 - u1), math.sqrt(u1)
    return (a * math.sin(2 * math.pi * u2), a * math.cos(2 * math.pi * u2),
            b * math.sin(2 * math.pi * u3), b * math.cos(2 * math.pi * u3))


def add_part(session, seed, position_m, orientation):
    """A random hull of 0.1 kg: its volume from a probe of density 1 kg/m^3 (mass = volume),
    removed, then the part itself at the density that gives 0.1 kg."""
    hull = dict(points=10, min_radius_m=0.035, max_radius_m=0.05, seed=seed)
    probe = session.add_random_hull(**hull, density_kg_per_m3=1.0, position_m=(0.0, 0.0, 50.0),
                                    collision_disabled=True)
    session.remove_body(probe.body_id)
    return session.add_random_hull(**hull, density_kg_per_m3=BODY_MASS_KG / probe.mass_kg,
                                   position_m=position_m, orientation=orientation,
                                   name=f"part {seed}")


def inside(position):
    return (abs(position.x) < INTERIOR_HALF_M and abs(position.y) < INTERIOR_HALF_M and
            -THICKNESS_M < position.z < WALL_HEIGHT_M)


def pour(client, args):
    dt_s = args.dt_ms * 1e-3
    session = client.create_session(
        "pour", pipeline="rigid_lcp", dt_s=dt_s,
        rigid_lcp={"contact_model": args.model, "friction_coefficient": 1.0})
    with session:
        session.add_convex_hulls(container_pieces(), kind="static", name="container")
        rng = random.Random(args.seed)
        total_steps = math.floor(args.duration_s / dt_s)
        release_steps = [round(i * args.duration_s / args.bodies / dt_s)
                         for i in range(args.bodies)]
        paths = collections.Counter()
        largest_lcp = 0
        last = None
        wall_start = time.monotonic()
        stepping_s = 0.0
        for i in range(args.bodies):
            cell = i % 9
            x = (cell % 3 - 1) * CELL_SPACING_M + rng.uniform(-JITTER_M, JITTER_M)
            y = (cell // 3 - 1) * CELL_SPACING_M + rng.uniform(-JITTER_M, JITTER_M)
            add_part(session, args.seed + i, (x, y, RELEASE_HEIGHT_M), random_orientation(rng))
            end = release_steps[i + 1] if i + 1 < args.bodies else total_steps
            steps = end - (last.step_count if last else 0)
            if steps <= 0:
                continue
            started = time.monotonic()
            last = session.step(steps)
            stepping_s += time.monotonic() - started
            for d in last.response.diagnostics:
                largest_lcp = max(largest_lcp, d.rigid_lcp.lcp_size)
                if d.rigid_lcp.solver_path:
                    paths[d.rigid_lcp.solver_path] += 1
            print(f"t={last.time_s:6.3f} s bodies={i + 1:4d} "
                  f"largest_lcp={largest_lcp:5d} steps_per_s={last.step_count / stepping_s:8.1f}",
                  flush=True)
        bodies = [b for b in last.bodies.values() if b.kind == "RIGID"]
        escaped = sum(not inside(b.position_m) for b in bodies)
        lowest_z = min(b.position_m.z for b in bodies)
        path_list = ",".join(f"{p}:{n}" for p, n in sorted(paths.items()))
        print(f"summary: model={args.model} bodies={len(bodies)} dt_ms={args.dt_ms:g} "
              f"steps={last.step_count} escaped={escaped} lowest_centre_z_m={lowest_z:.4f} "
              f"largest_lcp={largest_lcp} solver_paths={path_list or 'none'} "
              f"steps_per_s={last.step_count / stepping_s:.1f} "
              f"wall_s={time.monotonic() - wall_start:.1f}")
        return escaped


def main(argv=None):
    args = parse_args(argv)
    try:
        with contactsim.Client(args.address, timeout_s=args.timeout_s) as client:
            escaped = pour(client, args)
    except contactsim.ContactSimError as error:
        print(f"pour: {error} (server {args.address})", file=sys.stderr)
        return 3
    return 0 if escaped == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
