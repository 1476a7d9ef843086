#!/usr/bin/env python3
"""Writes the nginx configuration of the ContactSim gateway: one address in front of N replicas of
contactsim-server, each started with --replica-ordinal K (docs/deploy.md, "Several boxes").

Routing (deterministic, nothing moves when replicas are added):
  - every call about a session carries its id as `x-contactsim-session` metadata (the C++ and
    Python clients add it); a replica's ids begin "r<K>-", and a `map` sends "r<K>-..." to replica
    K's own upstream. Adding replica N adds one line and moves no existing session.
  - calls without the header (CreateSession, ListSessions, Ping, health) go to an upstream of all
    replicas balanced by `least_conn`: the replica with the fewest calls and streams in flight
    through this gateway (open StateStreams and running Steps count), which is nginx's nearest
    measure of load without a module of our own.
  - a replica that cannot be reached answers the call UNAVAILABLE, naming the session, instead
    of an HTTP 502 (error_page); the other replicas' sessions are not affected.
  - with --viewer-listen, a second server block for the browser viewer (HTTP/1.1 + WebSocket):
    the page opens /ws?session=ID, and a `map` of the query's session id sends "r<K>-..." to
    replica K's viewer port (the Upgrade and Connection headers passed on, an hour's read
    timeout); the page's files and /api/sessions come from any replica (every replica serves
    the same page; its list shows that replica's sessions only).

Addresses whose IP changes (Kubernetes pods: a restarted pod keeps its name, not its IP): with
--resolver, each session's replica is reached through a variable re-resolved every 5 s, and
requests without a session header go to --any-address (the headless Service's name, which
resolves to the ready replicas), spread round-robin over its addresses: open-source nginx before
1.27.3 cannot re-resolve the servers of an upstream, so least_conn needs fixed addresses.

Usage:
  make_nginx_conf.py --replicas 3 --replica-address 'contactsim-{k}.contactsim:50051' \
      --listen 0.0.0.0:50051 > nginx.conf
  make_nginx_conf.py --replica-addresses 127.0.0.1:7001,127.0.0.1:7002 --listen 127.0.0.1:7000 \
      --replica-viewer-addresses 127.0.0.1:8001,127.0.0.1:8002 --viewer-listen 127.0.0.1:8000
Paths in the output (pid, logs, temp files) are relative to nginx's prefix (`nginx -p DIR`), so an
unprivileged nginx runs it from any directory: `nginx -p DIR -c DIR/nginx.conf`.
"""

import argparse
import re
import sys

SESSION_HEADER_VARIABLE = "$http_x_contactsim_session"  # x-contactsim-session, as nginx names it
SERVICE = "contactsim.v1.Simulation"


def replica_addresses(args):
    if args.replica_addresses:
        addresses = [a.strip() for a in args.replica_addresses.split(",") if a.strip()]
        if args.replicas is not None and args.replicas != len(addresses):
            raise SystemExit(f"--replicas {args.replicas} but {len(addresses)} addresses given")
        return addresses
    if args.replicas is None or args.replica_address is None:
        raise SystemExit("give --replicas N with --replica-address PATTERN, or --replica-addresses")
    if args.replicas < 1:
        raise SystemExit("--replicas: must be >= 1")
    if "{k}" not in args.replica_address:
        raise SystemExit("--replica-address: must contain {k}, the replica ordinal")
    return [args.replica_address.replace("{k}", str(k)) for k in range(args.replicas)]


def viewer_addresses(args, replicas):
    """Replica K's viewer host:port, or None without --viewer-listen."""
    if not args.viewer_listen:
        if args.replica_viewer_addresses or args.replica_viewer_address:
            raise SystemExit("the replicas' viewer addresses need --viewer-listen")
        return None
    if args.replica_viewer_addresses:
        addresses = [a.strip() for a in args.replica_viewer_addresses.split(",") if a.strip()]
        if len(addresses) != replicas:
            raise SystemExit(f"{replicas} replicas but {len(addresses)} viewer addresses given")
        return addresses
    if not args.replica_viewer_address or "{k}" not in args.replica_viewer_address:
        raise SystemExit("--viewer-listen needs --replica-viewer-addresses, or "
                         "--replica-viewer-address with {k}, the replica ordinal")
    return [args.replica_viewer_address.replace("{k}", str(k)) for k in range(replicas)]


def render_viewer(viewer_listen, addresses, tls_cert, tls_key, resolver, any_address):
    """The browser viewer's maps, upstreams and server block (http context lines)."""
    lines = [
        "",
        "  # The browser viewer: /ws?session=rK-... goes to replica K's viewer; the page's",
        "  # files from any replica.",
        "  map $arg_session $contactsim_viewer_upstream {",
        f"    default {any_address if resolver else 'contactsim_viewer_any'};",
    ]
    if resolver:
        lines += [f"    ~^r{k}- {address};" for k, address in enumerate(addresses)]
        lines += ["  }", f"  map $host $contactsim_viewer_any {{ default {any_address}; }}"]
    else:
        lines += [f"    ~^r{k}- contactsim_viewer_r{k};" for k in range(len(addresses))]
        lines.append("  }")
    lines += [
        "  # A WebSocket's Upgrade handshake is passed on; anything else closes after its answer.",
        "  map $http_upgrade $contactsim_viewer_connection {",
        "    default upgrade;",
        "    '' close;",
        "  }",
    ]
    if not resolver:
        # The viewer closes every HTTP connection after its answer (no keepalive to pool).
        for k, address in enumerate(addresses):
            lines += [f"  upstream contactsim_viewer_r{k} {{", f"    server {address} max_fails=0;",
                      "  }"]
        lines.append("  upstream contactsim_viewer_any {")
        lines += [f"    server {address} max_fails=1 fail_timeout=5s;" for address in addresses]
        lines.append("  }")
    any_upstream = "$contactsim_viewer_any" if resolver else "contactsim_viewer_any"
    proxy = [
        "      proxy_http_version 1.1;",
        "      proxy_set_header Host $host;",
        "      proxy_set_header Upgrade $http_upgrade;",
        "      proxy_set_header Connection $contactsim_viewer_connection;",
        "      proxy_buffering off;",
    ]
    lines += ["  server {",
              f"    listen {viewer_listen} ssl;" if tls_cert else f"    listen {viewer_listen};"]
    if tls_cert:  # the page then opens wss: on the same host and port
        lines += [f"    ssl_certificate {tls_cert};", f"    ssl_certificate_key {tls_key};",
                  "    ssl_protocols TLSv1.2 TLSv1.3;"]
    lines += [
        "    # One viewer's socket, by its session id. A viewer of an idle session receives",
        "    # nothing for a while; the page pings every 10 s.",
        "    location = /ws {",
        "      proxy_pass http://$contactsim_viewer_upstream;",
        *proxy,
        "      proxy_read_timeout 1h;",
        "      proxy_send_timeout 1h;",
        "      error_page 502 503 504 = @viewer_replica_unavailable;",
        "    }",
        "    location / {",
        f"      proxy_pass http://{any_upstream};",
        *proxy,
        "    }",
        "    location @viewer_replica_unavailable {",
        "      default_type text/plain;",
        "      add_header X-Content-Type-Options nosniff always;",
        "      return 503 \"session '$arg_session': its replica is unavailable (the gateway could "
        "not reach its viewer); the page retries\\n\";",
        "    }",
        "  }",
    ]
    return lines


def render(addresses, listen, error_log, worker_processes, tls_cert, tls_key, resolver=None,
           any_address=None, viewer_listen=None, viewers=None, any_viewer_address=None):
    if resolver and not any_address:
        raise SystemExit("--resolver needs --any-address (e.g. the headless Service's name)")
    if resolver and viewer_listen and not any_viewer_address:
        raise SystemExit("--resolver with --viewer-listen needs --any-viewer-address")
    for address in (addresses + ([any_address] if any_address else []) + (viewers or []) +
                    ([any_viewer_address] if any_viewer_address else [])):
        if not re.fullmatch(r"[A-Za-z0-9_.\-\[\]:]+:\d+", address):
            raise SystemExit(f"replica address {address!r}: expected host:port")
    tls = bool(tls_cert)
    lines = [
        "# Generated by deploy/gateway/make_nginx_conf.py for "
        f"{len(addresses)} replicas; do not edit, regenerate.",
        f"worker_processes {worker_processes};",
        "pid nginx.pid;",
        f"error_log {error_log} warn;",
        "events { worker_connections 4096; }",
        "http {",
        "  access_log off;",
        # Relative to the prefix: an unprivileged nginx cannot write the packaged defaults.
        "  client_body_temp_path tmp/client_body;",
        "  proxy_temp_path tmp/proxy;",
        "  fastcgi_temp_path tmp/fastcgi;",
        "  uwsgi_temp_path tmp/uwsgi;",
        "  scgi_temp_path tmp/scgi;",
        "  # The servers enforce their own message limit (--max-message-mib).",
        "  client_max_body_size 0;",
        "  # StreamState lives as long as a viewer watches; an idle session sends nothing.",
        "  grpc_read_timeout 1h;",
        "  grpc_send_timeout 1h;",
        "  client_body_timeout 1h;",
        "",
    ]
    if resolver:
        lines += [
            "  # Pod addresses change on restart: names re-resolved every 5 s.",
            f"  resolver {resolver} valid=5s ipv6=off;",
            "  resolver_timeout 2s;",
            "  # The session id's replica ordinal picks the replica; no header: any ready one.",
            f"  map {SESSION_HEADER_VARIABLE} $contactsim_upstream {{",
            f"    default {any_address};",
        ]
        lines += [f"    ~^r{k}- {address};" for k, address in enumerate(addresses)]
        lines.append("  }")
    else:
        lines += [
            "  # The session id's replica ordinal picks the upstream; no header: the least-loaded.",
            f"  map {SESSION_HEADER_VARIABLE} $contactsim_upstream {{",
            "    default contactsim_any;",
        ]
        lines += [f"    ~^r{k}- contactsim_r{k};" for k in range(len(addresses))]
        lines.append("  }")
    for k, address in enumerate([] if resolver else addresses):
        # max_fails=0: a session's only replica is never taken out of its own upstream, so
        # the call after its restart reaches it again.
        lines += [f"  upstream contactsim_r{k} {{", f"    server {address} max_fails=0;",
                  "    keepalive 16;", "  }"]
    if not resolver:
        lines += ["  upstream contactsim_any {", "    least_conn;"]
        lines += [f"    server {address} max_fails=1 fail_timeout=5s;" for address in addresses]
        lines += ["    keepalive 16;", "  }"]
    lines.append("")
    listen_line = f"    listen {listen} ssl http2;" if tls else f"    listen {listen} http2;"
    lines += ["  server {", listen_line]
    if tls:
        lines += [f"    ssl_certificate {tls_cert};", f"    ssl_certificate_key {tls_key};",
                  "    ssl_protocols TLSv1.2 TLSv1.3;"]
    lines += [
        f"    location /{SERVICE}/ {{",
        "      grpc_pass grpc://$contactsim_upstream;",
        "      error_page 502 503 504 = @replica_unavailable;",
        "    }",
        "    # Health, reflection and anything else: any replica.",
        "    location / {",
        f"      grpc_pass grpc://{'$contactsim_any' if resolver else 'contactsim_any'};",
        "      error_page 502 503 504 = @replica_unavailable;",
        "    }",
        "    # A gRPC status instead of HTTP 502 (a trailers-only response): UNAVAILABLE naming",
        "    # the session whose replica is down (the header is the client's own id).",
        "    location @replica_unavailable {",
        "      default_type application/grpc;",
        "      add_header grpc-status 14 always;",
        "      add_header grpc-message \"session '$http_x_contactsim_session': its replica "
        "is unavailable (the gateway could not reach it); retry later, or restore a snapshot "
        "in a new session\" always;",
        "      return 204;",
        "    }",
        "  }",
    ]
    if viewer_listen:
        lines += render_viewer(viewer_listen, viewers, tls_cert, tls_key, resolver,
                               any_viewer_address)
    lines.append("}")
    if resolver:
        # The catch-all location needs a variable too, to be re-resolved.
        lines.insert(lines.index("  }", lines.index(f"    default {any_address};")) + 1,
                     f"  map $host $contactsim_any {{ default {any_address}; }}")
    return "\n".join(lines) + "\n"


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--replicas", type=int, help="replica count N (ordinals 0..N-1)")
    parser.add_argument("--replica-address",
                        help="host:port of replica {k}, e.g. contactsim-{k}.contactsim:50051")
    parser.add_argument("--replica-addresses",
                        help="comma-separated host:port of replicas 0, 1, ... in order")
    parser.add_argument("--listen", default="127.0.0.1:50051", help="the gateway's host:port")
    parser.add_argument("--error-log", default="logs/error.log",
                        help="nginx error_log target (/dev/stderr in a container)")
    parser.add_argument("--worker-processes", default="1")
    parser.add_argument("--tls-cert", help="PEM certificate: the gateway terminates TLS")
    parser.add_argument("--tls-key", help="PEM key of --tls-cert")
    parser.add_argument("--resolver",
                        help="DNS server(s) for replica names whose addresses change (Kubernetes)")
    parser.add_argument("--any-address",
                        help="with --resolver: host:port resolving to every ready replica")
    parser.add_argument("--viewer-listen",
                        help="the gateway's browser viewer host:port (HTTP and WebSocket; off "
                             "unless given)")
    parser.add_argument("--replica-viewer-address",
                        help="host:port of replica {k}'s viewer (--viewer-listen of the replica)")
    parser.add_argument("--replica-viewer-addresses",
                        help="comma-separated viewer host:port of replicas 0, 1, ... in order")
    parser.add_argument("--any-viewer-address",
                        help="with --resolver: viewer host:port resolving to every ready replica")
    parser.add_argument("--output", "-o", help="file to write (default: stdout)")
    args = parser.parse_args(argv)
    if bool(args.tls_cert) != bool(args.tls_key):
        raise SystemExit("--tls-cert and --tls-key go together")
    addresses = replica_addresses(args)
    text = render(addresses, args.listen, args.error_log, args.worker_processes,
                  args.tls_cert, args.tls_key, args.resolver, args.any_address,
                  args.viewer_listen, viewer_addresses(args, len(addresses)),
                  args.any_viewer_address)
    if args.output:
        with open(args.output, "w", encoding="utf-8") as out:
            out.write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main(sys.argv[1:])
