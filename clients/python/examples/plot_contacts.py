#!/usr/bin/env python3
"""Viewer: watches a session's StreamState and records its contact forces over time.

Every frame carries the contact report of the step it ends (one step of dt_s), so a pair's
impulse J divided by dt_s is its force. Per frame the CSV holds the simulated time, the frame's
seq, step count and coalesced count, the number of contact pairs, and the summed magnitudes of
the pairs' normal, friction and total contact forces [N]. With matplotlib (Debian's
python3-matplotlib) it also draws them over time into a PNG (Agg backend, no display needed);
without it the CSV is written anyway and the program says how to get the plot.

    python3 plot_contacts.py SESSION --token VIEWER_TOKEN --server 127.0.0.1:50051
    python3 plot_contacts.py --demo --server 127.0.0.1:50051   # runs pd_push's controller too

The watch ends when the session closes, after --frames frames, or at --until-time-s simulated
time. Exit codes: 0 ok, 1 no frame recorded, 2 usage error, 3 the server refused or could not
be reached (the gRPC code and message are printed).
"""

import argparse
import csv
import sys
import threading

try:
    import contactsim
except ImportError as error:
    sys.exit(f"plot_contacts: {error}")

CSV_COLUMNS = ["time_s", "seq", "step_count", "coalesced", "contact_pairs", "normal_force_n",
               "friction_force_n", "contact_force_n"]


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("session", nargs="?", help="session id to watch (not with --demo)")
    parser.add_argument("--token", help="viewer (or controller) token of the session")
    parser.add_argument("--demo", action="store_true",
                        help="create a session and push a box in it (pd_push.py) while watching")
    parser.add_argument("--server", default="127.0.0.1:50051",
                        help="host:port of contactsim-server")
    parser.add_argument("--timeout-s", type=float, default=30.0, help="deadline per unary call [s]")
    parser.add_argument("--csv", default="contact_forces.csv", help="CSV file to write")
    parser.add_argument("--png", default="contact_forces.png", help="plot to write (matplotlib)")
    parser.add_argument("--frames", type=int, default=0, help="stop after N frames (0: no limit)")
    parser.add_argument("--until-time-s", type=float, default=0.0,
                        help="stop at this simulated time [s] (0: no limit)")
    parser.add_argument("--max-rate-hz", type=float, default=0.0,
                        help="frames per second asked of the server (0: as fast as read)")
    args = parser.parse_args(argv)
    if args.demo == bool(args.session):
        parser.error("give either SESSION with --token, or --demo")
    if args.session and not args.token:
        parser.error("SESSION needs --token (the viewer token printed by CreateSession)")
    return args


def frame_row(frame, dt_s):
    """One CSV row: the frame's contact forces [N] = impulses of its step / dt_s."""
    normal = sum(c.normal_impulse_ns.norm() for c in frame.contacts) / dt_s
    friction = sum(c.friction_impulse_ns.norm() for c in frame.contacts) / dt_s
    total = sum((c.normal_impulse_ns + c.friction_impulse_ns).norm() for c in frame.contacts) / dt_s
    return {"time_s": frame.time_s, "seq": frame.seq, "step_count": frame.step_count,
            "coalesced": frame.coalesced, "contact_pairs": len(frame.contacts),
            "normal_force_n": normal, "friction_force_n": friction, "contact_force_n": total}


def watch(stream, dt_s, args, on_first_frame=None):
    """Reads frames until the stream ends or a limit is hit; returns the rows."""
    rows = []
    for frame in stream:
        if not rows and on_first_frame is not None:
            on_first_frame()
        rows.append(frame_row(frame, dt_s))
        if args.frames and len(rows) >= args.frames:
            break
        if args.until_time_s and frame.time_s >= args.until_time_s:
            break
    stream.cancel()
    return rows


def write_csv(path, rows):
    with open(path, "w", newline="") as file:
        writer = csv.DictWriter(file, fieldnames=CSV_COLUMNS)
        writer.writeheader()
        for row in rows:
            writer.writerow({key: (f"{value:.9g}" if isinstance(value, float) else value)
                             for key, value in row.items()})


def write_png(path, rows, title):
    """Plots the forces over time; returns False (and says how to get the plot) without
    matplotlib."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("plot_contacts: matplotlib is not installed, so no plot was drawn (the CSV has the "
              "data): install Debian's python3-matplotlib (deploy/install-deps.sh) for the PNG",
              file=sys.stderr)
        return False
    times = [row["time_s"] for row in rows]
    figure, axes = plt.subplots(figsize=(8, 4.5))
    axes.plot(times, [row["contact_force_n"] for row in rows], label="total |f| [N]")
    axes.plot(times, [row["normal_force_n"] for row in rows], "--", label="normal [N]")
    axes.plot(times, [row["friction_force_n"] for row in rows], ":", label="friction [N]")
    axes.set_xlabel("simulated time [s]")
    axes.set_ylabel("contact force [N]")
    axes.set_title(title)
    axes.grid(True, alpha=0.3)
    axes.legend()
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)
    return True


def run_demo(client, args):
    """Creates pd_push's scene, watches it with the viewer token and pushes the box from a
    controller thread, which starts once the stream has delivered its first frame."""
    import pd_push  # alongside this file

    push_args = pd_push.parse_args([])
    controller, box = pd_push.create_scene(client, push_args, name="plot_contacts demo")
    viewer = client.session(controller.id, controller.viewer_token)
    dt_s = viewer.info().dt_s
    stream = viewer.stream(contacts=True, max_rate_hz=args.max_rate_hz)
    started = threading.Event()
    aborted = threading.Event()  # the viewer failed: do not push, just close
    failure = []

    def control():
        started.wait()
        try:
            if not aborted.is_set():
                pd_push.push(controller, box, push_args)
        except contactsim.ContactSimError as error:
            failure.append(error)
        finally:
            try:
                controller.close()  # ends the viewer's stream
            except contactsim.ContactSimError as error:
                failure.append(error)
                stream.cancel()

    thread = threading.Thread(target=control, name="pd_push controller")
    thread.start()
    try:
        rows = watch(stream, dt_s, args, on_first_frame=started.set)
    except BaseException:
        aborted.set()
        raise
    finally:
        started.set()
        thread.join()
    if failure:
        raise failure[0]
    return rows, f"contact forces, session {controller.id} (demo)", box.mass_kg


def main(argv=None):
    args = parse_args(argv)
    mass_kg = None
    try:
        with contactsim.Client(args.server, timeout_s=args.timeout_s) as client:
            if args.demo:
                rows, title, mass_kg = run_demo(client, args)
            else:
                viewer = client.session(args.session, args.token)
                dt_s = viewer.info().dt_s
                stream = viewer.stream(contacts=True, max_rate_hz=args.max_rate_hz)
                rows = watch(stream, dt_s, args, on_first_frame=lambda: print(
                    f"watching session {args.session}", flush=True))
                title = f"contact forces, session {args.session}"
    except contactsim.ContactSimError as error:
        print(f"plot_contacts: {error} (server {args.server})", file=sys.stderr)
        return 3
    write_csv(args.csv, rows)
    stepped = [row for row in rows if row["step_count"] > 0]
    mean_normal = (sum(row["normal_force_n"] for row in stepped) / len(stepped)) if stepped else 0.0
    plotted = write_png(args.png, rows, title) if rows else False
    weight = f" weight_n={mass_kg * 9.81:.4f}" if mass_kg else ""
    print(f"summary: frames={len(rows)} coalesced={sum(row['coalesced'] for row in rows)} "
          f"mean_normal_force_n={mean_normal:.4f}{weight} csv={args.csv} "
          f"png={args.png if plotted else '(none)'}")
    if not rows:
        print("plot_contacts: no frame was received", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
