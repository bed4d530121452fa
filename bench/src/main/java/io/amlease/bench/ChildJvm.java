package io.amlease.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A holder in its own JVM, as the crash scenario and the randomized trials need one (to SIGKILL or
 * SIGSTOP it alone): the same {@code java} and class path as this JVM, a small heap, and C1 only —
 * several start at once on two cores, and start-up matters more here than peak speed. Its stderr
 * (logs) is discarded: its stdout is its report, and the benchmark's own stdout is the table.
 */
final class ChildJvm {
  private ChildJvm() {}

  static Process start(Class<?> main, String... args) throws IOException {
    return start(main.getName(), args);
  }

  /** The same, for a main class this module does not compile against (amlease-runner's). */
  static Process start(String main, String... args) throws IOException {
    List<String> cmd = new ArrayList<>(List.of(java(),
        "-Xmx128m", "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
        main));
    cmd.addAll(List.of(args));
    return new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
  }

  /** The {@code java} this JVM runs on. */
  static String java() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }
}
