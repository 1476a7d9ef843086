#!/usr/bin/env python3
"""Lockstep controller: pushes a box along x to a target with a PD law on the horizontal force.

Creates a session with a ground plane (Yamane-Nakamura friction) and a 1 kg box, then runs the
control loop: every control period it reads the box's state from the previous Step reply, sets
    F_x = clamp(kp (x_target - x) - kd v_x, -max_force, max_force)   [N]
and steps the server `control_period / dt` steps holding that force. Each reply's per-body
contact totals (impulses summed over the call) give the mean normal (support) and friction
forces; it prints them per control period and a summary at the end.

Static friction holds the box wherever the spring pull kp |e| is below mu_s m g, so the PD law
settles within |e| <= mu_s m g / kp of the target (the "dead band"); the run succeeds (exit 0)
when the box ends at rest within that band plus 2 mm.

Exit codes: 0 reached, 1 did not reach the target, 2 usage error, 3 the server refused or could
not be reached (the gRPC code and message are printed).

    python3 pd_push.py --server 127.0.0.1:50051 --target-x-m 0.3
"""

import argparse
import math
import sys

try:
    import contactsim
except ImportError as error:
    sys.exit(f"pd_push: {error}")

GRAVITY_M_PER_S2 = 9.81
BOX_HALF_M = 0.05  # a 0.1 m cube
BOX_DENSITY_KG_PER_M3 = 1000.0  # 1 kg
# The server flags a step as diverged when the kinetic energy exceeds this factor times the


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--server", default="127.0.0.1:50051",
                        help="host:port of contactsim-server")
    parser.add_argument("--timeout-s", type=float, default=30.0, help="deadline per call [s]")
    parser.add_argument("--target-x-m", type=float, default=0.3, help="where to push the box [m]")
    parser.add_argument("--kp", type=float, default=200.0, help="proportional gain [N/m]")
    parser.add_argument("--kd", type=float, default=None,
                        help="derivative gain [N*s/m]; default 2 sqrt(kp m), critical damping")
    parser.add_argument("--max-force-n", type=float, default=20.0, help="force limit [N]")
    parser.add_argument("--duration-s", type=float, default=3.0, help="simulated time [s]")
    parser.add_argument("--dt-s", type=float, default=0.001, help="simulation step [s]")
    parser.add_argument("--control-period-s", type=float, default=0.01,
                        help="time between control updates [s], a multiple of --dt-s")
    parser.add_argument("--mu-static", type=float, default=0.3)
    parser.add_argument("--mu-dynamic", type=float, default=0.25)
    parser.add_argument("--print-every", type=int, default=10,
                        help="print every N-th control period (0: summary only)")
    parser.add_argument("--keep-session", action="store_true",
                        help="leave the session open at the end (prints its id and tokens)")
    args = parser.parse_args(argv)
    if args.dt_s <= 0 or args.control_period_s < args.dt_s or args.duration_s <= 0:
        parser.error("need --dt-s > 0, --control-period-s >= --dt-s and --duration-s > 0")
    if args.kp <= 0:
        parser.error("--kp must be > 0")
    return args


def create_scene(client, args, name="pd_push"):
    """A session with the ground z = 0 and the box resting on it; returns (session, box)."""
    stiffness_n_per_m = 1e4
    friction = contactsim.Friction(model="yamane_nakamura", spring_n_per_m=2e4,
                                   damping_ns_per_m=100.0, mu_static=args.mu_static,
                                   mu_dynamic=args.mu_dynamic)
    session = client.create_session(name, ground_planes=[contactsim.ground_plane(0.0)],
                                    dt_s=args.dt_s, stiffness_n_per_m=stiffness_n_per_m,
                                    contact_model="cpf", friction=friction)
    # Start at the resting penetration: each of the 4 bottom corners carries m g / 4 = k d, so
    # the box does not bounce at the start.
    mass_kg = BOX_DENSITY_KG_PER_M3 * (2 * BOX_HALF_M) ** 3
    depth_m = mass_kg * GRAVITY_M_PER_S2 / (4 * stiffness_n_per_m)
    box = session.add_box(BOX_HALF_M, position_m=(0.0, 0.0, BOX_HALF_M - depth_m),
                          density_kg_per_m3=BOX_DENSITY_KG_PER_M3, name="box")
    return session, box


def push(session, box, args, on_period=None):
    """Runs the PD loop for args.duration_s; returns the summary as a dict. on_period(i, result,
    force_n) is called after each Step reply."""
    substeps = max(1, round(args.control_period_s / args.dt_s))
    period_s = substeps * args.dt_s
    periods = max(1, math.ceil(args.duration_s / period_s))
    mass_kg = box.mass_kg
    kd = args.kd if args.kd is not None else 2.0 * math.sqrt(args.kp * mass_kg)
    x_m, v_m_per_s = 0.0, 0.0
    normal_forces = []
    result = None
    for i in range(periods):
        error_m = args.target_x_m - x_m
        force_n = max(-args.max_force_n, min(args.max_force_n, args.kp * error_m - kd * v_m_per_s))
        result = session.step(substeps, forces={box.body_id: (force_n, 0.0, 0.0)})
        state = result.bodies[box.body_id]
        x_m, v_m_per_s = state.position_m.x, state.linear_velocity_m_per_s.x
        totals = result.totals.get(box.body_id)
        if totals is not None:
            normal_forces.append(totals.impulse_ns.z / period_s)
        if on_period is not None:
            on_period(i, result, force_n)
    dead_band_m = args.mu_static * mass_kg * GRAVITY_M_PER_S2 / args.kp
    tolerance_m = dead_band_m + 0.002
    second_half = normal_forces[len(normal_forces) // 2:]
    return {
        "final_x_m": x_m,
        "final_v_m_per_s": v_m_per_s,
        "error_m": args.target_x_m - x_m,
        "tolerance_m": tolerance_m,
        "mass_kg": mass_kg,
        "mean_normal_force_n": sum(second_half) / len(second_half) if second_half else 0.0,
        "time_s": result.time_s,
        "steps": result.step_count,
        "reached": abs(args.target_x_m - x_m) <= tolerance_m and abs(v_m_per_s) < 1e-3,
    }


def print_period(box, period_s, every):
    def on_period(i, result, force_n):
        if every <= 0 or i % every:
            return
        state = result.bodies[box.body_id]
        totals = result.totals.get(box.body_id)
        jz = totals.impulse_ns.z if totals else 0.0
        jx = totals.impulse_ns.x if totals else 0.0
        pairs = sum(1 for c in result.contacts if box.body_id in (c.body_a, c.body_b))
        pair_normal = sum(c.normal_impulse_ns.norm() for c in result.contacts
                          if box.body_id in (c.body_a, c.body_b))
        print(f"t={result.time_s:7.3f} s  x={state.position_m.x:+.4f} m  "
              f"v={state.linear_velocity_m_per_s.x:+.4f} m/s  F={force_n:+7.3f} N  "
              f"J_z={jz:.5f} N*s (N={jz / period_s:6.3f} N)  J_x={jx:+.5f} N*s "
              f"(friction {jx / period_s:+6.3f} N)  pairs={pairs} "
              f"(last step: {pair_normal:.6f} N*s normal)")
    return on_period


def main(argv=None):
    args = parse_args(argv)
    try:
        with contactsim.Client(args.server, timeout_s=args.timeout_s) as client:
            session, box = create_scene(client, args)
            substeps = max(1, round(args.control_period_s / args.dt_s))
            print(f"session {session.id}: box {box.body_id} ({box.mass_kg:.3f} kg), "
                  f"target x = {args.target_x_m:.3f} m, kp = {args.kp} N/m, "
                  f"{substeps} steps of {args.dt_s} s per control period")
            try:
                summary = push(session, box, args,
                               print_period(box, substeps * args.dt_s, args.print_every))
            finally:
                if args.keep_session:
                    print(f"session kept: {session.id} controller {session.token} "
                          f"viewer {session.viewer_token}")
                else:
                    session.close()
    except contactsim.ContactSimError as error:
        print(f"pd_push: {error} (server {args.server})", file=sys.stderr)
        return 3
    weight_n = summary["mass_kg"] * GRAVITY_M_PER_S2
    print(f"summary: final_x_m={summary['final_x_m']:.5f} target_x_m={args.target_x_m:.5f} "
          f"error_m={summary['error_m']:+.5f} tolerance_m={summary['tolerance_m']:.5f} "
          f"final_v_m_per_s={summary['final_v_m_per_s']:+.6f} "
          f"mean_normal_force_n={summary['mean_normal_force_n']:.4f} weight_n={weight_n:.4f} "
          f"time_s={summary['time_s']:.3f} steps={summary['steps']}")
    if not summary["reached"]:
        print("pd_push: the box did not come to rest within the tolerance of the target",
              file=sys.stderr)
        return 1
    print("reached")
    return 0


if __name__ == "__main__":
    sys.exit(main())
