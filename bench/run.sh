#!/usr/bin/env bash
# Runs the side-by-side lease benchmark (io.amlease.bench.BenchMain); builds the bench module first
# if needed. Flags: --quick, --torture DURATION [--trials N], --out DIR, --seed N, -T DURATION,
# --help (exit codes in --help).
# Environment: JAVA_HOME (else java on PATH), AMLEASE_OPTS (extra JVM flags),
#              AMLEASE_LOG_LEVEL (error by default; info shows every lease decision on stderr).
set -euo pipefail

home="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)"
java="${JAVA_HOME:+$JAVA_HOME/bin/}java"
classes="$home/bench/target/classes"
deps="$home/bench/target/runtime-classpath.txt"

if [[ ! -d "$classes" || ! -f "$deps" ]]; then
  echo "amlease bench: first use, building (mvn -B -q -DskipTests package -pl bench -am)…" >&2
  (cd "$home" && mvn -B -q -DskipTests package -pl bench -am) >&2 || {
    echo "amlease bench: build failed; run 'mvn -B -DskipTests package -pl bench -am' in $home" >&2
    exit 70
  }
fi

# shellcheck disable=SC2086
exec "$java" ${AMLEASE_OPTS:-} -cp "$classes:$(cat "$deps")" io.amlease.bench.BenchMain "$@"
