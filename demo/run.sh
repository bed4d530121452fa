#!/usr/bin/env bash
# amlease demo: an embedded ZooKeeper + MiniYARNCluster, a sample application, a narrated blip and
# failover, a summary table. Builds the project first if needed. Flags: see `demo/run.sh --help`.
# Environment: JAVA_HOME (else java on PATH), AMLEASE_OPTS (extra JVM flags).
# The last run's log and container logs are kept in demo/target/last-run/.
set -euo pipefail

home="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)"
java="${JAVA_HOME:+$JAVA_HOME/bin/}java"

classes="$home/demo/target/classes"
deps="$home/demo/target/demo-classpath.txt"
am_jar="$(ls "$home"/am-launcher/target/amlease-am-launcher-*-am.jar 2>/dev/null | head -1 || true)"
if [[ ! -d "$classes" || ! -f "$deps" || -z "$am_jar" ]]; then
  echo "amlease demo: first use, building (mvn -B -q -DskipTests package -pl demo -am); this takes a minute…" >&2
  (cd "$home" && mvn -B -q -DskipTests package -pl demo -am) >&2 || {
    echo "amlease demo: build failed; run 'mvn -B -DskipTests package -pl demo -am' in $home to see why" >&2
    exit 70
  }
  am_jar="$(ls "$home"/am-launcher/target/amlease-am-launcher-*-am.jar | head -1)"
fi

log_dir="$home/demo/target/last-run"
case " $* " in
  *" --help "*|*" -h "*) ;;
  *) rm -rf "$log_dir" ;;
esac
mkdir -p "$log_dir"
# Not exec: the JVM's shutdown hook does the clean-up on Ctrl-C, and this shell should wait for it.
# shellcheck disable=SC2086
"$java" ${AMLEASE_OPTS:-} -Xmx1g -Dlog4j2.configurationFile=amlease-demo-log4j2.xml \
  -Damlease.am.jar="$am_jar" -Damlease.demo.log.dir="$log_dir" \
  -cp "$classes:$(cat "$deps")" io.amlease.demo.DemoMain "$@"
