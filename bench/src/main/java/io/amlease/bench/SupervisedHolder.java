package io.amlease.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * One holder of a torture lane, as a supervisor (systemd, YARN's next attempt) keeps it: a process
 * that is started again whenever it exits — amlease's {@code hold} after each lost term (exit 75),
 * any holder after SIGKILL. Each process is one {@link Life} with its own directory
 * ({@link ActorLogs}). After a kill the holder stays down for the kill's down time; after any other
 * exit it is back after {@link #RESTART_DELAY}.
 */
final class SupervisedHolder implements AutoCloseable {
  static final Duration RESTART_DELAY = Duration.ofMillis(200);
  private static final long NONE = Long.MIN_VALUE;

  /** Starts one process of this holder, named {@code life}, recording into {@code dir}. */
  @FunctionalInterface
  interface Launcher {
    Process launch(String life, Path dir) throws IOException;
  }

  /** One process of the holder: when it started, and when it was killed or seen to exit. */
  static final class Life {
    final String name;
    final Path dir;
    final Process process;
    final long startNanos;
    /** Just before the process was launched: where a faked clock starts ({@link HolderClock}). */
    final long launchNanos;
    private final HolderClock clock;
    volatile long killedNanos = NONE;
    volatile long exitNanos = NONE;

    Life(String name, Path dir, Process process, long launchNanos, long startNanos,
        HolderClock clock) {
      this.name = name;
      this.dir = dir;
      this.process = process;
      this.launchNanos = launchNanos;
      this.startNanos = startNanos;
      this.clock = clock;
    }

    /** Its term edges, on the bench's clock even when its own clock was faked. */
    List<ActorLogs.Edge> edges() {
      List<ActorLogs.Edge> raw = ActorLogs.edges(dir);
      if (!clock.faked()) {
        return raw;
      }
      return raw.stream().map(e -> new ActorLogs.Edge(clock.toBench(launchNanos, e.nanos()),
          e.granted(), e.term(), e.incarnation())).toList();
    }

    /** Killed, or exited: when it stopped being able to act for itself; NONE while it runs. */
    long endNanos() {
      return killedNanos != NONE ? killedNanos : exitNanos;
    }

    boolean ended() {
      return endNanos() != NONE;
    }
  }

  /** A process (or process tree) stopped by {@link #suspend}, until {@link #resume()}. */
  final class Suspended {
    private final Life life;
    private final List<Long> tree;
    private final boolean wholeTree;
    private final long from;

    private Suspended(Life life, List<Long> tree, boolean wholeTree, long from) {
      this.life = life;
      this.tree = tree;
      this.wholeTree = wholeTree;
      this.from = from;
    }

    /** SIGCONT; the pause's inner bounds: after SIGSTOP was sent, before SIGCONT is. */
    History.Pause resume() throws IOException, InterruptedException {
      long to = System.nanoTime();
      try {
        // The runner and all it started, in one kill(1): as near to "at once" as a VM's resume.
        List<Long> all = new java.util.ArrayList<>(List.of(life.process.pid()));
        all.addAll(tree);
        if (!ProcessSignals.sendAll(all, "CONT") && life.process.isAlive() && tree.isEmpty()) {
          throw new IllegalStateException("kill -s CONT " + life.process.pid() + " failed");
        }
        // Otherwise: killed while stopped (a kill-holder fault), or a child that has exited.
      } finally {
        stopped = null;
      }
      return new History.Pause(life.name, from, to, wholeTree);
    }
  }

  private final String slot;
  private final Path laneDir;
  private final Launcher launcher;
  private final HolderClock clock;
  private final List<Life> lives = new CopyOnWriteArrayList<>();
  private final Thread supervisor;
  private volatile Life current;
  private volatile Suspended stopped;
  private volatile long downUntil = NONE;
  private volatile boolean closed;
  private volatile IOException failure;

  SupervisedHolder(String slot, Path laneDir, Launcher launcher, HolderClock clock) {
    this.slot = slot;
    this.laneDir = laneDir;
    this.launcher = launcher;
    this.clock = clock;
    this.supervisor = new Thread(this::supervise, "torture-supervisor-" + laneDir.getFileName()
        + "-" + slot);
    supervisor.setDaemon(true);
  }

  void start() {
    supervisor.start();
  }

  List<Life> lives() {
    return List.copyOf(lives);
  }

  /** Whether the running process holds a term now, by its own edges. */
  boolean acting() {
    Life l = current;
    if (l == null) {
      return false;
    }
    List<ActorLogs.Edge> edges = l.edges();
    return !edges.isEmpty() && edges.get(edges.size() - 1).granted();
  }

  /** SIGSTOP to the running process alone; empty when there is none. */
  Optional<Suspended> suspend() throws IOException, InterruptedException {
    return suspend(false);
  }

  /**
   * SIGSTOP to the running process and, with {@code wholeTree}, to every process it started
   * (COMMAND's tree, its reaper) as a VM freeze would stop them; empty when there is none.
   */
  Optional<Suspended> suspend(boolean wholeTree) throws IOException, InterruptedException {
    Life l = current;
    if (l == null || !l.process.isAlive()) {
      return Optional.empty();
    }
    List<Long> tree = new java.util.ArrayList<>();
    // Set first: should the signal fail half-way, close() still continues the process.
    Suspended s = new Suspended(l, tree, wholeTree, 0);
    stopped = s;
    try {
      ProcessSignals.send(l.process.pid(), "STOP");
    } catch (IllegalStateException e) {
      stopped = null;
      if (l.process.isAlive()) {
        throw e;
      }
      // It exited (hold, at the end of its term) between the check and the signal.
      return Optional.empty();
    }
    if (wholeTree) {
      // The runner, stopped, starts nothing more; a second look catches what its children had
      // forked meanwhile (a shell's sleep, a JVM).
      for (int look = 0; look < 2; look++) {
        List<Long> more = l.process.descendants().map(ProcessHandle::pid)
            .filter(pid -> !tree.contains(pid)).toList();
        tree.addAll(more);
        ProcessSignals.sendAll(more, "STOP");
      }
    }
    Suspended done = new Suspended(l, List.copyOf(tree), wholeTree, System.nanoTime());
    stopped = done;
    return Optional.of(done);
  }

  /** SIGKILL to the running process; it is started again {@code downFor} later. */
  boolean kill(Duration downFor) {
    Life l = current;
    if (l == null || !l.process.isAlive()) {
      return false;
    }
    long now = System.nanoTime();
    downUntil = now + downFor.toNanos();
    l.killedNanos = now;
    l.process.destroyForcibly();
    return true;
  }

  /** An error that stopped the supervisor (a process that could not be started), if any. */
  Optional<IOException> failure() {
    return Optional.ofNullable(failure);
  }

  private void supervise() {
    int launch = 0;
    while (!closed) {
      String name = slot + "." + (++launch);
      Path dir = laneDir.resolve(name);
      Life life;
      try {
        Files.createDirectories(dir);
        long launchedAt = System.nanoTime();
        Process p = launcher.launch(name, dir);
        life = new Life(name, dir, p, launchedAt, System.nanoTime(), clock);
      } catch (IOException e) {
        failure = e;
        return;
      }
      lives.add(life);
      current = life;
      try {
        life.process.waitFor();
        life.exitNanos = System.nanoTime();
        current = null;
        long until = life.killedNanos != NONE ? downUntil : System.nanoTime() + RESTART_DELAY.toNanos();
        long wait = until - System.nanoTime();
        if (wait > 0) {
          TimeUnit.NANOSECONDS.sleep(wait);
        }
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  /** Stops supervising and SIGKILLs the running process (continued first, if stopped). */
  @Override
  public void close() {
    closed = true;
    supervisor.interrupt();
    Suspended s = stopped;
    if (s != null) {
      try {
        s.resume();
      } catch (IOException | InterruptedException | RuntimeException e) {
        // SIGKILL below ends a stopped process too; the bench's sweep ends its stopped children.
      }
    }
    try {
      supervisor.join(TimeUnit.SECONDS.toMillis(10));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    for (Life l : lives) {
      if (l.process.isAlive()) {
        l.process.destroyForcibly();
        try {
          l.process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    }
  }
}
