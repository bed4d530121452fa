package io.amlease.process;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A process group on Linux, the unit a child is stopped as. A signal to {@code -PGID} reaches every
 * member atomically, including processes orphaned by a shell that already exited, which a walk of
 * the JVM's descendants misses. Membership is read from {@code /proc} because Java has no
 * {@code kill(-pgid, 0)}, and that call would count zombies as members anyway (an orphaned zombie
 * waits for init, which is not always prompt in containers).
 */
final class ProcessGroup {
  private static final Logger LOG = LoggerFactory.getLogger(ProcessGroup.class);
  private static final Path PROC = Path.of("/proc");
  private static final Duration POLL = Duration.ofMillis(50);

  private final long id;

  private ProcessGroup(long id) {
    this.id = id;
  }

  /**
   * The group {@code process} leads once {@code setsid} has made it a session leader. Waits for that
   * (the exec of {@code setsid} and its {@code setsid()} call take a millisecond or so), because until
   * then a signal to the group would reach nobody.
   *
   * @throws IOException when {@code process} does not lead its own group within {@code within}
   */
  static ProcessGroup ledBy(Process process, Duration within)
      throws IOException, InterruptedException {
    long deadline = System.nanoTime() + within.toNanos();
    while (true) {
      long pgid = statField(process.pid(), 2);
      // A process that already exited led its group for as long as it ran (setsid is its first act).
      if (pgid == process.pid() || !process.isAlive()) {
        return new ProcessGroup(process.pid());
      }
      if (System.nanoTime() - deadline > 0) {
        throw new IOException("pid " + process.pid() + " is not the leader of its own process group "
            + "(group " + pgid + ") " + within.toMillis() + " ms after 'setsid' started it");
      }
      TimeUnit.MILLISECONDS.sleep(1);
    }
  }

  long id() {
    return id;
  }

  /**
   * Waits until {@code process}, this group's leader, has stopped itself (SIGSTOP), or exited.
   *
   * @throws IOException when it neither stopped nor exited within {@code within}
   */
  void awaitStopped(Process process, Duration within) throws IOException, InterruptedException {
    awaitState(process, true, within, "did not stop itself");
  }

  /**
   * Waits until {@code process}, stopped, has been continued (by its reaper), or exited.
   *
   * @throws IOException when it is still stopped after {@code within}: its reaper never armed
   */
  void awaitContinued(Process process, Duration within) throws IOException, InterruptedException {
    awaitState(process, false, within, "was not continued by its reaper");
  }

  private static void awaitState(Process process, boolean stopped, Duration within, String failure)
      throws IOException, InterruptedException {
    long deadline = System.nanoTime() + within.toNanos();
    while (process.isAlive()) {
      String[] fields;
      try {
        fields = afterName(Files.readString(PROC.resolve(Long.toString(process.pid()))
            .resolve("stat")));
      } catch (IOException gone) {
        return;
      }
      if (fields.length > 0 && fields[0].equals("T") == stopped) {
        return;
      }
      if (System.nanoTime() - deadline > 0) {
        throw new IOException("pid " + process.pid() + " " + failure + " within "
            + within.toMillis() + " ms");
      }
      TimeUnit.MILLISECONDS.sleep(1);
    }
  }

  /**
   * Sends SIG{@code name} to every member; false when there was none (or kill failed). TERM and
   * KILL go to each member from this JVM (no fork: a fork fails when the group has used up
   * RLIMIT_NPROC); one sweep can miss a member forked meanwhile, which a later SIGKILL sweep gets.
   * Other signals need {@code kill(1)}, forked.
   */
  boolean signal(String name) {
    if ("TERM".equals(name) || "KILL".equals(name)) {
      return eachMember(name.equals("KILL"));
    }
    try {
      Process kill = new ProcessBuilder("kill", "-s", name, "--", "-" + id)
          .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
      if (!kill.waitFor(5, TimeUnit.SECONDS)) {
        kill.destroyForcibly();
        LOG.warn("kill -s {} -- -{} did not finish within 5s", name, id);
        return false;
      }
      return kill.exitValue() == 0;
    } catch (IOException e) {
      LOG.warn("cannot send SIG{} to process group {}: {}", name, id, e.toString());
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private boolean eachMember(boolean kill) {
    boolean any = false;
    try (DirectoryStream<Path> procs = Files.newDirectoryStream(PROC, ProcessGroup::isPid)) {
      for (Path proc : procs) {
        String[] fields;
        try {
          fields = afterName(Files.readString(proc.resolve("stat")));
        } catch (IOException gone) {
          continue;
        }
        if (fields.length > 2 && fields[2].equals(Long.toString(id))) {
          any |= ProcessHandle.of(Long.parseLong(proc.getFileName().toString()))
              .map(h -> kill ? h.destroyForcibly() : h.destroy()).orElse(false);
        }
      }
    } catch (IOException e) {
      LOG.warn("cannot list {} to signal process group {}: {}", PROC, id, e.toString());
    }
    return any;
  }

  /** True while a member that has not exited (a non-zombie) is left. */
  boolean alive() {
    try (DirectoryStream<Path> procs = Files.newDirectoryStream(PROC, ProcessGroup::isPid)) {
      for (Path proc : procs) {
        String[] fields;
        try {
          fields = afterName(Files.readString(proc.resolve("stat")));
        } catch (IOException gone) {
          continue;
        }
        if (fields.length > 2 && fields[2].equals(Long.toString(id))
            && !fields[0].equals("Z") && !fields[0].equals("X")) {
          return true;
        }
      }
      return false;
    } catch (IOException e) {
      // Without /proc the group cannot be watched; claiming it alive makes callers escalate to
      // SIGKILL at their deadline, the safe side.
      LOG.warn("cannot list {}: {}", PROC, e.toString());
      return true;
    }
  }

  /** Waits up to {@code within} for the group to be empty; true if it is. */
  boolean awaitGone(Duration within) {
    long deadline = System.nanoTime() + within.toNanos();
    while (alive()) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return false;
      }
      try {
        TimeUnit.NANOSECONDS.sleep(Math.min(left, POLL.toNanos()));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return !alive();
      }
    }
    return true;
  }

  @Override
  public String toString() {
    return Long.toString(id);
  }

  private static boolean isPid(Path p) {
    String name = p.getFileName().toString();
    return !name.isEmpty() && name.chars().allMatch(c -> c >= '0' && c <= '9');
  }

  /** Field {@code index} after the command name of {@code /proc/PID/stat}; -1 when gone. */
  private static long statField(long pid, int index) {
    try {
      String[] fields = afterName(Files.readString(PROC.resolve(Long.toString(pid))
          .resolve("stat")));
      return fields.length > index ? Long.parseLong(fields[index]) : -1;
    } catch (IOException | NumberFormatException e) {
      return -1;
    }
  }

  /**
   * state, ppid, pgrp, session, …: the command name may contain spaces and parentheses. Empty for
   * a file cut short (the process exited while it was read).
   */
  private static String[] afterName(String stat) {
    int end = stat.lastIndexOf(')');
    return end < 0 || end + 2 > stat.length() ? new String[0]
        : stat.substring(end + 2).split(" ", 5);
  }
}
