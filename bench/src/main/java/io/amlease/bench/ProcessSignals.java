package io.amlease.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * Signals to processes the bench started, by pid. The JDK sends only TERM and KILL, so STOP and CONT
 * go through {@code kill -s}; amlease-runner's {@code io.amlease.process.Signals} only receives them.
 * Processes the bench did not start itself (the grandchildren of a holder's COMMAND) are found by
 * the run's token in their command line, never by name.
 */
final class ProcessSignals {
  private ProcessSignals() {}

  /** {@code kill -s NAME pid}. */
  static void send(long pid, String name) throws IOException, InterruptedException {
    Process kill = new ProcessBuilder("kill", "-s", name, Long.toString(pid))
        .redirectErrorStream(true).start();
    String said = new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    if (kill.waitFor() != 0) {
      throw new IllegalStateException("kill -s " + name + " " + pid + " failed: " + said);
    }
  }

  /**
   * {@code kill -s NAME pid…} in one process, so that the signals go out together; whether every
   * pid got it (one that has exited meanwhile does not, and the others still do).
   */
  static boolean sendAll(List<Long> pids, String name) throws IOException, InterruptedException {
    if (pids.isEmpty()) {
      return true;
    }
    List<String> cmd = new ArrayList<>(List.of("kill", "-s", name));
    pids.forEach(p -> cmd.add(Long.toString(p)));
    Process kill = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    kill.getInputStream().readAllBytes();
    return kill.waitFor() == 0;
  }

  /** SIGKILL to {@code pid} if it is alive and its command line carries {@code token}. */
  static boolean killIfMarked(long pid, String token) {
    if (!marked(pid, token)) {
      return false;
    }
    return ProcessHandle.of(pid).map(ProcessHandle::destroyForcibly).orElse(false);
  }

  /** Every live process whose command line carries {@code token}. */
  static List<Long> marked(String token) {
    List<Long> out = new ArrayList<>();
    try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
      procs.map(p -> p.getFileName().toString()).filter(n -> n.chars().allMatch(Character::isDigit))
          .mapToLong(Long::parseLong).filter(pid -> marked(pid, token)).forEach(out::add);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return out;
  }

  private static boolean marked(long pid, String token) {
    try {
      byte[] cmdline = Files.readAllBytes(Path.of("/proc", Long.toString(pid), "cmdline"));
      return new String(cmdline, StandardCharsets.ISO_8859_1).contains(token);
    } catch (IOException e) {
      return false;
    }
  }
}
