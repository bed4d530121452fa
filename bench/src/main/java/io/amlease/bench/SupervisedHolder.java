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
    volatile long killedNanos = NONE;
    volatile long exitNanos = NONE;

    Life(String name, Path dir, Process process, long startNanos) {
      this.name = name;
      this.dir = dir;
      this.process = process;
      this.startNanos = startNanos;
    }

    /** Killed, or exited: when it stopped being able to act for itself; NONE while it runs. */
    long endNanos() {
      return killedNanos != NONE ? killedNanos : exitNanos;
    }

    boolean ended() {
      return endNanos() != NONE;
    }
  }

  /** A process stopped by {@link #suspend()}, until {@link #resume()}. */
  final class Suspended {
    private final Life life;
    private final long from;

    private Suspended(Life life, long from) {
      this.life = life;
      this.from = from;
    }

    /** SIGCONT; the pause's inner bounds: after SIGSTOP was sent, before SIGCONT is. */
    History.Pause resume() throws IOException, InterruptedException {
      long to = System.nanoTime();
      try {
        ProcessSignals.send(life.process.pid(), "CONT");
      } catch (IllegalStateException e) {
        if (life.process.isAlive()) {
          throw e;
        }
        // Killed while stopped (a kill-holder fault): its pause ended with it.
      } finally {
        stopped = null;
      }
      return new History.Pause(life.name, from, to);
    }
  }

  private final String slot;
  private final Path laneDir;
  private final Launcher launcher;
  private final List<Life> lives = new CopyOnWriteArrayList<>();
  private final Thread supervisor;
  private volatile Life current;
  private volatile Life stopped;
  private volatile long downUntil = NONE;
  private volatile boolean closed;
  private volatile IOException failure;

  SupervisedHolder(String slot, Path laneDir, Launcher launcher) {
    this.slot = slot;
    this.laneDir = laneDir;
    this.launcher = launcher;
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
    List<ActorLogs.Edge> edges = ActorLogs.edges(l.dir);
    return !edges.isEmpty() && edges.get(edges.size() - 1).granted();
  }

  /** SIGSTOP to the running process; empty when there is none. */
  Optional<Suspended> suspend() throws IOException, InterruptedException {
    Life l = current;
    if (l == null || !l.process.isAlive()) {
      return Optional.empty();
    }
    // Set first: should the signal fail half-way, close() still continues the process.
    stopped = l;
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
    return Optional.of(new Suspended(l, System.nanoTime()));
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
        life = new Life(name, dir, launcher.launch(name, dir), System.nanoTime());
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
    Life s = stopped;
    if (s != null) {
      try {
        ProcessSignals.send(s.process.pid(), "CONT");
      } catch (IOException | InterruptedException | RuntimeException e) {
        // SIGKILL below ends a stopped process too.
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
