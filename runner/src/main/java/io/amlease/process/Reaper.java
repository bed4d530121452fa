package io.amlease.process;

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
 * <p>It runs in its own session, so a terminal's Ctrl-C or a NodeManager's kill of the runner's
 * process group does not reach it (and it ignores those signals besides); its stdout and stderr are
 * {@code /dev/null}, so it never keeps the runner's output open after the runner exits.
 */
final class Reaper {
  private static final Logger LOG = LoggerFactory.getLogger(Reaper.class);
  /** $1 = group id, $2 = stop-timeout in tenths of a second. */
  private static final String SCRIPT = """
      trap '' INT TERM HUP
      read -r word
      [ "$word" = done ] && exit 0
      kill -s TERM -- "-$1" 2>/dev/null || exit 0
      n=$2
      while [ "$n" -gt 0 ] && kill -s 0 -- "-$1" 2>/dev/null; do sleep 0.1; n=$((n - 1)); done
      kill -s KILL -- "-$1" 2>/dev/null
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
    Process p = new ProcessBuilder("setsid", "--", "sh", "-c", SCRIPT, "amlease-reaper",
        Long.toString(group.id()), Long.toString(tenths))
        .redirectInput(ProcessBuilder.Redirect.PIPE)
        .redirectOutput(ProcessBuilder.Redirect.DISCARD)
        .redirectError(ProcessBuilder.Redirect.DISCARD)
        .start();
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

  /** The group is gone: let the reaper leave without signalling. Idempotent. */
  void disarm() {
    if (!armed.compareAndSet(true, false)) {
      return;
    }
    try (pipe) {
      pipe.write("done\n".getBytes(StandardCharsets.US_ASCII));
      pipe.flush();
    } catch (IOException e) {
      // Only if the reaper died already: nothing to tell it.
      LOG.debug("reaper of process group {} already gone: {}", group, e.toString());
    }
  }
}
