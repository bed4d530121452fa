package io.amlease.process;

import io.amlease.lease.zk.TermSession;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ends a child's process group when the runner dies, however it dies (SIGKILL from the OOM killer
 * or a NodeManager included): a tiny {@code sh} outside the runner whose stdin is a pipe only the
 * runner writes to. The kernel closes that pipe when the runner exits, so {@code read} returns
 * end-of-file, and the reaper sends SIGTERM (and SIGCONT, for stopped members) to the group, then
 * SIGKILL after the stop-timeout. A runner that has already stopped the group writes {@code done}
 * first, so the reaper leaves without signalling a group id that may by then belong to someone else.
 *
 * <p>The reaper is started before COMMAND, and COMMAND runs only once the reaper has continued it:
 * COMMAND starts as a stopped gate shell carrying the reaper's token ({@link #gateName()}), the
 * runner tells the reaper its group ({@link #watch}), and the reaper, armed, sends it SIGCONT. A
 * runner that dies before it told the group leaves a stopped gate that never ran anything; the
 * reaper finds it by its token and kills it. So no COMMAND ever runs without a reaper (G4).
 *
 * <p>A runner that holds a lease also hands the reaper its term's ZooKeeper session
 * ({@link #handOver}). Once the group is confirmed empty after the runner died, the reaper ends
 * that session through {@link SessionCloser}: nothing acts under the term any more, so a contender
 * may acquire at once instead of after the session timeout. If the group does not empty (a process
 * stuck in the kernel), or {@code /proc} cannot be read, the session is left to expire. The closer
 * is started with the first session handed over and waits on a pipe from the
 * reaper (a FIFO under {@code $TMPDIR}, removed once both ends are open), warmed up by opening and
 * closing a session of its own on the ensemble: a JVM started only after
 * the crash would cost about a second. It is a JVM of about 65 MB resident, counted in a YARN
 * container's memory, for as long as the runner holds the lease.
 *
 * <p>It is also a dead-man's switch (G4): a runner that holds a lease tells it the term's deadline
 * ({@link #deadline}, time left from now, counted on the reaper's own CLOCK_BOOTTIME) before the
 * gate opens and with every extension. When the deadline passes without a newer one, the reaper
 * ends the group as if the runner had died: a runner that is paused (SIGSTOP, a long GC) or stuck
 * cannot stop its child, but its reaper, a separate process, can. It also delivers the runner's
 * signals to the group ({@link #signal}) with its shell's builtin {@code kill}: no process is forked
 * to signal, so a child that has used up {@code RLIMIT_NPROC} (or a pids cgroup) is stopped all the
 * same. bash, for {@code read -t}; where there is none, {@code sh} without the deadline.
 *
 * <p>It runs in its own session, so a terminal's Ctrl-C or a NodeManager's kill of the runner's
 * process group does not reach it (and it ignores those signals besides); its stdout and stderr are
 * {@code /dev/null}, so it never keeps the runner's output open after the runner exits.
 */
final class Reaper {
  private static final Logger LOG = LoggerFactory.getLogger(Reaper.class);
  /**
   * $1 = token, $2 = stop-timeout in tenths of a second; java and the class path for
   * {@link SessionCloser} come in the environment, so that they do not swell the reaper's command
   * line in {@code ps}. After SIGKILL, the group gets 5 s to empty.
   */
  private static final String SCRIPT = """
      trap '' INT TERM HUP PIPE
      tok=$1
      t=$2
      g=
      # Whether the group has a member that has not exited (zombies count for kill -0 until their
      # new parent reaps them, which is not always prompt). Without a readable /proc: yes, the
      # safe answer.
      alive() {
        seen=
        for f in /proc/[0-9]*/stat; do
          { read -r line < "$f"; } 2>/dev/null || continue
          seen=1
          set -- ${line##*) }
          [ "$3" = "$g" ] && [ "$1" != Z ] && [ "$1" != X ] && return 0
        done
        [ -z "$seen" ]
      }
      # The session closer, started when the first session is handed over and waiting on fd 4,
      # warmed up on the ensemble, so that ending the session costs no JVM start. It leaves,
      # closing nothing, when fd 4 closes without a session line: when this reaper exits.
      closer() {
        "$AMLEASE_REAPER_JAVA" -Xshare:auto -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xmx16m \\
          -Xss256k -XX:ReservedCodeCacheSize=8m \\
          -cp "$AMLEASE_REAPER_CLASSPATH" io.amlease.process.SessionCloser
      }
      waiting=
      prestart() {
        d=$(mktemp -d "${TMPDIR:-/tmp}/amlease-reaper.XXXXXX") || return 0
        if mkfifo -m 600 "$d/in"; then
          closer < "$d/in" &
          exec 4> "$d/in"
          waiting=1
          printf 'warm %s\\n' "${session%% *}" >&4
        fi
        rm -rf "$d"
      }
      session=
      # The deadline, in centiseconds of /proc/uptime (CLOCK_BOOTTIME: it counts a suspended
      # machine too, and no one can set it); empty while there is none.
      dl=
      now() { read -r up _ < /proc/uptime; up=${up%.*}${up#*.}; now=$((10#$up)); }
      while :; do
        if [ -n "$dl" ] && [ -n "$g" ] && [ -n "$BASH_VERSION" ]; then
          now
          left=$((dl - now))
          [ "$left" -gt 0 ] || break
          read -r -t "$((left / 100)).$((left % 100 / 10))$((left % 10))" word rest
          rc=$?
          [ "$rc" -gt 128 ] && continue
          [ "$rc" -eq 0 ] || break
        else
          read -r word rest || break
        fi
        case $word in
          done) exit 0 ;;
          group) g=$rest; kill -s CONT -- "-$g" ;;
          deadline) [ -n "$BASH_VERSION" ] && { now; dl=$((now + rest)); } ;;
          # The runner is stopping the group itself: give it the stop-timeout and a second.
          signal) [ -n "$g" ] && kill -s "$rest" -- "-$g" 2>/dev/null
            [ -n "$dl" ] && { now; dl=$((now + t * 10 + 100)); } ;;
          session) session=$rest; [ -n "$waiting" ] || prestart ;;
        esac
      done
      if [ -z "$g" ]; then
        # The runner died before it told us COMMAND's group: its gate, if started, is stopped and
        # never ran COMMAND. It carries our token: end it.
        for f in $(grep -l -a -F -e "amlease-command-$tok" /proc/[0-9]*/cmdline 2>/dev/null); do
          p=${f#/proc/}
          p=${p%/cmdline}
          [ "$p" != "$$" ] && kill -s KILL "$p" 2>/dev/null
        done
        exit 0
      fi
      if alive; then
        kill -s TERM -- "-$g" 2>/dev/null
        kill -s CONT -- "-$g" 2>/dev/null
        n=$t
        while [ "$n" -gt 0 ] && alive; do sleep 0.1; n=$((n - 1)); done
        kill -s KILL -- "-$g" 2>/dev/null
        n=100
        while [ "$n" -gt 0 ] && alive; do sleep 0.05; n=$((n - 1)); done
        alive && exit 0
      fi
      [ -n "$session" ] || exit 0
      # The waiting closer, or (if it could not start or has died) a new one.
      if [ -z "$waiting" ] || ! printf '%s\n' "$session" >&4 2>/dev/null; then
        printf '%s\n' "$session" | closer
      fi
      wait
      exit 0
      """;

  /** bash for {@code read -t} (the deadline); sh has no timed read. */
  private static final String SHELL =
      java.nio.file.Files.isExecutable(java.nio.file.Path.of("/bin/bash")) ? "/bin/bash" : "/bin/sh";

  /** How much later than the runner's deadline the reaper acts on it. */
  static final Duration BEHIND = Duration.ofMillis(250);

  private final String token;
  private final long pid;
  private final OutputStream pipe;
  private final AtomicBoolean armed = new AtomicBoolean(true);
  private volatile ProcessGroup group;

  private Reaper(String token, Process process) {
    this.token = token;
    this.pid = process.pid();
    this.pipe = process.getOutputStream();
  }

  /**
   * Starts a reaper, armed until {@link #disarm()} or this JVM's end, before the COMMAND it will
   * guard. Returns once the reaper has its own session: until then a signal to this JVM's process
   * group would reach it.
   */
  static Reaper start(Duration stopTimeout, Duration setsidWithin)
      throws IOException, InterruptedException {
    long tenths = (stopTimeout.toMillis() + 99) / 100;
    String token = Long.toHexString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE);
    ProcessBuilder pb = new ProcessBuilder("setsid", "--", SHELL, "-c", SCRIPT,
        "amlease-reaper", token, Long.toString(tenths))
        .redirectInput(ProcessBuilder.Redirect.PIPE)
        .redirectOutput(ProcessBuilder.Redirect.DISCARD)
        .redirectError(ProcessBuilder.Redirect.DISCARD);
    pb.environment().put("AMLEASE_REAPER_JAVA", ThisJvm.java());
    pb.environment().put("AMLEASE_REAPER_CLASSPATH", ThisJvm.absoluteClassPath());
    Process p = pb.start();
    try {
      ProcessGroup.ledBy(p, setsidWithin);
    } catch (IOException | InterruptedException e) {
      p.destroyForcibly();
      throw e;
    }
    if (!p.isAlive()) {
      throw new IOException("the reaper (pid " + p.pid() + ") exited at once with status "
          + p.exitValue());
    }
    Reaper reaper = new Reaper(token, p);
    p.onExit().thenRun(() -> {
      if (reaper.armed.get()) {
        LOG.warn("the reaper of process group {} (pid {}) exited with status {}: COMMAND would now "
            + "outlive this process if it died", reaper.group, p.pid(), p.exitValue());
      }
    });
    return reaper;
  }

  /** The reaper's own pid (tests look at it). */
  long pid() {
    return pid;
  }

  /** What COMMAND's stopped gate shell calls itself ($0), so that this reaper can find it. */
  String gateName() {
    return "amlease-command-" + token;
  }

  /**
   * Tells the reaper COMMAND's group, whose gate is stopped: the reaper, now armed for it, sends it
   * SIGCONT, and COMMAND runs.
   *
   * @throws IOException when the reaper cannot be told (it died): COMMAND must not run then
   */
  void watch(ProcessGroup g, java.util.Optional<Duration> deadline) throws IOException {
    synchronized (pipe) {
      group = g;
      String d = deadline.map(left -> "deadline " + centis(left) + "\n").orElse("");
      pipe.write((d + "group " + g.id() + "\n").getBytes(StandardCharsets.US_ASCII));
      pipe.flush();
    }
  }

  /**
   * Sets the deadline {@code left} from now: unless told a newer one by then, the reaper ends the
   * group when it passes. Returns false when the reaper cannot be told (it is gone).
   */
  boolean deadline(Duration left) {
    return tell("deadline " + centis(left));
  }

  /**
   * A deadline for the reaper: {@link #BEHIND} later than the runner's own, so that a runner that
   * is not paused stops the group itself (its watchdog fires at the deadline) and the two do not
   * race; G2's slack (at least 1 s) covers it.
   */
  private static long centis(Duration left) {
    return Math.max(0, left.plus(BEHIND).toMillis() / 10);
  }

  /**
   * Has the reaper send SIG{@code name} to the group, with its builtin kill (no fork here or
   * there). False when the reaper cannot be told; the caller signals itself then.
   */
  boolean signal(String name) {
    return tell("signal " + name);
  }

  private boolean tell(String line) {
    synchronized (pipe) {
      if (!armed.get() || group == null) {
        return false;
      }
      try {
        pipe.write((line + "\n").getBytes(StandardCharsets.US_ASCII));
        pipe.flush();
        return true;
      } catch (IOException e) {
        return false;
      }
    }
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

  /** Closes the pipe as the kernel does when this JVM dies (tests of the reaper itself). */
  void closePipeAsIfDead() throws IOException {
    synchronized (pipe) {
      armed.set(false);
      pipe.close();
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
