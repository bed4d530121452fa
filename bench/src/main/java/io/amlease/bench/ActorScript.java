package io.amlease.bench;

import java.nio.file.Path;
import java.util.List;

/**
 * The COMMAND a torture holder runs while it leads: a wrapper script with grandchildren, as real
 * deployments start their work ({@code flink-daemon.sh}, a {@code spark-class} launcher, a shell
 * that backgrounds a helper). Every process of it records that it acts:
 * <ul>
 *   <li>{@code wrapper}: the {@code sh} that the holder started (its direct child), looping itself;</li>
 *   <li>{@code grandchild}: a second {@code sh} it runs in the background;</li>
 *   <li>{@code writer}: a JVM it runs in the background ({@link TortureWriter}), which also writes to
 *       the lane's data node every 50 ms: fenced by the epoch token amlease's {@code hold} gives it
 *       ({@code AMLEASE_EPOCH_TOKEN}), a plain {@code setData} under a latch, whose users have no
 *       token to give.</li>
 * </ul>
 * The shells stamp each loop with {@code /proc/uptime} (CLOCK_BOOTTIME in centiseconds, read by a
 * builtin, so a stamp costs no fork; see {@link UptimeClock}) into {@code ROLE.up}, the writer with
 * {@link System#nanoTime()}. Each writes its pid to {@code ROLE.pid}, so that the bench can end an
 * orphan. The term comes from {@code AMLEASE_EPOCH} (and its incarnation from
 * {@code AMLEASE_EPOCH_INCARNATION}) under {@code hold}, from {@code TORTURE_TERM} under a latch
 * holder, and goes to {@code term} before anything acts.
 *
 * <p>Arguments: {@code $0} the run's token (every process of the tree carries it in its command
 * line, which is how the bench finds whatever is left at the end), the directory for the records,
 * the {@code java} binary, the class path, and the lane's data node.
 */
final class ActorScript {
  static final String WRAPPER = "wrapper";
  static final String GRANDCHILD = "grandchild";
  static final String WRITER = "writer";

  /** Also the writers' period; {@code sleep 0.05} in the shells. */
  static final String SCRIPT = """
      dir=$1; java=$2; cp=$3; data=$4
      mkdir -p "$dir" || exit 1
      echo "${AMLEASE_EPOCH:-$TORTURE_TERM} ${AMLEASE_EPOCH_INCARNATION:-}" > "$dir/term"
      loop='echo $$ > "$1.pid"; exec 3>>"$1.up"
      while :; do read -r up rest < /proc/uptime; echo "$up" >&3; sleep 0.05; done'
      sh -c "$loop" "$0" "$dir/grandchild" &
      "$java" -Xmx48m -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -cp "$cp" \\
        io.amlease.bench.TortureWriter "$0" "$dir/writer" "$data" &
      echo $$ > "$dir/wrapper.pid"
      exec 3>>"$dir/wrapper.up"
      while :; do read -r up rest < /proc/uptime; echo "$up" >&3; sleep 0.05; done
      """;

  private ActorScript() {}

  /**
   * The command line: {@code env -u … sh -c SCRIPT TOKEN DIR JAVA CLASSPATH DATA}. The {@code env}
   * takes libfaketime out of the environment of a holder run under {@code faketime}
   * ({@link HolderClock}): the COMMAND's stamps must be on the real clock.
   */
  static List<String> command(String token, Path dir, String dataPath) {
    return List.of("env", "-u", "LD_PRELOAD", "-u", "FAKETIME", "-u", "FAKETIME_SHARED", "sh", "-c",
        SCRIPT, token, dir.toString(), ChildJvm.java(), System.getProperty("java.class.path"),
        dataPath);
  }
}
