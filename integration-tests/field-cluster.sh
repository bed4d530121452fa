#!/usr/bin/env bash
# bin/amlease field-cluster [--nodes N] [--node-expiry DURATION]: the field cluster started by hand,
# in a network namespace of its own (loopback only), taking faults as commands on standard input.
# Needs root (a Unix user per node, nftables in the namespace). Exit: 0 stopped, 2 bad flag or not
# root, 70 build failed, 1 the cluster could not start.
set -euo pipefail

home="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)"
java="${JAVA_HOME:+$JAVA_HOME/bin/}java"
java="$(command -v "$java")"
kit="$home/testkit/target"
jars="$home/integration-tests/target/field-classpath.txt"

help=no
for a in "$@"; do [[ "$a" == "--help" || "$a" == "-h" ]] && help=yes; done
if [[ "$help" == no && "$(id -u)" != 0 ]]; then
  echo "field-cluster: must run as root (it creates a Unix user per node and nftables rules in its own network namespace)" >&2
  exit 2
fi
if [[ ! -d "$kit/classes" || ! -f "$kit/runtime-classpath.txt" || ! -f "$jars" ]]; then
  echo "field-cluster: first use, building (mvn -B -q -DskipTests -DskipITs package); this takes a few minutes…" >&2
  (cd "$home" && mvn -B -q -DskipTests -DskipITs package -pl testkit,integration-tests -am) >&2 || {
    echo "field-cluster: build failed; run 'mvn -B -DskipTests -DskipITs package' in $home to see why" >&2
    exit 70
  }
fi
cp="$kit/classes:$(cat "$kit/runtime-classpath.txt")"
if [[ "$help" == yes ]]; then
  exec "$java" -cp "$cp" io.amlease.testkit.field.FieldClusterMain --help
fi
exec unshare --net -- /bin/sh -c 'ip link set lo up && exec "$@"' field-cluster \
  "$java" -cp "$cp" io.amlease.testkit.field.FieldClusterMain --jars "$jars" "$@"
