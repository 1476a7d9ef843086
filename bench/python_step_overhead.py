#!/usr/bin/env python3
"""The Python package's cost over the raw generated stub (issue 22): Session.step(1) against the
raw stub call SimulationStub.Step(StepRequest(n_steps=1)) on the same session, in the same
process, alternating call by call so both see the same scene as it evolves (tori falling onto the
cloth and then lying on it). Also Session.step(1) with every body's vertex positions read as
numpy arrays (result.bodies), and the same with the contacts read as arrays.

Starts its own contactsim-server (--server-binary) on a free port, or uses --server HOST:PORT.

  PYTHONPATH=build/clients/python /usr/bin/python3 bench/python_step_overhead.py \\
      --server-binary build/server/contactsim-server --scene scenes/tori_cloth.textproto

Prints the median (and p90) of each over --calls calls and the ratios of the medians.
"""

import argparse
import os
import re
import statistics
import subprocess
import sys
import time

import contactsim
from contactsim.v1 import simulation_pb2


def start_server(binary):
    process = subprocess.Popen([binary, "--listen", "127.0.0.1:0"], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
    for line in process.stdout:
        match = re.search(r"listening on (\S+:\d+) ", line)
        if match:
            return process, match.group(1)
    raise SystemExit("contactsim-server ended without reporting its port")


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--server", help="HOST:PORT of a running server")
    parser.add_argument("--server-binary", default="build/server/contactsim-server")
    parser.add_argument("--scene", default=os.path.join(os.path.dirname(__file__), "..",
                                                        "scenes", "tori_cloth.textproto"))
    parser.add_argument("--calls", type=int, default=200, help="calls of each kind")
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--advance-steps", type=int, default=400,
                        help="steps taken first (one call), so that the tori touch the cloth")
    args = parser.parse_args()

    process = None
    address = args.server
    if address is None:
        process, address = start_server(args.server_binary)
    try:
        with contactsim.Client(address, timeout_s=120) as client:
            with client.load_scene(args.scene) as scene:
                session = scene.session
                stub = client._stub
                metadata = (("authorization", f"Bearer {session.token}"),
                            (contactsim.client.SESSION_HEADER, session.id))
                request = simulation_pb2.StepRequest(session_id=session.id, n_steps=1)
                vertices = sum(body.num_vertices for body in scene.bodies)
                if args.advance_steps > 0:
                    session.step(args.advance_steps, parts=())

                def raw():
                    stub.Step(request, timeout=120, metadata=metadata)

                def package():
                    session.step(1)

                def package_vertices():
                    result = session.step(1)
                    for state in result.bodies.values():
                        state.vertex_positions_m.sum()

                def package_contacts():
                    result = session.step(1)
                    result.contact_arrays.normal_impulse_ns.sum()

                kinds = {"raw stub Step": raw, "Session.step(1)": package,
                         "Session.step(1) + vertex arrays": package_vertices,
                         "Session.step(1) + contact arrays": package_contacts}
                times = {name: [] for name in kinds}
                for _ in range(args.warmup):
                    for call in kinds.values():
                        call()
                contacts = []
                for _ in range(args.calls):
                    for name, call in kinds.items():
                        start = time.perf_counter()
                        call()
                        times[name].append(time.perf_counter() - start)
                    contacts.append(len(session.step(1, parts=("contact_pairs",))
                                        .response.contacts.contacts))
    finally:
        if process is not None:
            process.terminate()
            process.wait()

    print(f"scene {os.path.basename(args.scene)}: {len(scene.bodies)} bodies, {vertices} vertices, "
          f"contact pairs per step {min(contacts)}..{max(contacts)}; {args.calls} calls of each, "
          "interleaved")
    base = statistics.median(times["raw stub Step"])
    for name, values in times.items():
        median = statistics.median(values)
        print(f"{name:34s} median {median * 1e3:8.2f} ms  p90 {percentile(values, 0.9) * 1e3:8.2f} "
              f"ms  ratio {median / base:5.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
