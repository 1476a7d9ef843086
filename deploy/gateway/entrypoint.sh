#!/bin/sh
# The gateway container's entry point: writes nginx's configuration for the replica count in the
# environment (make_nginx_conf.py) and runs nginx in the foreground as the container's user.
#   CONTACTSIM_REPLICAS          replica count N (the StatefulSet's replicas)
#   CONTACTSIM_REPLICA_ADDRESS   host:port of replica {k}, e.g.
#                                contactsim-{k}.contactsim.NAMESPACE.svc.cluster.local:50051
#   CONTACTSIM_ANY_ADDRESS       host:port resolving to every ready replica (with a resolver)
#   CONTACTSIM_RESOLVER          DNS server for names whose addresses change; "auto": the first
#                                nameserver of /etc/resolv.conf; empty: names resolved once
#   CONTACTSIM_GATEWAY_LISTEN    the gateway's host:port (default 0.0.0.0:50051)
#   CONTACTSIM_REPLICA_VIEWER_ADDRESS  host:port of replica {k}'s browser viewer; given, the
#                                gateway also serves the viewer (HTTP + WebSocket, by session)
#   CONTACTSIM_ANY_VIEWER_ADDRESS  viewer host:port resolving to every ready replica (with a
#                                resolver)
#   CONTACTSIM_GATEWAY_VIEWER_LISTEN  the gateway's viewer host:port (default 0.0.0.0:8080)
set -eu
: "${CONTACTSIM_REPLICAS:?set CONTACTSIM_REPLICAS}"
: "${CONTACTSIM_REPLICA_ADDRESS:?set CONTACTSIM_REPLICA_ADDRESS}"
prefix=${CONTACTSIM_GATEWAY_PREFIX:-/tmp/contactsim-gateway}
resolver=${CONTACTSIM_RESOLVER:-}
if [ "$resolver" = auto ]; then
  resolver=$(awk '/^nameserver/ { print $2; exit }' /etc/resolv.conf)
fi
mkdir -p "$prefix/logs" "$prefix/tmp"
set -- --replicas "$CONTACTSIM_REPLICAS" --replica-address "$CONTACTSIM_REPLICA_ADDRESS" \
  --listen "${CONTACTSIM_GATEWAY_LISTEN:-0.0.0.0:50051}" --error-log /dev/stderr \
  --output "$prefix/nginx.conf"
if [ -n "$resolver" ]; then
  set -- "$@" --resolver "$resolver" --any-address "${CONTACTSIM_ANY_ADDRESS:?set CONTACTSIM_ANY_ADDRESS}"
fi
if [ -n "${CONTACTSIM_REPLICA_VIEWER_ADDRESS:-}" ]; then
  set -- "$@" --viewer-listen "${CONTACTSIM_GATEWAY_VIEWER_LISTEN:-0.0.0.0:8080}" \
    --replica-viewer-address "$CONTACTSIM_REPLICA_VIEWER_ADDRESS"
  if [ -n "$resolver" ]; then
    set -- "$@" --any-viewer-address \
      "${CONTACTSIM_ANY_VIEWER_ADDRESS:?set CONTACTSIM_ANY_VIEWER_ADDRESS}"
  fi
fi
python3 "$(dirname "$0")/make_nginx_conf.py" "$@"
exec nginx -e stderr -p "$prefix/" -c "$prefix/nginx.conf" -g 'daemon off;'
