package io.amlease.process;

import io.amlease.lease.Durations;
import io.amlease.lease.zk.TermSession;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The command run under the lease (by {@code hold} and by the ApplicationMaster), with
 * stdout/stderr passed through. The child is its own process group and session (through util-linux
 * {@code setsid}), and that whole group is what is signalled and waited for: a wrapper script's JVM
 * or a shell's background job is stopped with the script, not orphaned (G4). A {@link Reaper} outside
 * this JVM ends the group if this JVM dies first. A grandchild that calls {@code setsid} itself
 * leaves the group and is not tracked.
 */
public final class ChildProcess {
  private static final Logger LOG = LoggerFactory.getLogger(ChildProcess.class);
  /** For callers that do not say: the runners' default stop-timeout (DESIGN.md G2). */
  public static final Duration DEFAULT_STOP_TIMEOUT = Duration.ofSeconds(5);
  /** {@code setsid} has exec'd and called setsid() within milliseconds; this is for a loaded box. */
  private static final Duration SETSID_WITHIN = Duration.ofSeconds(10);
  /**
   * The gate before COMMAND: bash where there is one (every YARN node has it), because dash drops
   * environment variables whose names are not shell identifiers (spark.x=…, exported functions).
   */
  private static final String GATE_SHELL =
      Files.isExecutable(Path.of("/bin/bash")) ? "/bin/bash" : "/bin/sh";
  /** SIGKILL cannot be caught; members still listed after this are stuck in the kernel. */
  private static final Duration AFTER_KILL = Duration.ofSeconds(2);
  private static final long NOT_SENT = Long.MIN_VALUE;

  private final Process process;
  private final ProcessGroup group;
  private final Reaper reaper;
  private final Duration stopTimeout;
  private final CompletableFuture<Integer> exited;
  private final AtomicLong termSentAt = new AtomicLong(NOT_SENT);
  private volatile boolean killed;

  private ChildProcess(Process process, ProcessGroup group, Reaper reaper, Duration stopTimeout) {
    this.process = process;
    this.group = group;
    this.reaper = reaper;
    this.stopTimeout = stopTimeout;
    // Its own thread: ending what the child left behind may take the whole stop-timeout. Started
    // now, not when the child exits: by then a child that used up the process limit (threads
    // count) may leave no room for a new thread until its whole group is gone.
    java.util.concurrent.ThreadPoolExecutor afterExitThread =
        new java.util.concurrent.ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS,
            new java.util.concurrent.LinkedBlockingQueue<>(), r -> {
              Thread t = new Thread(r, "amlease-child-" + process.pid());
              t.setDaemon(true);
              return t;
            });
    afterExitThread.prestartAllCoreThreads();
    this.exited = process.onExit().thenApplyAsync(this::afterExit, afterExitThread);
    exited.whenComplete((status, failure) -> afterExitThread.shutdown());
  }

  /**
   * The term ended while COMMAND's gate was being set up: the gate was killed before it ran
   * anything (G4, a child is never started after its term ended).
   */
  public static final class NotReleased extends IOException {
    NotReleased(List<String> command) {
      super(command.get(0) + ": the term ended before it was released from its start gate; not "
          + "started");
    }
  }

  /** As {@link #start(List, Map, Duration)} with {@link #DEFAULT_STOP_TIMEOUT}. */
  public static ChildProcess start(List<String> command, Map<String, String> env)
      throws IOException {
    return start(command, env, DEFAULT_STOP_TIMEOUT);
  }

  /** As {@link #start(List, Map, Duration, Supplier)} for a child under no term (no deadline). */
  public static ChildProcess start(List<String> command, Map<String, String> env,
      Duration stopTimeout) throws IOException {
    return start(command, env, stopTimeout, null);
  }

  /**
   * Starts {@code command} as the leader of a new session and process group, guarded by a reaper
   * that stops the group (SIGTERM, then SIGKILL after {@code stopTimeout}) if this JVM dies first.
   * {@code term} is asked last, with the gate stopped and its reaper armed, right before the
   * reaper continues it: the time the term the child runs under has left, or empty when it is over,
   * so that a term that ended during the set-up (the reaper's start, the {@code /proc} polls) never
   * runs COMMAND (G4). The reaper is told that deadline, and ends the group when it passes unless
   * {@link #extend} moved it: a dead-man's switch for a runner that is paused or stuck. Null: no
   * term, no deadline.
   *
   * @throws NotReleased when {@code term} said the term is over: nothing ran
   * @throws IOException when the command is not an executable file (or not on PATH), or the group
   *     or its reaper cannot be set up; no process is left running then
   */
  public static ChildProcess start(List<String> command, Map<String, String> env,
      Duration stopTimeout, Supplier<Optional<Duration>> term) throws IOException {
    // setsid would report a missing command only as exit status 127, after the fact; callers
    // (hold's exit 127, the AM's failed start) need it as an error, as ProcessBuilder gives it.
    Map<String, String> childEnv = new HashMap<>(System.getenv());
    childEnv.putAll(env);
    requireExecutable(command.get(0), childEnv.get("PATH"));
    Reaper reaper;
    try {
      reaper = Reaper.start(stopTimeout, SETSID_WITHIN);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while starting the reaper of " + command);
    }
    // COMMAND starts as a gate shell that leads its own session and stops itself; its reaper,
    // once told the group, continues it, and only then does the gate exec COMMAND. A runner killed
    // before that leaves a stopped gate that never ran anything, which the reaper then ends (G4).
    List<String> argv = new ArrayList<>(List.of("setsid", "--", GATE_SHELL, "-c",
        "kill -s STOP $$ && exec \"$@\"", reaper.gateName()));
    argv.addAll(command);
    ProcessBuilder pb = new ProcessBuilder(argv).inheritIO();
    pb.environment().putAll(env);
    Process process;
    try {
      process = pb.start();
    } catch (IOException e) {
      reaper.disarm();
      throw new IOException(command.get(0) + ": cannot start it through setsid (util-linux), which "
          + "gives it its own process group: " + e.getMessage(), e);
    }
    ProcessGroup group = null;
    try {
      group = ProcessGroup.ledBy(process, SETSID_WITHIN);
      group.awaitStopped(process, SETSID_WITHIN);
      Optional<Duration> left = term == null ? Optional.empty() : term.get();
      if (term != null && left.isEmpty()) {
        throw new NotReleased(command);
      }
      reaper.watch(group, left);
      group.awaitContinued(process, SETSID_WITHIN);
      return new ChildProcess(process, group, reaper, stopTimeout);
    } catch (IOException | RuntimeException e) {
      // A child that cannot be stopped as a group, or would outlive us, must not run at all.
      killNow(process, group);
      reaper.disarm();
      throw e;
    } catch (InterruptedException e) {
      killNow(process, group);
      reaper.disarm();
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while starting " + command);
    }
  }

  /**
   * Hands the term's ZooKeeper session to the reaper: if this JVM dies, the reaper ends the
   * session once the child's group is gone, so a contender need not wait for it to expire.
   */
  public void handOverSession(TermSession session) {
    reaper.handOver(session);
  }

  /** The pid of the child's reaper (tests look at it). */
  long reaperPid() {
    return reaper.pid();
  }

  /** Closes the reaper's pipe as the kernel does when this JVM dies (tests of the reaper). */
  void reaperPipeClosedAsIfDead() throws IOException {
    reaper.closePipeAsIfDead();
  }

  /** The child's pid, which is also its process group and session id. */
  public long pid() {
    return process.pid();
  }

  /**
   * Completes with the child's exit status (128+N when killed by signal N) once the child has exited
   * <em>and</em> nothing is left in its process group: what it left behind is sent SIGTERM, then
   * SIGKILL after the stop-timeout given to {@link #start}. A runner that releases the lease on this
   * event must not leave a lease-less grandchild running.
   */
  public CompletableFuture<Integer> onExit() {
    return exited.copy();
  }

  /**
   * The term the child runs under now has {@code left} before its deadline: the reaper ends the
   * group when that passes, unless told again (see {@link #start(List, Map, Duration, Supplier)}).
   */
  public void extend(Duration left) {
    if (!exited.isDone()) {
      reaper.deadline(left);
    }
  }

  /**
   * Sends signal {@code name} (TERM, INT, …) to the child's whole process group. Without forking:
   * the reaper sends it with its builtin kill; should the reaper be gone, SIGTERM and SIGKILL go to
   * each member from here (a fork is what fails once the child has used up RLIMIT_NPROC).
   */
  public void signal(String name) {
    if (exited.isDone()) {
      // The group is empty, and its id is free to be reused by an unrelated session.
      return;
    }
    if ("TERM".equals(name)) {
      termSentAt.compareAndSet(NOT_SENT, System.nanoTime());
    } else if ("KILL".equals(name)) {
      killed = true;
    }
    boolean told = reaper.signal(name);
    if (!told || "KILL".equals(name)) {
      group.signal(name); // For KILL both: it must arrive.
    }
  }

  /**
   * Waits up to {@code stopTimeout} for the child's process group to be empty (after a signal was
   * sent), then SIGKILLs the group. Returns the child's exit status.
   */
  public int awaitOrKill(Duration stopTimeout) {
    try {
      return exited.get(stopTimeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      LOG.warn("COMMAND (process group {}) still running {} after the stop signal; sending SIGKILL "
          + "to the group", group, Durations.format(stopTimeout));
      signal("KILL");
      return afterKill();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      signal("KILL");
      return afterKill();
    } catch (ExecutionException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * The exit status once SIGKILL was sent, waiting a bounded time: a member stuck in the kernel
   * (uninterruptible sleep) must not hold the runner forever; the reaper stays armed for it.
   */
  private int afterKill() {
    try {
      return exited.get(AFTER_KILL.multipliedBy(2).toNanos(), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      LOG.warn("COMMAND (process group {}) still not gone {} after SIGKILL; leaving it to its "
          + "reaper", group, Durations.format(AFTER_KILL.multipliedBy(2)));
      return 128 + 9;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return 128 + 9;
    } catch (ExecutionException e) {
      throw new IllegalStateException(e);
    }
  }

  /** SIGTERM to the group, then SIGKILL after {@code stopTimeout}. Returns the exit status. */
  public int terminate(Duration stopTimeout) {
    signal("TERM");
    return awaitOrKill(stopTimeout);
  }

  private int afterExit(Process p) {
    int status = p.exitValue();
    try {
      if (group.alive()) {
        if (!killed) {
          if (termSentAt.get() == NOT_SENT) {
            LOG.info("COMMAND (pid {}) exited with status {} but left processes running in its "
                + "group; stopping them", p.pid(), status);
          }
          endLeftovers();
        } else if (!group.awaitGone(AFTER_KILL)) {
          LOG.warn("process group {} still has members {} after SIGKILL", group,
              Durations.format(AFTER_KILL));
        }
      }
      reaper.disarm();
    } catch (RuntimeException e) {
      // The runner must still hear that COMMAND exited; the armed reaper ends the group when the
      // runner does.
      LOG.warn("cannot check what COMMAND (pid {}) left in its process group: {}", p.pid(),
          e.toString());
    }
    return status;
  }

  /** SIGTERM (unless already sent), SIGKILL at the stop-timeout counted from that SIGTERM. */
  private void endLeftovers() {
    if (termSentAt.compareAndSet(NOT_SENT, System.nanoTime())) {
      group.signal("TERM");
    }
    long sent = termSentAt.get();
    Duration left = stopTimeout.minusNanos(System.nanoTime() - sent);
    if (group.awaitGone(left.isNegative() ? Duration.ZERO : left)) {
      return;
    }
    if (!killed) {
      LOG.warn("processes COMMAND (pid {}) left in its group still running {} after SIGTERM; "
          + "sending SIGKILL", process.pid(), Durations.format(stopTimeout));
      killed = true;
      group.signal("KILL");
    }
    if (!group.awaitGone(AFTER_KILL)) {
      LOG.warn("process group {} still has members {} after SIGKILL", group,
          Durations.format(AFTER_KILL));
    }
  }

  private static void killNow(Process process, ProcessGroup group) {
    if (group != null) {
      group.signal("KILL");
    }
    process.destroyForcibly();
  }

  /** The executable execvp(3) would run for {@code program}, or an IOException naming it. */
  private static void requireExecutable(String program, String path) throws IOException {
    if (program.contains("/")) {
      if (!isExecutableFile(Path.of(program))) {
        throw new IOException(program + ": no such executable file");
      }
      return;
    }
    // execvp's own default when PATH is unset.
    for (String dir : (path == null ? "/bin:/usr/bin" : path).split(":", -1)) {
      if (isExecutableFile(Path.of(dir.isEmpty() ? "." : dir, program))) {
        return;
      }
    }
    throw new IOException(program + ": not found on PATH");
  }

  private static boolean isExecutableFile(Path p) {
    return Files.isRegularFile(p) && Files.isExecutable(p);
  }
}
