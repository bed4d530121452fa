package io.amlease.process;

import io.amlease.lease.zk.TermSession;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ends a child's process group when the runner dies, however it dies (SIGKILL from the OOM killer
 * or a NodeManager included): a tiny {@code sh} outside the runner whose stdin is a pipe only the
 * runner writes to. The kernel closes that pipe when the runner exits, so {@code read} returns
 * end-of-file, and the reaper sends SIGTERM to the group, then SIGKILL after the stop-timeout. A
 * runner that has already stopped the group writes {@code done} first, so the reaper leaves without
 * signalling a group id that may by then belong to someone else.
 *
 * <p>A runner that holds a lease also hands the reaper its term's ZooKeeper session
 * ({@link #handOver}). Once the group is confirmed empty after the runner died, the reaper ends
 * that session through {@link SessionCloser}: nothing acts under the term any more, so a contender
 * may acquire at once instead of after the session timeout. If the group does not empty (a process
 * stuck in the kernel), the session is left to expire.
 *
 * <p>It runs in its own session, so a terminal's Ctrl-C or a NodeManager's kill of the runner's
 * process group does not reach it (and it ignores those signals besides); its stdout and stderr are
 * {@code /dev/null}, so it never keeps the runner's output open after the runner exits.
 */
final class Reaper {
  private static final Logger LOG = LoggerFactory.getLogger(Reaper.class);
  /**
   * $1 = group id, $2 = stop-timeout in tenths of a second; java and the class path for
   * {@link SessionCloser} come in the environment, so that they do not swell the reaper's command
   * line in {@code ps}. After SIGKILL, the group gets 5 s to empty.
   */
  private static final String SCRIPT = """
      trap '' INT TERM HUP
      g=$1
      t=$2
      # A member that has not exited: zombies count for kill -0 until their new parent reaps them,
      # which is not always prompt (init in a container).
      alive() {
        for f in /proc/[0-9]*/stat; do
          { read -r line < "$f"; } 2>/dev/null || continue
          set -- ${line##*) }
          [ "$3" = "$g" ] && [ "$1" != Z ] && [ "$1" != X ] && return 0
        done
        return 1
      }
      session=
      while read -r word rest; do
        case $word in
          done) exit 0 ;;
          session) session=$rest ;;
        esac
      done
      if kill -s TERM -- "-$g" 2>/dev/null; then
        n=$t
        while [ "$n" -gt 0 ] && alive; do sleep 0.1; n=$((n - 1)); done
        kill -s KILL -- "-$g" 2>/dev/null
        n=100
        while [ "$n" -gt 0 ] && alive; do sleep 0.05; n=$((n - 1)); done
        alive && exit 0
      fi
      [ -n "$session" ] || exit 0
      printf '%s\\n' "$session" | "$AMLEASE_REAPER_JAVA" -Xshare:auto -XX:TieredStopAtLevel=1 \\
        -XX:+UseSerialGC -Xmx64m -cp "$AMLEASE_REAPER_CLASSPATH" io.amlease.process.SessionCloser
      exit 0
      """;

  private final ProcessGroup group;
  private final OutputStream pipe;
  private final AtomicBoolean armed = new AtomicBoolean(true);

  private Reaper(ProcessGroup group, Process process) {
    this.group = group;
    this.pipe = process.getOutputStream();
  }

  /**
   * Starts a reaper for {@code group}, armed until {@link #disarm()} or this JVM's end. Returns once
   * the reaper has its own session: until then a signal to this JVM's process group would reach it.
   */
  static Reaper guard(ProcessGroup group, Duration stopTimeout, Duration setsidWithin)
      throws IOException, InterruptedException {
    long tenths = (stopTimeout.toMillis() + 99) / 100;
    ProcessBuilder pb = new ProcessBuilder("setsid", "--", "sh", "-c", SCRIPT, "amlease-reaper",
        Long.toString(group.id()), Long.toString(tenths))
        .redirectInput(ProcessBuilder.Redirect.PIPE)
        .redirectOutput(ProcessBuilder.Redirect.DISCARD)
        .redirectError(ProcessBuilder.Redirect.DISCARD);
    pb.environment().put("AMLEASE_REAPER_JAVA",
        ProcessHandle.current().info().command().orElse("java"));
    pb.environment().put("AMLEASE_REAPER_CLASSPATH", System.getProperty("java.class.path"));
    Process p = pb.start();
    try {
      ProcessGroup.ledBy(p, setsidWithin);
    } catch (IOException | InterruptedException e) {
      p.destroyForcibly();
      throw e;
    }
    Reaper reaper = new Reaper(group, p);
    p.onExit().thenRun(() -> {
      if (reaper.armed.get()) {
        LOG.warn("the reaper of process group {} (pid {}) exited with status {}: COMMAND would now "
            + "outlive this process if it died", group, p.pid(), p.exitValue());
      }
    });
    return reaper;
  }

  /**
   * Hands over the term's ZooKeeper session, for the reaper to end once this runner has died and
   * the group is gone. Through the pipe: the password must not show on a command line.
   */
  void handOver(TermSession session) {
    synchronized (pipe) {
      if (!armed.get()) {
        return;
      }
      try {
        pipe.write(("session " + session.toLine() + "\n").getBytes(StandardCharsets.US_ASCII));
        pipe.flush();
      } catch (IOException e) {
        LOG.warn("cannot hand the ZooKeeper session to the reaper of process group {}: {}; if this "
            + "process dies, a contender waits for the session to expire", group, e.toString());
      }
    }
  }

  /** The group is gone: let the reaper leave without signalling. Idempotent. */
  void disarm() {
    synchronized (pipe) {
      if (!armed.compareAndSet(true, false)) {
        return;
      }
      tellDone();
    }
  }

  private void tellDone() {
    try (pipe) {
      pipe.write("done\n".getBytes(StandardCharsets.US_ASCII));
      pipe.flush();
    } catch (IOException e) {
      // Only if the reaper died already: nothing to tell it.
      LOG.debug("reaper of process group {} already gone: {}", group, e.toString());
    }
  }
}
