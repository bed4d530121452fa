package io.amlease.process;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The command run under the lease (by {@code hold} and by the ApplicationMaster): stdout/stderr
 * passed through, stopped with SIGTERM then SIGKILL.
 */
public final class ChildProcess {
  private static final Logger LOG = LoggerFactory.getLogger(ChildProcess.class);
  private final Process process;

  private ChildProcess(Process process) {
    this.process = process;
  }

  public static ChildProcess start(List<String> command, Map<String, String> env) throws IOException {
    ProcessBuilder pb = new ProcessBuilder(command).inheritIO();
    pb.environment().putAll(env);
    return new ChildProcess(pb.start());
  }

  public long pid() {
    return process.pid();
  }

  /** Completes with the exit status (128+N when killed by signal N). */
  public CompletableFuture<Integer> onExit() {
    return process.onExit().thenApply(Process::exitValue);
  }

  /** Sends signal {@code name} (TERM, INT, …) to the child. */
  public void signal(String name) {
    if (!process.isAlive()) {
      return;
    }
    if ("TERM".equals(name)) {
      process.destroy();
      return;
    }
    try {
      // The JDK can only send TERM and KILL; kill(1) sends the others.
      new ProcessBuilder("kill", "-s", name, Long.toString(process.pid())).inheritIO().start()
          .waitFor(5, TimeUnit.SECONDS);
    } catch (IOException e) {
      LOG.warn("cannot send SIG{} to {}: {}", name, process.pid(), e.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Waits up to {@code stopTimeout} for the child to exit (after a signal was sent), then SIGKILLs it
   * and everything it started. Returns the exit status.
   */
  public int awaitOrKill(Duration stopTimeout) {
    try {
      return onExit().get(stopTimeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      LOG.warn("COMMAND (pid {}) still running {} after the stop signal; sending SIGKILL",
          process.pid(), io.amlease.lease.Durations.format(stopTimeout));
      List<ProcessHandle> tree = process.descendants().toList();
      process.destroyForcibly();
      tree.forEach(ProcessHandle::destroyForcibly);
      return onExit().join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
      return onExit().join();
    } catch (java.util.concurrent.ExecutionException e) {
      throw new IllegalStateException(e);
    }
  }

  /** SIGTERM, then SIGKILL after {@code stopTimeout}. Returns the exit status. */
  public int terminate(Duration stopTimeout) {
    signal("TERM");
    return awaitOrKill(stopTimeout);
  }
}
